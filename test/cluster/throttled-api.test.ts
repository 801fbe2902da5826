// The client-side rate limit: which calls take a token, and how long a sequence of calls waits for them.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {TransientApiError} from '../../src/cluster/api-errors.js'
import type {Page, PageOptions} from '../../src/cluster/live-api.js'
import {throttle} from '../../src/cluster/throttled-api.js'

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
      throw new TransientApiError('list persistentvolumes: the server is busy', {verb: 'list', resource: 'persistentvolumes'}, 503, 'ServiceUnavailable')
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

const cases: {name: string; qps: number; burst: number; failures?: number; calls: ((api: FakePort) => Promise<unknown>)[]; reachedAt: number[]}[] = [
  {
    name: 'a LIST read in pages takes one token: its continue pages do not wait',
    qps: 1,
    burst: 1,
    calls: [(a) => a.listVolumes(first), (a) => a.listVolumes(next), (a) => a.listVolumes(next), (a) => a.listVolumes(next)],
    reachedAt: [0, 0, 0, 0],
  },
  {
    name: 'every first page and every other request takes a token, as in client-go',
    qps: 2,
    burst: 1,
    calls: [(a) => a.listVolumes(first), (a) => a.readVolume('pv1'), (a) => a.listVolumes(first), (a) => a.readVolume('pv2')],
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
    const api = throttle(port, {qps: c.qps, burst: c.burst, backoffMs: 200, now: () => clock.now, sleep: async (ms) => void (clock.now += ms)})
    for (const call of c.calls) await call(api)
    assert.deepEqual(port.reached, c.reachedAt)
  })
}
