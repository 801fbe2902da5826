// reclaimFits checks a volume once per request of its class (and the claims its claimRef names each for
// themselves); it must answer as the definition does, every claim of the volume's class checked in turn
// with the controller's reasons worded in full. Both are asked of every volume, for several `most`, on the
// conformance cases, generated clusters, random states and a restore's states.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import fc from 'fast-check'

import {defaultFeatureGates, type FeatureGates} from '../../../src/engine/api/feature-gates.js'
import type {ClusterState, PersistentVolume} from '../../../src/engine/api/model.js'
import {getPersistentVolumeClass} from '../../../src/engine/api/storage-helpers.js'
import {reasonsFor} from '../../../src/engine/explain/candidates.js'
import {Explainer} from '../../../src/engine/explain/explainer.js'
import type {ClaimExplanationFacts} from '../../../src/engine/explain/model.js'
import {RECLAIM_FOR_VERDICTS, reclaimFits} from '../../../src/engine/repair/offers.js'
import type {ClaimName} from '../../../src/engine/repair/reclaim.js'
import {loadCases, stateOf} from '../../conformance/cases.js'
import {byController, pv, pvc, state} from '../builders.js'
import {clusterArb, gatesArb, propertyRuns} from '../differential-arbitraries.js'
import {generatedState} from '../explain-oracle.js'

const LIFTED = new Set(['BoundToOtherClaim', 'VolumeNotAvailable'])

/**
 * The definition: the claims that name the volume and that its claimRef keeps out (they ask for it alone),
 * else each claim nothing binds, of the volume's class, in order, until `most` fit.
 */
function fitsOneByOne(
  explainer: Explainer,
  claims: readonly ClaimExplanationFacts[],
  gates: FeatureGates,
  volume: PersistentVolume,
  most: number,
): ClaimName[] {
  const asking = claims
    .filter((e) => e.verdict === 'RequestedVolumeBoundElsewhere' && e.request.volumeName === volume.metadata.name)
    .map((e) => e.claim)
  if (asking.length > 0) return asking.slice(0, most)
  const fit: ClaimName[] = []
  for (const e of claims) {
    const claim = explainer.lookup.claimNamed(e.claim.namespace, e.claim.name)
    if (
      fit.length >= most ||
      claim === undefined ||
      !RECLAIM_FOR_VERDICTS.has(e.verdict) ||
      (claim.spec.volumeName ?? '') !== ''
    )
      continue
    if (e.storageClass.name !== getPersistentVolumeClass(volume)) continue
    const path = {
      kind: 'index' as const,
      claimClass: e.storageClass.name,
      delayBinding: e.storageClass.volumeBindingMode === 'WaitForFirstConsumer',
    }
    if (reasonsFor(explainer.lookup, volume, claim, path, gates).every((r) => LIFTED.has(r.code))) fit.push(e.claim)
  }
  return fit
}

/** What the two answer differently, and how many volumes some claim fits (so that a test shows it asked something). */
function differences(
  s: ClusterState,
  gates: FeatureGates = defaultFeatureGates,
): {problems: string[]; fitting: number} {
  const explainer = new Explainer(s, {gates})
  const claims = s.claims.map((c) => explainer.claimFacts(c.metadata.namespace ?? '', c.metadata.name ?? '')!)
  const fits = reclaimFits(explainer.lookup, claims, gates)
  const problems: string[] = []
  let fitting = 0
  for (const volume of s.volumes) {
    for (const most of [1, 2, 5]) {
      const want = fitsOneByOne(explainer, claims, gates, volume, most)
      const got = fits(volume, most)
      if (want.length > 0) fitting++
      if (JSON.stringify(got) !== JSON.stringify(want))
        problems.push(
          `pv/${volume.metadata.name} (most ${most}): ${JSON.stringify(got)}, by definition ${JSON.stringify(want)}`,
        )
    }
  }
  return {problems, fitting}
}

describe('reclaimFits answers as every claim checked in turn', () => {
  test('the conformance cases', () => {
    const results = loadCases('cases').flatMap(({cases}) =>
      cases.map((c) => ({name: c.name, ...differences(stateOf(c))})),
    )
    assert.deepEqual(
      results.flatMap((r) => r.problems.map((p) => `${r.name}: ${p}`)),
      [],
    )
  })
  for (const [volumes, seed] of [
    [400, 11],
    [800, 12],
  ] as const) {
    test(`a generated cluster of ${volumes} volumes, seed ${seed}`, () => {
      const {problems, fitting} = differences(generatedState(volumes, seed))
      assert.deepEqual(problems, [])
      assert.ok(fitting > 0, 'no volume fits any claim: the comparison asked nothing')
    })
  }
  test('random states and feature gates (the differential test generators)', () => {
    fc.assert(
      fc.property(clusterArb(), gatesArb, (s, gates) => {
        assert.deepEqual(differences(s, gates).problems, [])
      }),
      {numRuns: propertyRuns(300)},
    )
  })
  // A restore: the volume's claimRef names a claim that exists again under another uid, asking as others do.
  const releasedTo = (name: string, o: Parameters<typeof pv>[1] = {}) =>
    pv(name, {phase: 'Released', className: '', claim: {name: 'db', uid: 'u-old'}, annotations: byController, ...o})
  const rows: Array<{name: string; s: ClusterState}> = [
    {
      name: 'the re-created claim and another asking alike',
      s: state({
        volumes: [releasedTo('pv-1')],
        claims: [pvc('db', 'u-new', {className: ''}), pvc('web', 'u-web', {className: ''})],
      }),
    },
    {
      name: 'the re-created claim alone',
      s: state({volumes: [releasedTo('pv-1')], claims: [pvc('db', 'u-new', {className: ''})]}),
    },
    {
      name: 'claims asking alike, one too big for the volume',
      s: state({
        volumes: [releasedTo('pv-1', {claim: {name: 'old', uid: 'u-old'}})],
        claims: [
          pvc('a', 'u-a', {className: ''}),
          pvc('b', 'u-b', {className: '', request: '5Gi'}),
          pvc('c', 'u-c', {className: ''}),
        ],
      }),
    },
  ]
  for (const row of rows) {
    test(row.name, () => {
      const {problems, fitting} = differences(row.s)
      assert.deepEqual(problems, [])
      assert.ok(fitting > 0, 'no volume fits any claim: the comparison asked nothing')
    })
  }
})
