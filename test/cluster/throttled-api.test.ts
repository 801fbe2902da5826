// The client-side rate limit: which calls take a token, and how long a sequence of calls waits for them;
// the retry's waits and the deadline around them.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {RetryAfterRefusedError, TransientApiError, UnreachableError} from '../../src/cluster/api-errors.js'
import type {Page, PageOptions} from '../../src/cluster/page.js'
import {MAX_RETRY_AFTER_SECONDS, throttle} from '../../src/cluster/throttled-api.js'
import {FakeTimers} from './fake-timers.js'

/** A port whose calls record the fake clock's time when they reach it; the first `failures` continue pages fail. */
class FakePort {
  readonly reached: number[] = []
  constructor(
    private readonly clock: {now: number},
    private failures = 0,
  ) {}

  async listVolumes(p: PageOptions): Promise<Page<string>> {
    this.reached.push(this.clock.now)
    if (p.continueToken !== undefined && this.failures > 0) {
      this.failures--
      throw new TransientApiError(
        'list persistentvolumes: the server is busy',
        {verb: 'list', resource: 'persistentvolumes'},
        503,
        'ServiceUnavailable',
      )
    }
    return {items: [p.continueToken ?? 'first']}
  }

  async readVolume(name: string): Promise<string> {
    this.reached.push(this.clock.now)
    return name
  }
}

const first: PageOptions = {limit: 500}
const next: PageOptions = {limit: 500, continueToken: 'c1'}

const cases: {
  name: string
  qps: number
  burst: number
  failures?: number
  calls: ((api: FakePort) => Promise<unknown>)[]
  reachedAt: number[]
}[] = [
  {
    name: 'a LIST read in pages takes one token: its continue pages do not wait',
    qps: 1,
    burst: 1,
    calls: [
      (a) => a.listVolumes(first),
      (a) => a.listVolumes(next),
      (a) => a.listVolumes(next),
      (a) => a.listVolumes(next),
    ],
    reachedAt: [0, 0, 0, 0],
  },
  {
    name: 'every first page and every other request takes a token, as in client-go',
    qps: 2,
    burst: 1,
    calls: [
      (a) => a.listVolumes(first),
      (a) => a.readVolume('pv1'),
      (a) => a.listVolumes(first),
      (a) => a.readVolume('pv2'),
    ],
    reachedAt: [0, 500, 1000, 1500],
  },
  {
    name: 'the burst is spent before anything waits',
    qps: 1,
    burst: 3,
    calls: [(a) => a.readVolume('a'), (a) => a.readVolume('b'), (a) => a.readVolume('c'), (a) => a.readVolume('d')],
    reachedAt: [0, 0, 0, 1000],
  },
  {
    name: 'a retried continue page takes a token: a retry is new load',
    qps: 1,
    burst: 1,
    failures: 1,
    calls: [(a) => a.listVolumes(first), (a) => a.listVolumes(next)],
    // The first page takes the only token; the continue page goes at once, fails, backs off 200 ms, and
    // its retry waits for the next token (at 1000 ms).
    reachedAt: [0, 0, 1000],
  },
]

for (const c of cases) {
  test(c.name, async () => {
    const clock = {now: 0}
    const port = new FakePort(clock, c.failures)
    const api = throttle(port, {
      qps: c.qps,
      burst: c.burst,
      backoffMs: 200,
      now: () => clock.now,
      sleep: async (ms) => void (clock.now += ms),
    })
    for (const call of c.calls) await call(api)
    assert.deepEqual(port.reached, c.reachedAt)
  })
}

// Retry-After: waited out up to MAX_RETRY_AFTER_SECONDS and within --request-timeout; past either, the call
// fails at once with a RetryAfterRefusedError (exit 3) saying what the server asked and why pvctl does not
// wait. Before, `Retry-After: 3600` held pvctl for an hour, --request-timeout or not.

/** A port whose first `busy` reads answer 429 with `retryAfterSeconds`. */
class BusyPort {
  calls = 0
  constructor(
    private busy: number,
    private readonly retryAfterSeconds?: number,
  ) {}

  async readVolume(name: string): Promise<string> {
    this.calls++
    if (this.busy-- > 0) {
      throw new TransientApiError(
        `get persistentvolumes "${name}": Too many requests`,
        {verb: 'get', resource: 'persistentvolumes', name},
        429,
        'TooManyRequests',
        this.retryAfterSeconds,
      )
    }
    return name
  }
}

const retryRows: Array<{
  id: string
  retryAfterSeconds?: number
  requestTimeoutMs?: number
  waited?: number[]
  refused?: string
}> = [
  {id: 'a Retry-After of 1 s is waited out', retryAfterSeconds: 1, waited: [1000]},
  {
    id: `a Retry-After of ${MAX_RETRY_AFTER_SECONDS} s, the bound, is waited out`,
    retryAfterSeconds: MAX_RETRY_AFTER_SECONDS,
    waited: [MAX_RETRY_AFTER_SECONDS * 1000],
  },
  {id: 'without Retry-After the back-off applies', waited: [200]},
  {
    id: 'a Retry-After of 3600 s is refused at once',
    retryAfterSeconds: 3600,
    refused: `get persistentvolumes "pv1": the server asked to wait 3600 s before a retry (HTTP 429, Retry-After); pvctl does not wait longer than ${MAX_RETRY_AFTER_SECONDS} s`,
  },
  {
    id: 'a Retry-After of 3600 s is refused at once, --request-timeout or not',
    retryAfterSeconds: 3600,
    requestTimeoutMs: 2000,
    refused: `get persistentvolumes "pv1": the server asked to wait 3600 s before a retry (HTTP 429, Retry-After); pvctl does not wait longer than ${MAX_RETRY_AFTER_SECONDS} s`,
  },
  {
    id: 'a Retry-After that ends past --request-timeout is refused at once',
    retryAfterSeconds: 5,
    requestTimeoutMs: 2000,
    refused:
      'get persistentvolumes "pv1": the server asked to wait 5 s before a retry (HTTP 429, Retry-After); pvctl does not wait past --request-timeout (2 s)',
  },
  {
    id: 'a Retry-After that ends within --request-timeout is waited out',
    retryAfterSeconds: 1,
    requestTimeoutMs: 2000,
    waited: [1000],
  },
]

for (const row of retryRows) {
  test(`Retry-After: ${row.id}`, async () => {
    const clock = {now: 0}
    const slept: number[] = []
    const port = new BusyPort(1, row.retryAfterSeconds)
    const api = throttle(port, {
      qps: 0,
      burst: 1,
      backoffMs: 200,
      requestTimeoutMs: row.requestTimeoutMs,
      now: () => clock.now,
      sleep: async (ms) => void (slept.push(ms), (clock.now += ms)),
    })
    if (row.refused === undefined) {
      assert.equal(await api.readVolume('pv1'), 'pv1')
      assert.deepEqual(slept, row.waited)
      assert.equal(port.calls, 2)
      return
    }
    await assert.rejects(api.readVolume('pv1'), (err: unknown) => {
      assert.ok(err instanceof RetryAfterRefusedError, String(err))
      assert.equal(err.message, row.refused)
      assert.equal(err.exitCode, 3)
      return true
    })
    assert.deepEqual(slept, [], 'nothing waited')
    assert.equal(port.calls, 1, 'not retried')
  })
}

test('--request-timeout bounds the whole call: retries and their back-off included, not each attempt', async () => {
  // Every attempt fails at once and the back-off grows (200, 400, 800, ... ms): with a deadline per
  // attempt the call went on for seconds; the call's deadline ends it at 500 ms, in the second back-off
  // (due at 600 ms), which it cuts short.
  const clock = new FakeTimers()
  const port = new BusyPort(Infinity)
  const timers = {now: () => clock.now, sleep: clock.sleep, startTimer: clock.startTimer}
  const api = throttle(port, {qps: 0, burst: 1, backoffMs: 200, maxRetries: 10, requestTimeoutMs: 500, ...timers})
  let settledAt = -1
  const call = api.readVolume('pv1')
  call.then(
    () => (settledAt = clock.now),
    () => (settledAt = clock.now),
  )
  await clock.advanceTo(499)
  assert.equal(settledAt, -1, 'still retrying at 499 ms')
  assert.equal(port.calls, 2, 'attempts at 0 and 200 ms')
  await clock.advanceTo(500)
  await assert.rejects(call, (err: unknown) => {
    assert.ok(err instanceof UnreachableError, String(err))
    assert.equal((err as Error).message, 'readVolume: no answer within --request-timeout (500 ms)')
    return true
  })
  assert.equal(settledAt, 500, 'failed at its deadline')
  assert.equal(port.calls, 2, 'the second back-off is cut short by the deadline: no third attempt')
  assert.deepEqual(clock.pending, [], 'no timer left behind')
})
