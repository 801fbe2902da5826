// High availability against the emulator: two replicas with --leader-elect, short lease settings
// (SHORT_LEASE: 2 s lease, 1.5 s renew deadline, 0.25 s retry, instead of kube-controller-manager's
// 15/10/2). Each replica has its own token, so the emulator's request log tells who wrote what.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {assertOneToOne, binderWrites, claim, cluster, FAST, getClaim, getLease, LEASE_MS, Pvctl, SHORT_LEASE, volume, waitFor} from './loop-harness.js'

const LOOP = ['--watch', '--yes', '--leader-elect', '--leader-elect-namespace', 'pvctl-system', ...SHORT_LEASE, ...FAST, '--controllers=*,-persistentvolume-binder-controller']
const TOKENS = {'token-a': {user: 'pvctl-a'}, 'token-b': {user: 'pvctl-b'}}

const allBound = (api: Parameters<typeof binderWrites>[0], names: string[]) => names.every((n) => getClaim(api, 'team', n)?.status?.phase === 'Bound')

test('two replicas: only the leader writes; the leader killed, the other takes over within the lease duration, with no double binding', async () => {
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
    const killed = performance.now()
    // Claims that arrive while nobody leads: bound by the new leader once it has the lease.
    const second = ['c4', 'c5', 'c6', 'c7', 'c8']
    for (const n of second) api.create(claim('team', n) as never)
    await b.line(/Successfully acquired lease/, {timeoutMs: LEASE_MS * 4})
    const takeover = performance.now() - killed
    process.stdout.write(`# takeover after SIGKILL: ${Math.round(takeover)} ms (lease ${LEASE_MS} ms)\n`)
    // The standby waits a lease duration from the last renewal it observed, polling every retry period.
    assert.ok(takeover < LEASE_MS + 1500, `took over after ${Math.round(takeover)} ms`)

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

test('a leader that cannot renew stops writing before its lease could expire, and exits 3', async () => {
  const volumes = Array.from({length: 60}, (_, i) => volume(`pv-${String(i).padStart(2, '0')}`))
  const {api, kubeconfig} = await cluster(volumes, TOKENS)
  const a = new Pvctl(kubeconfig('token-a'), LOOP)
  // When each request reached the log, as the test saw it (polled every 5 ms).
  const seenAt: number[] = []
  const clock = setInterval(() => {
    while (seenAt.length < api.requests.length) seenAt.push(performance.now())
  }, 5)
  let creating: NodeJS.Timeout | undefined
  try {
    await a.line(/Caches are synced/)
    let n = 0
    creating = setInterval(() => {
      if (n < volumes.length) api.create(claim('team', `c${n++}`) as never)
    }, 40)
    await waitFor('some claims bound', () => getClaim(api, 'team', 'c3')?.status?.phase === 'Bound')
    // From now on every renewal fails.
    api.faults.add({verb: 'update', resource: 'leases', effect: {type: 'status', code: 500}})
    const code = await a.exited
    assert.equal(code, 3, a.err.join('\n'))
    assert.ok(a.err.some((l) => /Leader election lost/.test(l)))
    clearInterval(creating)
    while (seenAt.length < api.requests.length) seenAt.push(performance.now())

    const byA = api.requests.map((r, i) => ({...r, at: seenAt[i]})).filter((r) => r.user === 'pvctl-a')
    // The lease runs from its last successful write: a renewal, or its acquisition when the faults came first.
    const lastLeaseWrite = byA.filter((r) => r.resource === 'leases' && ((r.verb === 'update' && r.status === 200) || (r.verb === 'create' && r.status === 201))).at(-1)
    assert.ok(lastLeaseWrite !== undefined, 'pvctl-a acquired the lease')
    const lastWrite = byA.filter((r) => (r.resource === 'persistentvolumes' || r.resource === 'persistentvolumeclaims') && r.verb === 'update').at(-1)!
    const margin = lastLeaseWrite.at + LEASE_MS - lastWrite.at
    process.stdout.write(`# last write ${Math.round(lastWrite.at - lastLeaseWrite.at)} ms after the lease's last write; the lease runs ${LEASE_MS} ms\n`)
    assert.ok(margin > 0, `wrote ${Math.round(-margin)} ms after the lease could have expired`)
    assert.ok(a.out.some((l) => /not sent: not the leader/.test(l)) || byA.length > 0)
  } finally {
    clearInterval(clock)
    clearInterval(creating)
    await a.stop()
    await api.stop()
  }
})
