// A List (`explain` with no claim named) speaks about the controller's pass over every claim: each claim's
// next sync comes after the syncs of the claims before it (by namespace, then name), so a volume an earlier
// claim binds is not a later claim's. `explain pvc/NAME` (Explainer.claim) keeps telling the claim's next
// sync on the state as it is. Rows: the verdict and volume of each item, the reasons of the taken volume;
// then the List against reconcile's first round (listDisagreements) on random and generated clusters.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import fc from 'fast-check'

import {clusterJson, generateCluster} from '../../bench/generate-cluster.js'
import {explainState} from '../../src/engine/repair/explain-state.js'
import {snapshotTextState} from '../fixtures/states.js'
import {claimsToExplain, Explainer} from '../../src/engine/explain/explainer.js'
import type {ClaimExplanation, ExplanationList, Verdict} from '../../src/engine/explain/model.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {ClusterState} from '../../src/engine/api/model.js'
import {bound, pv, pvc, sc, state} from './builders.js'
import {listDisagreements} from './explain-agreement.js'
import {clusterArb, gatesArb, propertyRuns} from './differential-arbitraries.js'

const gates = defaultFeatureGates
const teamB = {namespace: 'team-b', className: 'standard'}
const standardVolume = (name: string, capacity: string) => pv(name, {capacity, className: 'standard'})
const noProvisioner = sc('standard', 'kubernetes.io/no-provisioner')

interface PassRow {
  id: string
  state: ClusterState
  /** claim name (namespace team-b) → [verdict, volume] as the List says it. */
  items: Record<string, [Verdict, string | null]>
  /** claim name → volume → reason codes, as the List lists it. */
  reasons?: Record<string, Record<string, string[]>>
  /** claim name → [verdict, volume] of `explain pvc/NAME`, when it differs from the List's. */
  alone?: Record<string, [Verdict, string | null]>
  summary?: Record<string, RegExp>
}

const rows: PassRow[] = [
  {
    id: 'pass-1 two claims fit one best volume: the first gets it, the second the next best',
    state: state({
      volumes: [standardVolume('pv-b1', '1Gi'), standardVolume('pv-b2', '2Gi')],
      claims: [pvc('data', 'c1', teamB), pvc('orders', 'c2', teamB)],
      classes: [noProvisioner],
    }),
    items: {data: ['WillBind', 'pv-b1'], orders: ['WillBind', 'pv-b2']},
    reasons: {orders: {'pv-b2': [], 'pv-b1': ['BoundToOtherClaim']}, data: {'pv-b1': [], 'pv-b2': []}},
    alone: {orders: ['WillBind', 'pv-b1']},
    summary: {
      orders:
        /binds it to pv-b2 .*; pv-b1, which it would get alone, goes to team-b\/data, synced before it in this pass\.$/,
    },
  },
  {
    id: 'pass-2 no volume left for the second claim, nothing provisions: it stays Pending',
    state: state({
      volumes: [standardVolume('pv-b1', '1Gi')],
      claims: [pvc('data', 'c1', teamB), pvc('orders', 'c2', teamB)],
      classes: [noProvisioner],
    }),
    items: {data: ['WillBind', 'pv-b1'], orders: ['ProvisioningNotSupported', null]},
    reasons: {orders: {'pv-b1': ['BoundToOtherClaim']}},
    alone: {orders: ['WillBind', 'pv-b1']},
  },
  {
    id: 'pass-3 no volume left for the second claim, its class provisions: it provisions',
    state: state({
      volumes: [standardVolume('pv-b1', '1Gi')],
      claims: [pvc('data', 'c1', teamB), pvc('orders', 'c2', teamB)],
      classes: [sc('standard', 'ebs.csi.aws.com')],
    }),
    items: {data: ['WillBind', 'pv-b1'], orders: ['ExternalProvisioning', null]},
    reasons: {orders: {'pv-b1': ['BoundToOtherClaim']}},
    alone: {orders: ['WillBind', 'pv-b1']},
  },
  {
    id: 'pass-4 a claim that names a volume an earlier claim takes: bound elsewhere',
    state: state({
      volumes: [standardVolume('pv-b1', '1Gi')],
      claims: [pvc('data', 'c1', teamB), pvc('orders', 'c2', {...teamB, volumeName: 'pv-b1'})],
      classes: [noProvisioner],
    }),
    items: {data: ['WillBind', 'pv-b1'], orders: ['RequestedVolumeBoundElsewhere', null]},
    reasons: {orders: {'pv-b1': ['BoundToOtherClaim']}},
    alone: {orders: ['WillBind', 'pv-b1']},
  },
  {
    id: 'pass-5 the claim that names the volume comes first: the later claim of the index gets the next one',
    state: state({
      volumes: [standardVolume('pv-b1', '1Gi'), standardVolume('pv-b2', '2Gi')],
      claims: [pvc('archive', 'c0', {...teamB, volumeName: 'pv-b1'}), pvc('data', 'c1', teamB)],
      classes: [noProvisioner],
    }),
    items: {archive: ['WillBind', 'pv-b1'], data: ['WillBind', 'pv-b2']},
    reasons: {data: {'pv-b1': ['BoundToOtherClaim']}},
    alone: {data: ['WillBind', 'pv-b1']},
  },
  {
    id: 'pass-6 an earlier namespace syncs first: team-a takes the volume team-b would get alone',
    state: state({
      volumes: [standardVolume('pv-b1', '1Gi'), standardVolume('pv-b2', '2Gi')],
      claims: [pvc('data', 'c1', teamB), pvc('web', 'c9', {namespace: 'team-a', className: 'standard'})],
      classes: [noProvisioner],
    }),
    items: {data: ['WillBind', 'pv-b2']},
    alone: {data: ['WillBind', 'pv-b1']},
  },
  {
    id: 'pass-7 a bound claim that rebinds its volume is not a claim of the index: nothing changes for others',
    state: state({
      volumes: [standardVolume('pv-b1', '1Gi'), standardVolume('pv-b2', '2Gi')],
      claims: [
        pvc('data', 'c1', teamB),
        pvc('orders', 'c2', {...teamB, volumeName: 'pv-b2', annotations: bound, phase: 'Bound'}),
      ],
      classes: [noProvisioner],
    }),
    items: {data: ['WillBind', 'pv-b1']},
  },
]

function listOf(s: ClusterState, namespace = 'team-b'): ClaimExplanation[] {
  return (explainState(s, {gates, onlyRelevant: false, namespace}).document as ExplanationList).items
}

describe('explain List: each claim after the claims before it in the pass', () => {
  for (const row of rows) {
    test(row.id, () => {
      const items = listOf(row.state)
      for (const [name, [verdict, volume]] of Object.entries(row.items)) {
        const e = items.find((i) => i.claim.name === name)
        assert.ok(e !== undefined, `${name} is listed`)
        assert.deepEqual([e.verdict, e.volume], [verdict, volume], `${name}: ${e.summary}`)
        for (const [v, codes] of Object.entries(row.reasons?.[name] ?? {})) {
          assert.deepEqual(
            e.candidates.find((c) => c.volume === v)?.reasons.map((r) => r.code),
            codes,
            `${name}: reasons of ${v}`,
          )
        }
        if (row.summary?.[name] !== undefined) assert.match(e.summary, row.summary[name])
        assert.match(e.summary, /\.$/, 'one sentence')
        // The picker's full explanation of an item says what its line said.
        const full = new Explainer(row.state, {gates}).listItem('team-b', name)!
        assert.deepEqual([full.verdict, full.volume], [verdict, volume])
      }
      for (const [name, [verdict, volume]] of Object.entries(row.alone ?? {})) {
        // `explain pvc/NAME`: the claim's next sync on the state as it is, as before.
        const e = new Explainer(row.state, {gates}).claim('team-b', name)!
        assert.deepEqual([e.verdict, e.volume], [verdict, volume], `pvc/${name} alone: ${e.summary}`)
      }
      assert.deepEqual(listDisagreements(row.state, listOf(row.state, undefined), gates), [])
    })
  }

  test('the agreement check catches a List that tells two claims they get one volume', () => {
    const s = rows[0].state
    const alone = claimsToExplain(new Explainer(s, {gates})).map((c) =>
      new Explainer(s, {gates, candidates: 5}).claim(c.metadata.namespace ?? '', c.metadata.name ?? '')!,
    )
    assert.notDeepEqual(listDisagreements(s, alone, gates), [])
  })
})

describe('explain List agrees with the first round of sync', () => {
  const check = (s: ClusterState, g = gates, onlyRelevant = false, candidates = 5) => {
    const explainer = new Explainer(s, {gates: g, onlyRelevant, candidates})
    const items = claimsToExplain(explainer).map((c) =>
      explainer.listItem(c.metadata.namespace ?? '', c.metadata.name ?? '')!,
    )
    assert.deepEqual(listDisagreements(s, items, g), [])
  }

  test('random dense clusters', () => {
    fc.assert(
      fc.property(
        clusterArb(12, 10),
        gatesArb,
        fc.boolean(),
        fc.constantFrom(1, 5, 0),
        (s, g, onlyRelevant, candidates) => check(s, g, onlyRelevant, candidates),
      ),
      {numRuns: propertyRuns(300)},
    )
  })

  test('an Explainer made by with() tells what a new one tells, after the verdicts its base worked out', () => {
    // Live `explain` first asks the verdicts (which Leases to read), then explains with the evidence read:
    // one controller view and one pass for both (Explainer.with).
    fc.assert(
      fc.property(
        clusterArb(12, 10),
        gatesArb,
        fc.boolean(),
        fc.constantFrom(1, 5, 0),
        (s, g, onlyRelevant, candidates) => {
          const base = new Explainer(s, {gates: g})
          const claims = claimsToExplain(base)
          const leases = claims.map((c) => base.awaitedLease(c.metadata.namespace ?? '', c.metadata.name ?? '', true))
          const derived = base.with({onlyRelevant, candidates})
          const fresh = new Explainer(s, {gates: g, onlyRelevant, candidates})
          for (const [i, c] of claims.entries()) {
            const [namespace, name] = [c.metadata.namespace ?? '', c.metadata.name ?? '']
            assert.deepEqual(derived.listItem(namespace, name), fresh.listItem(namespace, name))
            assert.deepEqual(derived.claim(namespace, name), fresh.claim(namespace, name))
            assert.equal(leases[i], fresh.awaitedLease(namespace, name, true))
          }
        },
      ),
      {numRuns: propertyRuns(100)},
    )
  })

  for (const [volumes, seed] of [
    [400, 5],
    [2000, 7],
  ]) {
    test(`the benchmark's cluster: ${volumes} volumes, seed ${seed}`, () => {
      check(snapshotTextState(clusterJson(generateCluster(volumes, seed)), `generated-${volumes}-${seed}`))
    })
  }
})
