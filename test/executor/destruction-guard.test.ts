// The double-checks before every release, recycle and delete (src/executor/destruction-guard.ts), one row
// per race or stale picture that made pvctl destroy a volume whose claim exists: another writer acts
// between pvctl's list and its write, or between two of its steps, and the volume must survive.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {ClusterState, PersistentVolume, PersistentVolumeClaim} from '../../src/engine/api/model.js'
import {ReleaseBudget} from '../../src/executor/destruction-guard.js'
import {executeSync, type ExecuteResult} from '../../src/executor/executor.js'
import {LiveVolumePlugins} from '../../src/volume-plugins/live-plugins.js'
import {bound, byController, pv, pvc, state} from '../engine/builders.js'
import {FakeWorkloadApi} from '../volume-plugins/fake-workload.js'
import {FakeClusterApi} from './fake-api.js'

const opts = {
  gates: defaultFeatureGates,
  maxRounds: 100,
  concurrency: 4,
  events: false,
  destructive: true,
  now: () => new Date('2026-11-30T10:00:00Z'),
}

/** A volume Bound to a claim that is gone (uid u-old): the controller releases it and applies its policy. */
function orphan(name: string, policy: 'Retain' | 'Delete' | 'Recycle'): PersistentVolume {
  return pv(name, {
    phase: 'Bound',
    policy,
    uid: `uid-${name}`,
    claim: {name: 'old', uid: 'u-old'},
    source: {hostPath: {path: `/tmp/${name}`}},
  })
}

/** An admin's hand: the volume bound to a new claim (the claim created too), as a binder writes it. */
function bindToNewClaim(api: FakeClusterApi, volume: string, claim = 'new'): void {
  api.externalCreate({...pvc(claim, `u-${claim}`, {volumeName: volume, phase: 'Bound', annotations: {...bound}})})
  api.externalUpdate<PersistentVolume>('PersistentVolume', volume, (v) => {
    v.spec.claimRef = {
      kind: 'PersistentVolumeClaim',
      apiVersion: 'v1',
      namespace: 'default',
      name: claim,
      uid: `u-${claim}`,
    }
    v.metadata.annotations = {...byController}
    v.status = {phase: 'Bound'}
  })
}

interface Row {
  name: string
  volumes: PersistentVolume[]
  claims?: PersistentVolumeClaim[]
  /** What pvctl's list saw, when it is not the cluster (a list that lost claims). */
  listed?: (s: ClusterState) => ClusterState
  /** Another writer, before pvctl's n-th write. */
  beforeWrite?: (api: FakeClusterApi, index: number) => void
  /** Another writer, before a GET of pvctl's (the gap between two of its steps). */
  beforeRead?: (api: FakeClusterApi, key: string, index: number) => void
  /** Pod reads, for the plugin pod to succeed (and a writer to act while it runs). */
  whilePodRuns?: (api: FakeClusterApi) => void
  check: (api: FakeClusterApi, workload: FakeWorkloadApi, r: ExecuteResult) => void
}

const podsCreated = (w: FakeWorkloadApi) => w.calls.filter((c) => c.startsWith('create pod/'))

const rows: Row[] = [
  {
    name: 'a binder binds the volume to a claim created after the list (Delete): neither released nor deleted',
    volumes: [orphan('v', 'Delete')],
    beforeWrite: (api, i) => i === 0 && bindToNewClaim(api, 'v'),
    check: (api, workload) => {
      assert.deepEqual(podsCreated(workload), [])
      assert.equal(api.volumes.get('v')?.status?.phase, 'Bound')
      assert.equal(api.volumes.get('v')?.spec.claimRef?.uid, 'u-new')
    },
  },
  {
    name: 'the same with Retain: the volume is not written Released',
    volumes: [orphan('v', 'Retain')],
    beforeWrite: (api, i) => i === 0 && bindToNewClaim(api, 'v'),
    check: (api) => assert.equal(api.volumes.get('v')?.status?.phase, 'Bound'),
  },
  {
    name: 'the claim list lost the claims: each claim is asked of the API server, found, and nothing is written',
    volumes: [
      pv('v1', {
        phase: 'Bound',
        policy: 'Delete',
        uid: 'uid-v1',
        claim: {name: 'c1', uid: 'u1'},
        source: {hostPath: {path: '/tmp/v1'}},
      }),
      pv('v2', {phase: 'Bound', policy: 'Retain', claim: {name: 'c2', uid: 'u2'}}),
    ],
    claims: [
      pvc('c1', 'u1', {volumeName: 'v1', phase: 'Bound', annotations: {...bound}}),
      pvc('c2', 'u2', {volumeName: 'v2', phase: 'Bound', annotations: {...bound}}),
    ],
    listed: (s) => ({...s, claims: []}),
    check: (api, workload, r) => {
      assert.deepEqual(api.writes, [], 'no volume written Released')
      assert.deepEqual(podsCreated(workload), [])
      assert.ok(
        api.reads.includes('pvc/default/c1') && api.reads.includes('pvc/default/c2'),
        'the claims were asked for',
      )
      assert.deepEqual(r.refusals, [], 'the claim found is a re-plan, as in syncVolume, not a refusal')
    },
  },
  {
    name: 'released by pvctl, then bound to a new claim before the cleanup pod: not deleted',
    volumes: [orphan('v', 'Delete')],
    beforeRead: (api, key) =>
      key === 'pv/v' && api.volumes.get('v')?.spec.claimRef?.name === 'old' && bindToNewClaim(api, 'v'),
    check: (api, workload, r) => {
      assert.deepEqual(podsCreated(workload), [])
      assert.equal(api.volumes.get('v')?.spec.claimRef?.uid, 'u-new')
      assert.match(
        r.actions.find((a) => a.action === 'delete')?.outcome ?? '',
        /^not-executed: double-check: volume v changed since it was planned to delete: its (phase is Bound|claimRef now names default\/new)/,
      )
      assert.equal(r.refusals.length, 1)
    },
  },
  {
    name: 'released by pvctl, then its policy flipped Delete -> Retain before the cleanup pod: not deleted',
    volumes: [orphan('v', 'Delete')],
    beforeRead: (api, key) =>
      key === 'pv/v' &&
      api.volumes.get('v')?.spec.persistentVolumeReclaimPolicy === 'Delete' &&
      api.externalUpdate<PersistentVolume>(
        'PersistentVolume',
        'v',
        (v) => void (v.spec.persistentVolumeReclaimPolicy = 'Retain'),
      ),
    check: (api, workload, r) => {
      assert.deepEqual(podsCreated(workload), [])
      assert.equal(api.volumes.get('v')?.status?.phase, 'Released')
      assert.match(r.refusals[0]?.reason ?? '', /its reclaim policy is now Retain/)
    },
  },
  {
    name: 'released by pvctl, then rescued by an admin before the recycler pod (Recycle): not scrubbed',
    volumes: [orphan('v', 'Recycle')],
    beforeRead: (api, key) =>
      key === 'pv/v' && api.volumes.get('v')?.spec.claimRef?.name === 'old' && bindToNewClaim(api, 'v'),
    check: (api, workload, r) => {
      assert.deepEqual(podsCreated(workload), [])
      assert.equal(
        r.actions.find((a) => a.action === 'recycle')?.outcome.startsWith('not-executed: double-check:'),
        true,
      )
    },
  },
  {
    name: 'the volume object re-created under its name before the cleanup pod: not deleted',
    volumes: [orphan('v', 'Delete')],
    beforeRead: (api, key) =>
      key === 'pv/v' &&
      api.volumes.get('v')?.metadata.uid === 'uid-v' &&
      api.externalUpdate<PersistentVolume>('PersistentVolume', 'v', (v) => void (v.metadata.uid = 'uid-v-again')),
    check: (_api, workload, r) => {
      assert.deepEqual(podsCreated(workload), [])
      assert.match(r.refusals[0]?.reason ?? '', /it was re-created/)
    },
  },
  {
    name: 'bound to a new claim while the cleanup pod runs: the PV object is not deleted',
    volumes: [orphan('v', 'Delete')],
    whilePodRuns: (api) => api.volumes.get('v')?.spec.claimRef?.name === 'old' && bindToNewClaim(api, 'v'),
    check: (api, workload, r) => {
      assert.deepEqual(podsCreated(workload), ['create pod/default/deleter-for-v'])
      assert.ok(!workload.calls.includes('delete pv/v'), JSON.stringify(workload.calls))
      assert.ok(api.volumes.has('v'))
      assert.match(
        r.actions.find((a) => a.action === 'delete-volume')?.outcome ?? 'no delete-volume',
        /^not-written: double-check: /,
      )
    },
  },
  {
    name: 'another binder binds the claim to a volume pvctl never listed, just before pvctl writes the claim: not Lost',
    volumes: [pv('pv-a', {capacity: '1Gi'})],
    claims: [pvc('orders', 'u-orders')],
    beforeWrite: (api, i) => {
      if (i !== 2) return
      // The volume first, then the claim, as a binder writes them; pv-admin is new since pvctl's list.
      api.externalCreate(
        pv('pv-admin', {
          capacity: '2Gi',
          phase: 'Bound',
          annotations: {...byController},
          claim: {name: 'orders', uid: 'u-orders'},
        }),
      )
      api.externalUpdate<PersistentVolumeClaim>('PersistentVolumeClaim', 'default/orders', (c) => {
        c.spec.volumeName = 'pv-admin'
        c.metadata.annotations = {...bound}
        c.status = {phase: 'Bound'}
      })
    },
    check: (api, _workload, r) => {
      const orders = api.claims.get('default/orders')!
      assert.equal(
        orders.status?.phase,
        'Bound',
        JSON.stringify(r.actions.map((a) => [a.action, a.object.name, a.outcome])),
      )
      assert.equal(orders.spec.volumeName, 'pv-admin')
      assert.equal(api.volumes.get('pv-a')?.spec.claimRef, undefined, 'the volume pvctl bound first is rolled back')
    },
  },
]

for (const row of rows) {
  test(`double-check: ${row.name}`, async () => {
    const api = new FakeClusterApi(state({volumes: row.volumes, claims: row.claims ?? []}))
    const workload = new FakeWorkloadApi()
    const plugins = new LiveVolumePlugins(workload, {pollMs: 1})
    workload.afterRead = (pod) => {
      row.whilePodRuns?.(api)
      pod.status = {phase: 'Succeeded'}
    }
    if (row.beforeWrite !== undefined) api.beforeWrite = (_call, i) => row.beforeWrite!(api, i)
    if (row.beforeRead !== undefined) {
      api.beforeRead = (kind, key, i) =>
        row.beforeRead!(api, kind === 'PersistentVolume' ? `pv/${key}` : `pvc/${key}`, i)
    }
    const loaded = row.listed?.(api.snapshot()) ?? api.snapshot()
    const r = await executeSync(api, loaded, {...opts, plugins, workload})
    assert.equal(r.failed, false, JSON.stringify(r.actions.map((a) => [a.action, a.object.name, a.outcome])))
    row.check(api, workload, r)
  })
}

test('double-check: with no writer in the way, the orphan is released and deleted after each step is checked', async () => {
  // The control row: the same volume, nobody else acting; the checks read, then let it go.
  const api = new FakeClusterApi(state({volumes: [orphan('v', 'Delete')]}))
  const workload = new FakeWorkloadApi()
  workload.afterRead = (pod) => void (pod.status = {phase: 'Succeeded'})
  const r = await executeSync(api, api.snapshot(), {
    ...opts,
    plugins: new LiveVolumePlugins(workload, {pollMs: 1}),
    workload,
  })
  assert.deepEqual(r.refusals, [])
  assert.deepEqual(workload.calls, [
    'create pod/default/deleter-for-v',
    'delete pod/default/deleter-for-v',
    'delete pv/v',
  ])
  // Released: its claim asked for; the cleanup pod: the volume and its claim read again; the PV DELETE: the same.
  assert.deepEqual(api.reads, ['pvc/default/old', 'pv/v', 'pvc/default/old', 'pv/v', 'pvc/default/old'])
})

test('release budget: a run releases at most the larger of 20 and 10% of the bound volumes; the rest are refused', async () => {
  const volumes = Array.from({length: 25}, (_, i) =>
    pv(`v${String(i).padStart(2, '0')}`, {phase: 'Bound', policy: 'Retain', claim: {name: `gone-${i}`, uid: `u${i}`}}),
  )
  const api = new FakeClusterApi(state({volumes}))
  const budget = new ReleaseBudget({boundVolumes: () => 25})
  const r = await executeSync(api, api.snapshot(), {...opts, concurrency: 1, budget})
  const released = [...api.volumes.values()].filter((v) => v.status?.phase === 'Released').length
  assert.equal(released, 20)
  assert.equal(r.refusals.length, 5)
  assert.match(
    r.refusals[0].reason,
    /^mass release guard: 21 volumes would be released, recycled or deleted at once, more than 20 /,
  )
})

test('release budget: --allow-mass-release lifts it; a window forgets releases older than it (loop mode)', () => {
  const unlimited = new ReleaseBudget({boundVolumes: () => 100, unlimited: true})
  for (let i = 0; i < 100; i++) assert.equal(unlimited.take(`v${i}`), undefined)

  let now = 0
  const windowed = new ReleaseBudget({boundVolumes: () => 1000, windowMs: 60_000, now: () => now})
  assert.equal(windowed.ceiling, 100, '10% of 1000 is more than 20')
  for (let i = 0; i < 100; i++) assert.equal(windowed.take(`v${i}`), undefined)
  assert.match(windowed.take('v100') ?? '', /within 60 s/)
  assert.equal(windowed.take('v5'), undefined, 'a volume counted already is not counted twice')
  now = 61_000
  assert.equal(windowed.take('v100'), undefined, 'the window moved on')
})
