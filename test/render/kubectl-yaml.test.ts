// kubectlYaml lays out maps and lists itself and leaves strings to the `yaml` library's stringifyString:
// the result must be the library's stringify with the same options (the oracle, what pvctl printed
// before), whatever the data holds — words YAML 1.1 reads as booleans or numbers, timestamps, quotes,
// colons, comment marks, document markers, control characters, several lines, empty maps and lists.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import fc from 'fast-check'
import {stringify} from 'yaml'

import {KUBECTL_YAML_OPTIONS, kubectlYaml} from '../../src/render/kubectl-yaml.js'
import {propertyRuns} from '../engine/differential-arbitraries.js'

const oracle = (value: unknown) => stringify(value, KUBECTL_YAML_OPTIONS)

/** Strings that make YAML choose a style: plain, single or double quotes, a block scalar. */
const awkward = fc.constantFrom(
  '',
  ' ',
  'yes',
  'No',
  'on',
  'OFF',
  'y',
  'true',
  'null',
  '~',
  '0755',
  '0x1F',
  '1e3',
  '1_000',
  '.5',
  '-',
  '?',
  '- a',
  '? a',
  'a: b',
  'a:',
  ':a',
  '#',
  'a #b',
  'a#b',
  '2024-01-01',
  '2024-01-01T00:00:00Z',
  "it's",
  'say "hi"',
  `both ' and "`,
  ' lead',
  'trail ',
  'tab\there',
  'bell\u0007',
  '\u0085',
  '\u00a0',
  'line1\nline2',
  'line1\n\nline3\n',
  '\n',
  '\nlead',
  'keep\n\n',
  ' spaced\nlines ',
  '---',
  '--- x',
  '...',
  '%YAML',
  'a\n---\nb',
  '[x]',
  '{x}',
  'a, b',
  '*ref',
  '&anchor',
  '!tag',
  '|',
  '>',
  '@at',
  '`tick`',
  'héllo ≠ ボリューム',
  'a'.repeat(1100),
  '\ud800',
  '<<',
  '<< x',
  '=',
)
const text = fc.oneof(awkward, fc.string(), fc.string({unit: 'grapheme'}), fc.stringMatching(/^[a-z0-9.:/ -]{0,12}$/))
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    {depthSize: 'small'},
    text,
    fc.integer(),
    fc.double({noNaN: true, noDefaultInfinity: true}),
    fc.boolean(),
    fc.constant(null),
    tie('list'),
    tie('map'),
  ),
  list: fc.array(tie('value'), {maxLength: 4}),
  map: fc.dictionary(text, tie('value'), {maxKeys: 5}),
})).value

describe('kubectlYaml', () => {
  it('prints what the yaml library prints, for any JSON document', () => {
    fc.assert(
      fc.property(fc.oneof(fc.dictionary(text, json, {maxKeys: 6}), fc.array(json, {maxLength: 6})), (doc) => {
        assert.equal(kubectlYaml(doc), oracle(doc))
      }),
      {numRuns: propertyRuns(3000)},
    )
  })

  it('prints the same for maps of nulls only, and for what the library lays out itself (long keys, keys over lines, non-JSON values)', () => {
    const cases: unknown[] = [
      {a: null},
      {outer: {a: null, b: null}, c: 1},
      {['k'.repeat(1100)]: 'v'},
      {'two\nlines': 'v'},
      [1, undefined, 2],
      {when: new Date(0)},
      {n: Number.NaN, i: Number.POSITIVE_INFINITY},
      'a scalar document',
      42,
      null,
    ]
    for (const doc of cases) assert.equal(kubectlYaml(doc), oracle(doc), JSON.stringify(doc))
  })

  it('prints a short value without spaces the same at every depth, worked out once or not', () => {
    const values = [
      'yes',
      '0755',
      '1e3',
      '-',
      '?',
      'a:',
      ':a',
      '#',
      'a#b',
      "it's",
      'x"y',
      '---',
      '---x',
      '...',
      '%YAML',
      '*ref',
      '&a',
      '!t',
      '|',
      '>',
      '@at',
      '<<',
      'x'.repeat(64),
      'y'.repeat(65),
      '2024-01-01T00:00:00Z',
    ]
    for (const v of values) {
      const doc = {a: v, b: {c: v, d: {e: [v, {f: v, g: [[v]]}]}}}
      // Twice: the second time from what was remembered of the first.
      assert.equal(kubectlYaml(doc), oracle(doc), v)
      assert.equal(kubectlYaml([v, doc]), oracle([v, doc]), v)
    }
  })

  it('gives a key that looks like a document marker the quotes the library gives it at each depth', () => {
    const doc = {'---x': {'---x': 'v', '...': ['---x']}, '%p': {'%p': 1}}
    assert.equal(kubectlYaml(doc), oracle(doc))
    // Twice: the second time from what was remembered of the first.
    assert.equal(kubectlYaml(doc), oracle(doc))
  })
})
