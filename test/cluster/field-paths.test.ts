// compileFieldPaths: walking a key sequence through the tree says whether it names a field of the set, the
// same answer as filtering the list of paths key by key (what the snapshot loader did before).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {childOf, compileFieldPaths, type FieldPath, type FieldPathNode} from '../../src/cluster/field-paths.js'

/** The reference: filter the paths at every key ('*' matches any key). */
function matchesByFilter(paths: readonly FieldPath[], keys: readonly string[]): boolean {
  let left = paths
  for (const [depth, key] of keys.entries()) {
    left = left.filter((p) => p.length > depth && (p[depth] === '*' || p[depth] === key))
  }
  return left.some((p) => p.length === keys.length)
}

function matchesByTree(tree: FieldPathNode, keys: readonly string[]): boolean {
  let node: FieldPathNode | undefined = tree
  for (const key of keys) node = node === undefined ? undefined : childOf(node, key)
  return node?.leaf ?? false
}

const paths: FieldPath[] = [
  ['metadata', 'name'],
  ['metadata', 'labels', '*'],
  ['spec', 'selector', 'matchLabels', '*'],
  ['spec', 'selector', 'matchExpressions', '*', 'values', '*'],
  // A named key beside a wildcard at the same level: the named one matches both.
  ['spec', 'capacity', '*'],
  ['spec', 'capacity', 'storage', 'unit'],
]

const cases: Array<{keys: string[]; want: boolean}> = [
  {keys: ['metadata', 'name'], want: true},
  {keys: ['metadata'], want: false},
  {keys: ['metadata', 'namespace'], want: false},
  {keys: ['metadata', 'labels', 'tier'], want: true},
  {keys: ['metadata', 'labels', '__proto__'], want: true},
  {keys: ['metadata', 'labels', 'tier', 'x'], want: false},
  {keys: ['spec', 'selector', 'matchExpressions', '0', 'values', '3'], want: true},
  {keys: ['spec', 'selector', 'matchExpressions', '0', 'key'], want: false},
  {keys: ['spec', 'capacity', 'storage'], want: true},
  {keys: ['spec', 'capacity', 'storage', 'unit'], want: true},
  {keys: ['spec', 'capacity', 'cpu', 'unit'], want: false},
  {keys: ['status', 'capacity', 'storage'], want: false},
  {keys: [], want: false},
]

describe('compileFieldPaths', () => {
  const tree = compileFieldPaths(paths)
  for (const {keys, want} of cases) {
    it(`${keys.join('.') || '(the object)'}: ${want ? 'a field of the set' : 'not one'}`, () => {
      assert.equal(matchesByFilter(paths, keys), want, 'the reference disagrees with the table')
      assert.equal(matchesByTree(tree, keys), want)
    })
  }

  it('an empty set matches nothing, and leads nowhere', () => {
    const empty = compileFieldPaths([])
    assert.equal(empty.leaf, false)
    assert.equal(childOf(empty, 'metadata'), undefined)
  })
})
