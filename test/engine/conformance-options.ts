// How an engine test runs a conformance case: its feature gates, and the Go tests' mock plugin and
// reactor errors plugged into the engine's seams (fresh for every run: the mock consumes its call lists).
import {type FeatureGates, parseFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {ReconcileOptions} from '../../src/engine/simulation/reconcile.js'
import {type ConformanceCase, refOf} from '../conformance/cases.js'
import {
  mockMigration,
  mockOperations,
  mockPluginMgr,
  type PluginMock,
  reactorFaults,
  type ReactorError,
} from '../conformance/mock-plugin.js'

export function caseGates(c: ConformanceCase): FeatureGates {
  return parseFeatureGates(
    Object.entries(c.featureGates ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(','),
  )
}

/** The case's gates and, when it has one, its mock plugin (a new one on every call). */
export function caseOptions(c: ConformanceCase): ReconcileOptions {
  const gates = caseGates(c)
  const mock = c.pluginMock as PluginMock | null
  return mock == null
    ? {gates}
    : {
        gates,
        plugins: mockPluginMgr(mock),
        operations: mockOperations(mock),
        apiFaults: reactorFaults((c.reactorErrors ?? []) as ReactorError[]),
        ...(mock.csiMigration ? {migration: mockMigration(mock.csiMigration)} : {}),
      }
}

/** As the Go test runs the case: one sync of the target, or rounds until stable (multiSync). */
export function asTheCaseRuns(c: ConformanceCase): ReconcileOptions {
  return c.test !== 'multiSync' ? {targets: [refOf(c.target)], maxRounds: 1} : {}
}
