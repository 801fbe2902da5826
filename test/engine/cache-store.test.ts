// CacheStore: a Map of the cached objects whose keys keep their slots. A slot made for a read of a key
// with no object (the other end of a dangling pointer) holds nothing and counts for nothing, and a
// deleted object's slot is the one its name gets again: quiet syncs compare slot contents, not keys.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {CacheStore} from '../../src/engine/simulation/cache-store.js'

type Step = ['set', string, number] | ['delete', string] | ['slot', string]

function run(steps: readonly Step[]): CacheStore<{n: number}, never> {
  const store = new CacheStore<{n: number}, never>()
  for (const step of steps) {
    if (step[0] === 'set') store.set(step[1], {n: step[2]})
    else if (step[0] === 'delete') store.delete(step[1])
    else store.slot(step[1])
  }
  return store
}

describe('CacheStore', () => {
  const cases: Array<{name: string; steps: Step[]; entries: Array<[string, number]>}> = [
    {
      name: 'objects by key, in the order first seen',
      steps: [
        ['set', 'b', 1],
        ['set', 'a', 2],
      ],
      entries: [
        ['b', 1],
        ['a', 2],
      ],
    },
    {
      name: 'a key set again keeps its place',
      steps: [
        ['set', 'a', 1],
        ['set', 'b', 2],
        ['set', 'a', 3],
      ],
      entries: [
        ['a', 3],
        ['b', 2],
      ],
    },
    {
      name: 'an empty slot (a read of a missing key) is no entry',
      steps: [
        ['slot', 'x'],
        ['set', 'a', 1],
      ],
      entries: [['a', 1]],
    },
    {
      name: 'a deleted object is no entry',
      steps: [
        ['set', 'a', 1],
        ['set', 'b', 2],
        ['delete', 'a'],
      ],
      entries: [['b', 2]],
    },
    {
      name: 'deleting twice, or a missing key, changes nothing',
      steps: [
        ['set', 'a', 1],
        ['delete', 'a'],
        ['delete', 'a'],
        ['delete', 'z'],
      ],
      entries: [],
    },
    {
      name: 'a name created again fills its old slot',
      steps: [
        ['set', 'a', 1],
        ['set', 'b', 2],
        ['delete', 'a'],
        ['set', 'a', 3],
      ],
      entries: [
        ['a', 3],
        ['b', 2],
      ],
    },
  ]
  for (const c of cases) {
    it(c.name, () => {
      const store = run(c.steps)
      assert.deepEqual(
        [...store].map(([key, o]) => [key, o.n]),
        c.entries,
      )
      assert.equal(store.size, c.entries.length)
      assert.deepEqual(
        [...store.keys()],
        c.entries.map(([key]) => key),
      )
      for (const [key, n] of c.entries) {
        assert.equal(store.get(key)?.n, n)
        assert.ok(store.has(key))
      }
      for (const [step, key] of c.steps) {
        if (step !== 'set' && !c.entries.some(([k]) => k === key)) {
          assert.equal(store.has(key), false, key)
          assert.equal(store.get(key), undefined, key)
        }
      }
    })
  }

  it('a key has one slot for good: made by a read, filled by a write, emptied by a delete', () => {
    const store = new CacheStore<{n: number}, never>()
    const slot = store.slot('a')
    assert.equal(slot.object, undefined)
    assert.equal(store.slot('a'), slot)
    assert.equal(store.has('a'), false)
    assert.equal(store.size, 0)
    assert.equal(store.set('a', {n: 1}), slot)
    assert.equal(store.get('a')?.n, 1)
    assert.ok(slot.object === store.get('a'))
    store.delete('a')
    assert.equal(slot.object, undefined)
    assert.equal(store.slot('a'), slot)
    assert.equal(store.has('b'), false)
    let visited = 0
    store.forEach(() => visited++)
    assert.equal(visited, 0, 'an empty slot is no entry for forEach either')
  })
})
