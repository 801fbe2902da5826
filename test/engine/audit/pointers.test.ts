// The pointer pictures: for each kind of binding that does not close, which arrow is broken and why.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {finding, type FindingCode, type FindingObject} from '../../../src/engine/audit/findings.js'
import {NO_VOLUME_ID, pointerPictures, type PointerArrow} from '../../../src/engine/audit/pointers.js'
import type {ClusterState} from '../../../src/engine/api/model.js'
import {pod, pv, pvc, state} from '../builders.js'

const claimObject = (name: string): FindingObject => ({kind: 'PersistentVolumeClaim', namespace: 'shop', name})
const volumeObject = (name: string): FindingObject => ({kind: 'PersistentVolume', name})
type Arrow = Pick<PointerArrow, 'from' | 'to' | 'state'> & {why?: string}

const cases: Array<{
  name: string
  code: FindingCode
  object: FindingObject
  state: ClusterState
  arrows: Arrow[]
  missing: string[]
}> = [
  {
    name: 'a Lost claim whose volume is gone: volumeName broken, its pod drawn',
    code: 'ClaimLost',
    object: claimObject('sessions'),
    state: state({
      claims: [pvc('sessions', 'u1', {namespace: 'shop', phase: 'Lost', volumeName: 'pv-7'})],
      pods: [pod('web', 'sessions', {namespace: 'shop'})],
    }),
    arrows: [
      {from: 'pvc/shop/sessions', to: 'pv/pv-7', state: 'broken', why: 'the volume does not exist'},
      {from: 'pod/shop/web', to: 'pvc/shop/sessions', state: 'ok'},
    ],
    missing: ['pv/pv-7'],
  },
  {
    name: 'a misbound claim: its volume holds the other claim, whose claimRef arrow closes',
    code: 'ClaimMisbound',
    object: claimObject('b'),
    state: state({
      claims: [
        pvc('a', 'ua', {namespace: 'shop', phase: 'Bound', volumeName: 'pv-8'}),
        pvc('b', 'ub', {namespace: 'shop', phase: 'Lost', volumeName: 'pv-8'}),
      ],
      volumes: [pv('pv-8', {phase: 'Bound', claim: {namespace: 'shop', name: 'a', uid: 'ua'}})],
    }),
    arrows: [
      {from: 'pvc/shop/b', to: 'pv/pv-8', state: 'broken', why: "the volume's claimRef names shop/a"},
      {from: 'pv/pv-8', to: 'pvc/shop/a', state: 'ok'},
    ],
    missing: [],
  },
  {
    name: "a recreated claim: the volume's claimRef holds the old uid",
    code: 'VolumeClaimRefUidMismatch',
    object: volumeObject('pv-1'),
    state: state({
      claims: [pvc('db', 'new', {namespace: 'shop'})],
      volumes: [pv('pv-1', {phase: 'Released', claim: {namespace: 'shop', name: 'db', uid: 'old'}})],
    }),
    arrows: [{from: 'pv/pv-1', to: 'pvc/shop/db', state: 'broken', why: "uid old is not the claim's (new)"}],
    missing: [],
  },
  {
    name: 'pre-bound (no uid) to a claim that does not exist',
    code: 'RestoredVolumeClaimMissing',
    object: volumeObject('pv-2'),
    state: state({volumes: [pv('pv-2', {claim: {namespace: 'shop', name: 'gone'}})]}),
    arrows: [{from: 'pv/pv-2', to: 'pvc/shop/gone', state: 'broken', why: 'pre-bound to a claim that does not exist'}],
    missing: ['pvc/shop/gone'],
  },
  {
    name: 'a Released volume whose claim was deleted: the stale claimRef is broken',
    code: 'VolumeReleasedRetained',
    object: volumeObject('pv-4'),
    state: state({volumes: [pv('pv-4', {phase: 'Released', claim: {namespace: 'shop', name: 'old-db', uid: 'u9'}})]}),
    arrows: [{from: 'pv/pv-4', to: 'pvc/shop/old-db', state: 'broken', why: 'the claim it names does not exist'}],
    missing: ['pvc/shop/old-db'],
  },
  {
    name: 'a stuck Pending claim: its volumeName is unset',
    code: 'ClaimNoMatchingVolume',
    object: claimObject('logs'),
    state: state({claims: [pvc('logs', 'u1', {namespace: 'shop'})]}),
    arrows: [{from: 'pvc/shop/logs', to: NO_VOLUME_ID, state: 'unset', why: 'no volume chosen yet'}],
    missing: [NO_VOLUME_ID],
  },
  {
    name: 'a bound pair closes both ways, and the volume finding draws the claim and its pods',
    code: 'VolumeDeletionUnprotected',
    object: volumeObject('pv-3'),
    state: state({
      claims: [pvc('ok', 'u3', {namespace: 'shop', phase: 'Bound', volumeName: 'pv-3'})],
      volumes: [pv('pv-3', {phase: 'Bound', claim: {namespace: 'shop', name: 'ok', uid: 'u3'}})],
      pods: [pod('app', 'ok', {namespace: 'shop'})],
    }),
    arrows: [
      {from: 'pv/pv-3', to: 'pvc/shop/ok', state: 'ok'},
      {from: 'pvc/shop/ok', to: 'pv/pv-3', state: 'ok'},
      {from: 'pod/shop/app', to: 'pvc/shop/ok', state: 'ok'},
    ],
    missing: [],
  },
]

for (const c of cases) {
  test(`pointerPictures: ${c.name}`, () => {
    const f = finding(c.code, c.object, 'm', {}, 'fix')
    const pictures = pointerPictures(c.state, [f, f])
    assert.equal(pictures.size, 1, 'one picture per object, however many findings')
    const picture = [...pictures.values()][0]
    assert.deepEqual(
      picture.arrows.map((a) => ({
        from: a.from,
        to: a.to,
        state: a.state,
        ...(a.why !== undefined ? {why: a.why} : {}),
      })),
      c.arrows,
    )
    assert.deepEqual(
      picture.nodes.filter((n) => !n.exists).map((n) => n.id),
      c.missing,
    )
  })
}

test("pointerPictures: a pod's node says its phase and where it runs", () => {
  const s = state({
    claims: [pvc('db', 'u1', {namespace: 'shop'})],
    pods: [pod('a', 'db', {namespace: 'shop', phase: 'Running', nodeName: 'n1'}), pod('b', 'db', {namespace: 'shop'})],
  })
  const picture = [
    ...pointerPictures(s, [finding('ClaimNoMatchingVolume', claimObject('db'), 'm', {}, 'fix')]).values(),
  ][0]
  assert.deepEqual(
    picture.nodes.filter((n) => n.kind === 'Pod').map((n) => [n.name, n.phase, n.nodeName]),
    [
      ['a', 'Running', 'n1'],
      ['b', 'Pending', undefined],
    ],
  )
})

test('pointerPictures: classes and clusters have none', () => {
  const f = finding('NoDefaultStorageClass', {kind: 'StorageClass', name: 'x'}, 'm', {}, 'fix')
  assert.equal(pointerPictures(state({}), [f]).size, 0)
})
