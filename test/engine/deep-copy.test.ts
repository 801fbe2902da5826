// deepCopy (DeepCopy() before every modification): a copy equal to structuredClone's for the JSON shapes
// the engine holds, sharing nothing with the original, and keeping a "__proto__" key a plain key.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import fc from 'fast-check'

import {deepCopy} from '../../src/engine/api/storage-helpers.js'

test('deepCopy: equal to structuredClone on JSON values, and nothing shared', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const copy = deepCopy(value)
      assert.deepStrictEqual(copy, structuredClone(value))
      const walk = (a: unknown, b: unknown): void => {
        if (typeof a !== 'object' || a === null) return
        assert.notEqual(a, b, 'an object or array of the copy is shared with the original')
        for (const key of Object.keys(a)) walk((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])
      }
      walk(copy, value)
    }),
  )
})

test('deepCopy: a "__proto__" key read from JSON stays an own, plain key', () => {
  const original = JSON.parse('{"metadata": {"labels": {"__proto__": "x", "a": "b"}}, "list": [1, {"c": null}]}') as {
    metadata: {labels: object}
  }
  const copy = deepCopy(original)
  assert.equal(Object.getPrototypeOf(copy.metadata.labels), Object.prototype)
  assert.deepEqual(Object.entries(copy.metadata.labels), [
    ['__proto__', 'x'],
    ['a', 'b'],
  ])
  assert.deepStrictEqual(copy, structuredClone(original))
  assert.equal(deepCopy(undefined), undefined)
  assert.equal(deepCopy('s'), 's')
})
