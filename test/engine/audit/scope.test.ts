// One verdict per object, whatever the scope: -n, -l and the objects named choose what `audit` and `explain`
// show, never what they say of an object. For every state (the bundled examples, every conformance case,
// random dense clusters) and every scope, each object a scoped audit reports has exactly the findings the
// unscoped audit gives it, its class findings are the unscoped ones, and a scoped explain List is the
// unscoped List's items in that scope. And the unscoped List covers every claim audit reports a verdict of.
//
// PVCTL_PROPERTY_RUNS=2000 node --import tsx --test test/engine/audit/scope.test.ts
import assert from 'node:assert/strict'
import path from 'node:path'
import {describe, test} from 'node:test'

import fc from 'fast-check'

import {auditState, type AuditOptions} from '../../../src/engine/audit/audit-state.js'
import {explainState} from '../../../src/engine/repair/explain-state.js'
import {snapshotState} from '../../fixtures/states.js'
import {objectKey, type Finding} from '../../../src/engine/audit/findings.js'
import {verdictsOfCode} from '../../../src/engine/audit/judge.js'
import {defaultFeatureGates, type FeatureGates} from '../../../src/engine/api/feature-gates.js'
import {claimKey, type ClusterState, type LabelSelector} from '../../../src/engine/api/model.js'
import type {ClaimExplanation} from '../../../src/engine/explain/model.js'
import type {ObjectRef} from '../../../src/engine/simulation/plan.js'
import {scopePredicate} from '../../../src/engine/simulation/reconcile.js'
import {loadCases, repoRoot, stateOf} from '../../conformance/cases.js'
import {clusterArb, gatesArb, propertyRuns} from '../differential-arbitraries.js'

interface Scope {
  namespace?: string
  labelSelector?: LabelSelector
  targets?: ObjectRef[]
}

const options = (gates: FeatureGates, scope: Scope = {}): AuditOptions => ({
  gates,
  failOn: 'warning',
  ignore: new Set(),
  views: new Set(['audited']),
  ...scope,
})

const byObject = (findings: readonly Finding[]) => {
  const map = new Map<string, Finding[]>()
  for (const f of findings) map.set(objectKey(f.object), [...(map.get(objectKey(f.object)) ?? []), f])
  return map
}

/** What a scoped audit says that the unscoped one does not, object by object; [] when none. */
function auditDisagreements(state: ClusterState, gates: FeatureGates, scope: Scope): string[] {
  const whole = auditState(state, options(gates))
  const scoped = auditState(state, options(gates, scope))
  const wholeOf = byObject(whole.findings)
  const scopedOf = byObject(scoped.findings)
  const problems: string[] = []
  for (const o of scoped.audited ?? []) {
    const key = objectKey(o)
    const want = JSON.stringify(wholeOf.get(key) ?? [])
    const got = JSON.stringify(scopedOf.get(key) ?? [])
    if (want !== got) problems.push(`${key}: scoped ${got}, unscoped ${want}`)
  }
  const shown = new Set((scoped.audited ?? []).map(objectKey))
  for (const f of scoped.findings) {
    if (f.object.kind === 'StorageClass') {
      if (!whole.findings.some((w) => JSON.stringify(w) === JSON.stringify(f)))
        problems.push(`${objectKey(f.object)}: ${f.code} not in the unscoped audit`)
    } else if (!shown.has(objectKey(f.object))) {
      problems.push(`${objectKey(f.object)}: a finding on an object not audited`)
    }
  }
  return problems.map((p) => `${JSON.stringify(scope)} ${p}`)
}

/** A scoped List's items against the unscoped List's items of the claims in that scope. */
function listDisagreements(state: ClusterState, gates: FeatureGates, scope: Omit<Scope, 'targets'>): string[] {
  const list = (s: Scope) => {
    const doc = explainState(state, {gates, onlyRelevant: false, ...s}).document
    assert.equal(doc.kind, 'List')
    return (doc as {items: ClaimExplanation[]}).items
  }
  const inScope = new Set(state.claims.filter(scopePredicate(scope).claim).map(claimKey))
  const want = list({}).filter((e) => inScope.has(`${e.claim.namespace}/${e.claim.name}`))
  const got = list(scope)
  const named = (items: ClaimExplanation[]) =>
    items.map((e) => `${e.claim.namespace}/${e.claim.name} ${e.verdict}`).join(', ')
  return JSON.stringify(got) === JSON.stringify(want)
    ? []
    : [`${JSON.stringify(scope)}: the List holds ${named(got)}; unscoped ${named(want)}`]
}

/** The claims audit reports a verdict of (a finding standing for one) that the unscoped List leaves out. */
function uncovered(state: ClusterState, gates: FeatureGates): string[] {
  const listed = new Set(
    (explainState(state, {gates, onlyRelevant: false}).document as {items: ClaimExplanation[]}).items.map(
      (e) => `${e.claim.namespace}/${e.claim.name}`,
    ),
  )
  return auditState(state, options(gates))
    .findings.filter(
      (f) =>
        f.object.kind === 'PersistentVolumeClaim' &&
        verdictsOfCode(f.code).length > 0 &&
        !listed.has(`${f.object.namespace}/${f.object.name}`),
    )
    .map((f) => `${f.code} ${f.object.namespace}/${f.object.name} is not in explain's List`)
}

/** Every namespace, every label of a claim or volume, and each object named alone and with another. */
function scopesOf(state: ClusterState): Scope[] {
  const namespaces = [...new Set(state.claims.map((c) => c.metadata.namespace ?? ''))]
  const labels = new Map<string, LabelSelector>()
  for (const o of [...state.claims, ...state.volumes])
    for (const [k, v] of Object.entries(o.metadata.labels ?? {})) labels.set(`${k}=${v}`, {matchLabels: {[k]: v}})
  const objects: ObjectRef[] = [
    ...state.claims.map((c): ObjectRef => ({
      kind: 'PersistentVolumeClaim',
      namespace: c.metadata.namespace ?? '',
      name: c.metadata.name ?? '',
    })),
    ...state.volumes.map((v): ObjectRef => ({kind: 'PersistentVolume', name: v.metadata.name ?? ''})),
  ]
  return [
    ...namespaces.map((namespace) => ({namespace})),
    ...[...labels.values()].map((labelSelector) => ({labelSelector})),
    ...objects.map((o, i) => ({targets: i + 1 < objects.length ? [o, objects[i + 1]] : [o]})),
  ]
}

function allDisagreements(state: ClusterState, gates: FeatureGates): string[] {
  const scopes = scopesOf(state)
  return [
    ...scopes.flatMap((s) => auditDisagreements(state, gates, s)),
    ...scopes.filter((s) => s.targets === undefined).flatMap((s) => listDisagreements(state, gates, s)),
    ...uncovered(state, gates),
  ]
}

async function example(file: string): Promise<ClusterState> {
  return snapshotState(path.join(repoRoot, 'examples', file), {uids: true})
}

describe('a scope chooses what audit and explain show, never what they say of an object', () => {
  for (const file of ['cluster.yaml', 'reclaim.yaml', 'relink.yaml']) {
    test(`examples/${file}`, async () =>
      assert.deepEqual(allDisagreements(await example(file), defaultFeatureGates), []))
  }

  test('audit -l app=db after reclaim --for pre-bound a volume to the labelled claim: it binds, as without -l', async () => {
    const state = await example('reclaim.yaml')
    const volume = state.volumes.find((v) => v.metadata.name === 'pv-0004')!
    // What `pvctl reclaim pv/pv-0004 --for shop/db` writes: a claimRef by namespace and name, no uid.
    const prebound: ClusterState = {
      ...state,
      volumes: [
        {
          ...volume,
          metadata: {...volume.metadata, annotations: {}},
          spec: {
            ...volume.spec,
            claimRef: {apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'db'},
          },
        },
      ],
      claims: state.claims.map((c) => ({...c, metadata: {...c.metadata, labels: {app: 'db'}}})),
    }
    const scoped = auditState(prebound, options(defaultFeatureGates, {labelSelector: {matchLabels: {app: 'db'}}}))
    assert.deepEqual(scoped.findings, [], 'no ClaimMisbound: the claim binds')
    assert.equal(scoped.summary.healthyClaims, 1)
    // The writes of the plan to the labelled claim (the volume is not labelled): the bind still fails CI.
    assert.equal(scoped.summary.plannedWrites, 2)
    assert.deepEqual(auditDisagreements(prebound, defaultFeatureGates, {labelSelector: {matchLabels: {app: 'db'}}}), [])
  })

  test("explain with no object lists the bundled example's Lost and Misbound claims, which audit reports as errors", async () => {
    const items = (
      explainState(await example('cluster.yaml'), {gates: defaultFeatureGates, onlyRelevant: false}).document as {
        items: ClaimExplanation[]
      }
    ).items
    assert.deepEqual(
      items.filter((e) => e.phase === 'Bound').map((e) => `${e.claim.name} ${e.verdict}`),
      ['reports-b Misbound', 'sessions Lost'],
    )
  })

  for (const {file, cases} of loadCases('cases')) {
    test(`conformance cases of ${file}`, () => {
      const problems = cases.flatMap((c) =>
        allDisagreements(stateOf(c), {...defaultFeatureGates, ...(c.featureGates ?? {})}).map((p) => `${c.name}: ${p}`),
      )
      assert.deepEqual(problems, [])
    })
  }

  test('random dense clusters', () => {
    fc.assert(
      fc.property(clusterArb(8, 6), gatesArb, (state, gates) => assert.deepEqual(allDisagreements(state, gates), [])),
      {numRuns: propertyRuns(150)},
    )
  })
})
