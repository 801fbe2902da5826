// The matching index alone: IndexedVolumeIndex against PersistentVolumeOrderedIndex (the literal scan)
// through random sequences of volume writes (bind, unbind, phase changes, deletion timestamps, labels,
// resizes, new mode sets, creations, deletions) and claim look-ups (selectors, delay binding, the
// VolumeAttributesClass gate, pre-bound claims). Every answer must be the same volume, or the same error.
// Also every index case of the conformance suite, and a volume whose capacity does not parse.
//
// PVCTL_PROPERTY_RUNS=5000 node --import tsx --test test/engine/differential-index.test.ts
import assert from 'node:assert/strict'
import {test} from 'node:test'

import fc from 'fast-check'

import {
  defaultFeatureGates,
  type FeatureGates,
  type GateName,
  knownFeatureGates,
} from '../../src/engine/api/feature-gates.js'
import type {LabelSelector, PersistentVolume, PersistentVolumeClaim} from '../../src/engine/api/model.js'
import {SortedList} from '../../src/engine/matching/sorted-list.js'
import {PersistentVolumeOrderedIndex, type VolumeIndex} from '../../src/engine/matching/volume-index.js'
import {IndexedVolumeIndex} from '../../src/engine/matching/volume-match-index.js'
import {loadCases} from '../conformance/cases.js'
import {
  CLAIM_NAMES,
  clusterArb,
  MODES,
  NAMESPACES,
  propertyRuns,
  SIZES,
  VOLUME_NAMES,
} from './differential-arbitraries.js'

function answer(index: VolumeIndex, claim: PersistentVolumeClaim, delayBinding: boolean, gates: FeatureGates): string {
  try {
    const v = index.findBestMatchForClaim(claim, delayBinding, gates)
    return v === undefined ? '<none>' : `${v.metadata.name} rv=${v.metadata.resourceVersion}`
  } catch (err) {
    return `error ${(err as Error).name}: ${(err as Error).message}`
  }
}

type Write =
  | {op: 'bind'; volume: number; claim: [string, string]; withUid: boolean}
  | {op: 'unbind'; volume: number}
  | {op: 'free'; volume: number; className: string}
  | {op: 'phase'; volume: number; phase: string}
  | {op: 'deleting'; volume: number}
  | {op: 'labels'; volume: number; labels: Record<string, string>}
  | {op: 'resize'; volume: number; size: string}
  | {op: 'modes'; volume: number; modes: string[]}
  | {op: 'delete'; volume: number}
  | {op: 'create'; name: string; size: string; modes: string[]}

const writeArb: fc.Arbitrary<Write> = fc.oneof(
  fc.record({
    op: fc.constant('bind' as const),
    volume: fc.nat(),
    claim: fc.tuple(fc.constantFrom(...NAMESPACES), fc.constantFrom(...CLAIM_NAMES)),
    withUid: fc.boolean(),
  }),
  fc.record({op: fc.constant('unbind' as const), volume: fc.nat()}),
  // back into the pool of some class: equal volumes meet often
  fc.record({op: fc.constant('free' as const), volume: fc.nat(), className: fc.constantFrom('', 'gold')}),
  fc.record({
    op: fc.constant('phase' as const),
    volume: fc.nat(),
    phase: fc.constantFrom('Available', 'Bound', 'Released', 'Failed', 'Pending'),
  }),
  fc.record({op: fc.constant('deleting' as const), volume: fc.nat()}),
  fc.record({
    op: fc.constant('labels' as const),
    volume: fc.nat(),
    labels: fc.dictionary(fc.constantFrom('tier', 'zone'), fc.constantFrom('gold', 'a', 'b'), {maxKeys: 2}),
  }),
  fc.record({op: fc.constant('resize' as const), volume: fc.nat(), size: fc.constantFrom(...SIZES)}),
  fc.record({op: fc.constant('modes' as const), volume: fc.nat(), modes: fc.subarray([...MODES], {maxLength: 2})}),
  fc.record({op: fc.constant('delete' as const), volume: fc.nat()}),
  fc.record({
    op: fc.constant('create' as const),
    name: fc.constantFrom('pv-x', 'pv-y', 'pv-0', 'pv-zz'),
    size: fc.constantFrom(...SIZES),
    modes: fc.subarray([...MODES], {maxLength: 2}),
  }),
)

/** The volume after the write (a new object, as the API server returns), or undefined when deleted. */
function applyWrite(
  volumes: Map<string, PersistentVolume>,
  w: Write,
  rv: number,
): {name: string; volume?: PersistentVolume} | undefined {
  if (w.op === 'create') {
    return {
      name: w.name,
      volume: {
        metadata: {name: w.name, resourceVersion: String(rv)},
        spec: {capacity: {storage: w.size}, accessModes: w.modes},
        status: {phase: 'Available'},
      },
    }
  } else {
    // A write of an existing volume.
  }
  const names = [...volumes.keys()].sort()
  if (names.length === 0) return undefined
  const name = names[w.volume % names.length]
  if (w.op === 'delete') return {name}
  const v = structuredClone(volumes.get(name)!)
  v.metadata.resourceVersion = String(rv)
  switch (w.op) {
    case 'bind':
      v.spec.claimRef = {
        namespace: w.claim[0],
        name: w.claim[1],
        ...(w.withUid ? {uid: `uid-${w.claim[0]}-${w.claim[1]}`} : {}),
      }
      v.status = {phase: 'Bound'}
      break
    case 'unbind':
      delete v.spec.claimRef
      v.status = {phase: 'Available'}
      break
    case 'free':
      delete v.spec.claimRef
      delete v.metadata.deletionTimestamp
      delete v.spec.volumeMode
      delete v.spec.volumeAttributesClassName
      v.spec.storageClassName = w.className
      v.status = {phase: 'Available'}
      break
    case 'phase':
      v.status = {...(v.status ?? {}), phase: w.phase}
      break
    case 'deleting':
      v.metadata.deletionTimestamp = '2026-01-01T00:00:00Z'
      break
    case 'labels':
      v.metadata.labels = w.labels
      break
    case 'resize':
      v.spec.capacity = {storage: w.size}
      break
    case 'modes':
      v.spec.accessModes = w.modes
      break
  }
  return {name, volume: v}
}

test('random writes and look-ups: the indexed index answers as the literal scan does, after every write', () => {
  const stepArb = fc.oneof(
    {weight: 3, arbitrary: writeArb.map((w) => ({write: w}))},
    {weight: 2, arbitrary: fc.record({lookup: fc.nat(), delayBinding: fc.boolean(), vac: fc.boolean()})},
  )
  fc.assert(
    fc.property(clusterArb(12, 10), fc.array(stepArb, {maxLength: 40}), (state, steps) => {
      const volumes = new Map(state.volumes.map((v) => [v.metadata.name!, v]))
      const reference = new PersistentVolumeOrderedIndex(volumes.values())
      const indexed = new IndexedVolumeIndex(volumes.values())
      const claims = state.claims.length > 0 ? state.claims : []
      const check = (claim: PersistentVolumeClaim, delayBinding: boolean, gates: FeatureGates) =>
        assert.equal(
          answer(indexed, claim, delayBinding, gates),
          answer(reference, claim, delayBinding, gates),
          `claim ${claim.metadata.namespace}/${claim.metadata.name}`,
        )
      let rv = 100
      for (const step of steps) {
        if ('write' in step) {
          const written = applyWrite(volumes, step.write, rv++)
          if (written === undefined) continue
          if (written.volume === undefined) {
            volumes.delete(written.name)
            reference.remove(written.name)
            indexed.remove(written.name)
          } else {
            volumes.set(written.name, written.volume)
            reference.store(written.volume)
            indexed.store(written.volume)
          }
        } else if (claims.length > 0) {
          const gates = {...defaultFeatureGates, VolumeAttributesClass: step.vac}
          check(claims[step.lookup % claims.length], step.delayBinding, gates)
        } else {
          // No claims to look up.
        }
      }
      // And at the end, every claim both ways, against an index built from scratch too.
      const rebuilt = new PersistentVolumeOrderedIndex(volumes.values())
      for (const claim of claims) {
        for (const delayBinding of [false, true]) {
          for (const vac of [false, true]) {
            const gates = {...defaultFeatureGates, VolumeAttributesClass: vac}
            check(claim, delayBinding, gates)
            assert.equal(
              answer(reference, claim, delayBinding, gates),
              answer(rebuilt, claim, delayBinding, gates),
              'incremental reference = rebuilt reference',
            )
          }
        }
      }
    }),
    {numRuns: propertyRuns(800)},
  )
})

test('dense pools (few sizes, classes and mode sets; many equal volumes): the same volume after every bind and unbind', () => {
  const volumeArb = (name: string) =>
    fc
      .record({
        size: fc.constantFrom('1Gi', '1073741824', '2Gi'),
        modes: fc.constantFrom<string[]>(['ReadWriteOnce'], ['ReadWriteOnce', 'ReadOnlyMany']),
        className: fc.constantFrom('', 'gold'),
        labels: fc.dictionary(fc.constantFrom('tier', 'zone'), fc.constantFrom('gold', 'a'), {maxKeys: 2}),
        claimed: fc.boolean(),
      })
      .map((o): PersistentVolume => ({
        metadata: {name, labels: o.labels},
        spec: {
          capacity: {storage: o.size},
          accessModes: o.modes,
          storageClassName: o.className,
          ...(o.claimed ? {claimRef: {namespace: 'default', name: 'data'}} : {}),
        },
        status: {phase: 'Available'},
      }))
  const claimArb = fc
    .record({
      size: fc.constantFrom('1', '1Gi', '2Gi'),
      modes: fc.constantFrom<string[]>(['ReadWriteOnce'], ['ReadOnlyMany'], []),
      className: fc.constantFrom('', 'gold'),
      selector: fc.option(
        fc.oneof<[fc.Arbitrary<LabelSelector>, fc.Arbitrary<LabelSelector>]>(
          fc.record({
            matchLabels: fc.dictionary(fc.constantFrom('tier', 'zone'), fc.constantFrom('gold', 'a'), {maxKeys: 2}),
          }),
          fc.constant<LabelSelector>({matchExpressions: [{key: 'zone', operator: 'NotIn', values: ['a']}]}),
        ),
      ),
      name: fc.constantFrom('data', 'logs'),
    })
    .map((o): PersistentVolumeClaim => ({
      metadata: {namespace: 'default', name: o.name, uid: `uid-${o.name}`},
      spec: {
        accessModes: o.modes,
        resources: {requests: {storage: o.size}},
        storageClassName: o.className,
        ...(o.selector !== null ? {selector: o.selector} : {}),
      },
    }))
  const names = Array.from({length: 16}, (_, i) => `pv-${String.fromCharCode(97 + i)}`)
  fc.assert(
    fc.property(
      fc.tuple(...names.map(volumeArb)),
      fc.array(claimArb, {minLength: 1, maxLength: 6}),
      fc.array(fc.tuple(fc.nat(), fc.boolean()), {maxLength: 30}),
      (initial, claims, steps) => {
        const reference = new PersistentVolumeOrderedIndex(initial)
        const indexed = new IndexedVolumeIndex(initial)
        const checkAll = () => {
          for (const claim of claims)
            assert.equal(
              answer(indexed, claim, false, defaultFeatureGates),
              answer(reference, claim, false, defaultFeatureGates),
            )
        }
        checkAll()
        let rv = 1
        for (const [which, bindIt] of steps) {
          const claim = claims[which % claims.length]
          const chosen = reference.findBestMatchForClaim(claim, false, defaultFeatureGates)
          if (chosen !== undefined) {
            // bind it (it leaves the pool), or free it again when it was pre-bound
            const written = structuredClone(chosen)
            written.metadata.resourceVersion = String(rv++)
            if (written.spec.claimRef == null && bindIt)
              written.spec.claimRef = {namespace: 'default', name: claim.metadata.name, uid: claim.metadata.uid}
            else if (written.spec.claimRef == null) written.status = {phase: 'Released'}
            else delete written.spec.claimRef
            reference.store(written)
            indexed.store(written)
            checkAll()
          } else {
            // Nothing to write.
          }
        }
      },
    ),
    {numRuns: propertyRuns(500)},
  )
})

test('several volumes pre-bound to one claim in one mode set: the first by name wins, as in the scan', () => {
  const claim: PersistentVolumeClaim = {
    metadata: {namespace: 'default', name: 'data', uid: 'u1'},
    spec: {accessModes: ['ReadWriteOnce'], resources: {requests: {storage: '1Gi'}}},
  }
  const prebound = (name: string, size: string, uid?: string): PersistentVolume => ({
    metadata: {name},
    spec: {
      capacity: {storage: size},
      accessModes: ['ReadWriteOnce'],
      claimRef: {namespace: 'default', name: 'data', ...(uid !== undefined ? {uid} : {})},
    },
    status: {phase: 'Bound'},
  })
  const free: PersistentVolume = {
    metadata: {name: 'a-free'},
    spec: {capacity: {storage: '1Gi'}, accessModes: ['ReadWriteOnce']},
    status: {phase: 'Available'},
  }
  const volumes = [
    prebound('pv-z', '1Gi', 'u1'),
    prebound('pv-m', '5Gi'),
    prebound('pv-b', '500Mi'),
    prebound('pv-k', '1Gi', 'other'),
    free,
  ]
  for (const index of [new IndexedVolumeIndex(volumes), new PersistentVolumeOrderedIndex(volumes)]) {
    // pv-b is too small and pv-k belongs to another claim of that name; pv-m sorts before pv-z.
    assert.equal(index.findBestMatchForClaim(claim, false, defaultFeatureGates)?.metadata.name, 'pv-m')
    assert.equal(index.findBestMatchForClaim(claim, true, defaultFeatureGates)?.metadata.name, 'pv-m')
  }
})

test('a capacity that does not parse: its bucket is scanned literally, failing as the scan fails', () => {
  const claim: PersistentVolumeClaim = {
    metadata: {namespace: 'default', name: 'data', uid: 'u1'},
    spec: {accessModes: ['ReadWriteOnce'], resources: {requests: {storage: '1Gi'}}},
  }
  const volume = (name: string, size: string, modes: string[]): PersistentVolume => ({
    metadata: {name},
    spec: {capacity: {storage: size}, accessModes: modes},
    status: {phase: 'Available'},
  })
  const cases: PersistentVolume[][] = [
    [volume('pv-a', 'lots', ['ReadWriteOnce']), volume('pv-b', '1Gi', ['ReadWriteOnce'])],
    [volume('pv-a', '1Gi', ['ReadWriteOnce']), volume('pv-b', 'lots', ['ReadWriteOnce', 'ReadOnlyMany'])],
    [volume('pv-a', 'lots', ['ReadWriteMany']), volume('pv-b', '2Gi', ['ReadWriteOnce'])],
    // never parsed by the scan (bound to another claim), so no error: the scan of its bucket decides
    [
      {
        ...volume('pv-a', 'lots', ['ReadWriteOnce']),
        spec: {capacity: {storage: 'lots'}, accessModes: ['ReadWriteOnce'], claimRef: {namespace: 'x', name: 'y'}},
      },
      volume('pv-b', '2Gi', ['ReadWriteOnce', 'ReadOnlyMany']),
      volume('pv-c', '5Gi', ['ReadWriteOnce']),
    ],
  ]
  const answers = cases.map((volumes) => {
    const expected = answer(new PersistentVolumeOrderedIndex(volumes), claim, false, defaultFeatureGates)
    assert.equal(answer(new IndexedVolumeIndex(volumes), claim, false, defaultFeatureGates), expected)
    return expected
  })
  assert.deepEqual(
    answers.map((a) => a.split(' ')[0]),
    ['error', 'pv-a', 'pv-b', 'pv-c'],
  )
})

test('every findBestMatchForClaim case of the conformance suite: the same answer', () => {
  let compared = 0
  for (const {cases} of loadCases('engine')) {
    for (const c of cases as any[]) {
      if (c.test !== 'findBestMatchForClaim') continue
      const gates: FeatureGates = {...defaultFeatureGates}
      for (const [name, value] of Object.entries((c.featureGates ?? {}) as Record<string, unknown>)) {
        if ((knownFeatureGates as string[]).includes(name)) gates[name as GateName] = value === true
      }
      // index.store.Add: a later volume of the same name replaces an earlier one.
      const volumes = [...new Map((c.volumes as PersistentVolume[]).map((v) => [v.metadata.name, v])).values()]
      assert.equal(
        answer(new IndexedVolumeIndex(volumes), c.claim, c.delayBinding, gates),
        answer(new PersistentVolumeOrderedIndex(volumes), c.claim, c.delayBinding, gates),
        c.name,
      )
      compared++
    }
  }
  assert.ok(compared > 20, `only ${compared} index cases found`)
})

test('names beyond the generators: a claim key with "/" in it finds only its own pre-bound volume', () => {
  const claim: PersistentVolumeClaim = {
    metadata: {namespace: 'a', name: 'b/c'},
    spec: {resources: {requests: {storage: '1'}}},
  }
  const other: PersistentVolume = {
    metadata: {name: VOLUME_NAMES[0]},
    spec: {capacity: {storage: '1'}, claimRef: {namespace: 'a/b', name: 'c'}},
    status: {phase: 'Bound'},
  }
  const own: PersistentVolume = {
    metadata: {name: VOLUME_NAMES[1]},
    spec: {capacity: {storage: '1'}, claimRef: {namespace: 'a', name: 'b/c'}},
    status: {phase: 'Bound'},
  }
  for (const index of [new IndexedVolumeIndex([other, own]), new PersistentVolumeOrderedIndex([other, own])]) {
    assert.equal(index.findBestMatchForClaim(claim, false, defaultFeatureGates)?.metadata.name, VOLUME_NAMES[1])
  }
})

test('capacities a nano apart, beyond what a double tells apart: the smaller one, as the scan finds', () => {
  // 10Gi is 10737418240000000000 nanos, past 2^53: Number() makes the three sizes equal.
  const claim: PersistentVolumeClaim = {
    metadata: {namespace: 'a', name: 'c'},
    spec: {accessModes: ['ReadWriteOnce'], resources: {requests: {storage: '10Gi'}}},
  }
  const sized = (name: string, storage: string): PersistentVolume => ({
    metadata: {name},
    spec: {capacity: {storage}, accessModes: ['ReadWriteOnce']},
    status: {phase: 'Available'},
  })
  const volumes = [
    sized('pv-a', '10737418240000000002n'),
    sized('pv-b', '10737418240000000001n'),
    sized('pv-c', '10737418240000000003n'),
  ]
  for (const index of [new IndexedVolumeIndex(volumes), new PersistentVolumeOrderedIndex(volumes)]) {
    assert.equal(index.findBestMatchForClaim(claim, false, defaultFeatureGates)?.metadata.name, 'pv-b')
  }
})

test('SortedList against a sorted array: inserts, removals and searches across many chunks', () => {
  fc.assert(
    fc.property(
      fc.array(fc.integer({min: 0, max: 1999}), {maxLength: 300}),
      fc.array(
        fc.tuple(fc.constantFrom('insert', 'remove', 'insert-run', 'remove-run'), fc.integer({min: 0, max: 1999})),
        {maxLength: 60},
      ),
      (initial, ops) => {
        const model = [...new Set(initial)].sort((a, b) => a - b)
        const list = new SortedList<number>((a, b) => a - b, model)
        const insert = (x: number) => {
          if (model.includes(x)) return
          list.insert(x)
          model.push(x)
          model.sort((a, b) => a - b)
        }
        const remove = (x: number) => {
          const i = model.indexOf(x)
          assert.equal(list.remove(x), i >= 0)
          if (i >= 0) model.splice(i, 1)
        }
        for (const [op, x] of ops) {
          // runs of 700 go past the chunk size, so chunks split, empty and go
          if (op === 'insert') insert(x)
          else if (op === 'remove') remove(x)
          else if (op === 'insert-run') for (let k = 0; k < 700; k++) insert((x + k) % 2000)
          else for (let k = 0; k < 700; k++) remove((x + k) % 2000)
          assert.equal(list.size, model.length)
          assert.deepEqual([...list], model)
          const bound = x
          assert.equal(
            list.first((y) => y >= bound),
            model.find((y) => y >= bound),
          )
          assert.deepEqual(
            [...list.from((y) => y >= bound)],
            model.filter((y) => y >= bound),
          )
        }
      },
    ),
    {numRuns: propertyRuns(100)},
  )
})

test('SortedList removes an entry passed as itself or as an equal copy (found by identity, else by the order)', () => {
  fc.assert(
    fc.property(
      fc.array(fc.integer({min: 0, max: 999}), {minLength: 1, maxLength: 1500}),
      fc.array(fc.tuple(fc.integer({min: 0, max: 999}), fc.boolean()), {maxLength: 200}),
      (initial, removals) => {
        const items = new Map([...new Set(initial)].map((n) => [n, {n}]))
        const list = new SortedList<{n: number}>((a, b) => a.n - b.n, [...items.values()])
        for (const [n, asCopy] of removals) {
          const item = items.get(n)
          // A copy is equal by the order but another object: the identity search misses it.
          assert.equal(list.remove(asCopy || item === undefined ? {n} : item), item !== undefined)
          items.delete(n)
          assert.deepEqual(
            [...list].map((x) => x.n),
            [...items.keys()].sort((a, b) => a - b),
          )
        }
      },
    ),
    {numRuns: propertyRuns(100)},
  )
})
