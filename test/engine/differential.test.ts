// The default engine against the reference, the literal controller: the scan of FindMatchingVolume
// (`matching: 'scan'`) and every sync run in every round (`replayQuietSyncs: false`). The default engine
// answers from indexes and replays the syncs that wrote nothing and read nothing written since. On random
// clusters and on every conformance case, both must plan exactly the same thing — actions in the same
// order, events (and their counts), sync errors, rounds, every object after the plan — and a full run
// must reach its fixpoint within the round bound. Each optimization is also compared alone.
//
// PVCTL_PROPERTY_RUNS=5000 node --import tsx --test test/engine/differential*.test.ts   # thousands of clusters
import assert from 'node:assert/strict'
import {test} from 'node:test'

import fc from 'fast-check'

import type {ClusterState} from '../../src/engine/api/model.js'
import {
  DEFAULT_MAX_ROUNDS,
  reconcile,
  type ReconcileOptions,
  type ReconcileResult,
} from '../../src/engine/simulation/reconcile.js'
import {type ConformanceCase, loadCases, stateOf} from '../conformance/cases.js'
import {asTheCaseRuns, caseOptions} from './conformance-options.js'
import {clusterArb, deterministicOperations, gatesArb, propertyRuns, runShapeArb} from './differential-arbitraries.js'

type Outcome = {result: ReconcileResult; error?: undefined} | {result?: undefined; error: string}

function plan(state: ClusterState, options: ReconcileOptions): Outcome {
  try {
    return {result: reconcile(state, options)}
  } catch (err) {
    return {error: err instanceof Error ? `${err.name}: ${err.message}` : String(err)}
  }
}

/** The literal controller. */
const REFERENCE = {matching: 'scan', replayQuietSyncs: false} as const
/** pvctl's engine: the defaults, then each optimization alone. */
const ENGINES = [
  {label: 'indexed + replay', options: {matching: 'indexed', replayQuietSyncs: true}},
  {label: 'indexed', options: {matching: 'indexed', replayQuietSyncs: false}},
  {label: 'replay', options: {matching: 'scan', replayQuietSyncs: true}},
] as const

/** The first difference between two plans, in words (for a readable counterexample). */
function firstDifference(a: Outcome, b: Outcome): string | undefined {
  if (a.error !== undefined || b.error !== undefined) {
    return a.error === b.error
      ? undefined
      : `errors differ: engine ${a.error ?? 'none'}, reference ${b.error ?? 'none'}`
  }
  const x = a.result!
  const y = b.result!
  for (const field of ['rounds', 'converged', 'actions', 'events', 'errors', 'volumes', 'claims'] as const) {
    const left = x[field]
    const right = y[field]
    if (Array.isArray(left) && Array.isArray(right)) {
      const n = Math.max(left.length, right.length)
      for (let i = 0; i < n; i++) {
        const l = JSON.stringify(left[i])
        const r = JSON.stringify(right[i])
        if (l !== r) return `${field}[${i}] differ:\n  engine    ${l}\n  reference ${r}`
      }
    } else if (left !== right) {
      return `${field} differ: engine ${String(left)}, reference ${String(right)}`
    } else {
      // Equal.
    }
  }
  return undefined
}

/** The outcome without the count of syncs run and replayed: replaying them is the point. */
function withoutSyncCounts(o: Outcome): unknown {
  if (o.result === undefined) return o
  const {syncs: _syncs, ...result} = o.result
  return {...o, result}
}

/**
 * Every engine plans what the reference plans; returns the reference's outcome. `options` makes the
 * options of each run: plugin operations keep state (the calls a case expects), so each run has its own.
 */
function assertSamePlan(state: ClusterState, options: () => ReconcileOptions, label = ''): Outcome {
  const reference = plan(state, {...options(), ...REFERENCE})
  for (const engine of ENGINES) {
    const outcome = plan(state, {...options(), ...engine.options})
    const difference = firstDifference(outcome, reference)
    assert.equal(difference, undefined, `${label}${engine.label}: ${difference}`)
    // firstDifference compares the JSON; the objects must also be deeply equal (no undefined-vs-absent drift).
    assert.deepEqual(withoutSyncCounts(outcome), withoutSyncCounts(reference), `${label}${engine.label}`)
  }
  return reference
}

test('random clusters: the engine plans exactly what the literal controller plans, and a full run reaches its fixpoint', () => {
  fc.assert(
    fc.property(clusterArb(10, 8), gatesArb, runShapeArb, (state, gates, shape) => {
      const options = (): ReconcileOptions => ({
        gates,
        ...(shape.scope !== undefined ? {scope: shape.scope} : {}),
        ...(shape.targets !== undefined ? {targets: shape.targets} : {}),
        ...(shape.maxRounds !== undefined ? {maxRounds: shape.maxRounds} : {}),
        ...(shape.operations !== 'none' ? {operations: deterministicOperations(shape.operations)} : {}),
      })
      const outcome = assertSamePlan(state, options)
      // A failing plugin operation is retried in every sync, as the controller does: no fixpoint then.
      if (
        outcome.result !== undefined &&
        (shape.maxRounds ?? DEFAULT_MAX_ROUNDS) === DEFAULT_MAX_ROUNDS &&
        shape.operations !== 'fail'
      ) {
        assert.equal(outcome.result.converged, true, `no fixpoint within ${DEFAULT_MAX_ROUNDS} rounds`)
        assert.ok(outcome.result.rounds <= DEFAULT_MAX_ROUNDS)
      } else {
        // A bounded run may stop early by design, failing operations retry forever; errors are compared above.
      }
    }),
    {numRuns: propertyRuns(2500)},
  )
})

test('larger random clusters (more volumes than claims, and the reverse): identical plans', () => {
  fc.assert(
    fc.property(fc.oneof(clusterArb(12, 4), clusterArb(4, 10)), gatesArb, (state, gates) => {
      assertSamePlan(state, () => ({gates, operations: deterministicOperations('fail')}))
    }),
    {numRuns: propertyRuns(500)},
  )
})

test('every conformance case: identical plans, as the case runs it and as a full run', () => {
  let compared = 0
  for (const {file, cases} of loadCases('cases')) {
    for (const c of cases as ConformanceCase[]) {
      const label = `${file} ${c.name}: `
      assertSamePlan(stateOf(c), () => ({...caseOptions(c), ...asTheCaseRuns(c)}), `${label}as the case runs: `)
      assertSamePlan(stateOf(c), () => caseOptions(c), `${label}full run: `)
      compared++
    }
  }
  assert.ok(compared > 50, `only ${compared} conformance cases found`)
})
