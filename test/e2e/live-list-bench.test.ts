// bench/live-list.ts at smoke size: the emulator child, a live load and a file load each in its own
// process, on the built code (`npm test` builds first). No timing is judged here (`npx tsx
// bench/live-list.ts` does that at 100k): only that both sides load every volume the emulator serves.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {benchLiveList, rateLimitFloor} from '../../bench/live-list.js'
import {TokenBucket} from '../../src/cluster/throttled-api.js'

test('bench/live-list.ts, smoke size: both sides load every volume, paginated', async () => {
  const lines: string[] = []
  const r = await benchLiveList({volumes: 600, runs: 1, flow: {chunkSize: 100, qps: 1000, burst: 1000}, log: (line) => lines.push(line)})
  assert.equal(r.volumes, 600)
  for (const field of ['live', 'file', 'ratio', 'fileMB'] as const) assert.ok(Number.isFinite(r[field]) && r[field] > 0, `${field}: ${r[field]}`)
  assert.match(lines.join('\n'), /run 1: live [\d.]+ s \(6 pages, /)
})

test('the floor the benchmark prints is what pvctl\'s token bucket makes requests wait', async () => {
  const rows = [
    {requests: 204, qps: 5, burst: 10},
    {requests: 10, qps: 5, burst: 10},
    {requests: 24, qps: 5, burst: 10},
    {requests: 3, qps: 1, burst: 1},
  ]
  for (const row of rows) {
    // A clock that only moves when the bucket sleeps: the time it ends on is the time it made us wait
    // (each sleep is rounded up to a whole ms).
    let now = 0
    const bucket = new TokenBucket(row.qps, row.burst, () => now, async (ms) => void (now += ms))
    for (let i = 0; i < row.requests; i++) await bucket.take()
    assert.ok(Math.abs(now / 1000 - rateLimitFloor(row.requests, row.qps, row.burst)) <= 0.001 * row.requests, `${JSON.stringify(row)}: waited ${now} ms`)
  }
})
