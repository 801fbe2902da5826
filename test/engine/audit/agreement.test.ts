// audit never disagrees with `pvctl explain` on a claim: a claim's finding stands for explain's verdict on
// it (verdictsOfCode), a claim without one has a verdict that is no finding. Checked on the bundled example
// and on every conformance case, against explain on the state after the plan (what `pvctl explain` says once
// `pvctl sync --yes` ran) and, for the claims the plan does not write, on the state as read; and explain
// without objects lists every claim audit reports an error on.
import assert from 'node:assert/strict'
import path from 'node:path'
import {describe, test} from 'node:test'

import {auditState} from '../../../src/engine/audit/audit-state.js'
import {withPlanApplied} from '../../../src/engine/simulation/plan-applied.js'
import {planSync} from '../../../src/engine/simulation/plan-sync.js'
import {snapshotState} from '../../fixtures/states.js'
import type {Finding} from '../../../src/engine/audit/findings.js'
import {claimCode, verdictsOfCode} from '../../../src/engine/audit/judge.js'
import {claimsToExplain, Explainer, explainClaim} from '../../../src/engine/explain/explainer.js'
import type {ExplainEvidence} from '../../../src/engine/explain/evidence.js'
import {defaultFeatureGates} from '../../../src/engine/api/feature-gates.js'
import {claimKey, type ClusterState} from '../../../src/engine/api/model.js'
import {defaultVolumePluginMgr} from '../../../src/engine/controller/volume-plugins.js'
import {loadCases, repoRoot, stateOf} from '../../conformance/cases.js'
import {rows} from './rows.js'

const gates = defaultFeatureGates

function disagreements(state: ClusterState, evidence?: ExplainEvidence): string[] {
  const report = auditState(state, {gates, failOn: 'warning', ignore: new Set(), evidence})
  const plan = planSync(state, {gates, dryRun: true})
  const after = withPlanApplied(state, plan.objects)
  const written = new Set(
    plan.actions
      .filter((a) => a.object.kind === 'PersistentVolumeClaim')
      .map((a) => `${a.object.namespace ?? ''}/${a.object.name}`),
  )
  // A claim may have several findings (its verdict's, being deleted, a resize): each carries explain's
  // verdict, and at most one stands for a verdict, which must be explain's.
  const claimFindings = new Map<string, Finding[]>()
  for (const f of report.findings.filter((x) => x.object.kind === 'PersistentVolumeClaim')) {
    const key = `${f.object.namespace}/${f.object.name}`
    claimFindings.set(key, [...(claimFindings.get(key) ?? []), f])
  }
  const opts = {gates, plugins: defaultVolumePluginMgr({})}
  const problems: string[] = []
  for (const c of after.claims) {
    const key = claimKey(c)
    const found = claimFindings.get(key) ?? []
    const said = found.flatMap((f) => {
      const v = verdictsOfCode(f.code)
      return v.length === 0 ? [] : [{f, v}]
    })
    const check = (s: ClusterState, when: string) => {
      const e = explainClaim(s, c.metadata.namespace ?? '', c.metadata.name ?? '', opts)
      const verdict = e?.verdict
      const wrong =
        said.length > 1 ||
        (said.length === 0 ? e !== undefined && claimCode(e) !== undefined : !said[0].v.includes(verdict!)) ||
        found.some((f) => f.evidence.verdict !== verdict)
      if (wrong)
        problems.push(
          `${key}: audit ${found.map((f) => f.code).join(', ') || 'no finding'}, explain ${when} ${verdict}`,
        )
    }
    check(after, 'after the plan')
    if (!written.has(key) && state.claims.some((o) => claimKey(o) === key)) check(state, 'as read')
  }
  // explain without objects lists every claim audit reports an error on.
  const listed = new Set(claimsToExplain(new Explainer(after, opts)).map(claimKey))
  for (const [key, found] of claimFindings) {
    if (found.some((f) => f.severity === 'error') && !listed.has(key))
      problems.push(`${key}: audit ${found.map((f) => f.code).join(', ')}, left out of explain's List`)
  }
  return problems
}

async function bundledExample(): Promise<ClusterState> {
  return snapshotState(path.join(repoRoot, 'examples/cluster.yaml'), {uids: true})
}

describe('audit agrees with explain on every claim', () => {
  test('the bundled example', async () => assert.deepEqual(disagreements(await bundledExample()), []))
  test('the states of the finding table, with their evidence (a claim with several findings among them)', () => {
    const problems = rows.flatMap((r) =>
      [...disagreements(r.raises, r.evidence), ...disagreements(r.near, r.nearEvidence ?? r.evidence)].map(
        (p) => `${r.code}: ${p}`,
      ),
    )
    assert.deepEqual(problems, [])
  })
  for (const {file, cases} of loadCases('cases')) {
    test(`conformance cases of ${file}`, () => {
      const problems = cases.flatMap((c) => disagreements(stateOf(c)).map((p) => `${c.name}: ${p}`))
      assert.deepEqual(problems, [])
    })
  }
})

describe('the bundled example gives the findings an operator expects', () => {
  test('the Lost and misbound claims and the Pending one nothing will bind as errors, the orphaned pv-0004, the expected wait as info', async () => {
    const report = auditState(await bundledExample(), {gates, failOn: 'warning', ignore: new Set()})
    assert.deepEqual(
      report.findings.map((f) => `${f.severity} ${f.code} ${f.object.namespace ?? ''}/${f.object.name}`),
      [
        'error ClaimNoMatchingVolume shop/logs',
        'error ClaimMisbound shop/reports-b',
        'error ClaimLost shop/sessions',
        'warning VolumeReleasedRetained /pv-0004',
        'info ClaimWaitingForScheduling shop/search',
      ],
    )
    assert.equal(report.summary.plannedWrites, 11)
  })
})
