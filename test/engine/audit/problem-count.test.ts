// auditProblemCount (sync's pointer to audit) counts what auditState reports: its errors and warnings, with
// the same scope and silencing, on every row; it reads each claim's verdict alone, so the rows hold the two
// ways of judging a claim together.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {auditProblemCount, auditState, type AuditOptions} from '../../../src/engine/audit/audit-state.js'
import {planSync} from '../../../src/engine/simulation/plan-sync.js'
import {snapshotState} from '../../fixtures/states.js'
import {AUDIT_IGNORE_ANNOTATION} from '../../../src/engine/audit/silence.js'
import {defaultFeatureGates} from '../../../src/engine/api/feature-gates.js'
import type {ClusterState} from '../../../src/engine/api/model.js'
import {pod, pv, pvc, sc, state} from '../builders.js'

const example = await snapshotState('examples/cluster.yaml')
const base: AuditOptions = {gates: defaultFeatureGates, failOn: 'warning', ignore: new Set()}
const wffc = sc('local', 'example.com/local', {mode: 'WaitForFirstConsumer'})
const retained = pv('pv-1', {
  phase: 'Released',
  className: '',
  claim: {name: 'gone', uid: 'u0'},
  annotations: {[AUDIT_IGNORE_ANNOTATION]: 'VolumeReleasedRetained'},
})

const crossed = state({
  volumes: [pv('pv-x', {className: ''})],
  claims: [
    pvc('first', 'u1', {namespace: 'a-team', className: ''}),
    pvc('second', 'u2', {namespace: 'shop', className: ''}),
  ],
})

const rows: Array<{name: string; state: ClusterState; opts?: Partial<AuditOptions>; count: number}> = [
  {name: 'the bundled example', state: example, count: 4},
  {name: 'the example, -n shop', state: example, opts: {namespace: 'shop'}, count: 4},
  {
    name: 'the example, objects named',
    state: example,
    opts: {
      targets: [
        {kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'logs'},
        {kind: 'PersistentVolume', name: 'pv-0004'},
      ],
    },
    count: 2,
  },
  {name: 'the example, --ignore ClaimLost', state: example, opts: {ignore: new Set(['ClaimLost'])}, count: 3},
  {
    name: 'info only: waits for a consumer and for scheduling',
    state: state({
      claims: [pvc('a', 'u1', {className: 'local'}), pvc('b', 'u2', {className: 'local'})],
      classes: [wffc],
      pods: [pod('app-0', 'b')],
    }),
    count: 0,
  },
  {name: 'silenced by the annotation', state: state({volumes: [retained]}), count: 0},
  // a-team/first is synced first and takes pv-x: under -n shop the pointer counts shop/second's finding, as
  // `audit -n shop` reports it, not the plan of a sync that sees shop alone (which would bind pv-x to it).
  {
    name: 'a claim of another namespace takes the volume first, -n shop',
    state: crossed,
    opts: {namespace: 'shop'},
    count: 1,
  },
  {
    name: 'claims without a class and no default class, counted by the class finding',
    state: state({claims: [pvc('a', 'u1')], classes: [sc('x', 'example.com/x')]}),
    count: 2,
  },
  {
    name: 'several default classes',
    state: state({
      classes: [
        sc('a', 'example.com/x', {isDefault: true, created: '2026-01-01T00:00:00Z'}),
        sc('b', 'example.com/x', {isDefault: true, created: '2026-02-01T00:00:00Z'}),
      ],
    }),
    count: 1,
  },
]

for (const row of rows) {
  test(`auditProblemCount: ${row.name}`, () => {
    const opts = {...base, ...row.opts}
    const report = auditState(row.state, opts)
    const plan = planSync(row.state, {...opts, dryRun: true})
    assert.equal(
      auditProblemCount(row.state, opts, plan),
      report.summary.findings.error + report.summary.findings.warning,
      'as the report counts',
    )
    assert.equal(auditProblemCount(row.state, opts, plan), row.count)
  })
}
