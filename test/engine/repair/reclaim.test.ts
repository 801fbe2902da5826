// Every check of `pvctl reclaim`, blocked by one state and holding in the state next to it (RuleTester's
// invalid / valid rows), then the edit itself and the proof: the plan on the edited state.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import {defaultFeatureGates} from '../../../src/engine/api/feature-gates.js'
import type {ClusterState} from '../../../src/engine/api/model.js'
import type {Observed, VolumeAttachmentObject} from '../../../src/engine/explain/evidence.js'
import {type ClaimName, decideReclaim, RECLAIM_CHECKS, type ReclaimCheckName, type ReclaimDecision} from '../../../src/engine/repair/reclaim.js'
import {bound, byController, pod, pv, pvc, state} from '../builders.js'
import {type CheckRow, checkRowTests} from './check-rows.js'

const notRead: Observed<VolumeAttachmentObject> = {observed: false, reason: 'the snapshot holds no VolumeAttachment objects'}
const attachment = (volume: string): Observed<VolumeAttachmentObject> => ({
  observed: true,
  items: [{metadata: {name: 'csi-abc'}, spec: {attacher: 'ebs.csi.aws.com', nodeName: 'node-1', source: {persistentVolumeName: volume}}}],
})

interface Case {
  target?: ClaimName
  attachments?: Observed<VolumeAttachmentObject>
  force?: ReclaimCheckName[]
}

function decide(s: ClusterState, c: Case = {}): ReclaimDecision {
  return decideReclaim({state: s, volumeName: 'pv-1', target: c.target, force: new Set(c.force ?? []), attachments: c.attachments ?? notRead, gates: defaultFeatureGates})!
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

describe('reclaim: --force overrides only what may be overridden, each named', () => {
  test('a VolumeAttachment left behind is overridden', () => {
    const d = decide(state({volumes: [released()]}), {attachments: attachment('pv-1'), force: ['VolumeDetached']})
    assert.deepEqual(checkOf(d, 'VolumeDetached'), {...checkOf(d, 'VolumeDetached'), ok: false, forced: true, overridable: true})
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
