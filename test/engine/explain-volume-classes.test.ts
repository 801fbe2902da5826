// VolumeClasses ranks a request group's stand-in from classes of volumes judged alike; rankCandidates,
// judging every volume, is the reference. Here the two are compared directly, for random requests over
// random dense clusters (selectors of every operator, pre-bound and stale claimRefs, delay binding with a
// node), and the states VolumeClasses leaves to rankCandidates are listed.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import fc from 'fast-check'

import {
  candidateOrder,
  type CandidateRanking,
  describeReasons,
  type MatchingPath,
  rankCandidates,
  type RankingOptions,
} from '../../src/engine/explain/candidates.js'
import {clusterLookup} from '../../src/engine/explain/lookup.js'
import {nearMissTests} from '../../src/engine/explain/suggestions.js'
import {VolumeClasses} from '../../src/engine/explain/volume-classes.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {ClusterState, PersistentVolumeClaim} from '../../src/engine/api/model.js'
import {getPersistentVolumeClaimClass} from '../../src/engine/api/storage-helpers.js'
import {CLASS_NAMES, clusterArb, gatesArb, propertyRuns} from './differential-arbitraries.js'
import {pv, pvc} from './builders.js'

/** A claim's request under a name no claimRef and no volume of the generated clusters bears. */
function standIn(claim: PersistentVolumeClaim): PersistentVolumeClaim {
  const {uid: _uid, ...metadata} = claim.metadata
  const {volumeName: _name, ...spec} = claim.spec
  return {...claim, metadata: {...metadata, namespace: '', name: 'pvctl-request-group'}, spec}
}

/** The ranking as printed: every reason worded. */
function printed(r: CandidateRanking): string {
  return JSON.stringify({...r, nearest: r.nearest.map(describeReasons)})
}

const requestArb = fc.record({
  claimIndex: fc.nat(),
  path: fc.oneof(
    fc.record({
      kind: fc.constant('index' as const),
      delayBinding: fc.boolean(),
      node: fc.constantFrom(undefined, 'node-a', 'node-b'),
    }),
    fc.record({kind: fc.constantFrom('requested' as const, 'bound' as const)}),
  ),
  keep: fc.constantFrom(1, 3, 9),
  onlyRelevant: fc.boolean(),
  nearMisses: fc.boolean(),
})

/** Each volume three times under names of its own (pv-a, pv-a-2, pv-a-3): classes of many volumes, sizes shared. */
function withCopies(state: ClusterState): ClusterState {
  return {
    ...state,
    volumes: state.volumes.flatMap((v) =>
      [1, 2, 3].map((i) => ({
        ...v,
        metadata: {...v.metadata, name: i === 1 ? v.metadata.name : `${v.metadata.name}-${i}`},
      })),
    ),
  }
}

describe('VolumeClasses.rank: what rankCandidates ranks, from classes of volumes', () => {
  test('random requests over random dense clusters', () => {
    fc.assert(
      fc.property(clusterArb(12, 10).map(withCopies), gatesArb, requestArb, (state, gates, req) => {
        fc.pre(state.claims.length > 0)
        const cluster = clusterLookup(state)
        const classes = VolumeClasses.of(cluster)
        // The generated clusters name every volume once, with a readable size.
        assert.ok(classes !== undefined)
        const claim = standIn(state.claims[req.claimIndex % state.claims.length])
        const path: MatchingPath =
          req.path.kind === 'index'
            ? {
                kind: 'index',
                claimClass: getPersistentVolumeClaimClass(claim),
                delayBinding: req.path.delayBinding,
                ...(req.path.node !== undefined
                  ? {node: {name: req.path.node, labels: {'kubernetes.io/hostname': req.path.node}}}
                  : {}),
              }
            : {kind: req.path.kind, volumeName: req.path.kind === 'bound' ? '' : 'pvctl-request-group'}
        const tests = nearMissTests(cluster, claim)
        const opts: RankingOptions = {
          keep: req.keep,
          onlyRelevant: req.onlyRelevant,
          named: [],
          nearestPassing: req.nearMisses
            ? [
                {test: tests.fixable, count: 5},
                {test: tests.released, count: 6},
              ]
            : [],
        }
        const order = candidateOrder(claim, null)
        assert.equal(
          printed(classes.rank(claim, path, gates, order, opts)),
          printed(rankCandidates(cluster, claim, path, gates, order, opts)),
        )
      }),
      {numRuns: propertyRuns(500)},
    )
  })

  test('classes of one selector: the volumes it picks rank first, the rest by size', () => {
    // Twelve volumes of one class in three label sets; the claim picks tier=gold.
    const volumes = Array.from({length: 12}, (_, i) =>
      pv(`pv-${String(i).padStart(2, '0')}`, {
        capacity: `${1 + (i % 4)}Gi`,
        labels: i % 3 === 0 ? {tier: 'gold'} : i % 3 === 1 ? {tier: 'silver'} : {},
        className: CLASS_NAMES[0],
      }),
    )
    const claim = standIn(
      pvc('data', 'uid-data', {request: '2Gi', selector: {matchLabels: {tier: 'gold'}}, className: CLASS_NAMES[0]}),
    )
    const state: ClusterState = {volumes, claims: [], classes: [], pods: [], nodes: []}
    const cluster = clusterLookup(state)
    const path: MatchingPath = {kind: 'index', claimClass: CLASS_NAMES[0], delayBinding: false}
    const opts: RankingOptions = {keep: 6, onlyRelevant: false, named: [], nearestPassing: []}
    const ranked = VolumeClasses.of(cluster)!.rank(claim, path, defaultFeatureGates, candidateOrder(claim, null), opts)
    // gold: pv-00 (1Gi), pv-03 (4Gi), pv-06 (3Gi), pv-09 (2Gi), eligible when at least 2Gi, nearest first.
    // Then one reason each, by distance: pv-01 and pv-05 (2Gi, not gold), pv-00 (gold, 1Gi too small)
    // before pv-02 (3Gi, unlabelled) by name.
    assert.deepEqual(
      ranked.nearest.map((c) => [c.volume, c.reasons.map((r) => r.code).join()]),
      [
        ['pv-09', ''],
        ['pv-06', ''],
        ['pv-03', ''],
        ['pv-01', 'SelectorMismatch'],
        ['pv-05', 'SelectorMismatch'],
        ['pv-00', 'CapacityTooSmall'],
      ],
    )
    assert.deepEqual([ranked.total, ranked.eligible], [12, 3])
  })

  test('more selectors than the splits kept, each asked for twice, rank as rankCandidates ranks them', () => {
    const volumes = Array.from({length: 30}, (_, i) =>
      pv(`pv-${String(i).padStart(2, '0')}`, {
        capacity: `${1 + (i % 5)}Gi`,
        labels: {app: `app-${i % 20}`, zone: `z-${i % 3}`},
      }),
    )
    const state: ClusterState = {volumes, claims: [], classes: [], pods: [], nodes: []}
    const cluster = clusterLookup(state)
    const classes = VolumeClasses.of(cluster)!
    const path: MatchingPath = {kind: 'index', claimClass: '', delayBinding: false}
    const opts: RankingOptions = {keep: 4, onlyRelevant: false, named: [], nearestPassing: []}
    for (const round of [1, 2]) {
      for (let app = 0; app < 20; app++) {
        const claim = standIn(
          pvc('data', 'uid-data', {request: '3Gi', selector: {matchLabels: {app: `app-${app}`, zone: `z-${app % 3}`}}}),
        )
        const order = candidateOrder(claim, null)
        const expected = printed(rankCandidates(cluster, claim, path, defaultFeatureGates, order, opts))
        assert.equal(
          printed(classes.rank(claim, path, defaultFeatureGates, order, opts)),
          expected,
          `app-${app}, round ${round}`,
        )
      }
    }
  })

  const leftToRankCandidates = [
    {id: 'two volumes of one name', volumes: [pv('pv-a'), pv('pv-a', {capacity: '2Gi'})]},
    {id: 'a volume without a name', volumes: [pv('')]},
    {id: 'an unreadable capacity', volumes: [pv('pv-a'), pv('pv-b', {capacity: 'lots'})]},
  ]
  for (const row of leftToRankCandidates) {
    test(`left to rankCandidates: ${row.id}`, () => {
      const state: ClusterState = {volumes: row.volumes, claims: [], classes: [], pods: [], nodes: []}
      assert.equal(VolumeClasses.of(clusterLookup(state)), undefined)
    })
  }
})
