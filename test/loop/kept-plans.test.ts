// Loop mode replays a sync's kept plan while the sync reads the same objects (src/loop/kept-plans.ts).
// Held here to the engine: on generated clusters, the examples and random clusters, every sync's plan
// from KeptPlans is the plan a fresh reconcile of its slice gives, on the first pass, on a pass over the
// same objects (all replayed), and after changes to objects of the slices (a volume's version, a class,
// a pod, a new volume a claim would pick): those syncs are planned again, and still agree.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {test} from 'node:test'

import fc from 'fast-check'

import {clusterJson, generateCluster} from '../../bench/generate-cluster.js'
import {parseSnapshotText} from '../../src/cluster/snapshot.js'
import {KeptPlans, type KeptSlot} from '../../src/loop/kept-plans.js'
import {defaultFeatureGates, type FeatureGates} from '../../src/engine/api/feature-gates.js'
import {
  claimKey,
  type ClusterState,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type Pod,
} from '../../src/engine/api/model.js'
import {type ObjectRef, refKey, refOfClaim, refOfVolume} from '../../src/engine/simulation/plan.js'
import {reconcile, type ReconcileResult} from '../../src/engine/simulation/reconcile.js'
import {stateForSync} from '../../src/engine/simulation/sync-slice.js'
import {clusterArb, propertyRuns} from '../engine/differential-arbitraries.js'
import {sourcesOf} from '../engine/sync-sources.js'

function everySync(state: ClusterState): ObjectRef[] {
  return [
    ...state.volumes.map((v) => refOfVolume(v.metadata.name ?? '')),
    ...state.claims.map((c) => refOfClaim(c.metadata.namespace ?? '', c.metadata.name ?? '')),
  ]
}

/** What a sync reads of its plan: the loop's audit stream, metrics and executor. */
function readOf(plan: ReconcileResult): unknown {
  return {
    actions: plan.actions,
    events: plan.events,
    errors: plan.errors,
    operationsStarted: plan.operationsStarted,
    rounds: plan.rounds,
    converged: plan.converged,
  }
}

const options = (ref: ObjectRef, gates: FeatureGates) => ({
  gates,
  targets: [ref],
  maxRounds: 1,
  runningOperations: [],
  matching: 'scan' as const,
})

/** The slot of each sync's kept plan, by sync, per KeptPlans (loop mode keeps it with the object's queue key). */
const slotsOf = new WeakMap<KeptPlans, Map<string, KeptSlot>>()

function slotOf(kept: KeptPlans, sync: string): KeptSlot {
  let slots = slotsOf.get(kept)
  if (slots === undefined) slotsOf.set(kept, (slots = new Map()))
  let slot = slots.get(sync)
  if (slot === undefined) slots.set(sync, (slot = {kept: undefined}))
  return slot
}

/** The plans kept. */
const keptCount = (kept: KeptPlans) =>
  [...(slotsOf.get(kept)?.values() ?? [])].filter((s) => s.kept !== undefined).length

/** One pass of the loop over every object: KeptPlans' plan of each sync beside a fresh reconcile of its slice. */
function pass(kept: KeptPlans, state: ClusterState, gates = defaultFeatureGates): {replayed: Set<string>} {
  const sources = sourcesOf(state)
  const replayed = new Set<string>()
  for (const ref of everySync(state)) {
    const slice = stateForSync(sources, ref, gates)
    const before = kept.replayed
    let plan: ReconcileResult
    try {
      plan = kept.plan(slotOf(kept, refKey(ref)), slice, new Set(), false, () => reconcile(slice, options(ref, gates)))
    } catch {
      // A capacity that does not parse: the engine raises it, replayed or not (never kept).
      assert.throws(() => reconcile(slice, options(ref, gates)))
      continue
    }
    if (kept.replayed > before) replayed.add(refKey(ref))
    assert.deepEqual(readOf(plan), readOf(reconcile(slice, options(ref, gates))), `the sync of ${refKey(ref)}`)
  }
  return {replayed}
}

const bumped = <T extends PersistentVolume | PersistentVolumeClaim>(o: T, change: (o: T) => T): T => {
  const next = change(o)
  return {
    ...next,
    metadata: {...next.metadata, resourceVersion: String(Number(o.metadata.resourceVersion ?? '0') + 100000)},
  }
}

const generated = (volumes: number, seed: number) =>
  parseSnapshotText(clusterJson(generateCluster(volumes, seed)), `generated-${volumes}-${seed}`).state
const example = (name: string) =>
  parseSnapshotText(readFileSync(new URL(`../../examples/${name}`, import.meta.url), 'utf8'), `examples/${name}`).state

const STATES: Array<{id: string; state: () => ClusterState}> = [
  {id: 'generated, 300 volumes, seed 1', state: () => generated(300, 1)},
  {id: 'generated, 300 volumes, seed 2', state: () => generated(300, 2)},
  {id: 'examples/cluster.yaml', state: () => example('cluster.yaml')},
  {id: 'examples/reclaim.yaml', state: () => example('reclaim.yaml')},
  {id: 'examples/relink.yaml', state: () => example('relink.yaml')},
]

for (const row of STATES) {
  test(`kept plans, ${row.id}: every sync replayed on a pass over the same objects, each plan a fresh reconcile's`, () => {
    const state = row.state()
    const kept = new KeptPlans()
    assert.equal(pass(kept, state).replayed.size, 0, 'nothing to replay on the first pass')
    const second = pass(kept, state)
    assert.equal(second.replayed.size, everySync(state).length, 'the same objects: every sync replayed')
    // The same objects, relisted: new objects at the same versions are the same inputs.
    const relisted = structuredClone(state)
    assert.equal(pass(kept, relisted).replayed.size, everySync(state).length, 'relisted at the same versions: replayed')
    assert.ok(state.claims.length === 0 || keptCount(kept) === everySync(state).length)
  })
}

test('kept plans, generated: a change to a member of a slice plans that sync again (a volume, a claim, a class, a pod, a new volume to pick)', () => {
  const state = generated(300, 3)
  const sources = sourcesOf(state)
  const sliceOf = (ref: ObjectRef) => stateForSync(sources, ref, defaultFeatureGates)
  // Whose slices hold an object: the syncs that must be planned again when it changes.
  const readers = (has: (s: ClusterState) => boolean) =>
    new Set(
      everySync(state)
        .filter((ref) => has(sliceOf(ref)))
        .map(refKey),
    )
  const unboundClaim = state.claims.find(
    (c) =>
      (c.spec.volumeName ?? '') === '' && c.spec.selector == null && (c.spec.storageClassName ?? '') === 'standard',
  )!
  const boundVolume = state.volumes.find((v) => v.status?.phase === 'Bound' && v.spec.claimRef != null)!
  const mounts = (p: Pod, c: PersistentVolumeClaim) =>
    p.metadata.namespace === c.metadata.namespace &&
    (p.spec?.volumes ?? []).some((v) => v.persistentVolumeClaim?.claimName === c.metadata.name)
  const podClaim = state.claims.find((c) => state.pods.some((p) => mounts(p, c)))!

  // A volume of just the size asked, first by name: the pick of an unbound claim that has no volume pre-bound.
  const newVolumeFor = (c: PersistentVolumeClaim): PersistentVolume => ({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {name: 'pv-0', uid: 'uid-pv-0-new', resourceVersion: '999998'},
    spec: {
      storageClassName: c.spec.storageClassName ?? undefined,
      accessModes: c.spec.accessModes,
      capacity: {storage: c.spec.resources?.requests?.storage ?? '1Gi'},
      persistentVolumeReclaimPolicy: 'Retain',
      volumeMode: 'Filesystem',
    },
    status: {phase: 'Available'},
  })
  const picker = state.claims.find((c) => {
    if ((c.spec.volumeName ?? '') !== '' || c.spec.selector != null) return false
    const after = stateForSync(
      sourcesOf({...state, volumes: [...state.volumes, newVolumeFor(c)]}),
      refOfClaim(c.metadata.namespace ?? '', c.metadata.name ?? ''),
      defaultFeatureGates,
    )
    return after.volumes.some((v) => v.metadata.name === 'pv-0')
  })
  assert.ok(picker !== undefined, 'an unbound claim that would pick a new volume')
  // A claim of a provisioning class whose node is chosen: its sync reads the node.
  const provisioning = state.claims.find((c) => (c.spec.volumeName ?? '') === '' && c.spec.storageClassName === 'ebs')!
  const onNode: ClusterState = {
    ...state,
    claims: state.claims.map((c) =>
      c === provisioning
        ? {
            ...c,
            metadata: {
              ...c.metadata,
              annotations: {...c.metadata.annotations, 'volume.kubernetes.io/selected-node': 'node-1'},
            },
          }
        : c,
    ),
  }
  const rows: Array<{
    name: string
    base?: ClusterState
    change: (s: ClusterState) => ClusterState
    replanned: (s: ClusterState) => Set<string>
  }> = [
    {
      name: "a claim's selected node deleted",
      base: onNode,
      change: (s) => ({...s, nodes: s.nodes.filter((n) => n.metadata.name !== 'node-1')}),
      replanned: () => new Set([`pvc/${claimKey(provisioning)}`]),
    },
    {
      name: "a claim's selected node at a new version",
      base: onNode,
      change: (s) => ({
        ...s,
        nodes: s.nodes.map((n) =>
          n.metadata.name === 'node-1' ? {...n, metadata: {...n.metadata, resourceVersion: '999996'}} : n,
        ),
      }),
      replanned: () => new Set([`pvc/${claimKey(provisioning)}`]),
    },
    {
      name: "a bound volume's new version",
      change: (s) => ({
        ...s,
        volumes: s.volumes.map((v) =>
          v === boundVolume ? bumped(v, (o) => ({...o, status: {phase: 'Released'}})) : v,
        ),
      }),
      replanned: () => readers((sl) => sl.volumes.some((v) => v.metadata.name === boundVolume.metadata.name)),
    },
    {
      name: "an unbound claim's new version",
      change: (s) => ({
        ...s,
        claims: s.claims.map((c) =>
          c === unboundClaim ? bumped(c, (o) => ({...o, spec: {...o.spec, accessModes: ['ReadWriteMany']}})) : c,
        ),
      }),
      replanned: () => readers((sl) => sl.claims.some((c) => claimKey(c) === claimKey(unboundClaim))),
    },
    {
      name: "a class's new version: every sync",
      change: (s) => ({
        ...s,
        classes: s.classes.map((c, i) =>
          i === 0 ? {...c, metadata: {...c.metadata, resourceVersion: '999999'}, reclaimPolicy: 'Delete'} : c,
        ),
      }),
      replanned: () => new Set(everySync(state).map(refKey)),
    },
    {
      name: 'a pod of a claim deleted',
      change: (s) => ({...s, pods: s.pods.filter((p) => !mounts(p, podClaim))}),
      replanned: () => readers((sl) => sl.pods.some((p) => mounts(p, podClaim))),
    },
    {
      name: 'a pod of a claim at a new version (scheduled)',
      change: (s) => ({
        ...s,
        pods: s.pods.map((p) =>
          mounts(p, podClaim)
            ? {
                ...p,
                metadata: {...p.metadata, resourceVersion: '999997'},
                spec: {...p.spec, nodeName: 'node-elsewhere'},
              }
            : p,
        ),
      }),
      replanned: () => readers((sl) => sl.pods.some((p) => mounts(p, podClaim))),
    },
    {
      name: 'a new volume an unbound claim would pick',
      change: (s) => ({...s, volumes: [...s.volumes, newVolumeFor(picker)]}),
      replanned: () => new Set([`pvc/${claimKey(picker)}`, 'pv/pv-0']),
    },
  ]
  for (const row of rows) {
    const fresh = new KeptPlans()
    const base = row.base ?? state
    pass(fresh, base)
    const changed = row.change(base)
    const all = new Set(everySync(changed).map(refKey))
    const {replayed} = pass(fresh, changed)
    const replanned = new Set([...all].filter((k) => !replayed.has(k)))
    for (const k of row.replanned(changed)) assert.ok(replanned.has(k), `${row.name}: ${k} must be planned again`)
    assert.ok(replanned.size < all.size || row.name.includes('every sync'), `${row.name}: the other syncs are replayed`)
  }
})

test('kept plans: a sync while operations run is planned afresh and not kept; an emptied slot is planned again', () => {
  const state = generated(50, 4)
  const kept = new KeptPlans()
  const ref = refOfVolume(state.volumes[0].metadata.name ?? '')
  const slice = stateForSync(sourcesOf(state), ref, defaultFeatureGates)
  let runs = 0
  const run = () => (runs++, reconcile(slice, options(ref, defaultFeatureGates)))
  const slot = slotOf(kept, 'pv/x')
  kept.plan(slot, slice, new Set(['recycle-x[u]']), false, run)
  kept.plan(slot, slice, new Set(['recycle-x[u]']), false, run)
  assert.equal(runs, 2)
  assert.equal(slot.kept, undefined)
  kept.plan(slot, slice, new Set(), false, run)
  kept.plan(slot, slice, new Set(), false, run)
  assert.equal(runs, 3, 'kept, then replayed')
  kept.plan(slot, slice, new Set(), true, run)
  assert.equal(runs, 4, 'another writing mode: planned again')
  slot.kept = undefined
  kept.plan(slot, slice, new Set(), true, run)
  assert.equal(runs, 5, 'the slot emptied (its object gone, and back): planned again')
})

test("kept plans, random clusters changed between passes: every plan is a fresh reconcile's", () => {
  fc.assert(
    fc.property(clusterArb(10, 8), clusterArb(10, 8), fc.nat(), (a, b, pick) => {
      const kept = new KeptPlans()
      pass(kept, a)
      pass(kept, a)
      // Some of b's objects in place of a's, under a's names, at versions of their own (the API server's
      // promise the fingerprint goes by: another object, another version).
      const newVersion = <T extends {metadata: {resourceVersion?: string}}>(o: T, i: number): T => ({
        ...o,
        metadata: {...o.metadata, resourceVersion: String(100000 + i)},
      })
      const mix = <T extends {metadata: {name?: string; resourceVersion?: string}}>(
        xs: readonly T[],
        ys: readonly T[],
      ) =>
        xs.map((x, i) =>
          i % 3 === pick % 3 && ys[i] !== undefined
            ? newVersion({...ys[i], metadata: {...ys[i].metadata, name: x.metadata.name}}, i)
            : x,
        )
      const {replayed} = pass(kept, {
        ...a,
        volumes: mix(a.volumes, b.volumes),
        claims: mix(a.claims, b.claims),
        pods: pick % 2 === 0 ? b.pods.map(newVersion) : a.pods,
      })
      return replayed.size <= everySync(a).length
    }),
    {numRuns: propertyRuns(150)},
  )
})
