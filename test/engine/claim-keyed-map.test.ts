// ClaimKeyedMap: values by claim namespace, then name, as the controller keys claims by "namespace/name".
// A missing namespace or name is the empty string, as in claimToClaimKey; a "/" inside either never
// merges two claims (a string key would, and the callers would then have to tell them apart).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {ClaimKeyedMap, ClaimKeyIndex} from '../../src/engine/api/claim-keyed-map.js'

type Key = [string | undefined, string | undefined]
type Step = ['set', Key, number] | ['delete', Key]

describe('ClaimKeyedMap', () => {
  const cases: Array<{name: string; steps: Step[]; lookups: Array<[Key, number | undefined]>}> = [
    {
      name: 'a value by namespace and name',
      steps: [['set', ['ns', 'a'], 1]],
      lookups: [
        [['ns', 'a'], 1],
        [['ns', 'b'], undefined],
        [['other', 'a'], undefined],
      ],
    },
    {
      name: 'the same name in two namespaces',
      steps: [
        ['set', ['x', 'a'], 1],
        ['set', ['y', 'a'], 2],
      ],
      lookups: [
        [['x', 'a'], 1],
        [['y', 'a'], 2],
      ],
    },
    {
      name: 'set again replaces',
      steps: [
        ['set', ['ns', 'a'], 1],
        ['set', ['ns', 'a'], 2],
      ],
      lookups: [[['ns', 'a'], 2]],
    },
    {
      name: 'undefined is the empty string',
      steps: [['set', [undefined, undefined], 1]],
      lookups: [
        [['', ''], 1],
        [[undefined, ''], 1],
      ],
    },
    {
      name: 'a "/" does not merge claims',
      steps: [
        ['set', ['a', 'b/c'], 1],
        ['set', ['a/b', 'c'], 2],
      ],
      lookups: [
        [['a', 'b/c'], 1],
        [['a/b', 'c'], 2],
      ],
    },
    {
      name: 'delete removes one name only',
      steps: [
        ['set', ['ns', 'a'], 1],
        ['set', ['ns', 'b'], 2],
        ['delete', ['ns', 'a']],
      ],
      lookups: [
        [['ns', 'a'], undefined],
        [['ns', 'b'], 2],
      ],
    },
    {
      name: 'delete of a missing key changes nothing',
      steps: [
        ['delete', ['none', 'a']],
        ['set', ['ns', 'a'], 1],
        ['delete', ['ns', 'z']],
      ],
      lookups: [[['ns', 'a'], 1]],
    },
    {
      name: 'a name set again after a delete',
      steps: [
        ['set', ['ns', 'a'], 1],
        ['delete', ['ns', 'a']],
        ['set', ['ns', 'a'], 3],
      ],
      lookups: [[['ns', 'a'], 3]],
    },
  ]
  for (const c of cases) {
    it(c.name, () => {
      const map = new ClaimKeyedMap<number>()
      for (const step of c.steps) {
        if (step[0] === 'set') map.set(step[1][0], step[1][1], step[2])
        else map.delete(step[1][0], step[1][1])
      }
      for (const [[namespace, name], want] of c.lookups)
        assert.equal(map.get(namespace, name), want, `${namespace}/${name}`)
    })
  }
})

// ClaimKeyIndex answers as a Map of the "namespace/name" strings does, "/" inside a namespace or name included.
describe('ClaimKeyIndex', () => {
  const cases: Array<{name: string; sets: Array<[string, string, number]>; lookups: Array<[string, string]>}> = [
    {
      name: 'keys without "/"',
      sets: [
        ['ns', 'a', 1],
        ['ns', 'b', 2],
        ['other', 'a', 3],
        ['ns', 'a', 4],
      ],
      lookups: [
        ['ns', 'a'],
        ['ns', 'b'],
        ['other', 'a'],
        ['ns', 'c'],
        ['', ''],
      ],
    },
    {
      name: 'an asked key with "/" finds nothing stored without one',
      sets: [
        ['a', 'b', 1],
        ['a', 'c', 2],
      ],
      lookups: [
        ['a/b', ''],
        ['', 'a/b'],
        ['a', 'b/c'],
        ['a', 'b'],
      ],
    },
    {
      name: 'a stored name with "/" merges as the strings do',
      sets: [
        ['a', 'b/c', 1],
        ['a/b', 'c', 2],
        ['x', 'y', 3],
      ],
      lookups: [
        ['a', 'b/c'],
        ['a/b', 'c'],
        ['a/b/c', ''],
        ['x', 'y'],
      ],
    },
    {
      name: 'keys stored before the first "/" are kept',
      sets: [
        ['x', 'y', 1],
        ['x', 'z', 2],
        ['p/q', 'r', 3],
        ['x', 'y', 4],
      ],
      lookups: [
        ['x', 'y'],
        ['x', 'z'],
        ['p', 'q/r'],
        ['p/q', 'r'],
      ],
    },
    {
      name: 'empty namespace and name',
      sets: [
        ['', '', 1],
        ['', 'a', 2],
      ],
      lookups: [
        ['', ''],
        ['', 'a'],
        ['a', ''],
      ],
    },
  ]
  for (const c of cases) {
    it(c.name, () => {
      const index = new ClaimKeyIndex<number>()
      const strings = new Map<string, number>()
      for (const [namespace, name, value] of c.sets) {
        index.set(namespace, name, value)
        strings.set(`${namespace}/${name}`, value)
      }
      for (const [namespace, name] of c.lookups)
        assert.equal(index.get(namespace, name), strings.get(`${namespace}/${name}`), `${namespace}/${name}`)
    })
  }
})
