// What a snapshot that lacks a kind leaves unsaid about explain's verdicts.
import type {ClaimExplanation, ExplainDocument} from './model.js'

/** A kind a snapshot may lack whose absence changes what a verdict may mean. */
export type MissingKind = 'StorageClass' | 'Pod' | 'Node'

/**
 * Marks each claim's verdict that rests on a kind the snapshot lacks: without StorageClasses a class is
 * "not found" because none was read; without Pods a claim has no consumer because none was read; without
 * Nodes no node is left to fit. The verdict stays the controller's (it is what the controller would decide
 * on that state); the caveat says what it may only mean.
 */
export function withMissingKindCaveats<D extends ExplainDocument>(doc: D, missing: ReadonlySet<MissingKind>): D {
  if (missing.size === 0) return doc
  const mark = (e: ClaimExplanation): ClaimExplanation => {
    const caveats: string[] = []
    if (
      missing.has('StorageClass') &&
      (e.verdict === 'StorageClassNotFound' ||
        (e.verdict === 'NoMatchingVolume' && e.storageClass.selection === 'Unset'))
    ) {
      caveats.push('the snapshot holds no StorageClass: the class may exist in the cluster')
    }
    if (missing.has('Pod') && (e.verdict === 'WaitForFirstConsumer' || e.verdict === 'WaitForPodScheduled')) {
      caveats.push(
        'the snapshot holds no Pod: a pod may use the claim in the cluster, and whether one names its node itself (bypassing the scheduler) could not be seen',
      )
    }
    if (missing.has('Node') && e.candidates.some((c) => c.reasons.some((r) => r.code === 'NodeAffinityMismatch'))) {
      caveats.push("the snapshot holds no Node: volumes' node affinity was checked against no node")
    }
    if (missing.has('Node') && e.selectedNode !== null && e.phase !== 'Bound') {
      caveats.push(
        `the snapshot holds no Node: whether node ${e.selectedNode}, the claim's selected-node, still exists could not be seen`,
      )
    }
    return caveats.length === 0 ? e : {...e, caveats}
  }
  if (doc.kind === 'ClaimExplanation') return mark(doc) as D
  if (doc.kind === 'List') return {...doc, items: doc.items.map(mark)}
  return doc
}
