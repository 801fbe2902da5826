// The table both repairs' checks are tested by (RuleTester's invalid / valid rows): each check blocked by
// one state, holding in the state next to it, and every check with its row.
import assert from 'node:assert/strict'
import {test} from 'node:test'

interface Decided<N extends string> {
  checks: ReadonlyArray<{name: N; ok: boolean; message: string}>
  allowed: boolean
  next: string | null
}

export interface CheckRow<N extends string, A extends unknown[]> {
  check: N
  blocked: A
  near: A
  message: RegExp
}

/** A test per row, and one that every check but the proof has a row. */
export function checkRowTests<N extends string, A extends unknown[], D extends Decided<N>>(
  rows: ReadonlyArray<CheckRow<N, A>>,
  decide: (...args: A) => D,
  checks: readonly N[],
  also: (blocked: D) => void = () => {},
): void {
  const checkOf = (d: D, name: N) => d.checks.find((c) => c.name === name)
  for (const row of rows) {
    test(row.check, () => {
      const blocked = decide(...row.blocked)
      const c = checkOf(blocked, row.check)
      assert.equal(c?.ok, false, JSON.stringify(blocked.checks))
      assert.match(c!.message, row.message)
      assert.equal(blocked.allowed, false)
      assert.equal(blocked.next, null, 'no proof is planned for a refused repair')
      also(blocked)
      const near = decide(...row.near)
      assert.equal(checkOf(near, row.check)?.ok, true, JSON.stringify(near.checks))
      assert.equal(near.allowed, true, JSON.stringify(near.checks))
    })
  }
  test('every check has a row (the proof has its own tests)', () => {
    assert.deepEqual(
      rows.map((r) => r.check),
      checks.filter((c) => c !== 'Proof'),
    )
  })
}
