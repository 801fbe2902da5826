// The controller's branches that changed between releases (RELEASE_CHANGES in src/engine/api/releases.ts),
// each decided as the release before the change and as the release that made it.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import {defaultGatesAt} from '../../src/engine/api/feature-gates.js'
import type {PersistentVolume, PersistentVolumeClaim} from '../../src/engine/api/model.js'
import {RELEASE_CHANGES} from '../../src/engine/api/releases.js'
import {defaultVolumePluginMgr} from '../../src/engine/controller/volume-plugins.js'
import {reconcile} from '../../src/engine/simulation/reconcile.js'
import {byController, pv, pvc, state} from './builders.js'

const at = (minor: number) => ({gates: defaultGatesAt(minor), plugins: defaultVolumePluginMgr()})
const withVAC = <T extends PersistentVolume | PersistentVolumeClaim>(o: T, vac: string): T => ({
  ...o,
  spec: {...o.spec, volumeAttributesClassName: vac},
})
const claimAfter = (r: ReturnType<typeof reconcile>, name: string) => r.claims.find((c) => c.metadata.name === name)!

describe(`volumeAttributesClassBinding (v${RELEASE_CHANGES.volumeAttributesClassBinding})`, () => {
  const s = state({
    volumes: [withVAC(pv('gold'), 'gold'), pv('plain', {capacity: '5Gi'})],
    claims: [pvc('c', 'u1', {className: ''})],
  })
  test('v1.30: the smallest volume, its VolumeAttributesClass unread', () => {
    assert.equal(claimAfter(reconcile(s, at(30)), 'c').spec.volumeName, 'gold')
  })
  test('v1.31: a volume that has one is never bound with the gate off', () => {
    assert.equal(claimAfter(reconcile(s, at(31)), 'c').spec.volumeName, 'plain')
  })
  test('v1.34: only a claim of that class gets it', () => {
    const r = reconcile(state({...s, claims: [withVAC(pvc('c', 'u1', {className: ''}), 'gold')]}), at(34))
    assert.equal(claimAfter(r, 'c').spec.volumeName, 'gold')
    assert.equal(claimAfter(r, 'c').status?.currentVolumeAttributesClassName, 'gold')
  })
  test("v1.30: a claim naming one is not refused; v1.31 refuses it with the controller's error", () => {
    const named = state({...s, claims: [withVAC(pvc('c', 'u1', {className: ''}), 'gold')]})
    assert.deepEqual(reconcile(named, at(30)).errors, [])
    assert.match(
      reconcile(named, at(31)).errors[0].message,
      /unsupported volumeAttributesClassName is set on claim default\/c when the feature-gate VolumeAttributesClass is disabled/,
    )
  })
})

describe(`deleterLeavesMigratedAndCSI (v${RELEASE_CHANGES.deleterLeavesMigratedAndCSI})`, () => {
  // A Delete volume with a CSI source, its claim gone and not dynamically provisioned.
  const s = state({
    volumes: [
      pv('v', {
        claim: {name: 'gone', uid: 'ug'},
        phase: 'Bound',
        policy: 'Delete',
        annotations: byController,
        source: {csi: {driver: 'd', volumeHandle: 'h'}},
      }),
    ],
  })
  test('v1.29: the in-tree lookup by source finds no deleter: Failed', () => {
    assert.deepEqual(
      reconcile(s, at(29)).events.map((e) => e.reason),
      ['VolumeFailedDelete'],
    )
  })
  test('v1.30: left Released for the external deleter', () => {
    const r = reconcile(s, at(30))
    assert.deepEqual(r.events, [])
    assert.equal(r.volumes[0].status?.phase, 'Released')
  })
})

describe(`deleterFoundFirst (v${RELEASE_CHANGES.deleterFoundFirst})`, () => {
  // No deleter for the volume's source: looked up before the re-read (v1.36) or after it (v1.35), the volume a
  // sync just released is still released when read again, so a plan is the same; where they part (a volume no
  // longer released when read again) is the live double-check's. The clean-up retries of the same change are
  // conformance case 11-12 at v1.31 and v1.37.
  const s = state({
    volumes: [pv('v', {claim: {name: 'gone', uid: 'ug'}, phase: 'Bound', policy: 'Delete', annotations: byController})],
  })
  for (const minor of [35, 36]) {
    test(`v1.${minor}: released, then Failed with the plugin error`, () => {
      const r = reconcile(s, {...at(minor), targets: [{kind: 'PersistentVolume', name: 'v'}], maxRounds: 1})
      assert.deepEqual(
        r.events.map((e) => `${e.reason} ${e.message}`),
        ['VolumeFailedDelete error getting deleter volume plugin for volume "v": no volume plugin matched'],
      )
      assert.equal(r.volumes[0].status?.phase, 'Failed')
    })
  }
})

test("a claim's status write keeps the conditions other controllers set (Unused, the resizers')", () => {
  const claim = pvc('c', 'u1', {className: ''})
  claim.status = {
    ...claim.status,
    conditions: [{type: 'Unused', status: 'True', lastTransitionTime: '2026-12-01T00:00:00Z'}],
  }
  const r = reconcile(state({volumes: [pv('v')], claims: [claim]}), at(37))
  assert.equal(claimAfter(r, 'c').status?.phase, 'Bound')
  assert.deepEqual(claimAfter(r, 'c').status?.conditions, claim.status.conditions)
})
