// diffJson: the RFC 6902 patch of a write, as the report prints it. Pointers are made once per distinct
// pointer and kept (up to a bound): a kept one must read exactly as a new one would, escapes included,
// before and after the bound is reached.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {diffJson} from '../../src/engine/simulation/json-patch.js'

describe('diffJson', () => {
  const cases: Array<{name: string; before: unknown; after: unknown; ignored?: string; want: unknown}> = [
    {name: 'nothing changed', before: {a: {b: 1}}, after: {a: {b: 1}}, want: []},
    {
      name: 'a field added, one removed, one replaced',
      before: {a: 1, b: 2},
      after: {b: 3, c: 4},
      want: [
        {op: 'remove', path: '/a'},
        {op: 'replace', path: '/b', value: 3},
        {op: 'add', path: '/c', value: 4},
      ],
    },
    {
      name: 'nested objects are walked',
      before: {status: {phase: 'Pending'}},
      after: {status: {phase: 'Bound'}},
      want: [{op: 'replace', path: '/status/phase', value: 'Bound'}],
    },
    {
      name: 'the same pointer again reads the same',
      before: {status: {phase: 'Bound'}},
      after: {status: {phase: 'Lost'}},
      want: [{op: 'replace', path: '/status/phase', value: 'Lost'}],
    },
    {
      name: '"/" and "~" in keys are escaped',
      before: {metadata: {annotations: {}}},
      after: {metadata: {annotations: {'pv.kubernetes.io/bound-by-controller': 'yes', 'a~b': 'c'}}},
      want: [
        {op: 'add', path: '/metadata/annotations/pv.kubernetes.io~1bound-by-controller', value: 'yes'},
        {op: 'add', path: '/metadata/annotations/a~0b', value: 'c'},
      ],
    },
    {
      name: 'arrays are replaced whole',
      before: {f: ['a']},
      after: {f: ['a', 'b']},
      want: [{op: 'replace', path: '/f', value: ['a', 'b']}],
    },
    {
      name: 'the ignored path is left out',
      before: {metadata: {resourceVersion: '1', uid: 'u'}},
      after: {metadata: {resourceVersion: '2', uid: 'v'}},
      ignored: '/metadata/resourceVersion',
      want: [{op: 'replace', path: '/metadata/uid', value: 'v'}],
    },
  ]
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(diffJson(c.before, c.after, c.ignored), c.want))
  }

  it('pointers past the number kept are built each time, the same text', () => {
    // More distinct keys than the pointers kept, each diffed twice: the second time some come from the
    // kept ones and the rest are built again.
    const keys = Array.from({length: 12_000}, (_, i) => `k${i}/x~${i}`)
    const after = Object.fromEntries(keys.map((k) => [k, 1]))
    const want = keys.map((k) => ({op: 'add', path: `/labels/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, value: 1}))
    for (let pass = 0; pass < 2; pass++) assert.deepEqual(diffJson({labels: {}}, {labels: after}), want, `pass ${pass}`)
  })
})
