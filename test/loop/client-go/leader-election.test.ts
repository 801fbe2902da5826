// Leader election on a virtual clock with kube-controller-manager's timing (lease 15 s, renew deadline
// 10 s, retry 2 s) and an in-memory Lease API with the server's optimistic concurrency.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {ConflictError, NotFoundError, TransientApiError} from '../../../src/cluster/api-errors.js'
import type {Lease, LeaseApi} from '../../../src/cluster/live-api.js'
import type {Page} from '../../../src/cluster/page.js'
import {createLogger, silentLogger} from '../../../src/log.js'
import {type Clock, KCM_LEADER_ELECTION, LeaderElector, microTime, validateLeaderElection} from '../../../src/loop/client-go/leader-election.js'
import {UsageError} from '../../../src/errors.js'

const flush = () => new Promise<void>((resolve) => setImmediate(resolve))
/** Lets every request in flight (a few awaits each) finish before virtual time moves on. */
const settle = async () => {
  for (let i = 0; i < 20; i++) await flush()
}

class VirtualClock implements Clock {
  now = 0
  private sleepers: Array<{at: number; resolve: () => void}> = []

  monotonic(): number {
    return this.now
  }

  wall(): Date {
    return new Date(Date.UTC(2026, 10, 30, 10) + this.now)
  }

  random(): number {
    return 0.5
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve()
      const s = {at: this.now + ms, resolve}
      this.sleepers.push(s)
      signal?.addEventListener('abort', () => {
        this.sleepers = this.sleepers.filter((x) => x !== s)
        resolve()
      }, {once: true})
    })
  }

  /** Moves time on, waking sleepers in order; `each` runs after every step (for observations). */
  async advance(ms: number, each?: () => void): Promise<void> {
    const end = this.now + ms
    for (;;) {
      await settle()
      each?.()
      const due = this.sleepers.filter((s) => s.at <= end).sort((a, b) => a.at - b.at)[0]
      if (due === undefined) break
      this.now = Math.max(this.now, due.at)
      this.sleepers = this.sleepers.filter((s) => s !== due)
      due.resolve()
    }
    this.now = end
    await settle()
    each?.()
  }
}

class MemoryLeases implements LeaseApi {
  private lease: Lease | undefined
  private rv = 1
  /** Identities whose updates fail (a partitioned leader). */
  readonly failing = new Set<string>()
  readonly writes: string[] = []
  /** While set, reads wait for it (a slow API server). */
  gate: Promise<void> | undefined

  async readLease(namespace: string, name: string): Promise<Lease> {
    await flush()
    await this.gate
    if (this.lease === undefined) throw new NotFoundError(`leases "${name}" not found`, {verb: 'get', resource: 'leases', namespace, name}, 404, 'NotFound')
    return structuredClone(this.lease)
  }

  async createLease(lease: Lease): Promise<Lease> {
    await flush()
    if (this.lease !== undefined) throw new ConflictError('exists', {verb: 'create', resource: 'leases'}, 409, 'AlreadyExists')
    this.writes.push(lease.spec?.holderIdentity ?? '')
    this.lease = {...structuredClone(lease), metadata: {...lease.metadata, resourceVersion: String(++this.rv)}}
    return structuredClone(this.lease)
  }

  async replaceLease(lease: Lease): Promise<Lease> {
    await flush()
    const who = lease.spec?.holderIdentity ?? ''
    if (this.failing.has(who) || (who === '' && this.failing.size > 0)) throw new TransientApiError('unreachable', {verb: 'update', resource: 'leases'}, 503, 'ServiceUnavailable')
    if (lease.metadata.resourceVersion !== this.lease?.metadata.resourceVersion) throw new ConflictError('conflict', {verb: 'update', resource: 'leases'}, 409, 'Conflict')
    this.writes.push(who)
    this.lease = {...structuredClone(lease), metadata: {...lease.metadata, resourceVersion: String(++this.rv)}}
    return structuredClone(this.lease)
  }

  async listLeases(): Promise<Page<Lease>> {
    return {items: this.lease ? [structuredClone(this.lease)] : []}
  }

  get holder(): string {
    return this.lease?.spec?.holderIdentity ?? ''
  }
}

function candidates(n: number) {
  const clock = new VirtualClock()
  const api = new MemoryLeases()
  const electors = Array.from({length: n}, (_, i) => new LeaderElector({namespace: 'kube-system', name: 'pvctl', identity: `node-${i}_uuid`, ...KCM_LEADER_ELECTION}, api, process.env.DBG ? createLogger({format: 'text', verbosity: 9, write: (l) => process.stderr.write(`[${clock.now}] node-${i} ${l}`)}) : silentLogger, {}, clock))
  return {clock, api, electors}
}

test('the first candidate acquires; the second stands by and never writes the lease', async () => {
  const {clock, api, electors: [a, b]} = candidates(2)
  const stop = new AbortController()
  assert.equal(await a.acquire(stop.signal), true)
  const renewing = a.renewLoop(stop.signal)
  let bLeads = false
  void b.acquire(stop.signal).then((won) => (bLeads = won))
  await clock.advance(60_000)
  assert.equal(bLeads, false)
  assert.ok(a.isLeader() && a.mayWrite())
  assert.deepEqual([...new Set(api.writes)], ['node-0_uuid'], 'only the leader writes the lease (every retry period)')
  assert.ok(api.writes.length >= 60_000 / 2_000 - 1)
  stop.abort()
  assert.equal(await renewing, 'stopped')
})

test('the leader gone (killed, no release): the standby takes over one lease duration after the last renewal it saw', async () => {
  const {clock, api, electors: [a, b]} = candidates(2)
  const killA = new AbortController()
  await a.acquire(killA.signal)
  void a.renewLoop(killA.signal)
  let takeover = -1
  void b.acquire(new AbortController().signal).then(() => (takeover = clock.now))
  await clock.advance(7_000)
  killA.abort()
  const lastRenewal = Math.floor(clock.now / 2_000) * 2_000
  await clock.advance(30_000)
  assert.equal(api.holder, 'node-1_uuid')
  const waited = takeover - lastRenewal
  assert.ok(waited >= KCM_LEADER_ELECTION.leaseDurationMs, `took over ${waited} ms after the last renewal`)
  assert.ok(waited <= KCM_LEADER_ELECTION.leaseDurationMs + 2 * 2_000 * 2.2, `took over ${waited} ms after the last renewal`)
})

test('a leader that cannot renew stops writing before any standby may take over, then reports the loss', async () => {
  const {clock, api, electors: [a, b]} = candidates(2)
  const stop = new AbortController()
  await a.acquire(stop.signal)
  const renewing = a.renewLoop(stop.signal)
  let takeover = -1
  void b.acquire(stop.signal).then(() => (takeover = clock.now))
  await clock.advance(5_000)
  api.failing.add('node-0_uuid') // partitioned: its updates fail from now on
  const partitioned = clock.now
  let fenced = -1
  let lostAt = -1
  void renewing.then((r) => {
    assert.equal(r, 'lost')
    lostAt = clock.now
  })
  await clock.advance(30_000, () => {
    if (fenced < 0 && !a.mayWrite()) fenced = clock.now
  })
  assert.ok(fenced > 0 && takeover > 0 && lostAt > 0)
  assert.ok(fenced < takeover, `fenced at ${fenced}, taken over at ${takeover}`)
  assert.ok(takeover - fenced >= KCM_LEADER_ELECTION.leaseDurationMs - KCM_LEADER_ELECTION.renewDeadlineMs, 'at least lease - deadline of margin')
  assert.ok(fenced - partitioned <= KCM_LEADER_ELECTION.renewDeadlineMs, 'the fence closes within the renew deadline')
  assert.ok(lostAt <= partitioned + KCM_LEADER_ELECTION.renewDeadlineMs + KCM_LEADER_ELECTION.retryPeriodMs)
  assert.equal(a.isLeader(), false)
  assert.equal(api.holder, 'node-1_uuid')
  stop.abort()
})

test('release: an empty holder and a 1 s lease, and the standby takes over at its next attempt', async () => {
  const {clock, api, electors: [a, b]} = candidates(2)
  const stop = new AbortController()
  await a.acquire(stop.signal)
  let takeover = -1
  void b.acquire(stop.signal).then(() => (takeover = clock.now))
  await clock.advance(3_000)
  const released = clock.now
  assert.equal(await a.release(), true)
  assert.equal(api.holder, '')
  assert.equal(a.mayWrite(), false)
  await clock.advance(10_000)
  assert.ok(takeover > 0 && takeover - released <= 2_000 * 2.2 + 1_000, `took over ${takeover - released} ms after the release`)
  stop.abort()
})

test('release waits for a renewal still in flight: the lease ends released, not renewed over the release', async () => {
  const {clock, api, electors: [a]} = candidates(1)
  const stop = new AbortController()
  await a.acquire(stop.signal)
  const renewing = a.renewLoop(stop.signal)
  let open!: () => void
  api.gate = new Promise<void>((resolve) => (open = resolve))
  await clock.advance(2_000) // the renewal starts and waits on the slow read
  stop.abort() // SIGTERM: the renew loop stops without waiting for it
  assert.equal(await renewing, 'stopped')
  const released = a.release()
  await settle()
  open()
  api.gate = undefined
  assert.equal(await released, true)
  await settle()
  assert.equal(api.holder, '', 'released, and nothing renewed it afterwards')
  assert.deepEqual(api.writes.slice(-2), ['node-0_uuid', ''], 'the renewal, then the release')
})

test('timing is validated as client-go validates it', () => {
  validateLeaderElection(KCM_LEADER_ELECTION)
  assert.throws(() => validateLeaderElection({leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000}), UsageError)
  assert.throws(() => validateLeaderElection({leaseDurationMs: 15_000, renewDeadlineMs: 2_000, retryPeriodMs: 2_000}), UsageError)
})

test('Lease times are MicroTime: six fractional digits', () => {
  assert.equal(microTime(new Date(Date.UTC(2026, 10, 30, 10, 15, 2, 123))), '2026-11-30T10:15:02.123000Z')
})

test('a candidate that cannot read or write the lease says so at the default verbosity, at every retry (klog.Errorf)', async () => {
  const clock = new VirtualClock()
  const api = new MemoryLeases()
  const lines: string[] = []
  const log = createLogger({format: 'json', verbosity: 0, write: (l) => lines.push(l)})
  const elector = new LeaderElector({namespace: 'kube-system', name: 'pvctl', identity: 'node-0_uuid', ...KCM_LEADER_ELECTION}, api, log, {}, clock)
  const unreachable = () => new TransientApiError('connect ECONNREFUSED 127.0.0.1:6443', {verb: 'get', resource: 'leases'}, 503, 'ServiceUnavailable')
  // Reads fail: "error retrieving resource lock", once per retry period (2 s).
  const read = api.readLease.bind(api)
  api.readLease = async () => {
    await flush()
    throw unreachable()
  }
  const stop = new AbortController()
  void elector.acquire(stop.signal)
  await clock.advance(7_000)
  const errors = lines.map((l) => JSON.parse(l) as {level: string; msg: string; err?: string}).filter((e) => e.msg !== 'Attempting to acquire leader lease')
  assert.ok(errors.length >= 3, `one line per attempt: ${lines.join('')}`)
  for (const e of errors) assert.deepEqual([e.level, e.msg], ['error', 'Error retrieving resource lock'])
  assert.match(String(errors[0]!.err), /ECONNREFUSED/)
  // Reads work again but updates fail (another holder expired, this one cannot write): "Failed to update lock".
  lines.length = 0
  api.readLease = read
  await api.createLease({metadata: {name: 'pvctl', namespace: 'kube-system'}, spec: {holderIdentity: 'gone_uuid', leaseDurationSeconds: 15, renewTime: microTime(clock.wall())}})
  api.failing.add('node-0_uuid')
  await clock.advance(40_000)
  assert.ok(lines.some((l) => /"level":"error".*"msg":"Failed to update lock"/.test(l)), lines.join(''))
  stop.abort()
  await clock.advance(2_000)
})
