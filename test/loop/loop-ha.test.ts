// High availability against the emulator: two replicas with --leader-elect, short lease settings
// (SHORT_LEASE: 2 s lease, 1.5 s renew deadline, 0.25 s retry, instead of kube-controller-manager's
// 15/10/2). Each replica has its own token, so the emulator's request log tells who wrote what, and in
// which order. When a standby may take over and when a leader stops writing are the elector's decisions,
// tested on a virtual clock (test/loop/client-go/leader-election.test.ts); here they are judged by events
// and by the order of the requests, never by the time between them.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import type {RequestRecord} from '../emulator/emulator.js'
import {
  assertOneToOne,
  binderWrites,
  claim,
  cluster,
  FAST,
  getClaim,
  getLease,
  Pvctl,
  SHORT_LEASE,
  volume,
  waitFor,
} from './loop-harness.js'

const LOOP = [
  '--watch',
  '--yes',
  '--leader-elect',
  '--leader-elect-namespace',
  'pvctl-system',
  ...SHORT_LEASE,
  ...FAST,
  '--controllers=*,-persistentvolume-binder-controller',
]
const TOKENS = {'token-a': {user: 'pvctl-a'}, 'token-b': {user: 'pvctl-b'}}

const allBound = (api: Parameters<typeof binderWrites>[0], names: string[]) =>
  names.every((n) => getClaim(api, 'team', n)?.status?.phase === 'Bound')
const WRITE_VERBS = ['create', 'update', 'patch', 'delete']
const isObjectWrite = (r: RequestRecord) =>
  ['persistentvolumes', 'persistentvolumeclaims'].includes(r.resource) && WRITE_VERBS.includes(r.verb)
const isLeaseWrite = (r: RequestRecord) => r.resource === 'leases' && ['create', 'update'].includes(r.verb)
test('two replicas: only the leader writes; the leader killed, the other takes over, with no double binding', async () => {
  const volumes = Array.from({length: 10}, (_, i) => volume(`pv-${i}`))
  const {api, kubeconfig} = await cluster(volumes, TOKENS)
  const a = new Pvctl(kubeconfig('token-a'), LOOP)
  let b: Pvctl | undefined
  try {
    await a.line(/Caches are synced/)
    b = new Pvctl(kubeconfig('token-b'), LOOP)
    await b.line(/Attempting to acquire leader lease/)
    await b.line(/New leader elected/)

    const first = ['c0', 'c1', 'c2', 'c3']
    for (const n of first) api.create(claim('team', n) as never)
    await waitFor('the leader to bind the first claims', () => allBound(api, first))
    assert.ok(binderWrites(api, 'pvctl-a') >= first.length * 4)
    assert.equal(api.countWrites({user: 'pvctl-b'}), 0, 'the standby wrote nothing at all, not even the lease')

    a.kill('SIGKILL')
    await a.exited
    // Claims that arrive while nobody leads: bound by the new leader once it has the lease.
    const second = ['c4', 'c5', 'c6', 'c7', 'c8']
    for (const n of second) api.create(claim('team', n) as never)
    const acquired = await b.line(/Successfully acquired lease/)
    assert.equal(
      `identity="${getLease(api, 'pvctl-system', 'pvctl')?.spec?.holderIdentity}"`,
      /identity="[^"]+"/.exec(acquired)?.[0],
    )

    await waitFor('the new leader to bind the claims that came meanwhile', () => allBound(api, [...first, ...second]))
    const bindings = assertOneToOne(api)
    assert.equal(bindings.size, first.length + second.length)
    assert.equal(getLease(api, 'pvctl-system', 'pvctl')?.spec?.leaseTransitions, 1)
    assert.ok(binderWrites(api, 'pvctl-b') > 0, 'the new leader writes')
  } finally {
    await a.stop()
    await b?.stop()
    await api.stop()
  }
})

test('a leader whose renewals are refused stops writing before the standby takes over, and exits 3', async () => {
  const volumes = Array.from({length: 60}, (_, i) => volume(`pv-${String(i).padStart(2, '0')}`))
  const tokens = structuredClone(TOKENS) as Record<
    string,
    {user: string; deny?: Array<{verb: 'update'; resource: string}>}
  >
  const {api, kubeconfig} = await cluster(volumes, tokens)
  // A claim arrives at every request for the lease (each replica's every retry period): the leader has
  // something to write until it stops, whenever that is.
  let n = 0
  api.faults.add({
    resource: 'leases',
    effect: {
      type: 'hook',
      run: () => {
        if (n < volumes.length) api.create(claim('team', `c${n++}`) as never)
      },
    },
  })
  const a = new Pvctl(kubeconfig('token-a'), LOOP)
  let b: Pvctl | undefined
  try {
    await a.line(/Caches are synced/)
    b = new Pvctl(kubeconfig('token-b'), LOOP)
    await b.line(/New leader elected/)
    await waitFor('the leader to bind some claims', () => getClaim(api, 'team', 'c3')?.status?.phase === 'Bound')
    // From now on the server refuses the leader's every renewal (403), and only its.
    tokens['token-a'].deny = [{verb: 'update', resource: 'leases'}]
    const refusedFrom = api.requests.length
    assert.equal(await a.exited, 3, a.err.join('\n'))
    assert.ok(
      a.err.some((l) => /Leader election lost/.test(l)),
      a.err.join('\n'),
    )
    await b.line(/Successfully acquired lease/)
    const everyClaim = () => Array.from({length: volumes.length}, (_, i) => `c${i}`)
    await waitFor(
      'the new leader to bind every claim',
      () => n === volumes.length && allBound(api, everyClaim()),
      30_000,
    )

    const log = api.requests.map((r, i) => ({...r, i}))
    const refused = log.filter((r) => r.i >= refusedFrom && r.user === 'pvctl-a' && isLeaseWrite(r) && r.status === 403)
    assert.ok(refused.length > 0, 'the leader tried to renew and was refused')
    const takeover = log.find((r) => r.user === 'pvctl-b' && isLeaseWrite(r) && r.status === 200)
    assert.ok(takeover !== undefined, 'the standby wrote the lease')
    assert.ok(takeover.i > refused[0]!.i, "the standby took over after the leader's renewals were refused")
    const late = log.filter((r) => r.i > takeover.i && r.user === 'pvctl-a' && isObjectWrite(r))
    assert.deepEqual(
      late.map((r) => `${r.verb} ${r.path}`),
      [],
      'no write by the old leader once the standby holds the lease',
    )
    assert.ok(
      log.some((r) => r.i < takeover.i && r.user === 'pvctl-a' && isObjectWrite(r)),
      'the old leader wrote before',
    )
    assert.equal(getLease(api, 'pvctl-system', 'pvctl')?.spec?.leaseTransitions, 1)
    assertOneToOne(api)
  } finally {
    await a.stop()
    await b?.stop()
    await api.stop()
  }
})
