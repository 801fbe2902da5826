// The API server stamps status.lastPhaseTransitionTime on a volume whose phase a write changes
// (persistentvolumeStatusStrategy.PrepareForUpdate, the PersistentVolumeLastPhaseTransitionTime gate: beta
// and on in v1.29, GA from v1.31): a simulated plan given the server's clock carries the stamp as the server
// would write it, audit says since when a volume Released as read is, and reclaim shows it.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import {auditState} from '../../src/engine/audit/audit-state.js'
import {defaultFeatureGates, defaultGatesAt, parseFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {PersistentVolume} from '../../src/engine/api/model.js'
import {buildReclaimReport} from '../../src/engine/repair/report.js'
import {decideReclaim} from '../../src/engine/repair/reclaim.js'
import {defaultVolumePluginMgr} from '../../src/engine/controller/volume-plugins.js'
import {reconcile} from '../../src/engine/simulation/reconcile.js'
import {bound, byController, pv, pvc, state} from './builders.js'

const NOW = '2026-12-07T10:00:00Z'
const EARLIER = '2026-11-01T08:30:00Z'

/** A volume bound to a claim that is gone: the next sync releases it. */
function orphaned(stamp?: string): PersistentVolume {
  const v = pv('pv-1', {phase: 'Bound', claim: {name: 'gone', uid: 'u0'}, annotations: byController, className: ''})
  if (stamp !== undefined) v.status = {...v.status, lastPhaseTransitionTime: stamp}
  return v
}

const volumeAfter = (r: ReturnType<typeof reconcile>, name: string) => r.volumes.find((v) => v.metadata.name === name)!

describe('a simulated phase change is stamped as the API server stamps it', () => {
  test('Bound -> Released: the server clock, in the object and in the write', () => {
    const r = reconcile(state({volumes: [orphaned(EARLIER)]}), {now: NOW})
    assert.equal(volumeAfter(r, 'pv-1').status?.phase, 'Released')
    assert.equal(volumeAfter(r, 'pv-1').status?.lastPhaseTransitionTime, NOW)
    const write = r.actions.find((a) => a.action === 'set-volume-phase')!
    assert.ok(
      write.patch.some((op) => op.path === '/status/lastPhaseTransitionTime' && op.op !== 'remove' && op.value === NOW),
      JSON.stringify(write.patch),
    )
  })

  test('a volume whose phase stays keeps its time', () => {
    const claim = pvc('data', 'u1', {phase: 'Bound', volumeName: 'pv-1', annotations: bound, className: ''})
    const v = pv('pv-1', {phase: 'Bound', claim: {name: 'data', uid: 'u1'}, annotations: byController, className: ''})
    v.status = {...v.status, lastPhaseTransitionTime: EARLIER}
    const r = reconcile(state({volumes: [v], claims: [claim]}), {now: NOW})
    assert.deepEqual(
      r.actions.filter((a) => a.object.kind === 'PersistentVolume'),
      [],
    )
    assert.equal(volumeAfter(r, 'pv-1').status?.lastPhaseTransitionTime, EARLIER)
  })

  test("no server clock (the Go tests' fake client, loop mode): no stamp", () => {
    const r = reconcile(state({volumes: [orphaned(EARLIER)]}), {})
    assert.equal(volumeAfter(r, 'pv-1').status?.lastPhaseTransitionTime, EARLIER)
  })

  test('v1.30 with PersistentVolumeLastPhaseTransitionTime turned off: no stamp; v1.31 cannot turn it off', () => {
    const gates = parseFeatureGates('PersistentVolumeLastPhaseTransitionTime=false', defaultGatesAt(30))
    const r = reconcile(state({volumes: [orphaned()]}), {now: NOW, gates})
    assert.equal(volumeAfter(r, 'pv-1').status?.phase, 'Released')
    assert.equal(volumeAfter(r, 'pv-1').status?.lastPhaseTransitionTime, undefined)
    assert.throws(
      () => parseFeatureGates('PersistentVolumeLastPhaseTransitionTime=false', defaultGatesAt(31)),
      /locked to true in v1\.31/,
    )
  })
})

describe('since when a volume is Released', () => {
  const retained = (stamp?: string) => {
    const v = pv('pv-1', {phase: 'Released', claim: {name: 'gone', uid: 'u0'}, className: ''})
    if (stamp !== undefined) v.status = {...v.status, lastPhaseTransitionTime: stamp}
    return v
  }
  const finding = (v: PersistentVolume) =>
    auditState(state({volumes: [v]}), {
      gates: defaultFeatureGates,
      failOn: 'warning',
      ignore: new Set(),
      now: NOW,
    }).findings.find((f) => f.code === 'VolumeReleasedRetained')!

  test('audit: Released as read, with its time: in the evidence and the message', () => {
    const f = finding(retained(EARLIER))
    assert.equal(f.evidence.releasedSince, EARLIER)
    assert.match(f.message, new RegExp(`^Released by default/gone since ${EARLIER} and kept \\(Retain\\)`))
  })

  test('audit: released by the plan itself, or read without a time: no age to give', () => {
    for (const v of [orphaned(EARLIER), retained()]) {
      const f = finding(v)
      assert.equal('releasedSince' in f.evidence, false, JSON.stringify(f.evidence))
      assert.match(f.message, /^Released by default\/gone and kept/)
    }
  })

  test('reclaim: the report says since when the volume is in its phase', () => {
    const s = state({volumes: [retained(EARLIER)]})
    const d = decideReclaim({
      state: s,
      volumeName: 'pv-1',
      force: new Set(),
      gates: defaultFeatureGates,
      plugins: defaultVolumePluginMgr(),
      attachments: {observed: true, items: []},
      pods: {observed: true},
    })!
    assert.equal(
      buildReclaimReport(d, {dryRun: true, simulation: true, outcome: 'simulated'}).volume.phaseSince,
      EARLIER,
    )
  })
})
