// The pure-function cases of test/conformance/engine (index_test.go and pv_controller_test.go of
// pkg/controller/volume/persistentvolume, written out as data), run against the engine's functions:
// one subtest per case, named after it.
//
// How the Go tests' set-up is reproduced:
// - Index cases (findBestMatchForClaim, listByAccessModes, allPossibleMatchingAccessModes) build the
//   index the way the Go tests do, with index.store.Add: a cache.Store keyed by name, so of two volumes
//   with the same name only the later one is indexed (createTestVolumes has two "affinity003").
// - pvutil.FindMatchingVolume cases pass the volume list as it is, as the Go test passes its slice.
// - Go walks an index bucket (a map) in random order. Every findBestMatchForClaim case is also run with
//   the buckets and the equally long mode sets reversed: when that changes the answer the expectation
//   depends on map order, and the case is checked (and reported) as "some equally good volume".
// - Feature gates: the ones pvctl models map onto FeatureGates (VolumeAttributesClass is the matcher's
//   vacEnabled, vacMatching of the gates); BlockVolume and StorageObjectInUseProtection are GA and locked on in v1.31, so a case
//   that turns them on asks for what pvctl always does; a case that turned one off could not be run.
import assert from 'node:assert/strict'
import {test, type TestContext} from 'node:test'
import {isDeepStrictEqual} from 'node:util'

import {
  CSIMigration,
  modifyDeletionFinalizers,
  updateMigrationAnnotations,
} from '../../src/engine/controller/csi-migration.js'
import {
  defaultFeatureGates,
  type FeatureGates,
  type GateName,
  knownFeatureGates,
} from '../../src/engine/api/feature-gates.js'
import type {PersistentVolume, PersistentVolumeAccessMode, PersistentVolumeClaim} from '../../src/engine/api/model.js'
import type {NodeInfo} from '../../src/engine/api/node-affinity.js'
import {checkVolumeSatisfyClaim} from '../../src/engine/controller/pv-controller.js'
import {compareQuantities} from '../../src/engine/api/quantity.js'
import {checkAccessModes, checkVolumeModeMismatches, deepCopy} from '../../src/engine/api/storage-helpers.js'
import {vacMatching} from '../../src/engine/api/releases.js'
import {
  findMatchingVolume,
  MatchError,
  PersistentVolumeOrderedIndex,
  storageQuantity,
} from '../../src/engine/matching/volume-index.js'
import {loadCases} from './cases.js'

/** Gates that are GA and locked on in v1.31: pvctl has no switch for them, it always behaves as "on". */
const lockedOnGates = new Set(['BlockVolume', 'StorageObjectInUseProtection'])

/** The engine's gates for a case, or why the case cannot be run as written. */
function gatesOf(spec: Record<string, unknown> | null | undefined): {gates: FeatureGates; unrunnable?: string} {
  const gates: FeatureGates = {...defaultFeatureGates}
  for (const [name, value] of Object.entries(spec ?? {})) {
    if ((knownFeatureGates as string[]).includes(name)) {
      gates[name as GateName] = value === true
    } else if (lockedOnGates.has(name)) {
      if (value !== true) {
        return {
          gates,
          unrunnable: `${name}=${String(value)}: the gate is GA and locked on in v1.31, pvctl cannot turn it off`,
        }
      }
      // On, as in every v1.31 controller: nothing to set.
    } else {
      throw new Error(`feature gate ${name} is neither modelled by pvctl nor known to be locked on in v1.31`)
    }
  }
  return {gates}
}

function keyOf(volume: PersistentVolume | undefined, matchBy: string | undefined): string {
  if (volume === undefined) return ''
  return (matchBy === 'uid' ? volume.metadata.uid : volume.metadata.name) ?? ''
}

function describeMatch(volume: PersistentVolume | undefined): string {
  return volume === undefined ? 'no match' : `${volume.metadata.name} (uid ${volume.metadata.uid ?? '-'})`
}

/** The expected-match rule of the README: "" no match, "*any*" some volume, else the volume's name/uid. */
function assertMatch(got: PersistentVolume | undefined, c: any): void {
  if (c.expectedMatch === '*any*') {
    assert.notEqual(got, undefined, `expected some volume, got no match`)
  } else {
    assert.equal(
      keyOf(got, c.matchBy),
      c.expectedMatch,
      `expected ${c.expectedMatch || 'no match'} by ${c.matchBy ?? 'name'}, got ${describeMatch(got)}`,
    )
  }
}

/** index.store.Add for each volume: keyed by name, a later volume replaces an earlier one. */
function storeAdd(t: TestContext, volumes: PersistentVolume[]): PersistentVolume[] {
  const store = new Map<string, PersistentVolume>()
  for (const volume of volumes) {
    const name = volume.metadata.name ?? ''
    const previous = store.get(name)
    if (previous !== undefined) {
      t.diagnostic(
        `cache.Store semantics: volume ${name} (uid ${previous.metadata.uid}) replaced by the later ${name} (uid ${volume.metadata.uid}), as index.store.Add does in the Go test`,
      )
    }
    store.set(name, volume)
  }
  return [...store.values()]
}

/**
 * findByClaim with Go's map order turned around: mode sets of equal size in reverse order and each bucket
 * reversed. Together with pvctl's own order this shows whether the answer depends on the order at all.
 */
function findBestMatchReversed(
  index: PersistentVolumeOrderedIndex,
  claim: PersistentVolumeClaim,
  delayBinding: boolean,
  gates: FeatureGates,
): PersistentVolume | undefined {
  const sets = index.allPossibleMatchingAccessModes(claim.spec.accessModes)
  const bySize = new Map<number, PersistentVolumeAccessMode[][]>()
  for (const modes of sets) bySize.set(modes.length, [...(bySize.get(modes.length) ?? []), modes])
  const reordered = [...bySize.keys()].sort((a, b) => a - b).flatMap((size) => [...bySize.get(size)!].reverse())
  for (const modes of reordered) {
    const volumes = [...index.listByAccessModes(modes)].reverse()
    const best = findMatchingVolume(claim, volumes, {delayBinding, vac: vacMatching(gates)})
    if (best !== undefined) return best
  }
  return undefined
}

type Runner = (t: TestContext, c: any, gates: FeatureGates) => void

const runners: Record<string, Runner> = {
  findBestMatchForClaim(t, c, gates) {
    const index = new PersistentVolumeOrderedIndex(storeAdd(t, c.volumes))
    const got = index.findBestMatchForClaim(c.claim, c.delayBinding, gates)
    const other = findBestMatchReversed(index, c.claim, c.delayBinding, gates)
    if (got === other) {
      assertMatch(got, c)
      return
    }
    // Several volumes are equally good and Go returns whichever its map yields first.
    t.diagnostic(
      `depends on Go map order: ${describeMatch(got)} and ${describeMatch(other)} are equally good; ` +
        `checked that the expected ${c.expectedMatch} is one of them and pvctl picks by name`,
    )
    const candidates = [keyOf(got, c.matchBy), keyOf(other, c.matchBy)]
    if (c.expectedMatch === '*any*') assert.ok(got !== undefined && other !== undefined)
    else
      assert.ok(
        candidates.includes(c.expectedMatch),
        `expected ${c.expectedMatch}, the equally good volumes are ${candidates.join(', ')}`,
      )
  },

  'pvutil.FindMatchingVolume'(_t, c, gates) {
    // A Go slice: walked in order, no map involved.
    const node: NodeInfo | undefined =
      c.node == null ? undefined : {name: c.node.metadata?.name, labels: c.node.metadata?.labels}
    const find = () =>
      findMatchingVolume(c.claim, c.volumes, {
        node,
        excludedVolumes: c.excludedVolumes == null ? undefined : new Set<string>(c.excludedVolumes),
        delayBinding: c.delayBinding,
        vac: vacMatching(gates),
      })
    if (c.expectError === true) {
      assert.throws(find, MatchError)
    } else {
      assertMatch(find(), c)
    }
  },

  checkVolumeModeMismatches(_t, c) {
    assert.equal(checkVolumeModeMismatches(c.claim.spec, c.volume.spec), c.expectedMismatch)
  },

  checkVolumeSatisfyClaim(_t, c, gates) {
    const mismatch = checkVolumeSatisfyClaim(c.volume, c.claim, gates)
    if (c.expectSatisfy) {
      assert.equal(mismatch, undefined, `expected the volume to satisfy the claim, got: ${mismatch}`)
    } else {
      assert.notEqual(mismatch, undefined, 'expected the volume not to satisfy the claim')
    }
  },

  checkAccessModes(_t, c) {
    assert.equal(checkAccessModes(c.claim, c.volume), c.shouldSucceed)
  },

  listByAccessModes(t, c) {
    // The Go test sorts what listByAccessModes returns by capacity (sort.Sort(byCapacity{volumes}))
    // before comparing, because the index itself returns its bucket in map order. The same here: the
    // bucket's members, ordered by capacity, must start with the expected volumes.
    const index = new PersistentVolumeOrderedIndex(storeAdd(t, c.volumes))
    const bucket = index.listByAccessModes(c.modes)
    const names = bucket.map((v) => v.metadata.name ?? '')
    assert.deepEqual(names, [...names].sort(), 'pvctl keeps a bucket ordered by name')
    const byCapacity = [...bucket].sort((a, b) =>
      compareQuantities(storageQuantity(a.spec.capacity), storageQuantity(b.spec.capacity)),
    )
    const prefix: string[] = c.expectedPrefixUIDs
    assert.ok(
      byCapacity.length >= prefix.length,
      `bucket has ${byCapacity.length} volumes, expected at least ${prefix.length}`,
    )
    if (byCapacity.length > prefix.length) {
      // sort.Sort is not stable: a tie across the end of the prefix would make the Go test order-dependent.
      const last = storageQuantity(byCapacity[prefix.length - 1].spec.capacity)
      const next = storageQuantity(byCapacity[prefix.length].spec.capacity)
      assert.notEqual(compareQuantities(last, next), 0, 'capacity tie at the end of the checked prefix')
    }
    t.diagnostic('compared after sorting by capacity, as the Go test does; pvctl itself orders a bucket by name')
    assert.deepEqual(
      byCapacity.slice(0, prefix.length).map((v) => v.metadata.uid),
      prefix,
    )
  },

  allPossibleMatchingAccessModes(t, c) {
    const index = new PersistentVolumeOrderedIndex(storeAdd(t, c.volumes))
    for (const want of c.expected as Array<{
      request: PersistentVolumeAccessMode[]
      count: number
      eachContains: PersistentVolumeAccessMode
    }>) {
      const sets = index.allPossibleMatchingAccessModes(want.request)
      assert.equal(sets.length, want.count, `mode sets matching ${want.request.join('+')}: ${JSON.stringify(sets)}`)
      for (const modes of sets)
        assert.ok(modes.includes(want.eachContains), `${modes.join('+')} lacks ${want.eachContains}`)
    }
  },

  modifyDeletionFinalizers(_t, c, gates) {
    const volume: PersistentVolume = deepCopy(c.initialVolume)
    if (c.volumeAnnotations != null) {
      // volume.SetAnnotations(...): replaces the whole map.
      volume.metadata.annotations = {...c.volumeAnnotations}
    }
    const {finalizers, modified} = modifyDeletionFinalizers(new CSIMigration(gates), gates, volume)
    // slice.RemoveString returns nil for an empty result; nil and empty are the same here (README).
    const orNull = (list: string[] | null | undefined) => (list == null || list.length === 0 ? null : list)
    assert.deepEqual(orNull(finalizers), orNull(c.expVolumeFinalizers))
    assert.equal(modified, c.expModified)
  },

  updateMigrationAnnotations(_t, c, gates) {
    const migration = new CSIMigration(gates)
    for (const [what, isClaim, input, expected] of [
      ['volume', false, c.volumeAnnotations, c.expVolumeAnnotations],
      ['claim', true, c.claimAnnotations, c.expClaimAnnotations],
    ] as const) {
      // The Go test skips nil maps; the function's own nil branch must report no change.
      const ann: Record<string, string> | null = input == null ? null : {...input}
      const changed = updateMigrationAnnotations(migration, ann, isClaim)
      assert.deepEqual(ann, expected ?? null, `${what} annotations`)
      assert.equal(changed, !isDeepStrictEqual(input ?? null, ann), `${what}: returned ${changed}`)
    }
  },
}

for (const {file, cases} of loadCases('engine')) {
  test(`engine conformance ${file}`, async (t) => {
    for (const c of cases) {
      // A case the Go test runs once per gate setting (featureGateVariants) is one subtest per setting.
      const variants: Array<Record<string, unknown> | null> = Array.isArray(c.featureGateVariants)
        ? c.featureGateVariants
        : [null]
      for (const variant of variants) {
        const spec = variant === null ? c.featureGates : {...(c.featureGates ?? {}), ...variant}
        const label =
          variant === null
            ? c.name
            : `${c.name} [${Object.entries(variant)
                .map(([k, v]) => `${k}=${String(v)}`)
                .join(',')}]`
        await t.test(label, (st) => {
          const runner = runners[c.test]
          assert.ok(runner !== undefined, `unknown case kind ${c.test}`)
          const {gates, unrunnable} = gatesOf(spec)
          if (unrunnable !== undefined) {
            st.diagnostic(`not run: ${unrunnable}`)
            st.skip(unrunnable)
            return
          }
          runner(st, c, gates)
        })
      }
    }
  })
}
