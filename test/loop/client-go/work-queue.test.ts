// The work queue's contract, as client-go's workqueue tests state it: de-duplication, one worker per key
// at a time, re-adds during processing kept for after, and the per-key exponential back-off.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {EVENT_BURST, ItemExponentialBackOff, type Lane, WorkQueue} from '../../../src/loop/client-go/work-queue.js'

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
  assert.deepEqual(
    [1, 2, 3, 4, 5].map(() => b.when('a')),
    [5, 10, 20, 40, 80],
  )
  assert.equal(b.when('b'), 5, 'per key')
  for (let i = 0; i < 20; i++) b.when('a')
  assert.equal(b.when('a'), 1000, 'capped')
  b.forget('a')
  assert.equal(b.when('a'), 5)
  assert.equal(b.retries('a'), 1)
})

test('addRateLimited brings the key back after its back-off, counted as a retry', async (t) => {
  // The back-off's timer on a mock clock: the key is back when the clock reaches 20 ms, not before.
  t.mock.timers.enable({apis: ['setTimeout']})
  let retries = 0
  const q = new WorkQueue(
    'claims',
    {baseMs: 20, maxMs: 1000},
    {added: () => {}, retried: () => retries++, waited: () => {}, worked: () => {}},
  )
  q.addRateLimited('ns/a')
  q.addRateLimited('ns/a') // already due: not queued twice
  assert.equal(q.depth, 0)
  t.mock.timers.tick(19)
  assert.equal(q.depth, 0, 'still backing off at 19 ms')
  t.mock.timers.tick(1)
  assert.equal(q.depth, 1, 'back at 20 ms')
  assert.equal(await q.get(), 'ns/a')
  assert.equal(retries, 2)
  q.done('ns/a')
  q.shutDown()
})

// The two lanes (event keys before bulk keys), as a table: each row a script of operations on one
// queue and the keys get() hands out, in order, once the script has run.
type Op = ['add', string, Lane?] | ['take'] | ['done', string]

const LANE_ROWS: Array<{name: string; ops: Op[]; order: string[]; depth?: number}> = [
  {
    name: 'one lane alone is a FIFO',
    ops: [
      ['add', 'a', 'bulk'],
      ['add', 'b', 'bulk'],
      ['add', 'c', 'bulk'],
    ],
    order: ['a', 'b', 'c'],
  },
  {
    name: 'event keys before bulk keys, each lane in its order',
    ops: [
      ['add', 'b1', 'bulk'],
      ['add', 'b2', 'bulk'],
      ['add', 'e1'],
      ['add', 'e2', 'event'],
    ],
    order: ['e1', 'e2', 'b1', 'b2'],
  },
  {
    name: 'a bulk key added as an event moves up, and is handed out once',
    ops: [
      ['add', 'a', 'bulk'],
      ['add', 'b', 'bulk'],
      ['add', 'b', 'event'],
    ],
    order: ['b', 'a'],
    depth: 2,
  },
  {
    name: 'an event key added to bulk keeps its place',
    ops: [
      ['add', 'a', 'bulk'],
      ['add', 'b', 'event'],
      ['add', 'b', 'bulk'],
    ],
    order: ['b', 'a'],
    depth: 2,
  },
  {
    name: 'a bulk key added again keeps its place in the FIFO',
    ops: [
      ['add', 'a', 'bulk'],
      ['add', 'b', 'bulk'],
      ['add', 'a', 'bulk'],
    ],
    order: ['a', 'b'],
    depth: 2,
  },
  {
    name: 'a key moved up, taken, and added to bulk again waits at its new place, not its stale one',
    ops: [
      ['add', 'a', 'bulk'],
      ['add', 'b', 'bulk'],
      ['add', 'a', 'event'],
      ['take'],
      ['done', 'a'],
      ['add', 'a', 'bulk'],
    ],
    order: ['b', 'a'],
    depth: 2,
  },
  {
    name: 're-added while processing, it comes back in the better lane asked for',
    ops: [
      ['add', 'a', 'bulk'],
      ['add', 'x', 'bulk'],
      ['take'],
      ['add', 'a', 'bulk'],
      ['add', 'a', 'event'],
      ['done', 'a'],
    ],
    order: ['a', 'x'],
  },
  {
    name: 're-added to bulk while processing, it comes back behind the bulk keys',
    ops: [['add', 'a'], ['add', 'x', 'bulk'], ['take'], ['add', 'a', 'bulk'], ['done', 'a']],
    order: ['x', 'a'],
  },
  {
    name: 'after EVENT_BURST event keys in a row, one bulk key gets its turn',
    ops: [
      ['add', 'bulk-1', 'bulk'],
      ['add', 'bulk-2', 'bulk'],
      ...Array.from({length: EVENT_BURST + 2}, (_, i): Op => ['add', `e${i}`]),
    ],
    order: [
      ...Array.from({length: EVENT_BURST}, (_, i) => `e${i}`),
      'bulk-1',
      `e${EVENT_BURST}`,
      `e${EVENT_BURST + 1}`,
      'bulk-2',
    ],
  },
]

for (const row of LANE_ROWS) {
  test(`lanes: ${row.name} (tryGet hands out the same order)`, async () => {
    const q = new WorkQueue('claims', BACK_OFF)
    for (const op of row.ops) {
      if (op[0] === 'add') q.add(op[1], op[2])
      else if (op[0] === 'take') q.tryGet()
      else q.done(op[1])
    }
    const order: string[] = []
    for (let key = q.tryGet(); key !== undefined; key = q.tryGet()) {
      order.push(key)
      q.done(key)
    }
    assert.deepEqual(order, row.order)
    assert.equal(q.depth, 0)
  })

  test(`lanes: ${row.name}`, async () => {
    const q = new WorkQueue('claims', BACK_OFF)
    for (const op of row.ops) {
      if (op[0] === 'add') q.add(op[1], op[2])
      else if (op[0] === 'take') await q.get()
      else q.done(op[1])
    }
    if (row.depth !== undefined) assert.equal(q.depth, row.depth, 'depth counts each waiting key once')
    const order: string[] = []
    while (q.depth > 0) {
      const key = (await q.get())!
      order.push(key)
      q.done(key)
    }
    assert.deepEqual(order, row.order)
    assert.equal(q.laneDepth('event') + q.laneDepth('bulk'), 0)
  })
}

test('lanes: a key is never handed to two workers, whichever lanes it is added to while processing', async () => {
  const q = new WorkQueue('claims', BACK_OFF)
  q.add('a', 'bulk')
  assert.equal(await q.get(), 'a')
  for (const lane of ['event', 'bulk', 'event'] as const) q.add('a', lane)
  assert.equal(q.depth, 0, 'waits for done()')
  assert.equal(q.inFlight, 1)
  q.done('a')
  assert.deepEqual([q.laneDepth('event'), q.laneDepth('bulk')], [1, 0], 'once, in the event lane')
})

for (const [from, other] of [
  ['bulk', 'event'],
  ['event', 'bulk'],
] as const) {
  test(`lanes: a failed ${from} key comes back after its back-off into the ${from} lane`, async () => {
    const q = new WorkQueue('claims', {baseMs: 10, maxMs: 1000})
    q.add('a', from)
    assert.equal(await q.get(), 'a')
    q.addRateLimited('a')
    q.done('a')
    assert.equal(q.depth, 0, 'not before its back-off')
    q.add('z', other)
    const next = [(await q.get())!]
    q.done(next[0])
    next.push((await q.get())!)
    assert.deepEqual(next, ['z', 'a'])
    assert.deepEqual([q.laneDepth(from), q.laneDepth(other)], [0, 0])
    q.shutDown()
  })
}

test('lanes: shutDown hands out no key to a waiting worker, accepts none, and cancels the back-offs due', async (t) => {
  // The back-off's timer on a mock clock: the test moves it past every retry rather than waiting.
  t.mock.timers.enable({apis: ['setTimeout']})
  const q = new WorkQueue('claims', {baseMs: 10, maxMs: 1000})
  q.add('a', 'bulk')
  assert.equal(await q.get(), 'a')
  q.addRateLimited('a')
  q.done('a')
  const waiting = q.get()
  q.shutDown()
  assert.equal(await waiting, undefined)
  q.add('b', 'event')
  q.add('c', 'bulk')
  t.mock.timers.tick(1000)
  assert.equal(q.depth, 0, 'neither the adds nor the retry came in')
})

test('tryGet: undefined at once when no key waits, without taking the next add from get(); never a key being processed', async () => {
  const q = new WorkQueue('claims', BACK_OFF)
  assert.equal(q.tryGet(), undefined)
  q.add('a', 'bulk')
  assert.equal(q.tryGet(), 'a')
  q.add('a')
  assert.equal(q.tryGet(), undefined, 'a is being processed: it waits for done()')
  q.done('a')
  const waiting = q.get()
  assert.equal(await waiting, 'a', 'the re-added key, once done')
  q.add('b')
  assert.equal(q.tryGet(), 'b', 'no waiter left behind by tryGet')
  q.done('a')
  q.done('b')
  q.shutDown()
  assert.equal(q.tryGet(), undefined)
})

test('memos: a key keeps its memo after done(), waits again when added, in no depth; drop() lets it go', async () => {
  const q = new WorkQueue<{plan: string}>('claims', BACK_OFF)
  q.add('ns/a')
  q.add('ns/b')
  const a = await q.get()
  assert.equal(q.memo(a!), undefined)
  q.setMemo(a!, {plan: 'bind'})
  q.done(a!)
  assert.equal(q.depth, 1)
  assert.equal(q.inFlight, 0)
  assert.deepEqual(q.memo('ns/a'), {plan: 'bind'}, 'kept after done()')
  assert.throws(
    () => q.setMemo('ns/a', {plan: 'x'}),
    /no worker holds/,
    'only the worker that holds the key sets its memo',
  )
  assert.equal(await q.get(), 'ns/b')
  q.done('ns/b')
  assert.equal(q.memo('ns/b'), undefined)
  assert.equal(q.memos, 1)
  // Added again: it waits (once), and its worker finds the memo.
  q.add('ns/a', 'bulk')
  q.add('ns/a')
  assert.equal(q.depth, 1)
  assert.equal(await q.get(), 'ns/a')
  assert.deepEqual(q.memo('ns/a'), {plan: 'bind'})
  // Dropped while processing: done() lets the key go.
  q.drop('ns/a')
  assert.equal(q.memo('ns/a'), undefined)
  q.done('ns/a')
  assert.equal(q.memos, 0)
  // Dropped while idle.
  q.add('ns/c')
  q.setMemo((await q.get())!, {plan: 'c'})
  q.done('ns/c')
  q.drop('ns/c')
  assert.equal(q.memo('ns/c'), undefined)
  q.add('ns/c')
  assert.equal(await q.get(), 'ns/c')
  assert.equal(q.memo('ns/c'), undefined, 'a key back after drop() starts without a memo')
})
