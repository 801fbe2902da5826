// The advice on the states people end up in, beyond the controller's own objects (the scheduler, admission,
// the tools that re-apply manifests, provisioners, finalizers' owners, claims that crossed): each row a state
// that raises the advice and the state next to it that does not, what `pvctl explain` says (its summary and
// first suggestion) and what `pvctl audit` reports (code, severity, fix); test/app/printed-fixes.test.ts runs
// each fix as printed. The controller's decisions are not at stake here: the verdicts are the engine's, only
// the words around them.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import {auditState} from '../../src/engine/audit/audit-state.js'
import {explainState} from '../../src/engine/repair/explain-state.js'
import {withMissingKindCaveats} from '../../src/engine/explain/missing-kinds.js'
import type {Finding} from '../../src/engine/audit/findings.js'
import {objectName} from '../../src/engine/audit/findings.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {ClusterState} from '../../src/engine/api/model.js'
import type {ClaimExplanation, VolumeExplanation} from '../../src/engine/explain/model.js'
import type {ObjectRef} from '../../src/engine/simulation/plan.js'
import {adviceRows, defaultClassWritten, podNamesNode} from './advice-rows.js'
import {pvc, sc, state} from './builders.js'

const gates = defaultFeatureGates

function explain(s: ClusterState, object: ObjectRef): ClaimExplanation | VolumeExplanation {
  return explainState(s, {gates, onlyRelevant: false, target: object}).document as ClaimExplanation | VolumeExplanation
}

function findingsOf(s: ClusterState, object: string): Finding[] {
  return auditState(s, {gates, failOn: 'warning', ignore: new Set()}).findings.filter(
    (f) => objectName(f.object) === object,
  )
}

const nameOf = (o: ObjectRef) =>
  o.kind === 'PersistentVolume' ? `pv/${o.name}` : `pvc/${o.namespace ?? 'default'}/${o.name}`

describe('advice beyond the controller: each row raised, and not by the state next to it', () => {
  for (const row of adviceRows) {
    test(`${row.name}: explain`, () => {
      const e = explain(row.state, row.object)
      if (e.kind === 'ClaimExplanation') assert.equal(e.verdict, row.explain.verdict)
      else assert.equal(e.state, row.explain.verdict)
      if (row.explain.summary) assert.match(e.summary, row.explain.summary)
      assert.match(e.suggestions[0] ?? '', row.explain.first, e.suggestions.join('\n'))
    })
    test(`${row.name}: not said of the state next to it`, () => {
      const e = explain(row.near, row.object)
      assert.ok(!e.suggestions.some((s) => row.explain.first.test(s)), e.suggestions.join('\n'))
      if (row.explain.summary) assert.doesNotMatch(e.summary, row.explain.summary)
    })
    const expected = row.audit
    if (expected !== undefined) {
      test(`${row.name}: audit`, () => {
        const f = findingsOf(row.state, nameOf(row.object)).find((x) => x.code === expected.code)
        assert.ok(f !== undefined, `no ${expected.code} on ${nameOf(row.object)}`)
        assert.equal(f.severity, expected.severity)
        assert.match(f.fix, expected.fix)
        if (expected.message) assert.match(f.message, expected.message)
        for (const code of row.absent ?? [])
          assert.ok(!findingsOf(row.state, nameOf(row.object)).some((x) => x.code === code), `${code} raised`)
        const near = findingsOf(row.near, nameOf(row.object)).find((x) => x.code === expected.code)
        const same =
          near !== undefined &&
          expected.fix.test(near.fix) &&
          (expected.message === undefined || expected.message.test(near.message))
        assert.ok(!same, `the state next to it: ${near?.code} ${near?.fix}: ${near?.message}`)
      })
    }
    const also = row.alsoAudit
    if (also !== undefined) {
      test(`${row.name}: audit of ${also.object}`, () => {
        const f = findingsOf(row.state, also.object).find((x) => x.code === also.code)
        assert.ok(f !== undefined, `no ${also.code} on ${also.object}`)
        assert.match(f.fix, also.fix)
      })
    }
  }
})

describe('where pvctl cannot see enough, the caveat says so', () => {
  const withoutPods = {...podNamesNode('node-1'), pods: []}
  test('no Pod read: whether a pod bypasses the scheduler cannot be seen (explain and audit say so)', () => {
    const e = withMissingKindCaveats(
      explain(withoutPods, {kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'data'}) as ClaimExplanation,
      new Set(['Pod']),
    )
    assert.equal(e.verdict, 'WaitForFirstConsumer')
    assert.match(
      e.caveats?.join('\n') ?? '',
      /no Pod: .*whether one names its node itself \(bypassing the scheduler\) could not be seen/,
    )
    const f = findingsOf(withoutPods, 'pvc/shop/data').find((x) => x.code === 'ClaimWaitingForConsumer')
    assert.match(
      f?.message ?? '',
      /No Pods were read: whether a pod uses it, or names its node itself .* could not be seen/,
    )
    assert.doesNotMatch(
      findingsOf(podNamesNode(undefined), 'pvc/shop/data')
        .map((x) => x.message)
        .join('\n'),
      /No Pods were read/,
    )
  })
  test("no Node read: whether the claim's selected-node still exists cannot be seen", () => {
    const claim = pvc('data', 'u-data', {
      namespace: 'shop',
      className: 'ebs-wait',
      annotations: {'volume.kubernetes.io/selected-node': 'node-9'},
    })
    const s = state({claims: [claim], classes: [sc('ebs-wait', 'ebs.csi.aws.com', {mode: 'WaitForFirstConsumer'})]})
    const e = withMissingKindCaveats(
      explain(s, {kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'data'}) as ClaimExplanation,
      new Set(['Node']),
    )
    assert.match(
      e.caveats?.join('\n') ?? '',
      /no Node: whether node node-9, the claim's selected-node, still exists could not be seen/,
    )
    assert.equal(e.notes, undefined, 'no node is judged gone when no Node was read')
  })
})

describe('the default class is said to come from admission only where it may have', () => {
  test('a claim whose applied manifest names the default class itself: no note, no finding', () => {
    const s = defaultClassWritten('')
    const claim = s.claims[0]
    claim.metadata.annotations = {
      'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({spec: {storageClassName: 'standard'}}),
    }
    const e = explain(s, {kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'data'}) as ClaimExplanation
    assert.equal(e.notes, undefined)
    assert.ok(!findingsOf(s, 'pvc/shop/data').some((f) => f.code === 'ClaimDefaultClassSkipsVolume'))
  })
})
