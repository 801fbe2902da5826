// Units that share an object never run at the same time, even when the object is one only the unit's
// re-plan reaches: a live run with concurrency makes the dry run's decisions, and each object is
// written in the dry run's order, however slow the API server is with one of the writes.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {ClusterState, PersistentVolumeClaim} from '../../src/engine/api/model.js'
import {refKey} from '../../src/engine/simulation/plan.js'
import {reconcile} from '../../src/engine/simulation/reconcile.js'
import {executeSync} from '../../src/executor/executor.js'
import {pv, pvc, state} from '../engine/builders.js'
import {FakeClusterApi, type WriteCall} from './fake-api.js'

const opts = {
  gates: defaultFeatureGates,
  maxRounds: 100,
  concurrency: 4,
  events: true,
  now: () => new Date('2026-11-30T10:00:00Z'),
}

/** The auditor's cluster: the bundled example, a half-bound claim shop/other on pv-0002, and a 15Gi pv-0009. */
async function halfBoundOnOrdersVolume(): Promise<ClusterState> {
  const {state: example} = await loadSnapshot('examples/cluster.yaml')
  const pv2 = example.volumes.find((v) => v.metadata.name === 'pv-0002')!
  const pv9 = structuredClone(pv2)
  pv9.metadata = {...pv9.metadata, name: 'pv-0009', uid: 'uid-pv9'}
  pv9.spec.capacity = {storage: '15Gi'}
  // OBSERVATION: pvc is "Bound" to pv-0002, pv-0002 is "Available" with no claimRef.
  const other: PersistentVolumeClaim = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: 'other',
      namespace: 'shop',
      uid: 'uid-other',
      annotations: {'pv.kubernetes.io/bind-completed': 'yes'},
    },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: {requests: {storage: '10Gi'}},
      storageClassName: 'standard',
      volumeName: 'pv-0002',
    },
    status: {phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: {storage: '10Gi'}},
  }
  return {...example, volumes: [...example.volumes, pv9], claims: [...example.claims, other]}
}

const rows: Array<{name: string; cluster: () => Promise<ClusterState>; slow: string}> = [
  {
    // x is planned onto a (the smallest), y onto b. While x's PUT of a is in flight, y's re-plan still
    // sees a free and reaches for it: a is outside y's reserved objects, so y waits for x.
    name: 'a later claim whose re-plan reaches the volume an earlier claim is binding waits for it',
    cluster: async () =>
      state({
        volumes: [pv('a', {capacity: '1Gi'}), pv('b', {capacity: '2Gi'})],
        claims: [pvc('x', 'ux'), pvc('y', 'uy')],
      }),
    slow: 'a',
  },
  {
    // The auditor's reproducer: orders→pv-0002 and other Lost in the dry run; with pv-0002's PUT slow,
    // other's re-plan saw pv-0002 unbound, bound it to other, and orders went to pv-0009.
    name: 'a half-bound claim on the volume an earlier claim is binding waits for it (auditor)',
    cluster: halfBoundOnOrdersVolume,
    slow: 'pv-0002',
  },
]

const callKey = (c: {kind: string; namespace?: string; name: string}) =>
  refKey({kind: c.kind as WriteCall['kind'], namespace: c.namespace, name: c.name})

for (const row of rows) {
  test(`shared objects: ${row.name}`, async () => {
    const cluster = await row.cluster()
    const api = new FakeClusterApi(cluster)
    let held = false
    let release: (() => void) | undefined
    api.holdWrite = (call) => {
      if (call.kind === 'PersistentVolume' && call.name === row.slow && !held) {
        // The first PUT of the slow volume stays in flight until another write of it arrives, or
        // until every write the executor can issue meanwhile has been issued: the in-memory API and the
        // executor only chain promises, so once the event loop turns (setImmediate), nothing is left to issue.
        held = true
        return new Promise<void>((resolve) => {
          release = resolve
          setImmediate(resolve)
        })
      } else if (call.kind === 'PersistentVolume' && call.name === row.slow) {
        release?.()
      } else {
        // Not the slow volume: through at once.
      }
      return undefined
    }
    const r = await executeSync(api, api.snapshot(), opts)
    assert.ok(held, 'the slow write happened')
    assert.equal(r.failed, false)
    const simulated = reconcile(cluster, {gates: defaultFeatureGates})
    // Every PUT of an object, in order, is the dry run's: none extra, none conflicting, none reordered.
    const planned = simulated.actions.filter((a) => !['recycle', 'delete', 'provision'].includes(a.action))
    const byObject = (calls: Array<{key: string; status: boolean}>) => {
      const m = new Map<string, string[]>()
      for (const c of calls) m.set(c.key, [...(m.get(c.key) ?? []), c.status ? 'status' : 'object'])
      return Object.fromEntries([...m].sort(([a], [b]) => a.localeCompare(b)))
    }
    assert.deepEqual(
      byObject(api.writes.map((w) => ({key: callKey(w), status: w.status}))),
      byObject(planned.map((a) => ({key: refKey(a.object), status: a.subresource === 'status'}))),
    )
    assert.deepEqual(
      r.actions
        .filter((a) => a.outcome !== 'written' && !a.outcome.startsWith('not-executed'))
        .map((a) => `${a.action} ${refKey(a.object)} ${a.outcome}`),
      [],
      'no conflict to re-plan, nothing left unwritten',
    )
    const bindings = (s: ClusterState) =>
      Object.fromEntries(
        s.claims.map((c) => [
          `${c.metadata.namespace}/${c.metadata.name}`,
          `${c.spec.volumeName ?? ''} ${c.status?.phase}`,
        ]),
      )
    assert.deepEqual(bindings(api.snapshot()), bindings({...cluster, claims: simulated.claims}))
  })
}
