// Every finding code, raised by one state and not raised by the state next to it (RuleTester's invalid /
// valid rows). Each state is audited as `pvctl audit` does: planned first, judged after the plan.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import {auditState} from '../../../src/engine/audit/audit-state.js'
import {CLUSTER_CODES} from '../../../src/engine/audit/fleet.js'
import {FINDING_CODES, type FindingCode} from '../../../src/engine/audit/findings.js'
import {defaultFeatureGates} from '../../../src/engine/api/feature-gates.js'
import type {ClusterState} from '../../../src/engine/api/model.js'
import type {ExplainEvidence} from '../../../src/engine/explain/evidence.js'
import {bound, pod, pv, pvc, sc, state} from '../builders.js'
import {rows as moreRows, type Row} from './rows.js'

const audit = (s: ClusterState, evidence?: ExplainEvidence) =>
  auditState(s, {gates: defaultFeatureGates, failOn: 'warning', ignore: new Set(), evidence})
const codes = (s: ClusterState, evidence?: ExplainEvidence) => audit(s, evidence).findings.map((f) => f.code)

const boundClaim = (volumeName: string, uid = 'u1') =>
  pvc('data', uid, {phase: 'Bound', volumeName, annotations: bound, className: ''})
const boundVolume = (uid = 'u1') =>
  pv('pv-1', {
    phase: 'Bound',
    className: '',
    claim: {name: 'data', uid},
    annotations: {'pv.kubernetes.io/bound-by-controller': 'yes'},
  })
const wffc = sc('local', 'example.com/local', {mode: 'WaitForFirstConsumer'})

const rows: Row[] = [
  {
    code: 'ClaimLost',
    raises: state({claims: [boundClaim('pv-1')]}),
    near: state({claims: [boundClaim('pv-1')], volumes: [boundVolume()]}),
  },
  {
    code: 'ClaimMisbound',
    raises: state({claims: [boundClaim('pv-1')], volumes: [boundVolume('u2')]}),
    near: state({claims: [boundClaim('pv-1')], volumes: [boundVolume()]}),
  },
  {
    code: 'ClaimSyncError',
    raises: state({
      claims: [pvc('data', 'u1', {className: 'odd'})],
      classes: [sc('odd', 'example.com/x', {mode: null})],
    }),
    near: state({claims: [pvc('data', 'u1', {className: 'odd'})], classes: [sc('odd', 'example.com/x')]}),
  },
  {
    code: 'ClaimNoMatchingVolume',
    raises: state({claims: [pvc('data', 'u1', {className: ''})]}),
    near: state({claims: [pvc('data', 'u1', {className: ''})], volumes: [pv('pv-1', {className: ''})]}),
  },
  {
    code: 'ClaimStorageClassNotFound',
    raises: state({claims: [pvc('data', 'u1', {className: 'gold'})]}),
    near: state({claims: [pvc('data', 'u1', {className: 'gold'})], classes: [sc('gold', 'example.com/x')]}),
  },
  {
    code: 'ClaimProvisioningNotSupported',
    raises: state({claims: [pvc('data', 'u1', {className: 'hp'})], classes: [sc('hp', 'kubernetes.io/host-path')]}),
    near: state({claims: [pvc('data', 'u1', {className: 'hp'})], classes: [sc('hp', 'example.com/x')]}),
  },
  {
    code: 'ClaimRequestedVolumeNotFound',
    raises: state({claims: [pvc('data', 'u1', {className: '', volumeName: 'pv-1'})]}),
    near: state({
      claims: [pvc('data', 'u1', {className: '', volumeName: 'pv-1'})],
      volumes: [pv('pv-1', {className: ''})],
    }),
  },
  {
    code: 'ClaimRequestedVolumeBoundElsewhere',
    raises: state({
      claims: [
        pvc('data', 'u1', {className: '', volumeName: 'pv-1'}),
        pvc('other', 'u9', {className: '', phase: 'Bound', volumeName: 'pv-1', annotations: bound}),
      ],
      volumes: [pv('pv-1', {className: '', phase: 'Bound', claim: {name: 'other', uid: 'u9'}})],
    }),
    near: state({
      claims: [pvc('data', 'u1', {className: '', volumeName: 'pv-1'})],
      volumes: [pv('pv-1', {className: ''})],
    }),
  },
  {
    code: 'ClaimRequestedVolumeMismatch',
    raises: state({
      claims: [pvc('data', 'u1', {className: '', volumeName: 'pv-1', request: '10Gi'})],
      volumes: [pv('pv-1', {className: ''})],
    }),
    near: state({
      claims: [pvc('data', 'u1', {className: '', volumeName: 'pv-1', request: '1Gi'})],
      volumes: [pv('pv-1', {className: ''})],
    }),
  },
  {
    code: 'ClaimWaitingForConsumer',
    raises: state({claims: [pvc('data', 'u1', {className: 'local'})], classes: [wffc]}),
    near: state({claims: [pvc('data', 'u1', {className: 'local'})], classes: [wffc], pods: [pod('app-0', 'data')]}),
  },
  {
    code: 'ClaimWaitingForScheduling',
    raises: state({claims: [pvc('data', 'u1', {className: 'local'})], classes: [wffc], pods: [pod('app-0', 'data')]}),
    near: state({claims: [pvc('data', 'u1', {className: 'local'})], classes: [wffc]}),
  },
  {
    code: 'VolumeReleasedRetained',
    raises: state({volumes: [boundVolume()]}),
    near: state({claims: [boundClaim('pv-1')], volumes: [boundVolume()]}),
  },
  {
    code: 'VolumeFailed',
    // Failed with its claim gone: the controller leaves it so (a Failed volume without claimRef it makes Available).
    raises: state({
      volumes: [
        {...pv('pv-1', {claim: {name: 'gone', uid: 'u0'}}), status: {phase: 'Failed', message: 'recycler failed'}},
      ],
    }),
    near: state({volumes: [{...pv('pv-1'), status: {phase: 'Failed', message: 'recycler failed'}}]}),
  },
  {
    code: 'VolumeClaimRefUidMismatch',
    raises: state({
      claims: [pvc('data', 'u-new', {className: 'gold'})],
      volumes: [pv('pv-1', {className: '', phase: 'Released', claim: {name: 'data', uid: 'u-old'}})],
    }),
    near: state({
      claims: [pvc('data', 'u-new', {className: 'gold'})],
      volumes: [pv('pv-1', {className: '', phase: 'Released', claim: {name: 'other', uid: 'u-old'}})],
    }),
  },
  {
    code: 'MultipleDefaultStorageClasses',
    raises: state({
      classes: [
        sc('a', 'example.com/x', {isDefault: true, created: '2026-01-01T00:00:00Z'}),
        sc('b', 'example.com/x', {isDefault: true, created: '2026-02-01T00:00:00Z'}),
      ],
    }),
    near: state({classes: [sc('a', 'example.com/x', {isDefault: true}), sc('b', 'example.com/x')]}),
  },
  ...moreRows,
]

describe('audit: every finding code is raised, and not raised by the state next to it', () => {
  // The codes about a cluster not read come from reading it, not from a state: test/e2e/audit-fleet.test.ts.
  test('every code has a row', () =>
    assert.deepEqual(
      rows.map((r) => r.code).sort(),
      Object.keys(FINDING_CODES)
        .filter((c) => !CLUSTER_CODES.includes(c as FindingCode))
        .sort(),
    ))
  for (const row of rows) {
    test(`${row.code}: raised`, () => {
      const got = codes(row.raises, row.evidence)
      assert.ok(got.includes(row.code), `got ${got.join(', ') || 'no finding'}`)
    })
    test(`${row.code}: not raised by the state next to it`, () => {
      const got = codes(row.near, row.nearEvidence ?? row.evidence)
      assert.ok(!got.includes(row.code), `got ${got.join(', ')}`)
    })
  }
})

describe('audit: findings carry what an operator acts on', () => {
  test('a Lost claim says its cause and the volume that still points at it', () => {
    const f = audit(state({claims: [boundClaim('pv-gone')], volumes: [boundVolume('u0')]})).findings.find(
      (x) => x.code === 'ClaimLost',
    )!
    assert.equal(f.evidence.cause, 'VolumeGone')
    assert.deepEqual(f.evidence.volumesPointingHere, ['pv-1'])
    assert.equal(f.severity, 'error')
  })
  test('several default classes name the one the controller picks: the newest', () => {
    const f = audit(rows.find((r) => r.code === 'MultipleDefaultStorageClasses')!.raises).findings[0]
    assert.equal(f.evidence.picked, 'b')
    assert.match(
      f.fix,
      /kubectl annotate storageclass a storageclass.kubernetes.io\/is-default-class=false --overwrite/,
    )
  })
  test('a Released Retain volume is fixed by pvctl reclaim', () => {
    const f = audit(state({volumes: [{...boundVolume(), status: {phase: 'Released'}}]})).findings[0]
    assert.equal(f.fix, 'pvctl reclaim pv/pv-1')
  })
  test('a volume the plan releases first: the fix syncs it, then reclaims it (reclaim refuses a Bound volume)', () => {
    const f = audit(state({volumes: [boundVolume()]})).findings[0]
    assert.equal(f.fix, 'pvctl sync pv/pv-1 && pvctl reclaim pv/pv-1')
  })
  test('--ignore silences a code and the summary counts it', () => {
    const r = auditState(state({volumes: [boundVolume()]}), {
      gates: defaultFeatureGates,
      failOn: 'warning',
      ignore: new Set(['VolumeReleasedRetained']),
    })
    assert.deepEqual(r.findings, [])
    assert.deepEqual(r.summary.ignored, {VolumeReleasedRetained: 1})
    assert.equal(r.summary.healthyVolumes, 0)
  })
})
