// The work queue's contract, as client-go's workqueue tests state it: de-duplication, one worker per key
// at a time, re-adds during processing kept for after, and the per-key exponential back-off.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {ItemExponentialBackOff, WorkQueue} from '../../src/controller/work-queue.js'

const BACK_OFF = {baseMs: 5, maxMs: 1000}

test('a key added many times while waiting is processed once', async () => {
  const q = new WorkQueue('claims', BACK_OFF)
  for (let i = 0; i < 5; i++) q.add('ns/a')
  q.add('ns/b')
  assert.equal(q.depth, 2)
  assert.equal(await q.get(), 'ns/a')
  assert.equal(await q.get(), 'ns/b')
  assert.equal(q.depth, 0)
})

test('a key re-added while a worker has it waits until done(), then comes back once', async () => {
  const q = new WorkQueue('claims', BACK_OFF)
  q.add('ns/a')
  const key = await q.get()
  q.add('ns/a')
  q.add('ns/a')
  assert.equal(q.depth, 0, 'not handed to a second worker while processing')
  q.done(key!)
  assert.equal(q.depth, 1)
  assert.equal(await q.get(), 'ns/a')
  q.done('ns/a')
  assert.equal(q.depth, 0)
})

test('a waiting worker gets the next key as soon as it is added; shutDown releases waiting workers', async () => {
  const q = new WorkQueue('volumes', BACK_OFF)
  const waiting = q.get()
  q.add('pv-1')
  assert.equal(await waiting, 'pv-1')
  const idle = q.get()
  q.shutDown()
  assert.equal(await idle, undefined)
  q.add('pv-2')
  assert.equal(q.depth, 0, 'nothing is added after shutdown')
})

test('per-key exponential back-off: 5 ms doubling, capped, reset by forget()', () => {
  const b = new ItemExponentialBackOff(BACK_OFF)
  assert.deepEqual([1, 2, 3, 4, 5].map(() => b.when('a')), [5, 10, 20, 40, 80])
  assert.equal(b.when('b'), 5, 'per key')
  for (let i = 0; i < 20; i++) b.when('a')
  assert.equal(b.when('a'), 1000, 'capped')
  b.forget('a')
  assert.equal(b.when('a'), 5)
  assert.equal(b.retries('a'), 1)
})

test('addRateLimited brings the key back after its back-off, counted as a retry', async () => {
  let retries = 0
  const q = new WorkQueue('claims', {baseMs: 20, maxMs: 1000}, {added: () => {}, retried: () => retries++, waited: () => {}, worked: () => {}})
  const t0 = performance.now()
  q.addRateLimited('ns/a')
  q.addRateLimited('ns/a') // already due: not queued twice
  assert.equal(q.depth, 0)
  assert.equal(await q.get(), 'ns/a')
  assert.ok(performance.now() - t0 >= 15)
  assert.equal(retries, 2)
  q.done('ns/a')
  q.shutDown()
})
