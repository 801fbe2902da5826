// Explainer.claimFacts, what `pvctl audit` judges every claim by, is the fields of claim() that the decision
// gives by itself, exactly as `pvctl explain pvc/NAME` gives them: checked against claim() on the conformance
// cases (a fresh Explainer per claim) and on generated clusters (one shared Explainer, as audit has), each
// state as read and after the controller's plan, with evidence and without.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import {withPlanApplied} from '../../src/engine/simulation/plan-applied.js'
import {planSync} from '../../src/engine/simulation/plan-sync.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {ClusterState} from '../../src/engine/api/model.js'
import {defaultVolumePluginMgr} from '../../src/engine/controller/volume-plugins.js'
import {type ExplainEvidence, noEvidence} from '../../src/engine/explain/evidence.js'
import {Explainer, type ExplainOptions} from '../../src/engine/explain/explainer.js'
import type {ClaimExplanation, ClaimExplanationFacts} from '../../src/engine/explain/model.js'
import {loadCases, stateOf} from '../conformance/cases.js'
import {claimsAgainstOracle, generatedState} from './explain-oracle.js'

const gates = defaultFeatureGates
const FACTS = [
  'claim',
  'phase',
  'verdict',
  'volume',
  'request',
  'storageClass',
  'selectedNode',
  'provisioner',
  'error',
  'provisionerLiveness',
  'notes',
] as const satisfies ReadonlyArray<keyof ClaimExplanationFacts>

/** Evidence that reads no object but shows no sign of any provisioner: ExternalProvisioning's liveness then says so. */
const silentCluster: ExplainEvidence = {
  ...noEvidence('not read'),
  leases: {observed: true, items: []},
  csiDrivers: {observed: true, items: []},
  events: {observed: true, items: []},
}

function factsOf(e: ClaimExplanation): ClaimExplanationFacts {
  // notes: only where there are some, as claim() sets it.
  return Object.fromEntries(
    FACTS.filter((k) => e[k] !== undefined).map((k) => [k, e[k]]),
  ) as unknown as ClaimExplanationFacts
}

/** The claims whose facts differ from those of claim(), and the verdicts seen. */
function differences(
  state: ClusterState,
  opts: ExplainOptions,
  oracle: 'fresh' | 'shared',
): {problems: string[]; verdicts: Set<string>} {
  const explainer = new Explainer(state, opts)
  return claimsAgainstOracle(state, opts, oracle, (full, ns, name) =>
    assert.deepEqual(explainer.claimFacts(ns, name), factsOf(full)),
  )
}

function statesOf(state: ClusterState): Array<[string, ClusterState, ExplainOptions]> {
  const after = withPlanApplied(state, planSync(state, {gates, dryRun: true}).objects)
  const plain = {gates, plugins: defaultVolumePluginMgr({})}
  const evidenced = {...plain, evidence: silentCluster}
  return [
    ['as read', state, plain],
    ['after the plan', after, plain],
    ['after the plan, with evidence', after, evidenced],
  ]
}

describe('explain: claimFacts is the fields of claim() that the decision gives', () => {
  for (const {file, cases} of loadCases('cases')) {
    test(`conformance cases of ${file}`, () => {
      const problems = cases.flatMap((c) =>
        statesOf(stateOf(c)).flatMap(([when, s, opts]) =>
          differences(s, opts, 'fresh').problems.map((p) => `${c.name}, ${when}: ${p}`),
        ),
      )
      assert.deepEqual(problems, [])
    })
  }
  test('a claim the state does not have has no facts', () => {
    const state = generatedState(10, 1)
    assert.equal(new Explainer(state, {gates}).claimFacts('nowhere', 'nothing'), undefined)
  })
  for (const [volumes, seed] of [
    [400, 5],
    [1000, 6],
  ] as const) {
    test(`a generated cluster of ${volumes} volumes, seed ${seed}`, () => {
      const state = generatedState(volumes, seed)
      const seen = new Set<string>()
      let liveness = 0
      for (const [when, s, opts] of statesOf(state)) {
        const {problems, verdicts} = differences(s, opts, 'shared')
        assert.deepEqual(problems, [], when)
        for (const v of verdicts) seen.add(v)
        const explainer = new Explainer(s, opts)
        liveness += s.claims.filter(
          (c) =>
            explainer.claimFacts(c.metadata.namespace ?? '', c.metadata.name ?? '')!.provisionerLiveness?.verdict ===
            'NoSignOfLife',
        ).length
      }
      for (const v of [
        'Bound',
        'WillBind',
        'NoMatchingVolume',
        'ProvisioningNotSupported',
        'ExternalProvisioning',
        'WaitForFirstConsumer',
        'WaitForPodScheduled',
        'RequestedVolumeBoundElsewhere',
      ])
        assert.ok(seen.has(v), `no ${v} claim: ${[...seen].join(', ')}`)
      // The evidence reached the facts: some provisioner shows no sign of life.
      assert.ok(liveness > 0, 'no claim whose provisioner the evidence shows not running')
    })
  }
})
