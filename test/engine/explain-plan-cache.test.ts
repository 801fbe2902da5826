// An Explainer over the plan's own informer caches (planSyncKeepingCache, ExplainOptions.cache), as audit
// explains the state after the plan, answers as one made afresh over that state (withPlanApplied): every
// claim (all its candidates, as a List item, its facts), every volume, and the audit's findings, on the
// conformance cases, on generated clusters and on the differential test's random states and gates.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import fc from 'fast-check'

import {auditState} from '../../src/engine/audit/audit-state.js'
import {withPlanApplied} from '../../src/engine/simulation/plan-applied.js'
import {planSync, planSyncKeepingCache} from '../../src/engine/simulation/plan-sync.js'
import {defaultFeatureGates, type FeatureGates} from '../../src/engine/api/feature-gates.js'
import type {ClusterState} from '../../src/engine/api/model.js'
import {defaultVolumePluginMgr} from '../../src/engine/controller/volume-plugins.js'
import {Explainer} from '../../src/engine/explain/explainer.js'
import {loadCases, stateOf} from '../conformance/cases.js'
import {clusterArb, gatesArb, propertyRuns} from './differential-arbitraries.js'
import {generatedState} from './explain-oracle.js'

/** What the two Explainers answer differently on the state after the plan; null when the plan leaves no cache to compare. */
function differences(state: ClusterState, gates: FeatureGates = defaultFeatureGates): string[] | null {
  const {report, cache} = planSyncKeepingCache(state, {gates, dryRun: true})
  if (cache === undefined) return null
  const after = withPlanApplied(state, report.objects)
  const opts = {gates, plugins: defaultVolumePluginMgr({})}
  const fresh = new Explainer(after, opts)
  const kept = new Explainer(after, {...opts, cache})
  const problems: string[] = []
  const same = (what: string, a: unknown, b: unknown) => {
    try {
      assert.deepEqual(a, b)
    } catch (err) {
      problems.push(`${what}: ${(err as Error).message.split('\n').slice(0, 10).join('\n')}`)
    }
  }
  for (const c of after.claims) {
    const [ns, name] = [c.metadata.namespace ?? '', c.metadata.name ?? '']
    same(`pvc ${ns}/${name}`, kept.claim(ns, name), fresh.claim(ns, name))
    same(`pvc ${ns}/${name} as a List item`, kept.listItem(ns, name, 3), fresh.listItem(ns, name, 3))
    same(`pvc ${ns}/${name} facts`, kept.claimFacts(ns, name), fresh.claimFacts(ns, name))
  }
  for (const v of after.volumes)
    same(`pv ${v.metadata.name}`, kept.volume(v.metadata.name ?? ''), fresh.volume(v.metadata.name ?? ''))
  // The audit over the kept caches, and over an Explainer made afresh (a plan handed in leaves none).
  const auditOpts = {gates, failOn: 'warning' as const, ignore: new Set<string>()}
  same(
    'audit',
    auditState(state, auditOpts),
    auditState(state, auditOpts, {plan: planSync(state, {...auditOpts, dryRun: true})}),
  )
  return problems
}

describe("explain over the plan's informer caches answers as over the state after the plan", () => {
  for (const {file, cases} of loadCases('cases')) {
    test(`conformance cases of ${file}`, () => {
      const compared = cases.map((c) => ({name: c.name, problems: differences(stateOf(c))}))
      assert.deepEqual(
        compared.flatMap((c) => (c.problems ?? []).map((p) => `${c.name}: ${p}`)),
        [],
      )
      assert.ok(
        compared.some((c) => c.problems !== null),
        'no case left its caches to compare',
      )
    })
  }
  for (const [volumes, seed] of [
    [300, 7],
    [600, 8],
  ] as const) {
    test(`a generated cluster of ${volumes} volumes, seed ${seed}`, () => {
      const state = generatedState(volumes, seed)
      assert.deepEqual(differences(state), [])
    })
  }
  test('random states and feature gates (the differential test generators)', () => {
    fc.assert(
      fc.property(clusterArb(), gatesArb, (state, gates) => {
        assert.deepEqual(differences(state, gates) ?? [], [])
      }),
      {numRuns: propertyRuns(300)},
    )
  })
  test('no caches where the report leaves objects out: a namespace scope', () => {
    const state = generatedState(50, 3)
    const namespace = state.claims[0].metadata.namespace
    assert.equal(planSyncKeepingCache(state, {gates: defaultFeatureGates, dryRun: true, namespace}).cache, undefined)
    assert.notEqual(planSyncKeepingCache(state, {gates: defaultFeatureGates, dryRun: true}).cache, undefined)
  })
})
