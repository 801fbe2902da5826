// Explainer.claimBrief, what `pvctl audit` judges every claim by, is claim() without its candidates: the
// verdict, summary, suggestions and every other field exactly as `pvctl explain pvc/NAME` gives them, though
// it judges volumes only for the verdicts whose words read them. The oracle is claim(), every volume judged
// and sorted: a fresh Explainer per claim on the conformance cases, one shared on the generated clusters.
// Each state is checked as read and after the controller's plan (the state audit judges).
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import {clusterJson, generateCluster} from '../../bench/generate-cluster.js'
import {withPlanApplied} from '../../src/engine/simulation/plan-applied.js'
import {planSync} from '../../src/engine/simulation/plan-sync.js'
import {snapshotTextState} from '../fixtures/states.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {ClusterState} from '../../src/engine/api/model.js'
import {defaultVolumePluginMgr} from '../../src/engine/controller/volume-plugins.js'
import {Explainer} from '../../src/engine/explain/explainer.js'
import {loadCases, stateOf} from '../conformance/cases.js'
import {claimsAgainstOracle} from './explain-oracle.js'

const gates = defaultFeatureGates
const opts = {gates, plugins: defaultVolumePluginMgr({})}

/** The claims whose brief differs from claim() less its candidates, and the verdicts seen. */
function differences(state: ClusterState, oracle: 'fresh' | 'shared'): {problems: string[]; verdicts: Set<string>} {
  const brief = new Explainer(state, opts)
  return claimsAgainstOracle(state, opts, oracle, (full, ns, name) => {
    const {candidates: _candidates, ...want} = full
    assert.deepEqual(brief.claimBrief(ns, name), want)
  })
}

function asReadAndAfterPlan(state: ClusterState): Array<[string, ClusterState]> {
  const plan = planSync(state, {gates, dryRun: true})
  return [
    ['as read', state],
    ['after the plan', withPlanApplied(state, plan.objects)],
  ]
}

describe('explain: claimBrief is claim() without the candidates', () => {
  for (const {file, cases} of loadCases('cases')) {
    test(`conformance cases of ${file}`, () => {
      const problems = cases.flatMap((c) =>
        asReadAndAfterPlan(stateOf(c)).flatMap(([when, s]) =>
          differences(s, 'fresh').problems.map((p) => `${c.name}, ${when}: ${p}`),
        ),
      )
      assert.deepEqual(problems, [])
    })
  }
  for (const [volumes, seed] of [
    [400, 5],
    [1000, 6],
  ] as const) {
    test(`a generated cluster of ${volumes} volumes, seed ${seed}`, () => {
      const state = snapshotTextState(clusterJson(generateCluster(volumes, seed)), `generated-${volumes}-${seed}`)
      const seen = new Set<string>()
      for (const [when, s] of asReadAndAfterPlan(state)) {
        const {problems, verdicts} = differences(s, 'shared')
        assert.deepEqual(problems, [], when)
        for (const v of verdicts) seen.add(v)
      }
      // The verdicts whose words read candidates, and some whose words do not, are among those compared.
      for (const v of [
        'Bound',
        'WillBind',
        'NoMatchingVolume',
        'ProvisioningNotSupported',
        'ExternalProvisioning',
        'WaitForFirstConsumer',
      ])
        assert.ok(seen.has(v), `no ${v} claim: ${[...seen].join(', ')}`)
    })
  }
})
