// The nesting gauge of answers (json-depth.ts): brackets count only outside strings, escapes are followed
// across chunk boundaries, and the gauge stops at its limit. Every row is fed whole, split at every byte,
// and one byte at a time: the chunks the network happens to deliver must not change the answer.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {JsonDepthGauge, MAX_ANSWER_DEPTH, MAX_OBJECT_DEPTH} from '../../src/cluster/json-depth.js'

const rows: Array<{id: string; text: string; deepest: number}> = [
  {id: 'a scalar', text: '"x"', deepest: 0},
  {id: 'an empty object', text: '{}', deepest: 1},
  {
    id: 'a List of objects',
    text: '{"kind":"L","items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}',
    deepest: 4,
  },
  {id: 'brackets inside strings', text: '{"a":"[[[{{{","b":"]]]}}}"}', deepest: 1},
  {id: 'an escaped quote does not end the string', text: '{"a":"x\\"[[[","b":1}', deepest: 1},
  {id: 'an escaped backslash before the closing quote', text: '{"a":"x\\\\","b":[[1]]}', deepest: 3},
  {id: 'three backslashes: the quote stays escaped', text: '{"a":"\\\\\\"[","b":[2]}', deepest: 2},
  {id: 'a unicode escape', text: '{"a":"\\u005b\\"","b":{}}', deepest: 2},
  {id: 'keys with brackets', text: '{"[{":{"]}":[]}}', deepest: 3},
]

/** The gauge fed `chunks`; its deepest nesting. */
function measure(chunks: Buffer[], limit = MAX_ANSWER_DEPTH): {deepest: number; within: boolean} {
  const gauge = new JsonDepthGauge(limit)
  let within = true
  for (const c of chunks) within &&= gauge.feed(c)
  return {deepest: gauge.deepest, within}
}

for (const row of rows) {
  test(`json depth, ${row.id}: ${row.deepest} in every split of the chunks`, () => {
    const bytes = Buffer.from(row.text)
    assert.equal(measure([bytes]).deepest, row.deepest, 'whole')
    for (let cut = 0; cut <= bytes.length; cut++) {
      assert.equal(measure([bytes.subarray(0, cut), bytes.subarray(cut)]).deepest, row.deepest, `split at ${cut}`)
    }
    assert.equal(measure([...bytes].map((b) => Buffer.from([b]))).deepest, row.deepest, 'byte by byte')
  })
}

test(`json depth: the limit is ${MAX_OBJECT_DEPTH} for an object, two more for a List around it`, () => {
  assert.equal(MAX_ANSWER_DEPTH, MAX_OBJECT_DEPTH + 2)
  const nested = (n: number) => Buffer.from(`${'['.repeat(n)}${']'.repeat(n)}`)
  assert.deepEqual(measure([nested(MAX_ANSWER_DEPTH)]), {deepest: MAX_ANSWER_DEPTH, within: true})
  assert.deepEqual(measure([nested(MAX_ANSWER_DEPTH + 1)]), {deepest: MAX_ANSWER_DEPTH + 1, within: false})
})

test('json depth: the gauge stops reading at the first level past its limit', () => {
  const gauge = new JsonDepthGauge(3)
  assert.equal(gauge.feed(Buffer.from('[[[')), true)
  assert.equal(gauge.feed(Buffer.from('[[[[[[')), false)
  assert.equal(gauge.deepest, 4)
})

test('valueNestsDeeper: parsed values, arrays and objects alike, the limit itself allowed', async () => {
  const {valueNestsDeeper} = await import('../../src/cluster/json-depth.js')
  const arrays = (d: number): unknown => JSON.parse('['.repeat(d) + ']'.repeat(d))
  const objects = (d: number): unknown => JSON.parse('{"a":'.repeat(d - 1) + '{}' + '}'.repeat(d - 1))
  for (const make of [arrays, objects]) {
    assert.equal(valueNestsDeeper(make(10), 10), false)
    assert.equal(valueNestsDeeper(make(11), 10), true)
    assert.equal(valueNestsDeeper(make(50_000)), true, 'far past the limit: stops there, no stack overflow')
  }
  assert.equal(valueNestsDeeper('text'), false)
  assert.equal(valueNestsDeeper(null), false)
})
