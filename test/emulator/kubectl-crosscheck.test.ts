// The real kubectl against the emulator: if kubectl's own table printing, apply, patch, delete --wait
// and error reporting work unmodified, the emulator speaks the apiserver's protocol where kubectl
// looks. kubectl is found on PATH; without it every test here is skipped, saying why (test/tools.ts).
// Each kubectl runs with a temporary HOME (its discovery cache lives there) and its own KUBECONFIG.
import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {after, before, describe, test} from 'node:test'

import {startEmulator, type Emulator, type K8sObject} from './emulator.js'
import {pv, pvc} from './fixtures.js'
import {tempDir} from '../temp-dir.js'
import {findTool, skipWithout} from '../tools.js'

/** The last element matching (Array.prototype.findLast is ES2023, past this project's lib). */
function lastOf<T>(items: readonly T[], pred: (item: T) => boolean): T | undefined {
  for (let i = items.length - 1; i >= 0; i--) if (pred(items[i])) return items[i]
  return undefined
}

const SKIP = skipWithout('kubectl', 'the kubectl cross-check (test/emulator/kubectl-crosscheck.test.ts)')
const KUBECTL = findTool('kubectl')

// A fixed server clock makes the AGE column deterministic: everything seeded is an hour old.
const NOW = new Date('2025-01-01T12:00:00Z')
const HOUR_AGO = '2025-01-01T11:00:00Z'
const aged = (o: K8sObject): K8sObject => ({...o, metadata: {...o.metadata, creationTimestamp: HOUR_AGO}})

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

interface Kubectl {
  (args: string[], opts?: {timeoutMs?: number}): Promise<Run>
  kubeconfig: string
}

/** A kubectl bound to one emulator and one user, with its own HOME and KUBECONFIG. */
function kubectlFor(api: Emulator, home: string, opts: {token?: string; name: string}): Kubectl {
  const kubeconfig = path.join(home, `${opts.name}.kubeconfig`)
  writeFileSync(kubeconfig, api.kubeconfig({token: opts.token, namespace: 'default'}))
  const run = (args: string[], runOpts: {timeoutMs?: number} = {}) =>
    new Promise<Run>((resolve, reject) => {
      // A clean environment: nothing from the developer's kubectl setup may leak in.
      const env = {PATH: process.env.PATH ?? '', HOME: home, KUBECONFIG: kubeconfig, LANG: 'C'}
      const child = spawn(KUBECTL!, args, {env, stdio: ['ignore', 'pipe', 'pipe']})
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (c) => (stdout += c))
      child.stderr.on('data', (c) => (stderr += c))
      const timer = setTimeout(() => child.kill('SIGKILL'), runOpts.timeoutMs ?? 20_000)
      child.on('error', reject)
      child.on('close', (code) => {
        clearTimeout(timer)
        resolve({code, stdout, stderr})
      })
    })
  return Object.assign(run, {kubeconfig})
}

describe('kubectl against the emulator (http)', {skip: SKIP}, () => {
  let api: Emulator
  let home: string
  let kubectl: Kubectl

  before(async () => {
    api = await startEmulator({
      clock: () => NOW,
      objects: [
        aged(pv('pv1', {labels: {tier: 'gold'}, phase: 'Bound', claim: 'default/c1'})),
        aged(pv('pv2', {storage: '5Gi'})),
        aged(pv('guarded', {finalizers: ['example.com/hold']})),
        aged(pv('guarded2', {finalizers: ['example.com/hold']})),
        aged(pvc('default', 'c1', {volumeName: 'pv1', phase: 'Bound'})),
        aged(pvc('team-b', 'c2')),
      ],
    })
    home = tempDir('kubectl-home')
    kubectl = kubectlFor(api, home, {name: 'admin'})
  })
  after(async () => {
    await api.stop()
    rmSync(home, {recursive: true, force: true})
  })

  test('get pv prints the server-side Table', async () => {
    const r = await kubectl(['get', 'pv'])
    assert.equal(r.stderr, '')
    assert.equal(r.code, 0)
    assert.equal(
      r.stdout,
      [
        'NAME       CAPACITY   ACCESS MODES   RECLAIM POLICY   STATUS      CLAIM        STORAGECLASS   VOLUMEATTRIBUTESCLASS   REASON   AGE',
        'guarded    10Gi       RWO            Retain           Available                standard       <unset>                          60m',
        'guarded2   10Gi       RWO            Retain           Available                standard       <unset>                          60m',
        'pv1        10Gi       RWO            Retain           Bound       default/c1   standard       <unset>                          60m',
        'pv2        5Gi        RWO            Retain           Available                standard       <unset>                          60m',
        '',
      ].join('\n'),
    )
    // kubectl asked for a Table, in pages of 500.
    const list = lastOf(api.requests, (q) => q.verb === 'list' && q.resource === 'persistentvolumes')!
    assert.match(list.query, /limit=500/)
  })

  test('get pv --chunk-size=1 follows continue tokens through Tables', async () => {
    api.clearRequests()
    const r = await kubectl(['get', 'pv', '--chunk-size=1', '-o', 'name'])
    assert.equal(r.code, 0, r.stderr)
    assert.equal(
      r.stdout,
      'persistentvolume/guarded\npersistentvolume/guarded2\npersistentvolume/pv1\npersistentvolume/pv2\n',
    )
    assert.equal(api.countRequests({verb: 'list', resource: 'pv'}), 4)
  })

  test('get pv -l selects by label; -o wide shows the priority-1 column', async () => {
    assert.equal((await kubectl(['get', 'pv', '-l', 'tier=gold', '-o', 'name'])).stdout, 'persistentvolume/pv1\n')
    const wide = await kubectl(['get', 'pv', 'pv2', '-o', 'wide'])
    assert.match(wide.stdout.split('\n')[0], /AGE\s+VOLUMEMODE$/)
    assert.match(wide.stdout.split('\n')[1], /Filesystem$/)
  })

  test('get pvc -A -o json lists claims across namespaces', async () => {
    const r = await kubectl(['get', 'pvc', '-A', '-o', 'json'])
    assert.equal(r.code, 0, r.stderr)
    const list = JSON.parse(r.stdout)
    assert.equal(list.kind, 'List')
    assert.deepEqual(
      list.items.map((i: K8sObject) => [i.kind, i.metadata.namespace, i.metadata.name]),
      [
        ['PersistentVolumeClaim', 'default', 'c1'],
        ['PersistentVolumeClaim', 'team-b', 'c2'],
      ],
    )
    const req = lastOf(api.requests, (q) => q.verb === 'list')!
    assert.equal(req.path, '/api/v1/persistentvolumeclaims')
  })

  test("get pv of a missing object: exit 1 and the server's NotFound message", async () => {
    const r = await kubectl(['get', 'pv', 'missing'])
    assert.equal(r.code, 1)
    assert.equal(r.stdout, '')
    assert.equal(r.stderr, 'Error from server (NotFound): persistentvolumes "missing" not found\n')
  })

  test('apply -f creates, then patches with a strategic merge patch, then has nothing to do', async () => {
    const file = path.join(home, 'applied.yaml')
    const manifest = (storage: string) => `apiVersion: v1
kind: PersistentVolume
metadata:
  name: applied
  labels: {origin: kubectl}
spec:
  capacity: {storage: ${storage}}
  accessModes: [ReadWriteOnce]
  nfs: {server: nfs.example.com, path: /exports/applied}
`
    writeFileSync(file, manifest('1Gi'))
    const created = await kubectl(['apply', '-f', file])
    assert.equal(created.code, 0, created.stderr)
    assert.equal(created.stdout, 'persistentvolume/applied created\n')
    const stored = api.get('pv', null, 'applied')!
    assert.ok(stored.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'])
    assert.equal((stored.status as {phase: string}).phase, 'Pending')

    writeFileSync(file, manifest('2Gi'))
    const configured = await kubectl(['apply', '-f', file])
    assert.equal(configured.stdout, 'persistentvolume/applied configured\n', configured.stderr)
    assert.equal((api.get('pv', null, 'applied')!.spec as {capacity: {storage: string}}).capacity.storage, '2Gi')
    const patch = lastOf(api.requests, (q) => q.method === 'PATCH')!
    assert.equal(patch.contentType, 'application/strategic-merge-patch+json')
    assert.match(patch.query, /fieldManager=kubectl-client-side-apply/)

    api.clearRequests()
    const unchanged = await kubectl(['apply', '-f', file])
    assert.equal(unchanged.stdout, 'persistentvolume/applied unchanged\n')
    assert.equal(api.countWrites(), 0)
  })

  test('apply --validate=false works without any OpenAPI', async () => {
    const file = path.join(home, 'claim.yaml')
    writeFileSync(
      file,
      'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c3}\nspec:\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n',
    )
    api.clearRequests()
    const r = await kubectl(['apply', '--validate=false', '-f', file])
    assert.equal(r.stdout, 'persistentvolumeclaim/c3 created\n', r.stderr)
    assert.equal(api.countRequests({resource: 'pvc', verb: 'create', namespace: 'default'}), 1)
    assert.equal(api.requests.filter((q) => q.path.startsWith('/openapi')).length, 0)
  })

  test('patch pv --type merge', async () => {
    const args = ['patch', 'pv', 'pv2', '--type', 'merge', '-p', '{"spec":{"persistentVolumeReclaimPolicy":"Delete"}}']
    const r = await kubectl(args)
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout, 'persistentvolume/pv2 patched\n')
    assert.equal(
      (api.get('pv', null, 'pv2')!.spec as {persistentVolumeReclaimPolicy: string}).persistentVolumeReclaimPolicy,
      'Delete',
    )
    const again = await kubectl(args)
    assert.equal(again.stdout, 'persistentvolume/pv2 patched (no change)\n', 'a no-op patch keeps the resourceVersion')
  })

  test('patch pvc --subresource=status changes the status only', async () => {
    const r = await kubectl([
      'patch',
      'pvc',
      'c3',
      '--subresource=status',
      '--type',
      'merge',
      '-p',
      '{"status":{"phase":"Bound"},"spec":{"volumeName":"x"}}',
    ])
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout, 'persistentvolumeclaim/c3 patched\n')
    const claim = api.get('pvc', 'default', 'c3')!
    assert.equal((claim.status as {phase: string}).phase, 'Bound')
    assert.equal((claim.spec as {volumeName?: string}).volumeName, undefined)
    assert.equal(lastOf(api.requests, (q) => q.method === 'PATCH')!.subresource, 'status')
  })

  test('delete of an object with a finalizer marks it; it goes once the finalizer is removed', async () => {
    const del = await kubectl(['delete', 'pv', 'guarded', '--wait=false'])
    assert.equal(del.code, 0, del.stderr)
    assert.equal(del.stdout, 'persistentvolume "guarded" deleted\n')
    const marked = api.get('pv', null, 'guarded')!
    assert.equal(marked.metadata.deletionTimestamp, NOW.toISOString().replace('.000Z', 'Z'))
    assert.equal(marked.metadata.deletionGracePeriodSeconds, 0)
    assert.match(
      (await kubectl(['get', 'pv', 'guarded', '--no-headers'])).stdout,
      /^guarded\s+10Gi\s+RWO\s+Retain\s+Terminating\s/,
    )

    const unfinalize = await kubectl([
      'patch',
      'pv',
      'guarded',
      '--type',
      'json',
      '-p',
      '[{"op":"remove","path":"/metadata/finalizers"}]',
    ])
    assert.equal(unfinalize.stdout, 'persistentvolume/guarded patched\n', unfinalize.stderr)
    const gone = await kubectl(['get', 'pv', 'guarded'])
    assert.equal(gone.code, 1)
    assert.equal(gone.stderr, 'Error from server (NotFound): persistentvolumes "guarded" not found\n')
  })

  test('delete waits (a watch on the name) until a controller removes the finalizer', async () => {
    api.clearRequests()
    const pending = kubectl(['delete', 'pv', 'guarded2', '--timeout=15s'])
    // Play the controller: once kubectl has marked the volume, drop its finalizer server-side.
    const deadline = Date.now() + 10_000
    while (!api.get('pv', null, 'guarded2')?.metadata.deletionTimestamp) {
      assert.ok(Date.now() < deadline, 'kubectl never sent the DELETE')
      await new Promise((r) => setTimeout(r, 20))
    }
    await new Promise((r) => setTimeout(r, 300))
    const marked = api.get('pv', null, 'guarded2')!
    api.update({...marked, metadata: {...marked.metadata, finalizers: []}})
    const r = await pending
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout, 'persistentvolume "guarded2" deleted\n')
    const watch = api.requests.find((q) => q.verb === 'watch')
    assert.ok(watch, 'kubectl watched for the deletion')
    assert.match(decodeURIComponent(watch.query), /fieldSelector=metadata\.name=guarded2/)
  })

  test('a 429 with Retry-After is retried by kubectl', async () => {
    const fault = api.faults.add({
      verb: 'list',
      resource: 'pv',
      count: 1,
      effect: {type: 'throttle', retryAfterSeconds: 1},
    })
    api.clearRequests()
    const r = await kubectl(['get', 'pv', '-l', 'tier=gold', '-o', 'name'])
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout, 'persistentvolume/pv1\n')
    assert.equal(fault.fired, 1)
    assert.deepEqual(
      api.requests.filter((q) => q.verb === 'list').map((q) => q.status),
      [429, 200],
    )
  })

  test('over plain http kubectl sends no credentials, even with a token in the kubeconfig', async () => {
    const locked = await startEmulator({tokens: {secret: {user: 'alice'}}})
    try {
      const k = kubectlFor(locked, home, {name: 'http-token', token: 'secret'})
      const r = await k(['get', 'pv'])
      assert.equal(r.code, 1)
      assert.match(
        r.stderr,
        /error: You must be logged in to the server \(the server has asked for the client to provide credentials\)/,
      )
      assert.ok(
        locked.requests.every((q) => q.user === ''),
        'every request was unauthenticated',
      )
    } finally {
      await locked.stop()
    }
  })
})

describe('kubectl against the emulator (https, tokens)', {skip: SKIP}, () => {
  let api: Emulator
  let home: string

  before(async () => {
    api = await startEmulator({
      tls: true,
      objects: [pv('pv1')],
      tokens: {
        'alice-token': {user: 'alice', deny: [{verb: 'patch', resource: 'persistentvolumes'}]},
        'admin-token': {user: 'admin'},
      },
    })
    home = tempDir('kubectl-home')
  })
  after(async () => {
    await api.stop()
    rmSync(home, {recursive: true, force: true})
  })

  test('a denied verb is Forbidden with the real message', async () => {
    const alice = kubectlFor(api, home, {name: 'alice', token: 'alice-token'})
    const r = await alice(['patch', 'pv', 'pv1', '--type', 'merge', '-p', '{"metadata":{"labels":{"a":"b"}}}'])
    assert.equal(r.code, 1)
    assert.equal(
      r.stderr,
      'Error from server (Forbidden): persistentvolumes "pv1" is forbidden: User "alice" cannot patch resource "persistentvolumes" in API group "" at the cluster scope\n',
    )
    assert.equal(api.countWrites({user: 'alice'}), 1, 'the PATCH reached the server and was refused')
    assert.equal(api.get('pv', null, 'pv1')!.metadata.labels, undefined)
  })

  test('auth can-i asks a SelfSubjectAccessReview (sent as protobuf)', async () => {
    const alice = kubectlFor(api, home, {name: 'alice', token: 'alice-token'})
    const no = await alice(['auth', 'can-i', 'patch', 'persistentvolumes'])
    assert.deepEqual([no.code, no.stdout], [1, 'no\n'])
    const yes = await alice(['auth', 'can-i', 'get', 'persistentvolumes'])
    assert.deepEqual([yes.code, yes.stdout], [0, 'yes\n'])
    const review = lastOf(api.requests, (q) => q.resource === 'selfsubjectaccessreviews')!
    assert.equal(review.contentType, 'application/vnd.kubernetes.protobuf')
  })

  test('create namespace (a protobuf body) and get it back', async () => {
    const admin = kubectlFor(api, home, {name: 'admin', token: 'admin-token'})
    const r = await admin(['create', 'namespace', 'team-c'])
    assert.equal(r.stdout, 'namespace/team-c created\n', r.stderr)
    assert.equal((await admin(['get', 'ns', 'team-c', '-o', 'jsonpath={.status.phase}'])).stdout, 'Active')
  })

  test('an unknown token is Unauthorized; a known one works', async () => {
    const stranger = kubectlFor(api, home, {name: 'stranger', token: 'wrong'})
    const r = await stranger(['get', 'pv'])
    assert.equal(r.code, 1)
    // kubectl words a 401 on discovery and a 401 on the resource differently; which one comes first
    // depends on whether this HOME already has the discovery cache.
    assert.match(
      r.stderr,
      /error: You must be logged in to the server \((Unauthorized|the server has asked for the client to provide credentials)\)\n$/,
    )
    assert.equal(lastOf(api.requests, () => true)!.status, 401)
    const admin = kubectlFor(api, home, {name: 'admin', token: 'admin-token'})
    const ok = await admin(['patch', 'pv', 'pv1', '--type', 'merge', '-p', '{"metadata":{"labels":{"a":"b"}}}'])
    assert.equal(ok.stdout, 'persistentvolume/pv1 patched\n', ok.stderr)
  })
})
