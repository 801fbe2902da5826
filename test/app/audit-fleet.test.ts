// mapConcurrently, the bound of a fleet audit (--concurrency): never more runs at once than the limit,
// each started as soon as a slot frees, results in the items' order. Driven by promises the test settles,
// so no clock is involved.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import {mapConcurrently} from '../../src/app/audit-fleet.js'

/** Lets every settled promise's callbacks run. */
const drain = () => new Promise<void>((resolve) => setImmediate(resolve))

function controlled(count: number) {
  const started: number[] = []
  const finish: Array<(v: string) => void> = []
  const fail: Array<(e: Error) => void> = []
  const run = (i: number) =>
    new Promise<string>((resolve, reject) => {
      started.push(i)
      finish[i] = resolve
      fail[i] = reject
    })
  return {items: Array.from({length: count}, (_, i) => i), started, finish, fail, run}
}

describe('mapConcurrently', () => {
  const rows: Array<{items: number; limit: number}> = [
    {items: 5, limit: 2},
    {items: 3, limit: 4},
    {items: 4, limit: 1},
  ]
  for (const row of rows) {
    test(`${row.items} items, at most ${row.limit} at once`, async () => {
      const c = controlled(row.items)
      const all = mapConcurrently(c.items, row.limit, c.run)
      await drain()
      assert.deepEqual(c.started, c.items.slice(0, Math.min(row.limit, row.items)))
      // Finishing the runs one by one, in order: each frees one slot, filled by the next item.
      for (let done = 0; done < row.items; done++) {
        const running = c.started.filter((i) => i >= done)
        assert.ok(running.length <= row.limit, `${running.length} running`)
        c.finish[done](`r${done}`)
        await drain()
        assert.deepEqual(c.started, c.items.slice(0, Math.min(done + 1 + row.limit, row.items)))
      }
      assert.deepEqual(
        await all,
        c.items.map((i) => `r${i}`),
      )
    })
  }

  test('a failure rejects the whole and starts nothing more', async () => {
    const c = controlled(4)
    const all = mapConcurrently(c.items, 2, c.run)
    await drain()
    c.fail[0](new Error('boom'))
    await assert.rejects(all, /boom/)
    c.finish[1]('r1')
    await drain()
    assert.deepEqual(c.started, [0, 1])
  })
})
