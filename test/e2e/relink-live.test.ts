// `pvctl relink` against a live API over real HTTPS: the built CLI, @kubernetes/client-node and the
// API-server emulator. Each test starts a fresh emulator holding examples/relink.yaml: shop/db restored by
// Velero with a new uid, naming pv-0004 whose claimRef holds the old one; shop/logs Lost with its
// spec.volumeName cleared and pv-0006 naming it with the old uid; shop/sessions Lost, its volume gone.
import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {runCli} from '../cli/run-cli.js'
import {type Emulator, startEmulator} from '../emulator/emulator.js'
import {tempDir} from '../temp-dir.js'

const dir = tempDir('relink')
const {state: snapshot} = await loadSnapshot('examples/relink.yaml')

async function relinkCluster(dirName = dir): Promise<{api: Emulator; kubeconfig: string}> {
  const api = await startEmulator({
    tls: true,
    listItemTypeMeta: false,
    objects: structuredClone([...snapshot.classes, ...snapshot.volumes, ...snapshot.claims]) as never,
  })
  const kubeconfig = path.join(dirName, `kubeconfig-${api.port}.yaml`)
  writeFileSync(kubeconfig, api.kubeconfig())
  return {api, kubeconfig}
}

const pvctl = (kubeconfig: string, ...args: string[]) =>
  runCli([...args, '--kubeconfig', kubeconfig], {env: {HOME: dir}})
type Volume = {metadata: {resourceVersion: string}; spec: {claimRef?: Record<string, string>}; status: {phase: string}}
type Claim = {metadata: {uid: string}; spec: {volumeName?: string}; status: {phase: string}}
const pv = (api: Emulator, name: string) => api.get('pv', null, name) as unknown as Volume
const pvc = (api: Emulator, name: string) => api.get('pvc', 'shop', name) as unknown as Claim

/** The pair is bound both ways, by the claim's uid. */
function assertBound(api: Emulator, volume: string, claim: string): void {
  const c = pvc(api, claim)
  assert.equal(c.spec.volumeName, volume)
  assert.equal(c.status.phase, 'Bound')
  assert.equal(pv(api, volume).spec.claimRef?.uid, c.metadata.uid)
  assert.equal(pv(api, volume).status.phase, 'Bound')
}

test('a restored claim and its volume with a uid mismatch: relinked (one PUT of the volume), then pvctl sync binds them', async () => {
  const {api, kubeconfig} = await relinkCluster()
  try {
    const run = await pvctl(kubeconfig, 'relink', 'pvc/db', '-n', 'shop', '--yes', '-o', 'json')
    assert.equal(run.code, 0, run.stderr)
    const report = JSON.parse(run.stdout)
    assert.deepEqual(
      report.pairs[0].writes.map((w: {object: {name: string}; outcome: string}) => [w.object.name, w.outcome]),
      [['pv-0004', 'written']],
    )
    assert.equal(report.pairs[0].next, 'the next sync binds pvc/shop/db to pv-0004')
    assert.match(
      run.stderr,
      /pv\/pv-0004 written \(resourceVersion \d+\): the next sync binds pvc\/shop\/db to pv-0004/,
    )
    assert.deepEqual(pv(api, 'pv-0004').spec.claimRef, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      name: 'db',
      namespace: 'shop',
      uid: pvc(api, 'db').metadata.uid,
    })
    assert.equal(api.countWrites({resource: 'pv'}), 1)
    assert.equal(api.countWrites({resource: 'pvc'}), 0)

    const sync = await pvctl(kubeconfig, 'sync', 'pvc/db', '-n', 'shop', '--yes')
    assert.equal(sync.code, 0, sync.stderr)
    assertBound(api, 'pv-0004', 'db')
  } finally {
    await api.stop()
  }
})

test('--sync: a Lost claim that lost its spec.volumeName: the volume, then the claim, then the sync binds them', async () => {
  const {api, kubeconfig} = await relinkCluster()
  try {
    const run = await pvctl(kubeconfig, 'relink', 'pvc/logs', '-n', 'shop', '--yes', '--sync')
    assert.equal(run.code, 0, run.stderr)
    const writes = api.requests
      .filter((r) => r.verb === 'update')
      .map((r) => `${r.resource}/${r.subresource ?? ''} ${r.name}`)
    assert.deepEqual(
      writes.slice(0, 2),
      ['persistentvolumes/ pv-0006', 'persistentvolumeclaims/ logs'],
      'the volume first',
    )
    assert.match(run.stdout, /^Sync: \d+ writes?: /m)
    assertBound(api, 'pv-0006', 'logs')
  } finally {
    await api.stop()
  }
})

test('--dry-run makes no write request', async () => {
  const {api, kubeconfig} = await relinkCluster()
  try {
    api.clearRequests()
    const run = await pvctl(kubeconfig, 'relink', '--all', '--dry-run')
    assert.equal(run.code, 1, run.stderr)
    assert.match(run.stdout, /^Write \(planned\): pv\/pv-0006/m)
    assert.ok(api.requests.length > 0, 'the state was read')
    assert.equal(api.countWrites(), 0, 'no write')
    // Lists of the state, and the API server's /version: the release the relink is decided as.
    assert.deepEqual([...new Set(api.requests.filter((r) => r.resource !== '').map((r) => r.verb))].sort(), ['list'])
    assert.deepEqual(
      api.requests.filter((r) => r.resource === '').map((r) => `${r.method} ${r.path}`),
      ['GET /version'],
    )
  } finally {
    await api.stop()
  }
})

test('a refused pair writes nothing, exit 2', async () => {
  const {api, kubeconfig} = await relinkCluster()
  try {
    const run = await pvctl(kubeconfig, 'relink', 'pvc/sessions', '-n', 'shop', '--yes')
    assert.equal(run.code, 2, run.stderr)
    assert.match(run.stderr, /VolumeExists: volume pv-0007/)
    assert.equal(api.countWrites(), 0)
  } finally {
    await api.stop()
  }
})

test('a conflict on the claim after the volume was written reads again and writes the claim alone', async () => {
  const {api, kubeconfig} = await relinkCluster()
  try {
    api.faults.add({verb: 'update', resource: 'pvc', name: 'logs', count: 1, effect: {type: 'conflict'}})
    const run = await pvctl(kubeconfig, 'relink', 'pvc/logs', '-n', 'shop', '--yes')
    assert.equal(run.code, 0, run.stderr)
    assert.equal(api.countRequests({verb: 'update', resource: 'pv', name: 'pv-0006'}), 1, 'the volume once')
    assert.equal(
      api.countRequests({verb: 'update', resource: 'pvc', name: 'logs'}),
      2,
      'the claim again after the conflict',
    )
    assert.equal(pvc(api, 'logs').spec.volumeName, 'pv-0006')
  } finally {
    await api.stop()
  }
})

test('without a terminal and without --yes: refused, nothing written', async () => {
  const {api, kubeconfig} = await relinkCluster()
  try {
    const run = await pvctl(kubeconfig, 'relink', 'pvc/db', '-n', 'shop')
    assert.equal(run.code, 2, run.stderr)
    assert.match(run.stderr, /refusing to write without confirmation/)
    assert.equal(api.countWrites(), 0)
  } finally {
    await api.stop()
  }
})

test('a claim re-created between the load and the write: the guard reads it again and writes nothing, exit 3', async () => {
  const {api, kubeconfig} = await relinkCluster()
  try {
    // Another writer, just before the guard reads the volume again: shop/db deleted and created anew.
    const recreate = () => {
      const claim = api.get('pvc', 'shop', 'db') as unknown as {metadata: Record<string, unknown>}
      api.delete('pvc', 'shop', 'db')
      api.create({...claim, metadata: {name: 'db', namespace: 'shop'}} as never)
    }
    api.faults.add({verb: 'get', resource: 'pv', name: 'pv-0004', count: 1, effect: {type: 'hook', run: recreate}})
    const run = await pvctl(kubeconfig, 'relink', 'pvc/db', '-n', 'shop', '--yes')
    assert.equal(run.code, 3, run.stderr)
    assert.match(run.stderr, /not written: pv\/pv-0004 or pvc\/shop\/db was re-created since it was read/)
    assert.equal(api.countWrites({resource: 'pv'}), 0)
  } finally {
    await api.stop()
  }
})

test('a claim naming the volume created between the load and the write: the guard lists the claims again and writes nothing, exit 3', async () => {
  const {api, kubeconfig} = await relinkCluster()
  try {
    // Another writer, just before the guard reads the volume again: a claim of another namespace names pv-0004.
    const intrude = () => {
      api.create({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: {name: 'intruder', namespace: 'other'},
        spec: {
          accessModes: ['ReadWriteOnce'],
          resources: {requests: {storage: '1Gi'}},
          volumeName: 'pv-0004',
          storageClassName: '',
        },
      } as never)
    }
    api.faults.add({verb: 'get', resource: 'pv', name: 'pv-0004', count: 1, effect: {type: 'hook', run: intrude}})
    const run = await pvctl(kubeconfig, 'relink', 'pvc/db', '-n', 'shop', '--yes')
    assert.equal(run.code, 3, run.stderr)
    assert.match(run.stderr, /not written: .*NoOtherClaim/)
    assert.equal(api.countWrites({resource: 'pv'}), 0)
  } finally {
    await api.stop()
  }
})
