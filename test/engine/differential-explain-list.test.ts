// `pvctl explain` with no claim named ranks each claim's nearest volumes from a ranking shared by the claims
// that ask for the same thing (explain-request-groups.ts). The reference is rankCandidates judging every
// volume for each claim (ExplainOptions.ranking 'per-claim'): on random dense clusters (pre-bound volumes,
// stale claimRefs naming same-named claims, selectors valid and invalid, delay binding with selected nodes,
// claims naming volumes, Lost claims), with --only-relevant on and off and --candidates 1, 5 and 0, both
// must print the same List, byte for byte.
//
// PVCTL_PROPERTY_RUNS=5000 node --import tsx --test test/engine/differential-explain-list.test.ts
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import fc from 'fast-check'

import {clusterJson, generateCluster} from '../../bench/generate-cluster.js'
import {snapshotTextState} from '../fixtures/states.js'
import {claimsToExplain, Explainer} from '../../src/engine/explain/explainer.js'
import {EXPLAIN_API_VERSION, type ExplainDocument} from '../../src/engine/explain/model.js'
import {defaultFeatureGates, type FeatureGates} from '../../src/engine/api/feature-gates.js'
import type {ClusterState, PersistentVolume} from '../../src/engine/api/model.js'
import {clusterArb, gatesArb, propertyRuns} from './differential-arbitraries.js'

interface ListOptions {
  gates: FeatureGates
  onlyRelevant: boolean
  candidates: number
}

/** The List `explain` prints for every claim not Bound, ranked one way or the other. */
function explainList(state: ClusterState, opts: ListOptions, ranking: 'grouped' | 'per-claim'): string {
  const explainer = new Explainer(state, {...opts, ranking})
  // As the List is printed: each claim after the claims before it in the controller's pass (listItem).
  const items = claimsToExplain(explainer).map((c) =>
    explainer.listItem(c.metadata.namespace ?? '', c.metadata.name ?? '')!,
  )
  const document: ExplainDocument = {apiVersion: EXPLAIN_API_VERSION, kind: 'List', items}
  return JSON.stringify(document)
}

function assertSameList(state: ClusterState, opts: ListOptions): void {
  const grouped = explainList(state, opts, 'grouped')
  const reference = explainList(state, opts, 'per-claim')
  if (grouped !== reference) {
    // The first item that differs, not two walls of JSON.
    const g = (JSON.parse(grouped) as {items: unknown[]}).items
    const r = (JSON.parse(reference) as {items: unknown[]}).items
    const at = g.findIndex((item, i) => JSON.stringify(item) !== JSON.stringify(r[i]))
    assert.deepEqual(
      g[at],
      r[at],
      `item ${at} differs (--candidates ${opts.candidates}, only relevant ${opts.onlyRelevant})`,
    )
  }
  assert.equal(grouped, reference)
}

/**
 * Each volume `copies` times (pv-a, pv-a-2, ...; claimRefs and all): more volumes than a request group
 * keeps, and many claimRefs naming one claim, so that a claim's own volumes crowd the group's nearest.
 * `sameName`: the copies keep the name (a snapshot may hold two objects of one name).
 */
function withCopies(state: ClusterState, copies: number, sameName = false): ClusterState {
  const copy = (v: PersistentVolume, i: number): PersistentVolume => {
    const name = i === 1 || sameName ? v.metadata.name! : `${v.metadata.name}-${i}`
    const metadata = {...v.metadata, name, uid: `uid-${name}-${i}`}
    // Under one name, a copy that differs: free and of another size.
    const {claimRef: _ref, ...free} = v.spec
    return sameName && i > 1 ? {...v, metadata, spec: {...free, capacity: {storage: '3Gi'}}} : {...v, metadata}
  }
  return {...state, volumes: state.volumes.flatMap((v) => Array.from({length: copies}, (_, i) => copy(v, i + 1)))}
}

const optionsArb: fc.Arbitrary<ListOptions> = fc.record({
  gates: gatesArb,
  onlyRelevant: fc.boolean(),
  candidates: fc.constantFrom(1, 5, 0),
})

describe('explain List: ranked per request group, printed as ranked per claim', () => {
  test('random dense clusters', () => {
    fc.assert(
      fc.property(clusterArb(12, 10), optionsArb, (state, opts) => assertSameList(state, opts)),
      {numRuns: propertyRuns(300)},
    )
  })

  // Four copies: more volumes than a group keeps. Twelve: a claim's own volumes (claimRefs naming it) take
  // more places among the group's nearest than it keeps to spare, and the claim is ranked alone.
  // Twice under one name (the copy free, of another size): a volume's name no longer finds it alone.
  const copied = [
    {id: 'every volume 4 times', copies: 4, sameName: false},
    {id: 'every volume 12 times', copies: 12, sameName: false},
    {id: 'every volume twice under one name', copies: 2, sameName: true},
  ]
  for (const row of copied) {
    test(`random clusters with ${row.id}`, () => {
      fc.assert(
        fc.property(clusterArb(12, 10), optionsArb, (state, opts) =>
          assertSameList(withCopies(state, row.copies, row.sameName), opts),
        ),
        {numRuns: propertyRuns(100)},
      )
    })
  }

  const generated = [
    {id: '400 volumes, seed 5', volumes: 400, seed: 5},
    {id: '1000 volumes, seed 6', volumes: 1000, seed: 6},
  ]
  for (const row of generated) {
    test(`the benchmark's cluster: ${row.id}`, () => {
      const state = snapshotTextState(clusterJson(generateCluster(row.volumes, row.seed)), row.id)
      for (const onlyRelevant of [false, true]) {
        for (const candidates of [1, 5]) assertSameList(state, {gates: defaultFeatureGates, onlyRelevant, candidates})
      }
    })
  }
})
