// The executor against an in-memory API with the server's write semantics: it reaches the state the
// simulation predicts, keeps a concurrent writer's change, stops on a forbidden write, stops issuing
// writes when aborted, and never writes from a stale read.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import {claimKey, type ClusterState} from '../../src/engine/api/model.js'
import {refOfVolume} from '../../src/engine/simulation/plan.js'
import {reconcile} from '../../src/engine/simulation/reconcile.js'
import {PodsByClaim, stateForSync, type SyncSources, VolumeCache} from '../../src/engine/simulation/sync-slice.js'
import {executeSync} from '../../src/executor/executor.js'
import {bound, byController, pv, pvc, state} from '../engine/builders.js'
import {FakeClusterApi} from './fake-api.js'

const opts = {
  gates: defaultFeatureGates,
  maxRounds: 100,
  concurrency: 4,
  events: true,
  now: () => new Date('2026-11-30T10:00:00Z'),
}

/** Objects without resourceVersion, for comparing a simulation with a live result. */
function strip(s: ClusterState): unknown {
  const clean = (o: {metadata: {resourceVersion?: string}}) => {
    const c = structuredClone(o) as {
      metadata: {resourceVersion?: string}
      spec?: {claimRef?: {resourceVersion?: string}}
    }
    delete c.metadata.resourceVersion
    if (c.spec?.claimRef) delete c.spec.claimRef.resourceVersion
    return c
  }
  const byName = (
    a: {metadata: {name?: string; namespace?: string}},
    b: {metadata: {name?: string; namespace?: string}},
  ) => `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`)
  return {volumes: [...s.volumes].sort(byName).map(clean), claims: [...s.claims].sort(byName).map(clean)}
}

test('the bundled example: the live result equals the simulation, and a second run has nothing to do', async () => {
  const {state: example} = await loadSnapshot('examples/cluster.yaml')
  const api = new FakeClusterApi(example)
  const r = await executeSync(api, api.snapshot(), opts)
  assert.equal(r.failed, false)
  assert.equal(r.converged, true)
  const simulated = reconcile(api.snapshot(), {gates: defaultFeatureGates})
  assert.deepEqual(
    simulated.actions.filter((a) => !['recycle', 'delete', 'provision'].includes(a.action)),
    [],
    'nothing left to write',
  )
  const expected = reconcile(example, {gates: defaultFeatureGates})
  assert.deepEqual(strip(api.snapshot()), strip({...example, volumes: expected.volumes, claims: expected.claims}))
  assert.ok(r.actions.filter((a) => a.outcome === 'written').length > 0)
  assert.ok(r.actions.some((a) => a.action === 'recycle' && a.outcome.startsWith('not-executed')))
  assert.ok(api.events.some((e) => e.reason === 'ClaimLost' && e.source.component === 'pvctl'))
})

test('a writer that changes the claim between our read and our write keeps its change', async () => {
  const s = state({volumes: [pv('v')], claims: [pvc('c', 'u1')]})
  const api = new FakeClusterApi(s)
  const loaded = api.snapshot()
  api.beforeWrite = (call, i) => {
    // Just before the claim is written, someone labels it.
    if (call.kind === 'PersistentVolumeClaim' && i === 2) {
      api.externalUpdate('PersistentVolumeClaim', 'default/c', (c) => {
        c.metadata.labels = {owner: 'someone-else'}
      })
    }
  }
  const r = await executeSync(api, loaded, opts)
  assert.equal(r.failed, false)
  const claim = api.claims.get('default/c')!
  assert.deepEqual(claim.metadata.labels, {owner: 'someone-else'})
  assert.equal(claim.spec.volumeName, 'v')
  assert.equal(claim.status?.phase, 'Bound')
  assert.ok(
    r.actions.some((a) => a.outcome === 'conflict-replanned'),
    JSON.stringify(r.actions.map((a) => [a.action, a.outcome])),
  )
})

test('a claim bound elsewhere meanwhile: the re-plan does not overwrite it', async () => {
  const s = state({volumes: [pv('v1'), pv('v2')], claims: [pvc('c', 'u1')]})
  const api = new FakeClusterApi(s)
  const loaded = api.snapshot()
  api.beforeWrite = (_call, i) => {
    if (i === 0) {
      // Another binder binds the claim to v2 (the volume first, then the claim), before our first write.
      api.externalUpdate('PersistentVolume', 'v2', (v) => {
        v.spec.claimRef = {kind: 'PersistentVolumeClaim', namespace: 'default', name: 'c', uid: 'u1', apiVersion: 'v1'}
      })
      api.externalUpdate('PersistentVolumeClaim', 'default/c', (c) => {
        c.spec.volumeName = 'v2'
        c.metadata.annotations = {...bound}
      })
    }
  }
  const r = await executeSync(api, loaded, opts)
  assert.equal(api.claims.get('default/c')!.spec.volumeName, 'v2')
  assert.equal(api.claims.get('default/c')!.status?.phase, 'Bound')
  // Our write of v1 landed (v1 itself had not changed); the claim write then conflicted and was
  // re-planned, and the controller's own logic rolled v1 back: bound by it to a claim bound elsewhere.
  assert.equal(r.failed, false)
  assert.ok(r.actions.some((a) => a.action === 'unbind-volume' && a.object.name === 'v1' && a.outcome === 'written'))
  assert.equal(api.volumes.get('v1')!.spec.claimRef, undefined)
})

test('a forbidden write stops that unit, reports it, and fails the run', async () => {
  const s = state({volumes: [pv('v')], claims: [pvc('c', 'u1')]})
  const api = new FakeClusterApi(s)
  api.denied.add('persistentvolumeclaims')
  const r = await executeSync(api, api.snapshot(), opts)
  assert.equal(r.failed, true)
  const outcomes = r.actions.map((a) => `${a.action}:${a.outcome.split(':')[0]}`)
  assert.deepEqual(outcomes, [
    'bind-volume:written',
    'set-volume-phase:written',
    'bind-claim:failed',
    'set-claim-phase:not-written',
  ])
})

test('aborted: no write is issued after the signal', async () => {
  const s = state({volumes: [pv('a'), pv('b')], claims: [pvc('x', 'ux'), pvc('y', 'uy')]})
  const api = new FakeClusterApi(s)
  const abort = new AbortController()
  api.beforeWrite = (_c, i) => {
    if (i === 1) abort.abort()
  }
  const r = await executeSync(api, api.snapshot(), {...opts, concurrency: 1, signal: abort.signal})
  assert.equal(r.aborted, true)
  assert.equal(api.writes.length, 2, 'the write in flight when aborted finishes, no other starts')
  assert.ok(
    r.actions.some((a) => a.outcome === 'not-written: interrupted'),
    'the rest of the sync in flight is said not written, by the interrupt',
  )
})

test('a persistent conflict is retried a bounded number of times, then reported', async () => {
  const s = state({volumes: [pv('v')], claims: [pvc('c', 'u1')]})
  const api = new FakeClusterApi(s)
  api.beforeWrite = (call) => {
    if (call.kind === 'PersistentVolume')
      api.externalUpdate(
        'PersistentVolume',
        'v',
        (v) => void (v.metadata.labels = {touched: String(api.writes.length)}),
      )
  }
  const r = await executeSync(api, api.snapshot(), {...opts, maxConflictRetries: 2})
  assert.equal(r.failed, true)
  assert.ok(r.actions.some((a) => /^failed: conflict persisted after 2 re-plans/.test(a.outcome)))
  assert.equal(api.writes.length, 3, 'one try and two re-plans')
})

test('loop mode: a conflict re-plans a sync over its slice made again, so a claim the re-read volume names is read, not taken for gone', async () => {
  // The loop's cache: v without a claimRef (Pending), and c, a claim of no interest to v's sync yet.
  const s = state({volumes: [pv('v', {phase: 'Pending', policy: 'Delete'})], claims: [pvc('c', 'u1')]})
  const api = new FakeClusterApi(s)
  const cache = api.snapshot()
  const sources = (objects: ClusterState): SyncSources => {
    const volumes = new VolumeCache()
    for (const v of objects.volumes) volumes.set(v.metadata.name!, v)
    return {
      volumes,
      claims: new Map(objects.claims.map((c) => [claimKey(c), c])),
      classes: new Map(),
      nodes: new Map(),
      pods: new PodsByClaim(),
    }
  }
  const ref = refOfVolume('v')
  api.beforeWrite = (_call, i) => {
    if (i === 0) {
      // Another binder binds c to v before our first write, as the watch then tells the loop's cache.
      api.externalUpdate('PersistentVolume', 'v', (v) => {
        v.spec.claimRef = {kind: 'PersistentVolumeClaim', namespace: 'default', name: 'c', uid: 'u1', apiVersion: 'v1'}
        v.metadata.annotations = {...byController}
      })
      api.externalUpdate('PersistentVolumeClaim', 'default/c', (c) => {
        c.spec.volumeName = 'v'
        c.metadata.annotations = {...bound}
      })
    }
  }
  const restated: string[][] = []
  const r = await executeSync(api, stateForSync(sources(cache), ref, defaultFeatureGates), {
    ...opts,
    targets: [ref],
    maxRounds: 1,
    concurrency: 1,
    restate: (reread) => {
      restated.push(reread.map((o) => o.metadata.name!))
      return stateForSync(sources(api.snapshot()), ref, defaultFeatureGates)
    },
  })
  assert.deepEqual(
    restated,
    [['v', 'c']],
    'the conflicting object and the claim it now names are re-read, and the slice made again',
  )
  assert.equal(r.failed, false, JSON.stringify(r.actions))
  // Over the first slice (v alone) the re-plan would find v's claim gone: Released, and deleted.
  assert.deepEqual(
    r.actions.filter((a) => /Released|delete/.test(`${a.reason} ${a.action}`)),
    [],
  )
  assert.equal(api.volumes.get('v')!.status?.phase, 'Bound')
})
