// CheckNodeAffinity (component-helpers/storage/volume) and MatchNodeSelectorTerms
// (component-helpers/scheduling/corev1) for the scheduler path of FindMatchingVolume: does the volume's
// required node affinity admit a node with these labels?

interface NodeSelectorRequirement {
  key: string
  operator: string
  values?: string[] | null
}
interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[] | null
  matchFields?: NodeSelectorRequirement[] | null
}
interface VolumeNodeAffinity {
  required?: {nodeSelectorTerms?: NodeSelectorTerm[] | null} | null
}

export interface NodeInfo {
  name?: string
  labels?: Record<string, string> | null
}

/** undefined when the volume may be used on the node, else the Go error text. */
export function checkNodeAffinity(nodeAffinity: unknown, node: NodeInfo): string | undefined {
  const affinity = nodeAffinity as VolumeNodeAffinity | null | undefined
  if (affinity == null) return undefined
  if (affinity.required != null) {
    // Go builds a node from the labels alone (CheckNodeAffinity(pv, node.Labels)): matchFields on
    // metadata.name see an empty name.
    if (!matchNodeSelectorTerms({labels: node.labels}, affinity.required.nodeSelectorTerms ?? [])) {
      return 'no matching NodeSelectorTerms'
    }
  }
  return undefined
}

/**
 * The nodes a volume's required node affinity names by kubernetes.io/hostname (In), for words: empty when it
 * names none that way.
 */
export function affinityHostnames(nodeAffinity: unknown): string[] {
  const terms = (nodeAffinity as VolumeNodeAffinity | null | undefined)?.required?.nodeSelectorTerms ?? []
  return terms.flatMap((t) =>
    (t.matchExpressions ?? [])
      .filter((r) => r.key === 'kubernetes.io/hostname' && r.operator === 'In')
      .flatMap((r) => r.values ?? []),
  )
}

/** Whether a volume has a required node affinity and none of `nodes` satisfies it (false without nodes: not seen). */
export function admitsNoNode(nodeAffinity: unknown, nodes: readonly NodeInfo[]): boolean {
  return (
    (nodeAffinity as VolumeNodeAffinity | null | undefined)?.required != null &&
    nodes.length > 0 &&
    nodes.every((n) => checkNodeAffinity(nodeAffinity, n) !== undefined)
  )
}

/** Terms are ORed; within a term, requirements are ANDed; an empty term matches nothing. */
export function matchNodeSelectorTerms(node: NodeInfo, terms: readonly NodeSelectorTerm[]): boolean {
  return terms.some((term) => {
    const exprs = term.matchExpressions ?? []
    const fields = term.matchFields ?? []
    if (exprs.length === 0 && fields.length === 0) return false
    const labels = node.labels ?? {}
    if (!exprs.every((r) => matchRequirement(labels, r))) return false
    return fields.every((r) => r.key === 'metadata.name' && matchRequirement({'metadata.name': node.name ?? ''}, r))
  })
}

function matchRequirement(labels: Record<string, string>, req: NodeSelectorRequirement): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, req.key)
  const value = labels[req.key]
  const values = req.values ?? []
  // labels.NewRequirement rejects In/NotIn without values and Exists/DoesNotExist with values; Go turns
  // that parse error into "the term does not match".
  if ((req.operator === 'In' || req.operator === 'NotIn') && values.length === 0) return false
  if ((req.operator === 'Exists' || req.operator === 'DoesNotExist') && values.length > 0) return false
  switch (req.operator) {
    case 'In':
      return has && values.includes(value)
    case 'NotIn':
      return !has || !values.includes(value)
    case 'Exists':
      return has
    case 'DoesNotExist':
      return !has
    case 'Gt':
    case 'Lt': {
      if (!has || values.length !== 1) return false
      const left = parseInt64(value)
      const right = parseInt64(values[0])
      if (left === undefined || right === undefined) return false
      return req.operator === 'Gt' ? left > right : left < right
    }
    default:
      // An unknown operator is a parse error in Go, which makes the term not match.
      return false
  }
}

function parseInt64(s: string): bigint | undefined {
  return /^[+-]?\d+$/.test(s) ? BigInt(s) : undefined
}
