// A live `pvctl audit -n NS` (or -l) reads the whole cluster, as the audit without a scope does, and reports
// the objects of its scope with exactly the findings that audit gives them; where the cluster-wide list is
// refused it says so (exit 3) rather than judge the namespace without the others. Through the built CLI,
// against the API-server emulator.
import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {after, before, describe, test} from 'node:test'

import {stringify} from 'yaml'

import {runCli, tempDir} from '../cli/run-cli.js'
import {type Emulator, startEmulator} from '../emulator/emulator.js'
import {loadObjects} from '../emulator/load-objects.js'

type Json = Record<string, any>

const TOKEN = 'e2e-scope-token-7f21'
const ADMIN = 'e2e-scope-admin-3c90'
const dir = tempDir('e2e-audit-scope')
let api: Emulator
let kubeconfig: string
let refusing: string
const snapshot = path.join(dir, 'cluster.yaml')

// One volume without a class and two claims that fit it: a-team/first is synced first (namespace order)
// and takes it; shop/second is left with nothing. Read alone, shop would bind it.
const claim = (namespace: string, name: string) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: {namespace, name, uid: `uid-${namespace}-${name}`, labels: {app: name}},
  spec: {accessModes: ['ReadWriteOnce'], resources: {requests: {storage: '10Gi'}}, storageClassName: ''},
  status: {phase: 'Pending'},
})
const objects = [
  {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {name: 'pv-x', uid: 'uid-pv-x'},
    spec: {
      accessModes: ['ReadWriteOnce'],
      capacity: {storage: '10Gi'},
      hostPath: {path: '/tmp/x'},
      persistentVolumeReclaimPolicy: 'Retain',
    },
    status: {phase: 'Available'},
  },
  claim('a-team', 'first'),
  claim('shop', 'second'),
]

before(async () => {
  writeFileSync(snapshot, stringify({apiVersion: 'v1', kind: 'List', items: objects}))
  // Alice may list claims and pods in a namespace, not at the cluster scope.
  const denied = ['persistentvolumeclaims', 'pods'].map((resource) => ({
    verb: 'list' as const,
    resource,
    namespace: '',
  }))
  api = await startEmulator({
    tls: true,
    objects: loadObjects(snapshot),
    tokens: {[TOKEN]: {user: 'alice', deny: denied}, [ADMIN]: {user: 'admin'}},
  })
  kubeconfig = path.join(dir, 'kubeconfig.yaml')
  writeFileSync(kubeconfig, api.kubeconfig({name: 'scope', token: ADMIN}))
  refusing = path.join(dir, 'refusing.yaml')
  writeFileSync(refusing, api.kubeconfig({name: 'scope', token: TOKEN}))
})

after(async () => {
  await api.stop()
})

const audit = (config: string, ...args: string[]) =>
  runCli(['audit', '--kubeconfig', config, '-o', 'json', ...args], {env: {HOME: dir}})
const findings = (stdout: string) =>
  ((JSON.parse(stdout) as Json).findings as Json[]).map((f) => `${f.code} ${f.object.namespace ?? ''}/${f.object.name}`)

describe('a live scoped audit reads the whole cluster', () => {
  test('-n shop: shop/second matches no volume, as the unscoped audit says (a-team/first takes pv-x first)', async () => {
    const whole = await audit(kubeconfig)
    assert.equal(whole.code, 1, whole.stderr)
    assert.deepEqual(findings(whole.stdout), ['ClaimNoMatchingVolume shop/second'])
    for (const scope of [
      ['-n', 'shop'],
      ['-l', 'app=second'],
      ['pvc/second', '-n', 'shop'],
    ]) {
      const scoped = await audit(kubeconfig, ...scope)
      assert.equal(scoped.code, 1, scoped.stderr)
      assert.deepEqual(findings(scoped.stdout), ['ClaimNoMatchingVolume shop/second'], scope.join(' '))
      // The same as the snapshot of the same cluster under the same scope.
      const fromFile = await runCli(['audit', '-f', snapshot, '-o', 'json', ...scope], {env: {HOME: dir}})
      assert.deepEqual(findings(fromFile.stdout), findings(scoped.stdout), `${scope.join(' ')} -f`)
    }
    // The bind of a-team/first writes its claim and pv-x, which then points into a-team: planned there, not in shop.
    const ateam = await audit(kubeconfig, '-n', 'a-team')
    assert.deepEqual(findings(ateam.stdout), [])
    assert.equal((JSON.parse(ateam.stdout) as Json).summary.plannedWrites, 4)
    assert.equal((JSON.parse((await audit(kubeconfig, '-n', 'shop')).stdout) as Json).summary.plannedWrites, 0)
  })

  test('-n shop without the right to list claims in every namespace: exit 3, saying what is missing', async () => {
    const r = await audit(refusing, '-n', 'shop')
    assert.equal(r.code, 3)
    assert.equal(r.stdout, '')
    assert.match(
      r.stderr,
      /a scoped audit is judged on the whole cluster .* listing (persistentvolumeclaims|pods) in every namespace was refused/,
    )
    assert.match(r.stderr, /kubectl auth can-i list (persistentvolumeclaims|pods) --all-namespaces/)
  })
})
