// The destruction guard's reclaim, against a fake API: it reads again what the decision rests on, decides
// again, writes once conditional on the fresh resourceVersion, re-decides on a conflict at most
// RECLAIM_ATTEMPTS times, stops on any change the consent did not cover, and says "changed since it was
// read" only of what differs between the read and the re-read.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {ConflictError, NotFoundError} from '../../src/cluster/api-errors.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {PersistentVolume, PersistentVolumeClaim, Pod} from '../../src/engine/api/model.js'
import {decideReclaim} from '../../src/engine/repair/reclaim.js'
import {guardedReclaim, isRefusal, RECLAIM_ATTEMPTS, type ReclaimIo} from '../../src/executor/destruction-guard.js'
import {byController, pod, pv, pvc, state} from '../engine/builders.js'

const volume = pv('pv-1', {uid: 'v-1', phase: 'Released', className: '', claim: {name: 'old', uid: 'u-old'}, annotations: byController})
const s = state({volumes: [volume], claims: [pvc('db', 'u-db', {className: ''})]})
const request = {volumeName: 'pv-1', target: {namespace: 'default', name: 'db'}, force: new Set<never>(), gates: defaultFeatureGates}
const consented = decideReclaim({...request, state: s, attachments: {observed: true, items: []}, pods: {observed: true}})!

function fakeIo(o: {volume?: PersistentVolume; oldClaim?: PersistentVolumeClaim; pods?: Pod[]; conflicts?: number} = {}): ReclaimIo & {puts: PersistentVolume[]} {
  let conflicts = o.conflicts ?? 0
  const puts: PersistentVolume[] = []
  const notFound = () => new NotFoundError('not found', {verb: 'get', resource: 'persistentvolumeclaims'}, 404, 'NotFound')
  return {
    puts,
    readVolume: async () => structuredClone({...(o.volume ?? volume), metadata: {...(o.volume ?? volume).metadata, resourceVersion: String(10 + puts.length)}}),
    readClaim: async (_ns, name) => {
      if (name === 'old' && o.oldClaim !== undefined) return o.oldClaim
      if (name === 'db') return s.claims[0]
      throw notFound()
    },
    listPods: async () => o.pods ?? [],
    listVolumeAttachments: async () => [],
    replaceVolume: async (v) => {
      puts.push(v)
      if (conflicts-- > 0) throw new ConflictError('conflict', {verb: 'update', resource: 'persistentvolumes'}, 409, 'Conflict')
      return v
    },
  }
}

test('writes once, on the resourceVersion just read', async () => {
  const io = fakeIo()
  const r = await guardedReclaim(io, s, consented, request)
  assert.ok(!isRefusal(r))
  assert.equal(io.puts.length, 1)
  assert.equal(io.puts[0].metadata.resourceVersion, '10')
  assert.deepEqual(io.puts[0].spec.claimRef, {apiVersion: 'v1', kind: 'PersistentVolumeClaim', name: 'db', namespace: 'default'})
})

test('a conflict reads and decides again; RECLAIM_ATTEMPTS conflicts in a row give up', async () => {
  const once = fakeIo({conflicts: 1})
  const r = await guardedReclaim(once, s, consented, request)
  assert.ok(!isRefusal(r) && r.done.attempts === 2)
  const always = fakeIo({conflicts: RECLAIM_ATTEMPTS})
  const given = await guardedReclaim(always, s, consented, request)
  assert.ok(isRefusal(given))
  assert.match(given.refused, /3 conflicts in a row; nothing written/)
})

const stops: Array<{name: string; io: () => ReturnType<typeof fakeIo>; refused: RegExp}> = [
  {name: 'the volume was re-created', io: () => fakeIo({volume: {...volume, metadata: {...volume.metadata, uid: 'v-2'}}}), refused: /changed since it was read: it was re-created/},
  {name: 'the volume was bound meanwhile', io: () => fakeIo({volume: {...volume, status: {phase: 'Bound'}}}), refused: /changed since it was read: its phase is Bound \(read as Released\)/},
  {name: 'its claimRef names another claim now', io: () => fakeIo({volume: {...volume, spec: {...volume.spec, claimRef: {...volume.spec.claimRef!, name: 'web', uid: 'u-web'}}}}), refused: /changed since it was read: its claimRef now names default\/web \(uid u-web\)$/},
  {name: 'the old claim is back', io: () => fakeIo({oldClaim: pvc('old', 'u-old', {className: ''})}), refused: /OldClaimGone: claim default\/old still exists/},
  {name: 'a pod of the old claim started', io: () => fakeIo({pods: [pod('app-0', 'old', {phase: 'Running', nodeName: 'n-1'})]}), refused: /OldClaimUnused: pod default\/app-0 \(on n-1\)/},
]

for (const row of stops) {
  test(`stops, writing nothing: ${row.name}`, async () => {
    const io = row.io()
    const r = await guardedReclaim(io, s, consented, request)
    assert.ok(isRefusal(r))
    assert.match(r.refused, row.refused)
    assert.equal(io.puts.length, 0)
  })
}

test('changed since it was read: said only of what differs (a volume read without a claimRef, read again the same, is written)', async () => {
  const free = pv('pv-1', {uid: 'v-1', phase: 'Released', className: ''})
  const read = state({volumes: [free], claims: s.claims})
  const consent = decideReclaim({...request, state: read, attachments: {observed: true, items: []}, pods: {observed: true}})!
  assert.equal(consent.allowed, true, JSON.stringify(consent.checks))
  const io = fakeIo({volume: free})
  const r = await guardedReclaim(io, read, consent, request)
  assert.ok(!isRefusal(r), isRefusal(r) ? r.refused : '')
  assert.equal(io.puts.length, 1)
})
