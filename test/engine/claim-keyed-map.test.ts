// ClaimKeyedMap: values by claim namespace, then name, as the controller keys claims by "namespace/name".
// A missing namespace or name is the empty string, as in claimToClaimKey; a "/" inside either never
// merges two claims (a string key would, and the callers would then have to tell them apart).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {ClaimKeyedMap} from '../../src/engine/api/claim-keyed-map.js'

type Key = [string | undefined, string | undefined]
type Step = ['set', Key, number] | ['delete', Key]

describe('ClaimKeyedMap', () => {
  const cases: Array<{name: string; steps: Step[]; lookups: Array<[Key, number | undefined]>}> = [
    {name: 'a value by namespace and name', steps: [['set', ['ns', 'a'], 1]], lookups: [[['ns', 'a'], 1], [['ns', 'b'], undefined], [['other', 'a'], undefined]]},
    {name: 'the same name in two namespaces', steps: [['set', ['x', 'a'], 1], ['set', ['y', 'a'], 2]], lookups: [[['x', 'a'], 1], [['y', 'a'], 2]]},
    {name: 'set again replaces', steps: [['set', ['ns', 'a'], 1], ['set', ['ns', 'a'], 2]], lookups: [[['ns', 'a'], 2]]},
    {name: 'undefined is the empty string', steps: [['set', [undefined, undefined], 1]], lookups: [[['', ''], 1], [[undefined, ''], 1]]},
    {name: 'a "/" does not merge claims', steps: [['set', ['a', 'b/c'], 1], ['set', ['a/b', 'c'], 2]], lookups: [[['a', 'b/c'], 1], [['a/b', 'c'], 2]]},
    {name: 'delete removes one name only', steps: [['set', ['ns', 'a'], 1], ['set', ['ns', 'b'], 2], ['delete', ['ns', 'a']]], lookups: [[['ns', 'a'], undefined], [['ns', 'b'], 2]]},
    {name: 'delete of a missing key changes nothing', steps: [['delete', ['none', 'a']], ['set', ['ns', 'a'], 1], ['delete', ['ns', 'z']]], lookups: [[['ns', 'a'], 1]]},
    {name: 'a name set again after a delete', steps: [['set', ['ns', 'a'], 1], ['delete', ['ns', 'a']], ['set', ['ns', 'a'], 3]], lookups: [[['ns', 'a'], 3]]},
  ]
  for (const c of cases) {
    it(c.name, () => {
      const map = new ClaimKeyedMap<number>()
      for (const step of c.steps) {
        if (step[0] === 'set') map.set(step[1][0], step[1][1], step[2])
        else map.delete(step[1][0], step[1][1])
      }
      for (const [[namespace, name], want] of c.lookups) assert.equal(map.get(namespace, name), want, `${namespace}/${name}`)
    })
  }
})
