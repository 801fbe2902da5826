// reconcile(): rounds, convergence, follow-ups of named objects, determinism and purity.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {reconcile} from '../../src/engine/simulation/reconcile.js'
import {bound, byController, pv, pvc, state} from './builders.js'

const cluster = () =>
  state({
    volumes: [
      pv('v-small', {capacity: '1Gi', phase: 'Pending'}),
      pv('v-old', {claim: {name: 'gone', uid: 'ug'}, phase: 'Bound'}),
      pv('v-race', {claim: {name: 'a', uid: 'ua'}, phase: 'Bound', annotations: byController}),
    ],
    claims: [
      pvc('a', 'ua', {annotations: bound, volumeName: 'v-winner', phase: 'Bound'}),
      pvc('b', 'ub', {className: ''}),
    ],
  })

test('rounds repeat until one makes no write, then converged', () => {
  const r = reconcile(cluster())
  assert.equal(r.converged, true)
  // round 1: b finds nothing (v-small is Pending, v-race taken); v-small becomes Available and v-race is
  // rolled back. Round 2 binds b to the first of the two equal 1Gi volumes by name. Round 3 writes nothing.
  assert.equal(r.rounds, 3)
  assert.equal(r.claims.find((c) => c.metadata.name === 'b')?.spec.volumeName, 'v-race')
  assert.equal(r.volumes.find((v) => v.metadata.name === 'v-old')?.status?.phase, 'Released')
  assert.equal(r.volumes.find((v) => v.metadata.name === 'v-race')?.spec.claimRef?.name, 'b')
  assert.deepEqual(
    r.actions.map((a) => a.round),
    [...r.actions.map((a) => a.round)].sort((x, y) => x - y),
    'actions are in round order',
  )
})

test('a sync that wrote nothing, none of whose reads was written since, is replayed rather than run', () => {
  const replayed = reconcile(cluster())
  const everySync = reconcile(cluster(), {replayQuietSyncs: false})
  // Rounds 1 and 2 run all five syncs: each object was written in round 1, or read the matching index
  // (b) while volumes were written. Round 3 runs only b, which bound in round 2; a (Lost, its volume
  // still missing), v-old (Released, its claim still gone), v-race (bound to b, written before its round-2
  // sync) and v-small (Available) read nothing written since their round-2 syncs.
  assert.deepEqual(replayed.syncs, {run: 11, replayed: 4})
  assert.deepEqual(everySync.syncs, {run: 15, replayed: 0})
  const {syncs: _a, ...plan} = replayed
  const {syncs: _b, ...reference} = everySync
  assert.deepEqual(plan, reference)
})

test('the round bound is reported as not converged', () => {
  const r = reconcile(cluster(), {maxRounds: 1})
  assert.equal(r.rounds, 1)
  assert.equal(r.converged, false)
})

test('named objects: their syncs are followed by the objects they wrote', () => {
  const r = reconcile(state({volumes: [pv('v')], claims: [pvc('c', 'u1', {volumeName: 'v'})]}), {
    targets: [{kind: 'PersistentVolumeClaim', namespace: 'default', name: 'c'}],
  })
  assert.equal(r.converged, true)
  assert.equal(r.volumes[0].status?.phase, 'Bound')
  assert.equal(r.claims[0].status?.phase, 'Bound')
})

test('the same input gives the same plan, and the input is not modified', () => {
  const input = cluster()
  const before = JSON.stringify(input)
  const a = reconcile(input)
  const b = reconcile(cluster())
  assert.deepEqual(a, b)
  assert.equal(JSON.stringify(input), before)
})

test('every write bumps resourceVersion above any read, and records the one it was conditional on', () => {
  const r = reconcile(cluster())
  const writes = r.actions.filter((a) => a.patch.length > 0)
  assert.ok(writes.length > 0)
  for (const a of writes) assert.ok(a.resourceVersion !== undefined)
  const versions = [...r.volumes, ...r.claims].map((o) => Number(o.metadata.resourceVersion))
  assert.ok(Math.max(...versions) > 1)
})

test('identical events are aggregated with a count across rounds', () => {
  const r = reconcile(
    state({claims: [pvc('lonely', 'u', {className: ''})], volumes: [pv('v', {phase: 'Pending', capacity: '1Mi'})]}),
  )
  const failed = r.events.filter((e) => e.reason === 'FailedBinding')
  assert.equal(failed.length, 1)
  assert.equal(failed[0].count, r.rounds)
})

test('namespace scope: only claims of the namespace, and volumes unbound or bound into it', () => {
  const s = state({
    volumes: [pv('free'), pv('theirs', {claim: {namespace: 'b', name: 'x', uid: 'ux'}, phase: 'Bound'})],
    claims: [
      pvc('mine', 'u1', {namespace: 'a'}),
      pvc('x', 'ux', {namespace: 'b', annotations: bound, volumeName: 'theirs', phase: 'Bound'}),
    ],
  })
  const r = reconcile(s, {scope: {namespace: 'a'}})
  assert.ok(
    r.actions.every((a) =>
      a.object.kind === 'PersistentVolume' ? a.object.name === 'free' : a.object.namespace === 'a',
    ),
    JSON.stringify(r.actions.map((a) => a.object)),
  )
})

test('written resourceVersions follow the highest one read, exactly, past 2^53 and past 64 bits', () => {
  for (const highest of ['41', '9007199254740990', '18446744073709551615']) {
    const volume = pv('v')
    const claim = pvc('c', 'u1')
    volume.metadata.resourceVersion = '7'
    claim.metadata.resourceVersion = highest
    const r = reconcile(state({volumes: [volume], claims: [claim]}))
    const writes = r.actions.filter((a) => a.patch.length > 0)
    assert.ok(writes.length >= 4, JSON.stringify(writes.map((a) => a.action)))
    // Each write is conditional on the version the previous write of that object produced.
    const expected = writes.map((_, i) => (BigInt(highest) + BigInt(i) + 1n).toString())
    const last = new Map<string, string>()
    writes.forEach((a, i) => last.set(`${a.object.kind}/${a.object.name}`, expected[i]!))
    assert.equal(r.volumes[0]!.metadata.resourceVersion, last.get('PersistentVolume/v'), highest)
    assert.equal(r.claims[0]!.metadata.resourceVersion, last.get('PersistentVolumeClaim/c'), highest)
  }
})

test('operations started are named; one named as running elsewhere is not planned again (the goroutinemap)', () => {
  const released = (name: string, policy: string) =>
    pv(name, {
      claim: {name: `gone-${name}`, uid: `u-${name}`},
      phase: 'Released',
      policy,
      uid: `uid-${name}`,
      source: {hostPath: {path: `/tmp/${name}`}},
    })
  const s = () => state({volumes: [released('v-recycle', 'Recycle'), released('v-delete', 'Delete')], claims: []})
  const rows: Array<{running: string[]; planned: string[]; started: string[]}> = [
    {
      running: [],
      planned: ['delete v-delete', 'recycle v-recycle'],
      started: ['delete-v-delete[uid-v-delete]', 'recycle-v-recycle[uid-v-recycle]'],
    },
    {
      running: ['recycle-v-recycle[uid-v-recycle]'],
      planned: ['delete v-delete'],
      started: ['delete-v-delete[uid-v-delete]'],
    },
    {running: ['recycle-v-recycle[uid-v-recycle]', 'delete-v-delete[uid-v-delete]'], planned: [], started: []},
    // A name of another uid is another operation: the volume was deleted and made again since.
    {
      running: ['recycle-v-recycle[uid-old]'],
      planned: ['delete v-delete', 'recycle v-recycle'],
      started: ['delete-v-delete[uid-v-delete]', 'recycle-v-recycle[uid-v-recycle]'],
    },
  ]
  for (const row of rows) {
    const r = reconcile(s(), {maxRounds: 1, runningOperations: new Set(row.running)})
    const operations = r.actions
      .filter((a) => a.action === 'recycle' || a.action === 'delete')
      .map((a) => `${a.action} ${a.object.name}`)
    assert.deepEqual(operations, row.planned, `running: ${row.running.join(', ')}`)
    assert.deepEqual(r.operationsStarted, row.started)
  }
})
