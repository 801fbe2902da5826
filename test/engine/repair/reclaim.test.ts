// Every check of `pvctl reclaim`, blocked by one state and holding in the state next to it (RuleTester's
// invalid / valid rows), then the edit itself and the proof: the plan on the edited state.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import {defaultFeatureGates} from '../../../src/engine/api/feature-gates.js'
import type {ClusterState} from '../../../src/engine/api/model.js'
import type {Observed, VolumeAttachmentObject} from '../../../src/engine/explain/evidence.js'
import type {RepairCheckResult} from '../../../src/engine/repair/checks.js'
import {
  type ClaimName,
  decideReclaim,
  type PodsRead,
  RECLAIM_CHECKS,
  type ReclaimCheckName,
  type ReclaimDecision,
} from '../../../src/engine/repair/reclaim.js'
import {bound, byController, pod, pv, pvc, state} from '../builders.js'
import {type CheckRow, checkRowTests} from './check-rows.js'

const notRead: Observed<VolumeAttachmentObject> = {
  observed: false,
  reason: 'the snapshot holds no VolumeAttachment objects',
}
const noAttachments: Observed<VolumeAttachmentObject> = {observed: true, items: []}
const podsNotRead: PodsRead = {observed: false, reason: 'the snapshot holds no Pod objects'}
const attachment = (volume: string): Observed<VolumeAttachmentObject> => ({
  observed: true,
  items: [
    {
      metadata: {name: 'csi-abc'},
      spec: {attacher: 'ebs.csi.aws.com', nodeName: 'node-1', source: {persistentVolumeName: volume}},
    },
  ],
})

interface Case {
  target?: ClaimName
  attachments?: Observed<VolumeAttachmentObject>
  /** Unset: the state's pods were read. */
  pods?: PodsRead
  force?: ReclaimCheckName[]
  notOwner?: ClaimName
}

function decide(s: ClusterState, c: Case = {}): ReclaimDecision {
  return decideReclaim({
    state: s,
    volumeName: 'pv-1',
    target: c.target,
    force: new Set(c.force ?? []),
    notOwner: c.notOwner,
    attachments: c.attachments ?? notRead,
    pods: c.pods ?? {observed: true},
    gates: defaultFeatureGates,
  })!
}

const checkOf = (d: ReclaimDecision, name: ReclaimCheckName) => d.checks.find((c) => c.name === name)

/** pv-1, Released by default/old (uid u-old), Retain, class "". */
const released = (o: Parameters<typeof pv>[1] = {}) =>
  pv('pv-1', {phase: 'Released', className: '', claim: {name: 'old', uid: 'u-old'}, annotations: byController, ...o})
const db = (o: Parameters<typeof pvc>[2] = {}) => pvc('db', 'u-db', {className: '', ...o})
const forDb: Case = {target: {namespace: 'default', name: 'db'}}
/** A claim of the old claim's name, re-created (another uid). */
const oldAgain = (o: Parameters<typeof pvc>[2] = {}) => pvc('old', 'u-new', {className: '', ...o})
const restoredLabels = {'velero.io/backup-name': 'nightly', 'velero.io/restore-name': 'nightly-1'}

const rows: Array<CheckRow<ReclaimCheckName, [ClusterState, Case?]>> = [
  {
    check: 'VolumeReleased',
    blocked: [state({volumes: [released({phase: 'Available'})]})],
    near: [state({volumes: [released({phase: 'Failed'})]})],
    message: /pv-1 is Available, and the next sync releases it/,
  },
  {
    check: 'VolumeNotDeleting',
    blocked: [state({volumes: [released({deleting: true})]})],
    near: [state({volumes: [released()]})],
    message: /pv-1 is being deleted \(since 2026-01-01T00:00:00Z\)/,
  },
  {
    check: 'OldClaimGone',
    blocked: [state({volumes: [released()], claims: [pvc('old', 'u-old', {className: '', volumeName: 'pv-9'})]})],
    near: [state({volumes: [released()], claims: [oldAgain({volumeName: 'pv-9'})]})],
    message: /claim default\/old still exists \(uid u-old\)/,
  },
  {
    check: 'OldNameFree',
    blocked: [state({volumes: [released()], claims: [oldAgain(), db()]}), forDb],
    near: [state({volumes: [released()], claims: [oldAgain({volumeName: 'pv-9'}), db()]}), forDb],
    message:
      /^pvc\/default\/old was re-created \(uid u-new; the volume held u-old\) and names no volume: it may be the data's owner come back; if it is, pvctl relink pv\/pv-1 gives the volume back to it; if it is not, add --not-owner default\/old$/,
  },
  {
    check: 'NoOtherClaim',
    blocked: [
      state({
        volumes: [released()],
        claims: [pvc('x', 'u-x', {className: '', namespace: 'other', volumeName: 'pv-1'}), db()],
      }),
      forDb,
    ],
    near: [
      state({
        volumes: [released()],
        claims: [pvc('x', 'u-x', {className: '', namespace: 'other', volumeName: 'pv-9'}), db()],
      }),
      forDb,
    ],
    message:
      /^pvc\/other\/x \(Pending\) names pv-1 in spec.volumeName: to give it the volume: pvctl reclaim pv\/pv-1 --for other\/x$/,
  },
  {
    check: 'NoRestoredOwner',
    blocked: [state({volumes: [released()], claims: [oldAgain({labels: restoredLabels}), db()]}), forDb],
    near: [
      state({volumes: [released()], claims: [oldAgain({labels: restoredLabels, volumeName: 'pv-9'}), db()]}),
      forDb,
    ],
    message:
      /^pvc\/default\/old, restored by nightly-1 \(uid u-new\), has the name of pv-1's claimRef: it is the data's owner; pvctl relink pv\/pv-1 reunites them$/,
  },
  {
    check: 'OldClaimUnused',
    blocked: [state({volumes: [released()], pods: [pod('app-0', 'old', {phase: 'Running', nodeName: 'node-1'})]})],
    near: [state({volumes: [released()], pods: [pod('app-0', 'old', {phase: 'Succeeded', nodeName: 'node-1'})]})],
    message: /pod default\/app-0 \(on node-1\) still uses default\/old/,
  },
  {
    check: 'VolumeDetached',
    blocked: [state({volumes: [released()]}), {attachments: attachment('pv-1')}],
    near: [state({volumes: [released()]}), {attachments: attachment('pv-2')}],
    message: /VolumeAttachment csi-abc \(node node-1\) still attaches it/,
  },
  {
    check: 'ReclaimPolicyKeepsData',
    blocked: [state({volumes: [released({policy: 'Recycle', source: {nfs: {server: 'nfs', path: '/x'}}})]})],
    near: [state({volumes: [released({policy: 'Retain', source: {nfs: {server: 'nfs', path: '/x'}}})]})],
    message: /reclaimPolicy Recycle: the next sync will recycle it .*set persistentVolumeReclaimPolicy: Retain first/,
  },
  {
    check: 'TargetClaimFree',
    blocked: [
      state({
        volumes: [released(), pv('pv-2', {className: '', phase: 'Bound', claim: {name: 'db', uid: 'u-db'}})],
        claims: [db({phase: 'Bound', volumeName: 'pv-2', annotations: bound})],
      }),
      forDb,
    ],
    near: [state({volumes: [released()], claims: [db()]}), forDb],
    message: /pvc\/default\/db is Bound to pv-2/,
  },
  {
    check: 'TargetClaimFits',
    blocked: [state({volumes: [released()], claims: [db({request: '5Gi'})]}), forDb],
    near: [state({volumes: [released()], claims: [db({request: '1Gi'})]}), forDb],
    message: /pvc\/default\/db does not fit pv-1: CapacityTooSmall/,
  },
]

describe('reclaim: each check blocks one state and holds in the next', () => {
  checkRowTests(rows, decide, Object.keys(RECLAIM_CHECKS) as ReclaimCheckName[])
})

describe('reclaim: a check says whether it held, was not read, was forced or blocks', () => {
  // A check whose objects were not read never reads `ok`, and stops nothing (on a snapshot there is
  // nothing to read them from); what was read decides whether it blocks; --force turns a block into `forced`.
  const rows: Array<{
    name: string
    check: ReclaimCheckName
    s: ClusterState
    c: Case
    result: RepairCheckResult
    ok: boolean
    allowed: boolean
    message: RegExp
  }> = [
    {
      name: 'a snapshot without VolumeAttachments',
      check: 'VolumeDetached',
      s: state({volumes: [released()]}),
      c: {attachments: notRead},
      result: 'not-read',
      ok: true,
      allowed: true,
      message: /^VolumeAttachments not read \(the snapshot holds no VolumeAttachment objects\)$/,
    },
    {
      name: 'VolumeAttachments read, none at all',
      check: 'VolumeDetached',
      s: state({volumes: [released()]}),
      c: {attachments: noAttachments},
      result: 'ok',
      ok: true,
      allowed: true,
      message: /^no VolumeAttachment names it$/,
    },
    {
      name: 'VolumeAttachments read, none of this volume',
      check: 'VolumeDetached',
      s: state({volumes: [released()]}),
      c: {attachments: attachment('pv-2')},
      result: 'ok',
      ok: true,
      allowed: true,
      message: /^no VolumeAttachment names it$/,
    },
    {
      name: 'a VolumeAttachment names the volume',
      check: 'VolumeDetached',
      s: state({volumes: [released()]}),
      c: {attachments: attachment('pv-1')},
      result: 'blocked',
      ok: false,
      allowed: false,
      message: /still attaches it/,
    },
    {
      name: 'a VolumeAttachment names the volume, --force',
      check: 'VolumeDetached',
      s: state({volumes: [released()]}),
      c: {attachments: attachment('pv-1'), force: ['VolumeDetached']},
      result: 'forced',
      ok: false,
      allowed: true,
      message: /still attaches it/,
    },
    {
      name: 'a snapshot without Pods',
      check: 'OldClaimUnused',
      s: state({volumes: [released()]}),
      c: {pods: podsNotRead},
      result: 'not-read',
      ok: true,
      allowed: true,
      message: /^Pods not read \(the snapshot holds no Pod objects\)$/,
    },
    {
      name: 'Pods read, none at all',
      check: 'OldClaimUnused',
      s: state({volumes: [released()]}),
      c: {},
      result: 'ok',
      ok: true,
      allowed: true,
      message: /^no pod mounts default\/old$/,
    },
    {
      name: 'Pods read, only a terminated one of the old claim',
      check: 'OldClaimUnused',
      s: state({volumes: [released()], pods: [pod('app-0', 'old', {phase: 'Succeeded', nodeName: 'node-1'})]}),
      c: {},
      result: 'ok',
      ok: true,
      allowed: true,
      message: /^no pod mounts default\/old$/,
    },
    {
      name: 'a pod on a node uses the old claim',
      check: 'OldClaimUnused',
      s: state({volumes: [released()], pods: [pod('app-0', 'old', {phase: 'Running', nodeName: 'node-1'})]}),
      c: {},
      result: 'blocked',
      ok: false,
      allowed: false,
      message: /app-0 \(on node-1\) still uses/,
    },
    {
      name: 'a pod on a node uses the old claim, --force',
      check: 'OldClaimUnused',
      s: state({volumes: [released()], pods: [pod('app-0', 'old', {phase: 'Running', nodeName: 'node-1'})]}),
      c: {force: ['OldClaimUnused']},
      result: 'blocked',
      ok: false,
      allowed: false,
      message: /app-0 \(on node-1\) still uses/,
    },
    {
      name: 'a pod no node runs uses the old claim, --force',
      check: 'OldClaimUnused',
      s: state({volumes: [released()], pods: [pod('app-0', 'old')]}),
      c: {force: ['OldClaimUnused']},
      result: 'forced',
      ok: false,
      allowed: true,
      message: /app-0 \(not scheduled\) still uses/,
    },
    {
      name: 'no claimRef: no claim, no pod, whether Pods were read or not',
      check: 'OldClaimUnused',
      s: state({volumes: [released({phase: 'Failed', claim: undefined})]}),
      c: {...forDb, pods: podsNotRead},
      result: 'ok',
      ok: true,
      allowed: true,
      message: /^no claim, no pod$/,
    },
    {
      name: 'a re-created claim of the old name, --not-owner it',
      check: 'OldNameFree',
      s: state({volumes: [released()], claims: [oldAgain(), db()]}),
      c: {...forDb, notOwner: {namespace: 'default', name: 'old'}},
      result: 'forced',
      ok: false,
      allowed: true,
      message:
        /re-created \(uid u-new; the volume held u-old\) and names no volume: --not-owner says it is not the owner of the data$/,
    },
    {
      name: 'a re-created claim of the old name, --not-owner another claim',
      check: 'OldNameFree',
      s: state({volumes: [released()], claims: [oldAgain(), db()]}),
      c: {...forDb, notOwner: {namespace: 'default', name: 'db'}},
      result: 'blocked',
      ok: false,
      allowed: false,
      message: /add --not-owner default\/old \(--not-owner names default\/db, not this claim\)$/,
    },
    {
      name: 'a re-created claim of the old name, --force',
      check: 'OldNameFree',
      s: state({volumes: [released()], claims: [oldAgain(), db()]}),
      c: {...forDb, force: ['OldNameFree']},
      result: 'blocked',
      ok: false,
      allowed: false,
      message: /add --not-owner default\/old$/,
    },
    {
      name: 'the old name restored, naming the volume, --not-owner it',
      check: 'OldNameFree',
      s: state({volumes: [released()], claims: [oldAgain({labels: restoredLabels, volumeName: 'pv-1'}), db()]}),
      c: {...forDb, notOwner: {namespace: 'default', name: 'old'}},
      result: 'blocked',
      ok: false,
      allowed: false,
      message:
        /^pvc\/default\/old is back \(uid u-new; the volume held u-old\), restored by nightly-1, names pv-1: it is the data's owner; pvctl relink pvc\/old -n default reunites them$/,
    },
    {
      name: 'the old name again, naming the volume, not restored',
      check: 'OldNameFree',
      s: state({volumes: [released()], claims: [oldAgain({volumeName: 'pv-1'}), db()]}),
      c: forDb,
      result: 'blocked',
      ok: false,
      allowed: false,
      message: /, names pv-1: it is the data's owner; pvctl relink pvc\/old -n default reunites them$/,
    },
    {
      name: 'the old name again is the --for claim',
      check: 'OldNameFree',
      s: state({volumes: [released()], claims: [oldAgain()]}),
      c: {target: {namespace: 'default', name: 'old'}},
      result: 'ok',
      ok: true,
      allowed: true,
      message: /is the --for claim: the volume goes back to its name$/,
    },
    {
      name: 'a restored claim of another name names the volume',
      check: 'NoRestoredOwner',
      s: state({
        volumes: [released()],
        claims: [pvc('db', 'u-db', {className: '', namespace: 'shop', labels: restoredLabels, volumeName: 'pv-1'})],
      }),
      c: {},
      result: 'blocked',
      ok: false,
      allowed: false,
      message:
        /^pvc\/shop\/db, restored by nightly-1 \(uid u-db\), names pv-1: it is the data's owner; pvctl reclaim pv\/pv-1 --for shop\/db gives it the volume$/,
    },
    {
      name: 'a restored claim that is the --for claim and names the volume',
      check: 'NoRestoredOwner',
      s: state({volumes: [released()], claims: [db({labels: restoredLabels, volumeName: 'pv-1'})]}),
      c: forDb,
      result: 'ok',
      ok: true,
      allowed: true,
      message: /^no restored claim points at pv-1$/,
    },
    {
      name: 'without --for, any claim naming the volume',
      check: 'NoOtherClaim',
      s: state({volumes: [released()], claims: [db({volumeName: 'pv-1'})]}),
      c: {},
      result: 'blocked',
      ok: false,
      allowed: false,
      message:
        /^pvc\/default\/db \(Pending\) names pv-1 in spec.volumeName: to give it the volume: pvctl reclaim pv\/pv-1 --for default\/db$/,
    },
  ]
  for (const row of rows) {
    test(`${row.check} ${row.result}: ${row.name}`, () => {
      const d = decide(row.s, row.c)
      const c = checkOf(d, row.check)!
      assert.deepEqual(
        {result: c.result, ok: c.ok, forced: c.forced},
        {result: row.result, ok: row.ok, forced: row.result === 'forced'},
        JSON.stringify(d.checks),
      )
      assert.match(c.message, row.message)
      assert.equal(d.allowed, row.allowed, JSON.stringify(d.checks))
    })
  }
  test('every other check of a reclaim allowed on what was read is ok, the proof included', () => {
    const d = decide(state({volumes: [released()], claims: [db()]}), {...forDb, attachments: noAttachments})
    assert.deepEqual(
      d.checks.map((c) => [c.name, c.result]),
      (
        [
          'VolumeReleased',
          'VolumeNotDeleting',
          'OldClaimGone',
          'OldNameFree',
          'NoOtherClaim',
          'NoRestoredOwner',
          'OldClaimUnused',
          'VolumeDetached',
          'ReclaimPolicyKeepsData',
          'TargetClaimFree',
          'TargetClaimFits',
          'Proof',
        ] as const
      ).map((n) => [n, 'ok']),
    )
  })
})

describe('reclaim: --force overrides only what may be overridden, each named', () => {
  test('a VolumeAttachment left behind is overridden', () => {
    const d = decide(state({volumes: [released()]}), {attachments: attachment('pv-1'), force: ['VolumeDetached']})
    assert.deepEqual(checkOf(d, 'VolumeDetached'), {
      ...checkOf(d, 'VolumeDetached'),
      result: 'forced',
      ok: false,
      forced: true,
      overridable: true,
    })
    assert.equal(d.allowed, true)
  })
  test('a pod no node runs is overridden; a pod on a node never is', () => {
    const unscheduled = decide(state({volumes: [released()], pods: [pod('app-0', 'old')]}), {force: ['OldClaimUnused']})
    assert.equal(checkOf(unscheduled, 'OldClaimUnused')?.forced, true)
    assert.match(checkOf(unscheduled, 'OldClaimUnused')!.message, /app-0 \(not scheduled\)/)
    assert.equal(unscheduled.allowed, true)
    const running = decide(
      state({volumes: [released()], pods: [pod('app-0', 'old', {phase: 'Running', nodeName: 'node-1'})]}),
      {force: ['OldClaimUnused']},
    )
    assert.equal(checkOf(running, 'OldClaimUnused')?.forced, false)
    assert.equal(running.allowed, false)
  })
  test('the old claim, the policy and the phase are never overridden', () => {
    const d = decide(
      state({
        volumes: [released({phase: 'Bound'})],
        claims: [pvc('old', 'u-old', {className: '', phase: 'Bound', volumeName: 'pv-1', annotations: bound})],
      }),
      {
        force: ['VolumeReleased', 'OldClaimGone'],
      },
    )
    assert.deepEqual(
      d.checks.filter((c) => !c.ok).map((c) => [c.name, c.forced]),
      [
        ['VolumeReleased', false],
        ['OldClaimGone', false],
      ],
    )
    assert.equal(d.allowed, false)
  })
})

describe('reclaim: a volume found as the reclaim leaves it is reclaimed already, nothing judged or written', () => {
  const rows: Array<{name: string; s: ClusterState; c: Case; already: string | null}> = [
    {
      name: 'without --for, no claimRef, Released',
      s: state({volumes: [released({claim: undefined, annotations: undefined})]}),
      c: {},
      already: 'already reclaimed: pv-1 has no claimRef (Released): the next sync makes pv-1 Available',
    },
    {
      name: 'without --for, no claimRef, a claim that fits',
      s: state({volumes: [released({claim: undefined})], claims: [db()]}),
      c: {},
      already: 'already reclaimed: pv-1 has no claimRef (Released): the next sync binds pvc/default/db to pv-1',
    },
    {
      name: 'without --for, no claimRef, Available',
      s: state({volumes: [released({phase: 'Available', claim: undefined, annotations: undefined})]}),
      c: {},
      already: 'already reclaimed: pv-1 has no claimRef and is Available for any matching claim',
    },
    {
      name: '--for, pre-bound to that claim',
      s: state({volumes: [released({claim: {name: 'db'}, annotations: undefined})], claims: [db()]}),
      c: forDb,
      already:
        'already reclaimed: pv-1 is pre-bound to default/db (Released, no uid): the next sync binds pvc/default/db to pv-1',
    },
    {
      name: '--for, pre-bound to that claim, not created yet',
      s: state({volumes: [released({phase: 'Available', claim: {name: 'db'}, annotations: undefined})]}),
      c: forDb,
      already: 'already reclaimed: pv-1 is pre-bound to default/db (Available, no uid)',
    },
    {
      name: '--for, bound to that claim since',
      s: state({
        volumes: [released({phase: 'Bound', claim: {name: 'db', uid: 'u-db'}})],
        claims: [db({phase: 'Bound', volumeName: 'pv-1', annotations: bound})],
      }),
      c: forDb,
      already: 'already reclaimed: pv-1 is bound to default/db (Bound, uid u-db)',
    },
    {
      name: "--for, bound to a claim of that name under another uid: not this reclaim's work",
      s: state({volumes: [released({claim: {name: 'db', uid: 'u-old'}})], claims: [db()]}),
      c: forDb,
      already: null,
    },
    {
      name: '--for another claim than the one pre-bound',
      s: state({volumes: [released({claim: {name: 'db'}})], claims: [db(), pvc('web', 'u-web', {className: ''})]}),
      c: {target: {namespace: 'default', name: 'web'}},
      already: null,
    },
    {name: 'without --for, a claimRef', s: state({volumes: [released()]}), c: {}, already: null},
  ]
  for (const row of rows) {
    test(row.name, () => {
      const d = decide(row.s, row.c)
      assert.equal(d.already, row.already, JSON.stringify(d.checks))
      if (row.already !== null) {
        assert.deepEqual(
          [d.checks, d.patch, d.allowed, d.edited],
          [[], [], false, d.volume],
          'nothing judged, nothing to write',
        )
      } else {
        assert.ok(d.checks.length > 0)
      }
    })
  }
})

describe('reclaim: the edit, and the plan on the edited state', () => {
  test('without --for: claimRef and the bound-by-controller annotation removed (unbindVolume); the next sync makes it Available', () => {
    const d = decide(state({volumes: [released()]}))
    assert.equal(d.edited.spec.claimRef, undefined)
    assert.equal(d.edited.metadata.annotations, undefined)
    assert.deepEqual(
      d.patch.map((p) => [p.op, p.path]),
      [
        ['remove', '/metadata/annotations'],
        ['remove', '/spec/claimRef'],
      ],
    )
    assert.equal(d.next, 'the next sync makes pv-1 Available')
    assert.equal(d.allowed, true)
  })
  test('without --for, a Pending claim that fits gets it: said as what the controller does next', () => {
    const d = decide(state({volumes: [released()], claims: [db()]}))
    assert.equal(d.next, 'the next sync binds pvc/default/db to pv-1')
  })
  test('--for an existing claim: a pre-binding without uid or resourceVersion, and the next sync binds them', () => {
    const d = decide(state({volumes: [released()], claims: [db()]}), forDb)
    assert.deepEqual(d.edited.spec.claimRef, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      name: 'db',
      namespace: 'default',
    })
    assert.equal(d.next, 'the next sync binds pvc/default/db to pv-1')
    assert.deepEqual(
      d.nextActions?.map((a) => `${a.action} ${a.object.name}`),
      ['bind-volume pv-1', 'set-volume-phase pv-1', 'bind-claim db', 'set-claim-phase db'],
    )
    assert.equal(checkOf(d, 'Proof')?.ok, true)
  })
  test('--for a claim that does not exist yet: Available and pre-bound, waiting for it', () => {
    const d = decide(state({volumes: [released()]}), forDb)
    assert.equal(d.target?.exists, false)
    assert.equal(d.next, 'the next sync makes pv-1 Available, pre-bound to default/db')
    assert.equal(d.allowed, true)
  })
  test('--for the re-created claim of the same name', () => {
    const d = decide(state({volumes: [released()], claims: [oldAgain()]}), {
      target: {namespace: 'default', name: 'old'},
    })
    assert.match(
      checkOf(d, 'OldClaimGone')!.message,
      /claim default\/old of uid u-old is gone \(a claim of that name has uid u-new: OldNameFree\)/,
    )
    assert.equal(d.next, 'the next sync binds pvc/default/old to pv-1')
  })
  test('a Bound volume whose claim is gone: not yet, and the refusal says the two steps, the reclaim decided on the state the sync leaves', () => {
    const d = decide(state({volumes: [released({phase: 'Bound'})]}))
    assert.match(
      checkOf(d, 'VolumeReleased')!.message,
      /pv-1 is Bound, and the next sync releases it \(its claim is gone\): sync it first, then reclaim it: pvctl sync pv\/pv-1 && pvctl reclaim pv\/pv-1$/,
    )
    assert.equal(d.way, 'pvctl sync pv/pv-1 && pvctl reclaim pv/pv-1')
  })
  test('a Bound volume whose claim is gone, which reclaim refuses once Released too: the sync alone, and what refuses it then', () => {
    const d = decide(state({volumes: [released({phase: 'Bound'})], claims: [oldAgain()]}))
    assert.match(
      checkOf(d, 'VolumeReleased')!.message,
      /: pvctl sync pv\/pv-1 releases it; reclaim still refuses it then \(OldNameFree\)$/,
    )
    assert.equal(d.way, null)
  })
  test('the proof refuses a claim the controller would turn Lost (it completed binding under another uid)', () => {
    const d = decide(
      state({volumes: [released()], claims: [db({phase: 'Bound', volumeName: 'pv-1', annotations: bound})]}),
      forDb,
    )
    assert.equal(d.allowed, false)
    assert.equal(checkOf(d, 'TargetClaimFits')?.ok, false)
  })
  test('nothing is written into the state: the input is not modified', () => {
    const s = state({volumes: [released()], claims: [db()]})
    const before = structuredClone(s)
    decide(s, forDb)
    assert.deepEqual(s, before)
  })
})
