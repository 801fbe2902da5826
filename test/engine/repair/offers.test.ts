// The repairs offered where the problem is seen: a claim's suggestions name `pvctl reclaim --for` it only
// where the reclaim's decision allows it (and keep explain's own advice elsewhere), and audit's fix for a
// Released Retain volume names the one claim it would fit. Each row a state and what is expected of it,
// the rows beside it the near states where nothing is offered.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import {auditState} from '../../../src/engine/audit/audit-state.js'
import {defaultFeatureGates} from '../../../src/engine/api/feature-gates.js'
import type {ClusterState} from '../../../src/engine/api/model.js'
import {explainClaim} from '../../../src/engine/explain/explainer.js'
import {removeClaimRefPatch} from '../../../src/engine/explain/suggestions.js'
import {heldOnlyByStaleClaimRef, reclaimOffers, withReclaimOffers} from '../../../src/engine/repair/offers.js'
import {byController, pod, pv, pvc, sc, state} from '../builders.js'

/** pv-1, Released by default/old (uid u-old), Retain, class "", 1Gi. */
const released = (o: Parameters<typeof pv>[1] = {}) =>
  pv('pv-1', {phase: 'Released', className: '', claim: {name: 'old', uid: 'u-old'}, annotations: byController, ...o})
const db = (o: Parameters<typeof pvc>[2] = {}) => pvc('db', 'u-db', {className: '', ...o})
const notRead = {observed: false as const, reason: 'not read'}

function explainWithOffers(s: ClusterState, sourceArgs: string[] = ['-f', 'snap.yaml']) {
  const e = explainClaim(s, 'default', 'db', {gates: defaultFeatureGates})!
  const offers = reclaimOffers(e, {
    state: s,
    gates: defaultFeatureGates,
    attachments: notRead,
    pods: {observed: true},
    sourceArgs,
  })
  return {before: e, offers, after: withReclaimOffers(e, offers)}
}

describe('explain: a reclaim is offered where its decision allows it', () => {
  // refused: the checks that refuse the reclaim; explain's hand-made patch gives way to why.
  const rows: Array<{name: string; s: ClusterState; sourceArgs?: string[]; offered: string[]; refused?: string}> = [
    {
      name: 'a Released Retain volume kept out only by its stale claimRef',
      s: state({volumes: [released()], claims: [db()]}),
      offered: ['pvctl reclaim pv/pv-1 --for default/db -f snap.yaml'],
    },
    {
      name: 'the same on a live cluster: the context is carried',
      s: state({volumes: [released()], claims: [db()]}),
      sourceArgs: ['--context', 'prod'],
      offered: ['pvctl reclaim pv/pv-1 --for default/db --context prod'],
    },
    {
      name: 'a Failed Retain volume',
      s: state({volumes: [released({phase: 'Failed'})], claims: [db()]}),
      offered: ['pvctl reclaim pv/pv-1 --for default/db -f snap.yaml'],
    },
    {
      name: 'the volume is too small besides',
      s: state({volumes: [released({capacity: '512Mi'})], claims: [db()]}),
      offered: [],
    },
    {
      name: 'a pod on a node still mounts the old claim (OldClaimUnused)',
      s: state({volumes: [released()], claims: [db()], pods: [pod('app', 'old', {phase: 'Running', nodeName: 'n1'})]}),
      offered: [],
      refused: 'OldClaimUnused',
    },
    {
      name: 'the old claim still exists (OldClaimGone)',
      s: state({volumes: [released()], claims: [db(), pvc('old', 'u-old', {className: ''})]}),
      offered: [],
      refused: 'OldClaimGone',
    },
    {
      name: 'Delete left to an external provisioner (ReclaimPolicyKeepsData)',
      s: state({
        volumes: [released({policy: 'Delete', source: {csi: {driver: 'ebs.csi.aws.com', volumeHandle: 'h'}}})],
        claims: [db()],
      }),
      offered: [],
      refused: 'ReclaimPolicyKeepsData',
    },
    {
      name: 'the claim binds anyway (WillBind)',
      s: state({volumes: [released(), pv('pv-2', {className: ''})], claims: [db()]}),
      offered: [],
    },
  ]
  for (const row of rows) {
    test(row.name, () => {
      const {before, offers, after} = explainWithOffers(row.s, row.sourceArgs)
      assert.deepEqual(
        offers.filter((o) => o.allowed).map((o) => o.command),
        row.offered,
      )
      assert.equal(after.verdict, before.verdict, 'an offer never changes the verdict')
      if (row.refused !== undefined) {
        assert.ok(
          !after.suggestions.some((s) => s.includes(removeClaimRefPatch('pv-1'))),
          'no hand-made patch where the reclaim refuses',
        )
        assert.equal(
          after.suggestions.filter((s) => s.includes(`not safe to reuse: ${row.refused}:`)).length,
          1,
          after.suggestions.join('\n'),
        )
      } else if (row.offered.length === 0) {
        assert.deepEqual(after.suggestions, before.suggestions, "no offer: explain's advice as it was")
      } else {
        assert.equal(
          after.suggestions.filter((s) => s.includes(row.offered[0])).length,
          1,
          after.suggestions.join('\n'),
        )
        assert.ok(
          !after.suggestions.some((s) => s.includes(removeClaimRefPatch('pv-1'))),
          'the kubectl patch gives way to the guarded reclaim',
        )
        assert.match(offers[0].next, /the next sync binds pvc\/default\/db to pv-1/)
      }
    })
  }

  test('the volume holding data comes first: the reclaim before the nearest volume, in place of the hand-made patch', () => {
    // pv-0 (Available, too small) is the nearest: pv-1 is named by the released-volume advice, the kubectl patch.
    const s = state({volumes: [pv('pv-0', {className: '', capacity: '512Mi'}), released()], claims: [db()]})
    const {before, after} = explainWithOffers(s)
    assert.ok(
      before.suggestions.some((x) => x.includes(removeClaimRefPatch('pv-1'))),
      before.suggestions.join('\n'),
    )
    assert.equal(after.suggestions.length, before.suggestions.length)
    assert.equal(
      after.suggestions[0],
      'pv-1 (Released, reclaim policy Retain) would fit but for its stale claimRef to default/old: give it to this claim, its old data with it: pvctl reclaim pv/pv-1 --for default/db -f snap.yaml',
    )
  })

  test('where explain named the volume as the nearest, the reclaim comes first all the same', () => {
    const {after} = explainWithOffers(state({volumes: [released()], claims: [db()]}))
    assert.ok(
      after.suggestions.some((x) => x.startsWith('the nearest volume, pv-1,')),
      after.suggestions.join('\n'),
    )
    assert.match(after.suggestions[0], /^pv-1 \(Released, reclaim policy Retain\) would fit/)
  })

  const heldRows: Array<{phase: string | null; claimRef: string | null; codes: string[]; held: boolean}> = [
    {phase: 'Released', claimRef: 'default/old', codes: ['BoundToOtherClaim', 'VolumeNotAvailable'], held: true},
    {phase: 'Failed', claimRef: 'default/old', codes: ['BoundToOtherClaim', 'VolumeNotAvailable'], held: true},
    {
      phase: 'Released',
      claimRef: 'default/old',
      codes: ['BoundToOtherClaim', 'VolumeNotAvailable', 'CapacityTooSmall'],
      held: false,
    },
    {phase: 'Released', claimRef: null, codes: ['VolumeNotAvailable'], held: false},
    {phase: 'Bound', claimRef: 'default/old', codes: ['BoundToOtherClaim'], held: false},
  ]
  for (const row of heldRows) {
    test(`held only by a stale claimRef: ${row.phase} ${row.codes.join('+')} → ${row.held}`, () => {
      assert.equal(
        heldOnlyByStaleClaimRef({
          phase: row.phase,
          claimRef: row.claimRef,
          reasons: row.codes.map((code) => ({code: code as never, message: ''})),
        }),
        row.held,
      )
    })
  }
})

describe("audit: VolumeReleasedRetained's fix names the one claim the volume would fit", () => {
  const fixOf = (s: ClusterState, sourceArgs?: string[]) =>
    auditState(s, {gates: defaultFeatureGates, failOn: 'warning', ignore: new Set(), sourceArgs}).findings.find(
      (f) => f.code === 'VolumeReleasedRetained',
    )?.fix
  const rows: Array<{name: string; s: ClusterState; sourceArgs?: string[]; fix: string}> = [
    {
      name: 'one Pending claim fits',
      s: state({volumes: [released()], claims: [db()]}),
      sourceArgs: ['-f', 'snap.yaml'],
      fix: 'pvctl reclaim pv/pv-1 --for default/db -f snap.yaml',
    },
    {
      name: 'in another namespace, live',
      s: state({volumes: [released()], claims: [db({namespace: 'shop'})]}),
      sourceArgs: ['--context', 'prod'],
      fix: 'pvctl reclaim pv/pv-1 --for shop/db --context prod',
    },
    {
      name: 'two claims fit: the plain reclaim',
      s: state({volumes: [released()], claims: [db(), pvc('logs', 'u-logs', {className: ''})]}),
      fix: 'pvctl reclaim pv/pv-1',
    },
    {
      name: 'no claim fits (too small): the plain reclaim',
      s: state({volumes: [released({capacity: '512Mi'})], claims: [db()]}),
      fix: 'pvctl reclaim pv/pv-1',
    },
    {
      name: 'another class: the plain reclaim',
      s: state({
        volumes: [released({className: 'gold'})],
        claims: [db()],
        classes: [sc('gold', 'kubernetes.io/no-provisioner')],
      }),
      fix: 'pvctl reclaim pv/pv-1',
    },
    {
      name: 'the claim names another volume: the plain reclaim',
      s: state({volumes: [released()], claims: [db({volumeName: 'pv-9'})]}),
      fix: 'pvctl reclaim pv/pv-1',
    },
    {
      name: 'the claim is bound by the plan: the plain reclaim',
      s: state({volumes: [released(), pv('pv-2', {className: ''})], claims: [db()]}),
      fix: 'pvctl reclaim pv/pv-1',
    },
  ]
  for (const row of rows) {
    test(row.name, () => {
      assert.equal(fixOf(row.s, row.sourceArgs), row.fix)
    })
  }
})
