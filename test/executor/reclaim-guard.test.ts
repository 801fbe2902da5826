// The destruction guard's reclaim, against a fake API: it reads again what the decision rests on, decides
// again, writes once conditional on the fresh resourceVersion, re-decides on a conflict at most
// RECLAIM_ATTEMPTS times, stops on any change the consent did not cover, says "changed since it was read"
// only of what differs between the read and the re-read, and finds a volume reclaimed meanwhile done.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {ConflictError} from '../../src/cluster/api-errors.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {PersistentVolume, PersistentVolumeClaim, Pod} from '../../src/engine/api/model.js'
import {decideReclaim} from '../../src/engine/repair/reclaim.js'
import {guardedReclaim, isRefusal, RECLAIM_ATTEMPTS, type ReclaimIo} from '../../src/executor/destruction-guard.js'
import {byController, pod, pv, pvc, state} from '../engine/builders.js'

const volume = pv('pv-1', {
  uid: 'v-1',
  phase: 'Released',
  className: '',
  claim: {name: 'old', uid: 'u-old'},
  annotations: byController,
})
const s = state({volumes: [volume], claims: [pvc('db', 'u-db', {className: ''})]})
const request = {
  volumeName: 'pv-1',
  target: {namespace: 'default', name: 'db'},
  force: new Set<never>(),
  gates: defaultFeatureGates,
}
const consented = decideReclaim({
  ...request,
  state: s,
  attachments: {observed: true, items: []},
  pods: {observed: true},
})!

function fakeIo(
  o: {volume?: PersistentVolume; claims?: PersistentVolumeClaim[]; pods?: Pod[]; conflicts?: number} = {},
): ReclaimIo & {puts: PersistentVolume[]} {
  let conflicts = o.conflicts ?? 0
  const puts: PersistentVolume[] = []
  return {
    puts,
    readVolume: async () =>
      structuredClone({
        ...(o.volume ?? volume),
        metadata: {...(o.volume ?? volume).metadata, resourceVersion: String(10 + puts.length)},
      }),
    listClaims: async () => [...s.claims, ...(o.claims ?? [])],
    listPods: async () => o.pods ?? [],
    listVolumeAttachments: async () => [],
    replaceVolume: async (v) => {
      puts.push(v)
      if (conflicts-- > 0)
        throw new ConflictError('conflict', {verb: 'update', resource: 'persistentvolumes'}, 409, 'Conflict')
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
  assert.deepEqual(io.puts[0].spec.claimRef, {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    name: 'db',
    namespace: 'default',
  })
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
  {
    name: 'the volume was re-created',
    io: () => fakeIo({volume: {...volume, metadata: {...volume.metadata, uid: 'v-2'}}}),
    refused: /changed since it was read: it was re-created/,
  },
  {
    name: 'the volume was bound meanwhile',
    io: () => fakeIo({volume: {...volume, status: {phase: 'Bound'}}}),
    refused: /changed since it was read: its phase is Bound \(read as Released\)/,
  },
  {
    name: 'its claimRef was removed meanwhile, and another claim named it',
    io: () =>
      fakeIo({
        volume: {...volume, spec: {...volume.spec, claimRef: {...volume.spec.claimRef!, name: 'web', uid: 'u-web'}}},
      }),
    refused: /changed since it was read: its claimRef now names default\/web \(uid u-web\)$/,
  },
  {
    name: 'the old claim is back',
    io: () => fakeIo({claims: [pvc('old', 'u-old', {className: ''})]}),
    refused: /OldClaimGone: claim default\/old still exists/,
  },
  {
    name: 'the old claim restored, naming the volume',
    io: () =>
      fakeIo({
        claims: [pvc('old', 'u-new', {className: '', volumeName: 'pv-1', labels: {'velero.io/restore-name': 'r-1'}})],
      }),
    refused:
      /no longer holds .*NoRestoredOwner: pvc\/default\/old, restored by r-1 .*pvctl relink pvc\/old -n default reunites them/,
  },
  {
    name: 'the old claim re-created',
    io: () => fakeIo({claims: [pvc('old', 'u-new', {className: ''})]}),
    refused: /no longer holds .*OldNameFree: pvc\/default\/old was re-created \(uid u-new; the volume held u-old\)/,
  },
  {
    name: 'a claim naming the volume created',
    io: () => fakeIo({claims: [pvc('x', 'u-x', {className: '', namespace: 'other', volumeName: 'pv-1'})]}),
    refused: /no longer holds .*NoOtherClaim: pvc\/other\/x \(Pending\) names pv-1/,
  },
  {
    name: 'a pod of the old claim started',
    io: () => fakeIo({pods: [pod('app-0', 'old', {phase: 'Running', nodeName: 'n-1'})]}),
    refused: /OldClaimUnused: pod default\/app-0 \(on n-1\)/,
  },
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

test('a claim disowned by --not-owner re-created once more since it was shown: its new uid was not disowned', async () => {
  const recreated = pvc('old', 'u-new', {className: ''})
  const shown = state({volumes: [volume], claims: [...s.claims, recreated]})
  const notOwner = {namespace: 'default', name: 'old'}
  const consent = decideReclaim({
    ...request,
    notOwner,
    state: shown,
    attachments: {observed: true, items: []},
    pods: {observed: true},
  })!
  assert.equal(consent.allowed, true)
  const same = fakeIo({claims: [recreated]})
  assert.ok(!isRefusal(await guardedReclaim(same, shown, consent, {...request, notOwner})))
  const again = fakeIo({claims: [pvc('old', 'u-newer', {className: ''})]})
  const r = await guardedReclaim(again, shown, consent, {...request, notOwner})
  assert.ok(isRefusal(r))
  assert.match(
    r.refused,
    /what the reclaim of pv-1 overrides changed since it was shown: OldNameFree: .*uid u-newer.*, not OldNameFree: .*uid u-new;/,
  )
  assert.equal(again.puts.length, 0)
})

test('changed since it was read: said only of what differs (a volume read without a claimRef, read again the same, is written)', async () => {
  const free = pv('pv-1', {uid: 'v-1', phase: 'Released', className: ''})
  const read = state({volumes: [free], claims: s.claims})
  const consent = decideReclaim({
    ...request,
    state: read,
    attachments: {observed: true, items: []},
    pods: {observed: true},
  })!
  assert.equal(consent.allowed, true, JSON.stringify(consent.checks))
  const io = fakeIo({volume: free})
  const r = await guardedReclaim(io, read, consent, request)
  assert.ok(!isRefusal(r), isRefusal(r) ? r.refused : '')
  assert.equal(io.puts.length, 1)
})

test('reclaimed by another writer since it was read: found done, nothing written', async () => {
  const io = fakeIo({
    volume: {
      ...volume,
      spec: {
        ...volume.spec,
        claimRef: {apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'default', name: 'db'},
      },
    },
  })
  const r = await guardedReclaim(io, s, consented, request)
  assert.ok(!isRefusal(r) && r.done.already)
  assert.match(
    r.done.decision.already ?? '',
    /^already reclaimed: pv-1 is pre-bound to default\/db \(Released, no uid\)/,
  )
  assert.equal(io.puts.length, 0)
})
