// Loop mode gives each sync only the objects it reads (src/engine/simulation/sync-slice.ts). Held here to the engine
// itself: on random clusters, for every volume and claim (and names of neither), the plan of the object's
// sync over its slice is the plan over the whole state: the same actions, events, errors and operations
// started, and the same objects after it. And the caches' indexes, kept up to date write by write, answer
// as a scan of the cache would.
//
// PVCTL_PROPERTY_RUNS=5000 node --import tsx --test test/engine/sync-slice.test.ts   # thousands of clusters
import assert from 'node:assert/strict'
import {test} from 'node:test'

import fc from 'fast-check'

import {
  claimKey,
  claimRefKey,
  type ClusterState,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type Pod,
} from '../../src/engine/api/model.js'
import {type ObjectRef, refKey, refOfClaim, refOfVolume} from '../../src/engine/simulation/plan.js'
import {getProvisionedVolumeNameForClaim} from '../../src/engine/controller/pv-controller.js'
import {
  reconcile,
  reconcileKeepingCache,
  type ReconcileOptions,
  type ReconcileResult,
} from '../../src/engine/simulation/reconcile.js'
import {podClaimKeys} from '../../src/engine/api/storage-helpers.js'
import {PersistentVolumeOrderedIndex} from '../../src/engine/matching/volume-index.js'
import {PodsByClaim, stateForSync, VolumeCache} from '../../src/engine/simulation/sync-slice.js'
import {defaultVolumePluginMgr} from '../../src/engine/controller/volume-plugins.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import {clusterArb, deterministicOperations, gatesArb, propertyRuns} from './differential-arbitraries.js'
import {sourcesOf} from './sync-sources.js'

/**
 * A cluster of the differential tests, where now and then a volume has the name provisioning would give
 * a claim's volume (pvc-UID: provisioning finds it and stops), a volume's capacity does not parse (the
 * matching index hands its bucket back to the scan), and a pod mounts two claims.
 */
const sliceClusterArb = fc
  .tuple(clusterArb(10, 8), fc.nat(), fc.boolean(), fc.boolean(), fc.boolean())
  .map(([state, pick, provisionedName, twoClaimPod, badCapacity]): ClusterState => {
    let volumes = state.volumes
    if (badCapacity && volumes.length > 0) {
      const i = (pick >> 3) % volumes.length
      volumes = volumes.map((v, j) => (j === i ? {...v, spec: {...v.spec, capacity: {storage: '1Gee'}}} : v))
    } else {
      // Every capacity parses.
    }
    if (provisionedName && volumes.length > 0 && state.claims.length > 0) {
      const claim = state.claims[pick % state.claims.length]
      const i = pick % volumes.length
      volumes = volumes.map((v, j) =>
        j === i ? {...v, metadata: {...v.metadata, name: getProvisionedVolumeNameForClaim(claim)}} : v,
      )
    } else {
      // The generator's names only.
    }
    let pods = state.pods
    if (twoClaimPod && pods.length > 0) {
      const [first, ...rest] = pods
      const volumesOfPod = [...(first.spec?.volumes ?? []), {name: 'logs', persistentVolumeClaim: {claimName: 'logs'}}]
      pods = [{...first, spec: {...first.spec, volumes: volumesOfPod}}, ...rest]
    } else {
      // One claim per pod.
    }
    return {...state, volumes, pods}
  })

/** Every object's sync, and a volume and a claim that do not exist. */
function everySync(state: ClusterState): ObjectRef[] {
  return [
    ...state.volumes.map((v) => refOfVolume(v.metadata.name ?? '')),
    ...state.claims.map((c) => refOfClaim(c.metadata.namespace ?? '', c.metadata.name ?? '')),
    refOfVolume('pv-absent'),
    refOfClaim('default', 'absent'),
  ]
}

/**
 * The plan without the resourceVersions the simulation gives its own writes: it counts on from the
 * highest version it was given, which is the whole cache's or the slice's. What the API server is asked
 * to check (the version read) is compared; a version the plan made up is compared by when it was made.
 */
function comparable(result: ReconcileResult, given: ClusterState): unknown {
  const read = new Set([...given.volumes, ...given.claims].map((o) => o.metadata.resourceVersion))
  const made = new Map<string, string>()
  const version = (rv: string | undefined) => {
    if (rv === undefined || read.has(rv)) return rv
    if (!made.has(rv)) made.set(rv, `written#${made.size}`)
    return made.get(rv)
  }
  const objects = (list: ReadonlyArray<PersistentVolume | {metadata: {resourceVersion?: string}}>) =>
    list.map((o) => ({...o, metadata: {...o.metadata, resourceVersion: version(o.metadata.resourceVersion)}}))
  return {
    rounds: result.rounds,
    converged: result.converged,
    actions: result.actions.map((a) => ({...a, resourceVersion: version(a.resourceVersion)})),
    events: result.events,
    errors: result.errors,
    operationsStarted: result.operationsStarted,
    volumes: objects(result.volumes),
    claims: objects(result.claims),
  }
}

/** The objects of the whole state's plan that the slice holds: the rest are neither read nor written. */
function restrictedTo(whole: ReconcileResult, slice: ReconcileResult): ReconcileResult {
  const volumes = new Set(slice.volumes.map((v) => v.metadata.name))
  const claims = new Set(slice.claims.map(claimKey))
  return {
    ...whole,
    volumes: whole.volumes.filter((v) => volumes.has(v.metadata.name)),
    claims: whole.claims.filter((c) => claims.has(claimKey(c))),
  }
}

/** The plan, or the error reconcile throws (a capacity that does not parse: loaders refuse such input). */
function outcome(
  plan: () => ReconcileResult,
): {result: ReconcileResult; error?: undefined} | {result?: undefined; error: string} {
  try {
    return {result: plan()}
  } catch (err) {
    return {error: String(err)}
  }
}

const runArb = fc.record({
  gates: gatesArb,
  hostPathProvisioning: fc.boolean(),
  operations: fc.constantFrom('none', 'none', 'succeed', 'fail'),
  running: fc.boolean(),
})

test("random clusters: one round of one object (loop mode's sync) is the rounds' plan of it, to the last field, over the slice and the whole state", () => {
  let compared = 0
  fc.assert(
    fc.property(sliceClusterArb, runArb, (state, run) => {
      const runningOperations = run.running
        ? state.volumes.filter((_, i) => i % 3 === 0).map((v) => `delete-${v.metadata.name}[${v.metadata.uid}]`)
        : []
      const sources = sourcesOf(state)
      for (const ref of everySync(state)) {
        for (const [given, matching] of [
          [state, 'indexed'],
          [stateForSync(sources, ref, run.gates), 'scan'],
        ] as const) {
          const options: ReconcileOptions = {
            gates: run.gates,
            plugins: defaultVolumePluginMgr({hostPathProvisioning: run.hostPathProvisioning}),
            targets: [ref],
            maxRounds: 1,
            runningOperations,
            matching,
            ...(run.operations === 'none'
              ? {}
              : {operations: deterministicOperations(run.operations as 'succeed' | 'fail')}),
          }
          // reconcileKeepingCache plans through the rounds whatever their number.
          const once = outcome(() => reconcile(given, options))
          const rounds = outcome(() => reconcileKeepingCache(given, options).result)
          assert.deepEqual(once, rounds, `the sync of ${refKey(ref)}`)
          compared++
        }
      }
    }),
    {numRuns: propertyRuns(150)},
  )
  assert.ok(compared > 0)
})

test('random clusters: the sync of every object plans over its slice what it plans over the whole state', () => {
  let syncs = 0
  let written = 0
  fc.assert(
    fc.property(sliceClusterArb, runArb, (state, run) => {
      // The operations a previous sync started and that still run (loop mode's goroutinemap).
      const runningOperations = run.running
        ? state.volumes
            .filter((_, i) => i % 2 === 0)
            .flatMap((v) => [
              `recycle-${v.metadata.name}[${v.metadata.uid}]`,
              `delete-${v.metadata.name}[${v.metadata.uid}]`,
            ])
        : []
      const options = (ref: ObjectRef): ReconcileOptions => ({
        gates: run.gates,
        plugins: defaultVolumePluginMgr({hostPathProvisioning: run.hostPathProvisioning}),
        targets: [ref],
        maxRounds: 1,
        runningOperations,
        ...(run.operations === 'none'
          ? {}
          : {operations: deterministicOperations(run.operations as 'succeed' | 'fail')}),
      })
      const sources = sourcesOf(state)
      for (const ref of everySync(state)) {
        const slice = stateForSync(sources, ref, run.gates)
        const whole = outcome(() => reconcile(state, options(ref)))
        // The slice planned as loop mode plans it: matched by the literal scan.
        const sliced = outcome(() => reconcile(slice, {...options(ref), matching: 'scan'}))
        if (whole.error !== undefined || sliced.error !== undefined) {
          // A capacity that does not parse, met by the scan: the same error over the slice.
          assert.equal(sliced.error, whole.error, `the sync of ${refKey(ref)}`)
          continue
        }
        // Everything the sync writes is in its slice.
        for (const a of whole.result.actions) {
          const held =
            a.object.kind === 'PersistentVolume'
              ? slice.volumes.some((v) => v.metadata.name === a.object.name) || a.action === 'create-volume'
              : slice.claims.some((c) => claimKey(c) === `${a.object.namespace}/${a.object.name}`)
          assert.ok(held, `${refKey(ref)}: writes ${refKey(a.object)} (${a.action}), which its slice does not hold`)
        }
        assert.deepEqual(
          comparable(sliced.result, slice),
          comparable(restrictedTo(whole.result, sliced.result), state),
          `the sync of ${refKey(ref)}`,
        )
        syncs++
        written += whole.result.actions.length > 0 ? 1 : 0
      }
    }),
    {numRuns: propertyRuns(400)},
  )
  // The property means something only if syncs write: most of the generated ones do.
  assert.ok(written > syncs / 10, `only ${written} of ${syncs} syncs wrote anything`)
})

test('the slice of a sync is small: a volume, its claim and (to recycle) their pods; a bound claim and its volume; an unbound claim, its pick and (waiting for a consumer) its pods', () => {
  const volume = (name: string, accessModes: string[], spec: Partial<PersistentVolume['spec']>): PersistentVolume => ({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {name, uid: `uid-${name}`},
    spec: {storageClassName: 'gold', accessModes, capacity: {storage: '1Gi'}, ...spec},
    status: {phase: 'Available'},
  })
  const claimRef = {namespace: 'default', name: 'data', uid: 'uid-data'}
  const state: ClusterState = {
    volumes: [
      volume('pv-free-gold', ['ReadWriteOnce'], {}),
      volume('pv-big-gold', ['ReadWriteOnce'], {capacity: {storage: '5Gi'}}),
      volume('pv-bound', ['ReadWriteOnce'], {claimRef, persistentVolumeReclaimPolicy: 'Recycle'}),
      volume('pv-bound-kept', ['ReadWriteOnce'], {claimRef, persistentVolumeReclaimPolicy: 'Retain'}),
      volume('pv-free-silver', ['ReadWriteMany'], {storageClassName: 'silver'}),
      volume('pv-other', ['ReadOnlyMany'], {claimRef: {namespace: 'default', name: 'logs'}}),
      // Delayed binding: the index's pick (binding not delayed) is the smaller volume of the fewer modes,
      // while the controller may take only the volume pre-bound to the claim, of more modes.
      volume('pv-wait-free', ['ReadWriteOnce'], {storageClassName: 'wait'}),
      volume('pv-wait-prebound', ['ReadWriteOnce', 'ReadOnlyMany'], {
        storageClassName: 'wait',
        capacity: {storage: '2Gi'},
        claimRef: {namespace: 'default', name: 'late'},
      }),
    ],
    claims: [
      {
        metadata: {name: 'data', namespace: 'default', uid: 'uid-data'},
        spec: {volumeName: 'pv-bound', storageClassName: 'gold'},
      },
      {
        metadata: {
          name: 'new',
          namespace: 'default',
          uid: 'uid-new',
          annotations: {'volume.kubernetes.io/selected-node': 'node-1'},
        },
        spec: {storageClassName: 'gold', accessModes: ['ReadWriteOnce']},
      },
      {
        metadata: {name: 'logs', namespace: 'default', uid: 'uid-logs'},
        spec: {storageClassName: 'silver', accessModes: ['ReadWriteMany']},
      },
      {
        metadata: {name: 'wide', namespace: 'default', uid: 'uid-wide'},
        spec: {storageClassName: 'gold', accessModes: ['ReadOnlyMany']},
      },
      {
        metadata: {name: 'late', namespace: 'default', uid: 'uid-late'},
        spec: {storageClassName: 'wait', accessModes: ['ReadWriteOnce']},
      },
    ],
    classes: [
      {metadata: {name: 'gold'}, provisioner: 'example.com/csi'},
      {
        metadata: {name: 'wait'},
        provisioner: 'kubernetes.io/no-provisioner',
        volumeBindingMode: 'WaitForFirstConsumer',
      },
    ],
    pods: [
      {
        metadata: {name: 'p', namespace: 'default'},
        spec: {volumes: [{name: 'd', persistentVolumeClaim: {claimName: 'data'}}]},
      },
      {
        metadata: {name: 'q', namespace: 'default'},
        spec: {volumes: [{name: 'd', persistentVolumeClaim: {claimName: 'late'}}]},
      },
    ],
    nodes: [{metadata: {name: 'node-1'}}, {metadata: {name: 'node-2'}}],
  }
  const sources = sourcesOf(state)
  const names = (s: ClusterState) => ({
    volumes: s.volumes.map((v) => v.metadata.name).sort(),
    claims: s.claims.map(claimKey),
    pods: s.pods.map((p) => p.metadata.name),
    nodes: s.nodes.map((n) => n.metadata.name),
    classes: s.classes.length,
  })
  const cases: Array<[ObjectRef, ReturnType<typeof names>]> = [
    // the claim's pods only for a volume the sync may recycle (isVolumeUsed)
    [refOfVolume('pv-bound'), {volumes: ['pv-bound'], claims: ['default/data'], pods: ['p'], nodes: [], classes: 2}],
    [
      refOfVolume('pv-bound-kept'),
      {volumes: ['pv-bound-kept'], claims: ['default/data'], pods: [], nodes: [], classes: 2},
    ],
    [refOfVolume('pv-free-gold'), {volumes: ['pv-free-gold'], claims: [], pods: [], nodes: [], classes: 2}],
    [refOfVolume('pv-gone'), {volumes: [], claims: [], pods: [], nodes: [], classes: 2}],
    [refOfClaim('default', 'data'), {volumes: ['pv-bound'], claims: ['default/data'], pods: [], nodes: [], classes: 2}],
    // unbound: the volume the cache's index picks, not the larger one; and the selected node
    [
      refOfClaim('default', 'new'),
      {volumes: ['pv-free-gold'], claims: ['default/new'], pods: [], nodes: ['node-1'], classes: 2},
    ],
    // binding not delayed: the index's pick over every volume, pre-bound to the claim or not, and no other
    [
      refOfClaim('default', 'logs'),
      {volumes: ['pv-free-silver'], claims: ['default/logs'], pods: [], nodes: [], classes: 2},
    ],
    // no match: no volume
    [refOfClaim('default', 'wide'), {volumes: [], claims: ['default/wide'], pods: [], nodes: [], classes: 2}],
    // delayed binding: the claim's pods too (findNonScheduledPodsByPVC)
    [
      refOfClaim('default', 'late'),
      {volumes: ['pv-wait-free', 'pv-wait-prebound'], claims: ['default/late'], pods: ['q'], nodes: [], classes: 2},
    ],
  ]
  for (const [ref, expected] of cases) {
    const slice = stateForSync(sources, ref, defaultFeatureGates)
    assert.deepEqual(names(slice), expected, refKey(ref))
    // And the plan over it is the plan over the whole state (late: bound to the pre-bound volume).
    const options = {targets: [ref], maxRounds: 1}
    const whole = restrictedTo(reconcile(state, options), reconcile(slice, options))
    assert.deepEqual(comparable(reconcile(slice, options), slice), comparable(whole, state), refKey(ref))
  }
  assert.ok(
    reconcile(state, {targets: [refOfClaim('default', 'late')], maxRounds: 1}).actions.some(
      (a) => a.action === 'bind-volume' && a.object.name === 'pv-wait-prebound',
    ),
  )
})

test('VolumeCache: after any sequence of writes and deletes, its indexes answer as a scan of the cache', () => {
  const change = fc.record({
    name: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
    deleted: fc.boolean(),
    className: fc.constantFrom('', 'gold', 'silver'),
    claim: fc.constantFrom(undefined, undefined, 'default/data', 'default/logs', 'team/data'),
    modes: fc.subarray(['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany'] as const),
    size: fc.constantFrom('1Gi', '2Gi', '5Gi'),
    phase: fc.constantFrom('Available', 'Available', 'Released'),
  })
  // Claims the matching index is asked about: of each class, modes and size; one with an invalid selector.
  const claims = [
    pvcOf('data', 'gold', ['ReadWriteOnce'], '1Gi'),
    pvcOf('logs', '', ['ReadWriteOnce', 'ReadOnlyMany'], '2Gi'),
    pvcOf('wide', 'silver', ['ReadWriteMany'], '1Gi'),
    {
      ...pvcOf('broken', 'gold', ['ReadWriteOnce'], '1Gi'),
      spec: {
        ...pvcOf('broken', 'gold', ['ReadWriteOnce'], '1Gi').spec,
        selector: {matchExpressions: [{key: 'tier', operator: 'In', values: []}]},
      },
    },
  ]
  fc.assert(
    fc.property(fc.array(change, {maxLength: 30}), (changes) => {
      const cache = new VolumeCache()
      for (const c of changes) {
        if (c.deleted) {
          cache.delete(c.name)
        } else {
          const [namespace, name] = (c.claim ?? '/').split('/')
          cache.set(c.name, {
            metadata: {name: c.name},
            spec: {
              storageClassName: c.className,
              accessModes: [...c.modes],
              capacity: {storage: c.size},
              ...(c.claim !== undefined ? {claimRef: {namespace, name}} : {}),
            },
            status: {phase: c.phase},
          })
        }
      }
      const all = [...cache.values()]
      for (const key of ['default/data', 'default/logs', 'team/data', 'none/none']) {
        const expected = all
          .filter((v) => v.spec.claimRef != null && claimRefKey(v.spec.claimRef) === key)
          .map((v) => v.metadata.name)
        assert.deepEqual(
          [...cache.claimedBy(key)].map((v) => v.metadata.name).sort(),
          expected.sort(),
          `claimedBy ${key}`,
        )
      }
      // The matching index, kept write by write, picks what the literal scan of the cache picks.
      const scan = new PersistentVolumeOrderedIndex(all)
      for (const claim of claims) {
        let expected: string | undefined
        try {
          scan.findBestMatchForClaim(claim, true, defaultFeatureGates)
          expected = scan.findBestMatchForClaim(claim, false, defaultFeatureGates)?.metadata.name
        } catch {
          expected = 'cannot tell'
        }
        const best = cache.bestMatchFor(claim, defaultFeatureGates)
        assert.equal(
          best === 'cannot tell' ? best : best?.metadata.name,
          expected,
          `bestMatchFor ${claim.metadata.name}`,
        )
      }
      cache.clear()
      assert.deepEqual([...cache.claimedBy('default/data')], [])
      assert.equal(cache.bestMatchFor(claims[0], defaultFeatureGates), undefined)
    }),
    {numRuns: propertyRuns(300)},
  )
})

function pvcOf(name: string, className: string, accessModes: string[], storage: string): PersistentVolumeClaim {
  return {
    metadata: {name, namespace: 'default', uid: `uid-${name}`},
    spec: {storageClassName: className, accessModes, resources: {requests: {storage}}},
  }
}

test("PodsByClaim: kept from an informer's events, it lists a claim's pods as the informer's store does, in its order", () => {
  const event = fc.record({
    name: fc.constantFrom('p1', 'p2', 'p3', 'p4'),
    deleted: fc.boolean(),
    claims: fc.subarray(['data', 'logs', 'db'], {maxLength: 2}),
    phase: fc.constantFrom('Pending', 'Running'),
  })
  fc.assert(
    fc.property(fc.array(event, {maxLength: 30}), (events) => {
      // The informer's store (a Map: an update keeps the pod where it is) and the index, fed alike.
      const store = new Map<string, Pod>()
      const index = new PodsByClaim()
      for (const e of events) {
        const pod: Pod = {
          metadata: {name: e.name, namespace: 'default'},
          spec: {volumes: e.claims.map((claimName) => ({name: claimName, persistentVolumeClaim: {claimName}}))},
          status: {phase: e.phase},
        }
        const old = store.get(e.name)
        if (e.deleted) {
          if (old === undefined) continue
          store.delete(e.name)
          index.delete(old)
        } else {
          // A pod's volumes are immutable: an update keeps them.
          const updated = old === undefined ? pod : {...pod, spec: old.spec}
          store.set(e.name, updated)
          index.set(updated, old)
        }
      }
      for (const claim of ['data', 'logs', 'db']) {
        const key = `default/${claim}`
        const expected = [...store.values()].filter((p) => podClaimKeys(p).includes(key))
        assert.deepEqual(index.of(key), expected, key)
      }
    }),
    {numRuns: propertyRuns(300)},
  )
})
