// Leader election on a virtual clock with kube-controller-manager's timing (lease 15 s, renew deadline
// 10 s, retry 2 s) and an in-memory Lease API with the server's optimistic concurrency.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {ConflictError, NotFoundError, TransientApiError} from '../../../src/cluster/api-errors.js'
import type {Lease, LeaseApi} from '../../../src/cluster/live-api.js'
import type {Page} from '../../../src/cluster/page.js'
import {createLogger, silentLogger} from '../../../src/log.js'
import {
  type Clock,
  KCM_LEADER_ELECTION,
  type LeaderEvents,
  LeaderElector,
  microTime,
  validateLeaderElection,
} from '../../../src/loop/client-go/leader-election.js'
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
      signal?.addEventListener(
        'abort',
        () => {
          this.sleepers = this.sleepers.filter((x) => x !== s)
          resolve()
        },
        {once: true},
      )
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
    if (this.lease === undefined)
      throw new NotFoundError(
        `leases "${name}" not found`,
        {verb: 'get', resource: 'leases', namespace, name},
        404,
        'NotFound',
      )
    return structuredClone(this.lease)
  }

  async createLease(lease: Lease): Promise<Lease> {
    await flush()
    if (this.lease !== undefined)
      throw new ConflictError('exists', {verb: 'create', resource: 'leases'}, 409, 'AlreadyExists')
    this.writes.push(lease.spec?.holderIdentity ?? '')
    this.lease = {...structuredClone(lease), metadata: {...lease.metadata, resourceVersion: String(++this.rv)}}
    return structuredClone(this.lease)
  }

  async replaceLease(lease: Lease): Promise<Lease> {
    await flush()
    const who = lease.spec?.holderIdentity ?? ''
    if (this.failing.has(who) || (who === '' && this.failing.size > 0))
      throw new TransientApiError('unreachable', {verb: 'update', resource: 'leases'}, 503, 'ServiceUnavailable')
    if (lease.metadata.resourceVersion !== this.lease?.metadata.resourceVersion)
      throw new ConflictError('conflict', {verb: 'update', resource: 'leases'}, 409, 'Conflict')
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

function candidates(n: number, events: LeaderEvents = {}) {
  const clock = new VirtualClock()
  const api = new MemoryLeases()
  const log = (i: number) =>
    process.env.DBG
      ? createLogger({
          format: 'text',
          verbosity: 9,
          write: (l) => process.stderr.write(`[${clock.now}] node-${i} ${l}`),
        })
      : silentLogger
  const config = (i: number) => ({
    namespace: 'kube-system',
    name: 'pvctl',
    identity: `node-${i}_uuid`,
    ...KCM_LEADER_ELECTION,
  })
  const electors = Array.from({length: n}, (_, i) => new LeaderElector(config(i), api, log(i), events, clock))
  return {clock, api, electors}
}

test('the first candidate acquires; the second stands by and never writes the lease', async () => {
  const {
    clock,
    api,
    electors: [a, b],
  } = candidates(2)
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
  const {
    clock,
    api,
    electors: [a, b],
  } = candidates(2)
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
  assert.ok(
    waited <= KCM_LEADER_ELECTION.leaseDurationMs + 2 * 2_000 * 2.2,
    `took over ${waited} ms after the last renewal`,
  )
})

test('a leader that cannot renew stops writing before any standby may take over, then reports the loss', async () => {
  const {
    clock,
    api,
    electors: [a, b],
  } = candidates(2)
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
  assert.ok(
    takeover - fenced >= KCM_LEADER_ELECTION.leaseDurationMs - KCM_LEADER_ELECTION.renewDeadlineMs,
    'at least lease - deadline of margin',
  )
  assert.ok(fenced - partitioned <= KCM_LEADER_ELECTION.renewDeadlineMs, 'the fence closes within the renew deadline')
  assert.ok(lostAt <= partitioned + KCM_LEADER_ELECTION.renewDeadlineMs + KCM_LEADER_ELECTION.retryPeriodMs)
  assert.equal(a.isLeader(), false)
  assert.equal(api.holder, 'node-1_uuid')
  stop.abort()
})

test('release: an empty holder and a 1 s lease, and the standby takes over at its next attempt', async () => {
  const {
    clock,
    api,
    electors: [a, b],
  } = candidates(2)
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
  assert.ok(
    takeover > 0 && takeover - released <= 2_000 * 2.2 + 1_000,
    `took over ${takeover - released} ms after the release`,
  )
  stop.abort()
})

test('release waits for a renewal still in flight: the lease ends released, not renewed over the release', async () => {
  const {
    clock,
    api,
    electors: [a],
  } = candidates(1)
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
  assert.throws(
    () => validateLeaderElection({leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000}),
    UsageError,
  )
  assert.throws(
    () => validateLeaderElection({leaseDurationMs: 15_000, renewDeadlineMs: 2_000, retryPeriodMs: 2_000}),
    UsageError,
  )
})

test('Lease times are MicroTime: six fractional digits', () => {
  assert.equal(microTime(new Date(Date.UTC(2026, 10, 30, 10, 15, 2, 123))), '2026-11-30T10:15:02.123000Z')
})

test('a candidate that cannot read or write the lease says so at the default verbosity, at every retry (klog.Errorf)', async () => {
  const clock = new VirtualClock()
  const api = new MemoryLeases()
  const lines: string[] = []
  const log = createLogger({format: 'json', verbosity: 0, write: (l) => lines.push(l)})
  const elector = new LeaderElector(
    {namespace: 'kube-system', name: 'pvctl', identity: 'node-0_uuid', ...KCM_LEADER_ELECTION},
    api,
    log,
    {},
    clock,
  )
  const unreachable = () =>
    new TransientApiError(
      'connect ECONNREFUSED 127.0.0.1:6443',
      {verb: 'get', resource: 'leases'},
      503,
      'ServiceUnavailable',
    )
  // Reads fail: "error retrieving resource lock", once per retry period (2 s).
  const read = api.readLease.bind(api)
  api.readLease = async () => {
    await flush()
    throw unreachable()
  }
  const stop = new AbortController()
  void elector.acquire(stop.signal)
  await clock.advance(7_000)
  const errors = lines
    .map((l) => JSON.parse(l) as {level: string; msg: string; err?: string})
    .filter((e) => e.msg !== 'Attempting to acquire leader lease')
  assert.ok(errors.length >= 3, `one line per attempt: ${lines.join('')}`)
  for (const e of errors) assert.deepEqual([e.level, e.msg], ['error', 'Error retrieving resource lock'])
  assert.match(String(errors[0]!.err), /ECONNREFUSED/)
  // Reads work again but updates fail (another holder expired, this one cannot write): "Failed to update lock".
  lines.length = 0
  api.readLease = read
  await api.createLease({
    metadata: {name: 'pvctl', namespace: 'kube-system'},
    spec: {holderIdentity: 'gone_uuid', leaseDurationSeconds: 15, renewTime: microTime(clock.wall())},
  })
  api.failing.add('node-0_uuid')
  await clock.advance(40_000)
  assert.ok(
    lines.some((l) => /"level":"error".*"msg":"Failed to update lock"/.test(l)),
    lines.join(''),
  )
  stop.abort()
  await clock.advance(2_000)
})

/** Moves the clock to `at` (absolute virtual ms), waking every sleeper due by then. */
const advanceTo = (clock: VirtualClock, at: number) => clock.advance(at - clock.now)

// A standby's decision on a Lease another holds: expired only a lease duration (the record's) after it
// OBSERVED the record change, by its own clock; a released lease (holder "") at once.
const standbyRows: Array<{
  name: string
  record: {holder: string; seconds: number}
  renewedAt?: number
  expiresAt: number
}> = [
  {
    name: 'never renewed: expires a lease duration after the first read',
    record: {holder: 'other_uuid', seconds: 15},
    expiresAt: 15_000,
  },
  {
    name: "the record's duration counts, not the candidate's own",
    record: {holder: 'other_uuid', seconds: 40},
    expiresAt: 40_000,
  },
  {
    name: 'a renewal seen at 6 s restarts the count',
    record: {holder: 'other_uuid', seconds: 15},
    renewedAt: 6_000,
    expiresAt: 21_000,
  },
  {name: 'released (holder ""): free at once', record: {holder: '', seconds: 1}, expiresAt: 0},
]

for (const row of standbyRows) {
  test(`standby: ${row.name}`, async () => {
    const {
      clock,
      api,
      electors: [b],
    } = candidates(1)
    const spec = (renewTime: string) => ({
      holderIdentity: row.record.holder,
      leaseDurationSeconds: row.record.seconds,
      renewTime,
    })
    const lease = await api.createLease({
      metadata: {name: 'pvctl', namespace: 'kube-system'},
      spec: spec(microTime(clock.wall())),
    })
    if (row.expiresAt > 0) assert.equal(await b.tryAcquireOrRenew(), false, 'the first read observes the holder')
    if (row.renewedAt !== undefined) {
      await advanceTo(clock, row.renewedAt)
      await api.replaceLease({...lease, spec: spec(microTime(clock.wall()))})
      assert.equal(await b.tryAcquireOrRenew(), false, 'the renewal is observed')
    }
    if (row.expiresAt > 0) {
      await advanceTo(clock, row.expiresAt - 1)
      assert.equal(await b.tryAcquireOrRenew(), false, '1 ms before expiry: still held')
      assert.equal(api.holder, row.record.holder)
      await advanceTo(clock, row.expiresAt)
    }
    assert.equal(await b.tryAcquireOrRenew(), true, `acquired at ${clock.now} ms`)
    assert.equal(api.holder, 'node-0_uuid')
    assert.equal(b.mayWrite(), false, 'tryAcquireOrRenew alone does not make a leader: acquire() does')
  })
}

test('standby: acquire() retries every jittered retry period and wins at the first attempt after expiry', async () => {
  // random() is 0.5: each wait is 2 s × (1 + 0.5 × 1.2) = 3.2 s; the lease (15 s, first seen at 0) expires
  // at 15 s; the attempts fall at 0, 3.2, 6.4, 9.6, 12.8 and 16 s.
  const started: number[] = []
  const {
    clock,
    api,
    electors: [b],
  } = candidates(1, {onStartedLeading: () => started.push(clock.now)})
  const spec = {holderIdentity: 'gone_uuid', leaseDurationSeconds: 15, renewTime: microTime(clock.wall())}
  await api.createLease({metadata: {name: 'pvctl', namespace: 'kube-system'}, spec})
  const stop = new AbortController()
  const acquiring = b.acquire(stop.signal)
  await advanceTo(clock, 15_999)
  assert.deepEqual(started, [], 'not before the first attempt after expiry')
  assert.equal(api.holder, 'gone_uuid')
  await advanceTo(clock, 16_000)
  assert.equal(await acquiring, true)
  assert.deepEqual(started, [16_000])
  assert.equal(b.mayWrite(), true)
  stop.abort()
})

// A leader whose renewals fail from `failsAt` on: its last successful renewal started at `lastRenewal`
// (every 2 s from its acquisition at 0). The fence closes exactly a renew deadline after that renewal's
// start; the renew round that cannot renew gives up a renew deadline after it began (a retry period after
// the last renewal), and reports the loss then: both before a standby that saw the last renewal could take over.
const leaderRows: Array<{name: string; failsAt: number; how: 'refused' | 'unanswered'; lastRenewal: number}> = [
  {name: 'refused from 5 s', failsAt: 5_000, how: 'refused', lastRenewal: 4_000},
  {name: 'refused from the first renewal', failsAt: 1_000, how: 'refused', lastRenewal: 0},
  {name: 'unanswered (the API server hangs) from 5 s', failsAt: 5_000, how: 'unanswered', lastRenewal: 4_000},
]

for (const row of leaderRows) {
  test(`leader: renewals ${row.name}: the fence closes, then the loss is reported, exactly when`, async () => {
    let lostAt = -1
    const {
      clock,
      api,
      electors: [a],
    } = candidates(1, {onStoppedLeading: () => (lostAt = clock.now)})
    const {renewDeadlineMs, retryPeriodMs, leaseDurationMs} = KCM_LEADER_ELECTION
    const stop = new AbortController()
    assert.equal(await a.acquire(stop.signal), true)
    const renewing = a.renewLoop(stop.signal)
    await advanceTo(clock, row.failsAt)
    const writesBefore = api.writes.length
    if (row.how === 'refused') api.failing.add('node-0_uuid')
    else api.gate = new Promise<void>(() => {})
    const fenceAt = row.lastRenewal + renewDeadlineMs
    const lossAt = row.lastRenewal + retryPeriodMs + renewDeadlineMs
    await advanceTo(clock, fenceAt - 1)
    assert.equal(a.mayWrite(), true, '1 ms before the fence: may write')
    await advanceTo(clock, fenceAt)
    assert.equal(a.mayWrite(), false, `the fence closes at ${fenceAt} ms`)
    await advanceTo(clock, lossAt - 1)
    assert.equal(lostAt, -1, 'still trying to renew')
    assert.equal(a.isLeader(), true)
    await advanceTo(clock, lossAt)
    assert.equal(await renewing, 'lost')
    assert.equal(lostAt, lossAt)
    assert.equal(a.isLeader(), false)
    assert.equal(api.writes.length, writesBefore, 'no renewal written after the failures began')
    assert.ok(lossAt < row.lastRenewal + leaseDurationMs, 'the loss is reported before the lease could expire')
  })
}
