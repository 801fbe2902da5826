// The indexed engine against the reference (the literal scan of the controller, `matching: 'scan'`):
// on random clusters and on every conformance case, both must plan exactly the same thing — actions in
// the same order, events, sync errors, rounds, every object after the plan — and a full run must reach
// its fixpoint within the round bound.
//
// PVCTL_PROPERTY_RUNS=5000 node --import tsx --test test/engine/differential*.test.ts   # thousands of clusters
import assert from 'node:assert/strict'
import {test} from 'node:test'

import fc from 'fast-check'

import type {ClusterState} from '../../src/engine/model.js'
import {DEFAULT_MAX_ROUNDS, reconcile, type ReconcileOptions, type ReconcileResult} from '../../src/engine/reconcile.js'
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

/** The first difference between two plans, in words (for a readable counterexample). */
function firstDifference(a: Outcome, b: Outcome): string | undefined {
  if (a.error !== undefined || b.error !== undefined) {
    return a.error === b.error ? undefined : `errors differ: indexed ${a.error ?? 'none'}, scan ${b.error ?? 'none'}`
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
        if (l !== r) return `${field}[${i}] differ:\n  indexed ${l}\n  scan    ${r}`
      }
    } else if (left !== right) {
      return `${field} differ: indexed ${String(left)}, scan ${String(right)}`
    } else {
      // Equal.
    }
  }
  return undefined
}

function assertSamePlan(state: ClusterState, options: ReconcileOptions, label = ''): Outcome {
  const indexed = plan(state, {...options, matching: 'indexed'})
  const scan = plan(state, {...options, matching: 'scan'})
  const difference = firstDifference(indexed, scan)
  assert.equal(difference, undefined, `${label}${difference}`)
  // firstDifference compares the JSON; the objects must also be deeply equal (no undefined-vs-absent drift).
  assert.deepEqual(indexed, scan)
  return indexed
}

test('random clusters: the indexed engine plans exactly what the literal scan plans, and a full run reaches its fixpoint', () => {
  fc.assert(
    fc.property(clusterArb(10, 8), gatesArb, runShapeArb, (state, gates, shape) => {
      const options: ReconcileOptions = {
        gates,
        ...(shape.scope !== undefined ? {scope: shape.scope} : {}),
        ...(shape.targets !== undefined ? {targets: shape.targets} : {}),
        ...(shape.maxRounds !== undefined ? {maxRounds: shape.maxRounds} : {}),
        ...(shape.operations !== 'none' ? {operations: deterministicOperations(shape.operations)} : {}),
      }
      const outcome = assertSamePlan(state, options)
      // A failing plugin operation is retried in every sync, as the controller does: no fixpoint then.
      if (outcome.result !== undefined && (shape.maxRounds ?? DEFAULT_MAX_ROUNDS) === DEFAULT_MAX_ROUNDS && shape.operations !== 'fail') {
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
      assertSamePlan(state, {gates, operations: deterministicOperations('fail')})
    }),
    {numRuns: propertyRuns(500)},
  )
})


test('every conformance case: identical plans, as the case runs it and as a full run', () => {
  let compared = 0
  for (const {file, cases} of loadCases('cases')) {
    for (const c of cases as ConformanceCase[]) {
      const label = `${file} ${c.name}: `
      const indexedAsCase = plan(stateOf(c), {...caseOptions(c), matching: 'indexed', ...asTheCaseRuns(c)})
      const scanAsCase = plan(stateOf(c), {...caseOptions(c), matching: 'scan', ...asTheCaseRuns(c)})
      assert.equal(firstDifference(indexedAsCase, scanAsCase), undefined, label)
      const indexedFull = plan(stateOf(c), {...caseOptions(c), matching: 'indexed'})
      const scanFull = plan(stateOf(c), {...caseOptions(c), matching: 'scan'})
      assert.equal(firstDifference(indexedFull, scanFull), undefined, label)
      compared++
    }
  }
  assert.ok(compared > 50, `only ${compared} conformance cases found`)
})
