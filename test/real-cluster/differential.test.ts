// The differential oracle's judgement (differential.ts), without a cluster: what is a difference, and
// which differences come from the order of the syncs rather than from a different decision.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {creatable, differencesOf, type EndState, onlyOrderDependent} from './differential.js'
import {pv, pvc} from '../engine/builders.js'

type Volume = {phase: string; claimRef?: string | null; annotations?: Record<string, string>}
type Claim = {phase: string; volumeName?: string | null; annotations?: Record<string, string>}

function end(volumes: Record<string, Volume>, claims: Record<string, Claim>, events: string[] = []): EndState {
  return {
    volumes: new Map(
      Object.entries(volumes).map(([k, v]) => [
        k,
        {phase: v.phase, claimRef: v.claimRef ?? null, annotations: v.annotations ?? {}},
      ]),
    ),
    claims: new Map(
      Object.entries(claims).map(([k, c]) => [
        k,
        {phase: c.phase, volumeName: c.volumeName ?? null, annotations: c.annotations ?? {}},
      ]),
    ),
    events: new Set(events),
  }
}

const BOUND = {'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes'}
const start = end(
  {'pv-a': {phase: 'Available'}, 'pv-b': {phase: 'Available'}},
  {'default/x': {phase: 'Pending'}, 'default/y': {phase: 'Pending'}},
)

test('equal end states have no differences; annotation order does not matter', () => {
  const a = end({'pv-a': {phase: 'Bound', claimRef: 'default/x u1', annotations: {b: '1', a: '2'}}}, {}, [
    'PersistentVolume /pv-a X',
  ])
  const b = end({'pv-a': {phase: 'Bound', claimRef: 'default/x u1', annotations: {a: '2', b: '1'}}}, {}, [
    'PersistentVolume /pv-a X',
  ])
  assert.deepEqual(differencesOf(a, b), [])
})

test('each field, presence and event that differs is one line', () => {
  const controller = end(
    {'pv-a': {phase: 'Failed'}, 'pv-b': {phase: 'Available'}},
    {'default/x': {phase: 'Bound', volumeName: 'pv-a'}},
    ['PersistentVolume /pv-a VolumeFailedDelete'],
  )
  const pvctl = end({'pv-a': {phase: 'Released'}}, {'default/x': {phase: 'Bound', volumeName: 'pv-a'}}, [
    'PersistentVolumeClaim default/x FailedBinding',
  ])
  assert.deepEqual(differencesOf(controller, pvctl), [
    'pv/pv-a phase: controller "Failed", pvctl "Released"',
    'pv/pv-b: present after the controller, gone after pvctl',
    'event PersistentVolume /pv-a VolumeFailedDelete: controller only',
    'event PersistentVolumeClaim default/x FailedBinding: pvctl only',
  ])
})

const rows: Array<{id: string; controller: EndState; pvctl: EndState; orderDependent: boolean}> = [
  {
    id: 'two claims, one volume: each side bound another claim',
    controller: end(
      {'pv-a': {phase: 'Bound', claimRef: 'default/x u1'}, 'pv-b': {phase: 'Available'}},
      {'default/x': {phase: 'Bound', volumeName: 'pv-a', annotations: BOUND}, 'default/y': {phase: 'Pending'}},
      ['PersistentVolumeClaim default/y FailedBinding'],
    ),
    pvctl: end(
      {'pv-a': {phase: 'Bound', claimRef: 'default/y u2'}, 'pv-b': {phase: 'Available'}},
      {'default/x': {phase: 'Pending'}, 'default/y': {phase: 'Bound', volumeName: 'pv-a', annotations: BOUND}},
      ['PersistentVolumeClaim default/x FailedBinding'],
    ),
    orderDependent: true,
  },
  {
    id: 'one claim, two equal volumes: each side took another',
    controller: end(
      {'pv-a': {phase: 'Bound', claimRef: 'default/x u1'}, 'pv-b': {phase: 'Available'}},
      {'default/x': {phase: 'Bound', volumeName: 'pv-a'}, 'default/y': {phase: 'Pending'}},
    ),
    pvctl: end(
      {'pv-a': {phase: 'Available'}, 'pv-b': {phase: 'Bound', claimRef: 'default/x u1'}},
      {'default/x': {phase: 'Bound', volumeName: 'pv-b'}, 'default/y': {phase: 'Pending'}},
    ),
    orderDependent: true,
  },
  {
    id: 'an event of a passing state, on a claim both bound alike',
    controller: end(
      {'pv-a': {phase: 'Bound', claimRef: 'default/x u1'}, 'pv-b': {phase: 'Available'}},
      {'default/x': {phase: 'Bound', volumeName: 'pv-a'}, 'default/y': {phase: 'Pending'}},
    ),
    pvctl: end(
      {'pv-a': {phase: 'Bound', claimRef: 'default/x u1'}, 'pv-b': {phase: 'Available'}},
      {'default/x': {phase: 'Bound', volumeName: 'pv-a'}, 'default/y': {phase: 'Pending'}},
      ['PersistentVolumeClaim default/x FailedBinding'],
    ),
    orderDependent: true,
  },
  {
    // Generated cluster #718 (seed 1): pv-a Pending, db (Lost, no volumeName) fits it, web names it.
    id: 'a volume one claim names and another fits: whoever came first has it, the other is Lost (ClaimMisbound) or stays',
    controller: end(
      {'pv-a': {phase: 'Bound', claimRef: 'default/x u1'}, 'pv-b': {phase: 'Available'}},
      {'default/x': {phase: 'Bound', volumeName: 'pv-a'}, 'default/y': {phase: 'Lost', volumeName: 'pv-a'}},
      ['PersistentVolumeClaim default/y ClaimMisbound'],
    ),
    pvctl: end(
      {'pv-a': {phase: 'Bound', claimRef: 'default/y u2'}, 'pv-b': {phase: 'Available'}},
      {'default/x': {phase: 'Pending'}, 'default/y': {phase: 'Bound', volumeName: 'pv-a'}},
    ),
    orderDependent: true,
  },
  {
    // Generated cluster #639 (seed 1): the claim's sync came before its volume was made Available.
    id: 'a provisioning attempt before the volume it then bound was Available: its annotations and event stay',
    controller: end(
      {'pv-a': {phase: 'Bound', claimRef: 'default/x u1'}, 'pv-b': {phase: 'Available'}},
      {'default/x': {phase: 'Bound', volumeName: 'pv-a', annotations: BOUND}, 'default/y': {phase: 'Pending'}},
    ),
    pvctl: end(
      {'pv-a': {phase: 'Bound', claimRef: 'default/x u1'}, 'pv-b': {phase: 'Available'}},
      {
        'default/x': {
          phase: 'Bound',
          volumeName: 'pv-a',
          annotations: {...BOUND, 'volume.kubernetes.io/storage-provisioner': 'pd.csi.storage.gke.io'},
        },
        'default/y': {phase: 'Pending'},
      },
      ['PersistentVolumeClaim default/x ExternalProvisioning'],
    ),
    orderDependent: true,
  },
  {
    id: 'another annotation on a claim both bound alike: a decision, not an order',
    controller: end(
      {'pv-a': {phase: 'Bound', claimRef: 'default/x u1'}, 'pv-b': {phase: 'Available'}},
      {'default/x': {phase: 'Bound', volumeName: 'pv-a', annotations: BOUND}, 'default/y': {phase: 'Pending'}},
    ),
    pvctl: end(
      {'pv-a': {phase: 'Bound', claimRef: 'default/x u1'}, 'pv-b': {phase: 'Available'}},
      {
        'default/x': {phase: 'Bound', volumeName: 'pv-a', annotations: {'pv.kubernetes.io/bind-completed': 'yes'}},
        'default/y': {phase: 'Pending'},
      },
    ),
    orderDependent: false,
  },
  {
    id: 'an event on a claim neither side changed: a decision, not an order',
    controller: end(
      {'pv-a': {phase: 'Available'}, 'pv-b': {phase: 'Available'}},
      {'default/x': {phase: 'Pending'}, 'default/y': {phase: 'Pending'}},
    ),
    pvctl: end(
      {'pv-a': {phase: 'Available'}, 'pv-b': {phase: 'Available'}},
      {'default/x': {phase: 'Pending'}, 'default/y': {phase: 'Pending'}},
      ['PersistentVolumeClaim default/x FailedBinding'],
    ),
    orderDependent: false,
  },
  {
    // The bench's cluster: a claim names pv-a; another claim fitted pv-a and its equals, and took pv-a.
    id: 'a volume a claim names taken by another that fitted it: one more claim left Pending',
    controller: end(
      {'pv-a': {phase: 'Bound', claimRef: 'default/x u1'}, 'pv-b': {phase: 'Bound', claimRef: 'default/y u2'}},
      {'default/x': {phase: 'Bound', volumeName: 'pv-a'}, 'default/y': {phase: 'Bound', volumeName: 'pv-b'}},
    ),
    pvctl: end(
      {'pv-a': {phase: 'Bound', claimRef: 'default/y u2'}, 'pv-b': {phase: 'Available'}},
      {'default/x': {phase: 'Pending', volumeName: 'pv-a'}, 'default/y': {phase: 'Bound', volumeName: 'pv-a'}},
    ),
    orderDependent: true,
  },
  {
    id: 'a phase that differs on a volume no binding concerns',
    controller: end(
      {'pv-a': {phase: 'Bound', claimRef: 'default/x u1'}, 'pv-b': {phase: 'Failed'}},
      {'default/x': {phase: 'Bound', volumeName: 'pv-a'}, 'default/y': {phase: 'Pending'}},
    ),
    pvctl: end(
      {'pv-a': {phase: 'Available'}, 'pv-b': {phase: 'Released'}},
      {'default/x': {phase: 'Pending'}, 'default/y': {phase: 'Bound', volumeName: 'pv-a'}},
    ),
    orderDependent: false,
  },
]

for (const row of rows) {
  test(`order-dependent or not: ${row.id}`, () => {
    const differences = differencesOf(row.controller, row.pvctl)
    assert.ok(differences.length > 0)
    assert.equal(
      onlyOrderDependent(start, row.controller, row.pvctl, differences),
      row.orderDependent,
      differences.join('\n'),
    )
  })
}

test('generated objects an API server refuses for a missing field get the smallest valid value', () => {
  const volume = pv('v', {source: {csi: {driver: 'example.com/csi', volumeHandle: 'h'}}})
  delete (volume.spec as {capacity?: unknown}).capacity
  delete (volume.spec as {accessModes?: unknown}).accessModes
  const claim = pvc('c', 'u')
  delete (claim.spec as {resources?: unknown}).resources
  const made = creatable({volumes: [volume], claims: [claim], classes: [], pods: [], nodes: []})
  assert.deepEqual(made.volumes[0]?.spec.capacity, {storage: '1Gi'})
  assert.deepEqual(made.volumes[0]?.spec.accessModes, ['ReadWriteOnce'])
  assert.equal((made.volumes[0]?.spec.csi as {driver: string}).driver, 'csi.example.com')
  assert.deepEqual(made.claims[0]?.spec.resources, {requests: {storage: '1Gi'}})
  assert.equal((volume.spec.csi as {driver: string}).driver, 'example.com/csi', 'the input is not changed')
})
