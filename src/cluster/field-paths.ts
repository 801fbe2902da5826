// A set of field paths (`['metadata', 'labels', '*']`, '*' for any key or index) compiled once into a tree,
// so that walking an object along them costs one map lookup per key. The snapshot loader walks every
// object of a 100k-volume dump along such paths; filtering the list of paths at every key was a
// measurable share of its time.

export type FieldPath = readonly string[]

export interface FieldPathNode {
  /** A path ends here: this field is one of the set. */
  readonly leaf: boolean
  /** Where each key leads; a key absent here leads where '*' does. */
  readonly children: ReadonlyMap<string, FieldPathNode>
  /** The keys of `children`, in order: a list to walk without an iterator. */
  readonly named: readonly string[]
  readonly any: FieldPathNode | undefined
}

interface MutableNode {
  leaf: boolean
  children: Map<string, MutableNode>
  named: string[]
  any: MutableNode | undefined
}

/** The tree of `paths`; a named key also gets what '*' holds at its level, as it matches both. */
export function compileFieldPaths(paths: readonly FieldPath[]): FieldPathNode {
  return build(paths)
}

function build(paths: readonly FieldPath[]): MutableNode {
  const node: MutableNode = {leaf: paths.some((p) => p.length === 0), children: new Map(), named: [], any: undefined}
  const longer = paths.filter((p) => p.length > 0)
  const wildcard = longer.filter((p) => p[0] === '*').map((p) => p.slice(1))
  if (wildcard.length > 0) node.any = build(wildcard)
  for (const key of new Set(longer.map((p) => p[0]).filter((k) => k !== '*'))) {
    node.children.set(key, build([...longer.filter((p) => p[0] === key).map((p) => p.slice(1)), ...wildcard]))
    node.named.push(key)
  }
  return node
}

/** Where `key` leads from `node`, or undefined when no path goes on through it. */
export function childOf(node: FieldPathNode, key: string): FieldPathNode | undefined {
  return node.children.get(key) ?? node.any
}
