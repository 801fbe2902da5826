// Every check of `pvctl reclaim`, blocked by one state and holding in the state next to it (RuleTester's
// invalid / valid rows), then the edit itself and the proof: the plan on the edited state.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import {defaultFeatureGates} from '../../../src/engine/api/feature-gates.js'
import type {ClusterState} from '../../../src/engine/api/model.js'
import type {Observed, VolumeAttachmentObject} from '../../../src/engine/explain/evidence.js'
import type {RepairCheckResult} from '../../../src/engine/repair/checks.js'
import {type ClaimName, decideReclaim, type PodsRead, RECLAIM_CHECKS, type ReclaimCheckName, type ReclaimDecision} from '../../../src/engine/repair/reclaim.js'
import {bound, byController, pod, pv, pvc, state} from '../builders.js'
import {type CheckRow, checkRowTests} from './check-rows.js'

const notRead: Observed<VolumeAttachmentObject> = {observed: false, reason: 'the snapshot holds no VolumeAttachment objects'}
const noAttachments: Observed<VolumeAttachmentObject> = {observed: true, items: []}
const podsNotRead: PodsRead = {observed: false, reason: 'the snapshot holds no Pod objects'}
const attachment = (volume: string): Observed<VolumeAttachmentObject> => ({
  observed: true,
  items: [{metadata: {name: 'csi-abc'}, spec: {attacher: 'ebs.csi.aws.com', nodeName: 'node-1', source: {persistentVolumeName: volume}}}],
})

interface Case {
  target?: ClaimName
  attachments?: Observed<VolumeAttachmentObject>
  /** Unset: the state's pods were read. */
  pods?: PodsRead
  force?: ReclaimCheckName[]
}

function decide(s: ClusterState, c: Case = {}): ReclaimDecision {
  return decideReclaim({state: s, volumeName: 'pv-1', target: c.target, force: new Set(c.force ?? []), attachments: c.attachments ?? notRead, pods: c.pods ?? {observed: true}, gates: defaultFeatureGates})!
}

const checkOf = (d: ReclaimDecision, name: ReclaimCheckName) => d.checks.find((c) => c.name === name)

/** pv-1, Released by default/old (uid u-old), Retain, class "". */
const released = (o: Parameters<typeof pv>[1] = {}) => pv('pv-1', {phase: 'Released', className: '', claim: {name: 'old', uid: 'u-old'}, annotations: byController, ...o})
const db = (o: Parameters<typeof pvc>[2] = {}) => pvc('db', 'u-db', {className: '', ...o})
const forDb: Case = {target: {namespace: 'default', name: 'db'}}

const rows: Array<CheckRow<ReclaimCheckName, [ClusterState, Case?]>> = [
  {check: 'VolumeReleased', blocked: [state({volumes: [released({phase: 'Available', claim: undefined})]})], near: [state({volumes: [released({phase: 'Failed'})]})], message: /pv-1 is Available: only a Released or Failed volume/},
  {check: 'VolumeNotDeleting', blocked: [state({volumes: [released({deleting: true})]})], near: [state({volumes: [released()]})], message: /pv-1 is being deleted \(since 2026-01-01T00:00:00Z\)/},
  {
    check: 'OldClaimGone',
    blocked: [state({volumes: [released()], claims: [pvc('old', 'u-old', {className: '', volumeName: 'pv-9'})]})],
    near: [state({volumes: [released()], claims: [pvc('old', 'u-new', {className: ''})]})],
    message: /claim default\/old still exists \(uid u-old\)/,
  },
  {
    check: 'OldClaimUnused',
    blocked: [state({volumes: [released()], pods: [pod('app-0', 'old', {phase: 'Running', nodeName: 'node-1'})]})],
    near: [state({volumes: [released()], pods: [pod('app-0', 'old', {phase: 'Succeeded', nodeName: 'node-1'})]})],
    message: /pod default\/app-0 \(on node-1\) still uses default\/old/,
  },
  {check: 'VolumeDetached', blocked: [state({volumes: [released()]}), {attachments: attachment('pv-1')}], near: [state({volumes: [released()]}), {attachments: attachment('pv-2')}], message: /VolumeAttachment csi-abc \(node node-1\) still attaches it/},
  {
    check: 'ReclaimPolicyKeepsData',
    blocked: [state({volumes: [released({policy: 'Recycle', source: {nfs: {server: 'nfs', path: '/x'}}})]})],
    near: [state({volumes: [released({policy: 'Retain', source: {nfs: {server: 'nfs', path: '/x'}}})]})],
    message: /reclaimPolicy Recycle: the next sync will recycle it .*set persistentVolumeReclaimPolicy: Retain first/,
  },
  {
    check: 'TargetClaimFree',
    blocked: [state({volumes: [released(), pv('pv-2', {className: '', phase: 'Bound', claim: {name: 'db', uid: 'u-db'}})], claims: [db({phase: 'Bound', volumeName: 'pv-2', annotations: bound})]}), forDb],
    near: [state({volumes: [released()], claims: [db()]}), forDb],
    message: /pvc\/default\/db is Bound to pv-2/,
  },
  {check: 'TargetClaimFits', blocked: [state({volumes: [released()], claims: [db({request: '5Gi'})]}), forDb], near: [state({volumes: [released()], claims: [db({request: '1Gi'})]}), forDb], message: /pvc\/default\/db does not fit pv-1: CapacityTooSmall/},
]

describe('reclaim: each check blocks one state and holds in the next', () => {
  checkRowTests(rows, decide, Object.keys(RECLAIM_CHECKS) as ReclaimCheckName[])
})

describe('reclaim: a check says whether it held, was not read, was forced or blocks', () => {
  // A check whose objects were not read never reads `ok`, and stops nothing (on a snapshot there is
  // nothing to read them from); what was read decides whether it blocks; --force turns a block into `forced`.
  const rows: Array<{name: string; check: ReclaimCheckName; s: ClusterState; c: Case; result: RepairCheckResult; ok: boolean; allowed: boolean; message: RegExp}> = [
    {name: 'a snapshot without VolumeAttachments', check: 'VolumeDetached', s: state({volumes: [released()]}), c: {attachments: notRead}, result: 'not-read', ok: true, allowed: true, message: /^VolumeAttachments not read \(the snapshot holds no VolumeAttachment objects\)$/},
    {name: 'VolumeAttachments read, none at all', check: 'VolumeDetached', s: state({volumes: [released()]}), c: {attachments: noAttachments}, result: 'ok', ok: true, allowed: true, message: /^no VolumeAttachment names it$/},
    {name: 'VolumeAttachments read, none of this volume', check: 'VolumeDetached', s: state({volumes: [released()]}), c: {attachments: attachment('pv-2')}, result: 'ok', ok: true, allowed: true, message: /^no VolumeAttachment names it$/},
    {name: 'a VolumeAttachment names the volume', check: 'VolumeDetached', s: state({volumes: [released()]}), c: {attachments: attachment('pv-1')}, result: 'blocked', ok: false, allowed: false, message: /still attaches it/},
    {name: 'a VolumeAttachment names the volume, --force', check: 'VolumeDetached', s: state({volumes: [released()]}), c: {attachments: attachment('pv-1'), force: ['VolumeDetached']}, result: 'forced', ok: false, allowed: true, message: /still attaches it/},
    {name: 'a snapshot without Pods', check: 'OldClaimUnused', s: state({volumes: [released()]}), c: {pods: podsNotRead}, result: 'not-read', ok: true, allowed: true, message: /^Pods not read \(the snapshot holds no Pod objects\)$/},
    {name: 'Pods read, none at all', check: 'OldClaimUnused', s: state({volumes: [released()]}), c: {}, result: 'ok', ok: true, allowed: true, message: /^no pod mounts default\/old$/},
    {name: 'Pods read, only a terminated one of the old claim', check: 'OldClaimUnused', s: state({volumes: [released()], pods: [pod('app-0', 'old', {phase: 'Succeeded', nodeName: 'node-1'})]}), c: {}, result: 'ok', ok: true, allowed: true, message: /^no pod mounts default\/old$/},
    {name: 'a pod on a node uses the old claim', check: 'OldClaimUnused', s: state({volumes: [released()], pods: [pod('app-0', 'old', {phase: 'Running', nodeName: 'node-1'})]}), c: {}, result: 'blocked', ok: false, allowed: false, message: /app-0 \(on node-1\) still uses/},
    {name: 'a pod on a node uses the old claim, --force', check: 'OldClaimUnused', s: state({volumes: [released()], pods: [pod('app-0', 'old', {phase: 'Running', nodeName: 'node-1'})]}), c: {force: ['OldClaimUnused']}, result: 'blocked', ok: false, allowed: false, message: /app-0 \(on node-1\) still uses/},
    {name: 'a pod no node runs uses the old claim, --force', check: 'OldClaimUnused', s: state({volumes: [released()], pods: [pod('app-0', 'old')]}), c: {force: ['OldClaimUnused']}, result: 'forced', ok: false, allowed: true, message: /app-0 \(not scheduled\) still uses/},
    {name: 'no claimRef: no claim, no pod, whether Pods were read or not', check: 'OldClaimUnused', s: state({volumes: [released({phase: 'Failed', claim: undefined})]}), c: {pods: podsNotRead}, result: 'ok', ok: true, allowed: true, message: /^no claim, no pod$/},
  ]
  for (const row of rows) {
    test(`${row.check} ${row.result}: ${row.name}`, () => {
      const d = decide(row.s, row.c)
      const c = checkOf(d, row.check)!
      assert.deepEqual({result: c.result, ok: c.ok, forced: c.forced}, {result: row.result, ok: row.ok, forced: row.result === 'forced'}, JSON.stringify(d.checks))
      assert.match(c.message, row.message)
      assert.equal(d.allowed, row.allowed, JSON.stringify(d.checks))
    })
  }
  test('every other check of a reclaim allowed on what was read is ok, the proof included', () => {
    const d = decide(state({volumes: [released()], claims: [db()]}), {...forDb, attachments: noAttachments})
    assert.deepEqual(
      d.checks.map((c) => [c.name, c.result]),
      (['VolumeReleased', 'VolumeNotDeleting', 'OldClaimGone', 'OldClaimUnused', 'VolumeDetached', 'ReclaimPolicyKeepsData', 'TargetClaimFree', 'TargetClaimFits', 'Proof'] as const).map((n) => [n, 'ok']),
    )
  })
})

describe('reclaim: --force overrides only what may be overridden, each named', () => {
  test('a VolumeAttachment left behind is overridden', () => {
    const d = decide(state({volumes: [released()]}), {attachments: attachment('pv-1'), force: ['VolumeDetached']})
    assert.deepEqual(checkOf(d, 'VolumeDetached'), {...checkOf(d, 'VolumeDetached'), result: 'forced', ok: false, forced: true, overridable: true})
    assert.equal(d.allowed, true)
  })
  test('a pod no node runs is overridden; a pod on a node never is', () => {
    const unscheduled = decide(state({volumes: [released()], pods: [pod('app-0', 'old')]}), {force: ['OldClaimUnused']})
    assert.equal(checkOf(unscheduled, 'OldClaimUnused')?.forced, true)
    assert.match(checkOf(unscheduled, 'OldClaimUnused')!.message, /app-0 \(not scheduled\)/)
    assert.equal(unscheduled.allowed, true)
    const running = decide(state({volumes: [released()], pods: [pod('app-0', 'old', {phase: 'Running', nodeName: 'node-1'})]}), {force: ['OldClaimUnused']})
    assert.equal(checkOf(running, 'OldClaimUnused')?.forced, false)
    assert.equal(running.allowed, false)
  })
  test('the old claim, the policy and the phase are never overridden', () => {
    const d = decide(state({volumes: [released({phase: 'Bound'})], claims: [pvc('old', 'u-old', {className: '', phase: 'Bound', volumeName: 'pv-1', annotations: bound})]}), {
      force: ['VolumeReleased', 'OldClaimGone'],
    })
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
    assert.deepEqual(d.edited.spec.claimRef, {apiVersion: 'v1', kind: 'PersistentVolumeClaim', name: 'db', namespace: 'default'})
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
    const d = decide(state({volumes: [released()], claims: [pvc('old', 'u-new', {className: ''})]}), {target: {namespace: 'default', name: 'old'}})
    assert.match(checkOf(d, 'OldClaimGone')!.message, /re-created \(uid u-new, the volume held u-old\)/)
    assert.equal(d.next, 'the next sync binds pvc/default/old to pv-1')
  })
  test('a Bound volume whose claim is gone: not yet, and the plan says the next sync releases it', () => {
    const d = decide(state({volumes: [released({phase: 'Bound'})]}))
    assert.match(checkOf(d, 'VolumeReleased')!.message, /pv-1 is Bound, and the next sync releases it .*run pvctl sync pv\/pv-1/)
  })
  test('the proof refuses a claim the controller would turn Lost (it completed binding under another uid)', () => {
    const d = decide(state({volumes: [released()], claims: [db({phase: 'Bound', volumeName: 'pv-1', annotations: bound})]}), forDb)
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
