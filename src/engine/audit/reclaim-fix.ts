// The fix that offers `pvctl reclaim pv/X [--for NS/CLAIM]` where reclaim's decision allows it: a claim that
// names a volume held back only by the stale claimRef of a claim that is gone, a Released volume kept. PURE.
import type {FeatureGates} from '../api/feature-gates.js'
import type {ClusterState, PersistentVolume} from '../api/model.js'
import type {ClusterLookup} from '../explain/lookup.js'
import {type ClaimName, decideReclaim, reclaimCommand} from '../repair/reclaim.js'

/** `pvctl reclaim pv/VOLUME [--for NS/CLAIM] …` where reclaim's decision on the state allows it; else undefined. */
export type ReclaimFix = (volume: string, target: ClaimName | undefined) => string | undefined

/**
 * The VolumeAttachments are not read here (the reclaim reads them when it is run, and its guard again before
 * it writes); the pods are judged when the state holds any.
 */
export function reclaimFixOn(
  state: ClusterState,
  lookup: ClusterLookup,
  gates: FeatureGates,
  steps: ReleaseSteps,
): ReclaimFix {
  const pods =
    state.pods.length > 0 ? {observed: true as const} : {observed: false as const, reason: 'the state holds no Pod'}
  let decided = 0
  return (volume, target) => {
    // Each decision plans the whole edited cluster: only for a volume a stale claimRef holds, and a few of them.
    const v = lookup.volumeByName(volume)
    if (v === undefined || !heldByStaleClaimRef(lookup, v) || decided >= MAX_RECLAIMS_DECIDED) return undefined
    decided++
    const d = decideReclaim({
      state,
      volumeName: volume,
      target,
      force: new Set(),
      attachments: {observed: false, reason: 'not read by audit'},
      pods,
      gates,
      source: steps.source,
    })
    return d?.allowed === true ? afterRelease(volume, steps, reclaimCommand(volume, target, steps.source)) : undefined
  }
}

/**
 * How many reclaims one audit decides for its fixes: each is the controller's plan on the whole edited
 * cluster (about a second at 10k volumes). Past them, a fix is `pvctl explain`, which offers the reclaim.
 */
export const MAX_RECLAIMS_DECIDED = 16

/** Released or Failed, not being deleted, and its claimRef names a claim that is gone (or re-created). */
function heldByStaleClaimRef(lookup: ClusterLookup, v: PersistentVolume): boolean {
  const ref = v.spec.claimRef
  const phase = v.status?.phase
  if (
    ref == null ||
    (ref.uid ?? '') === '' ||
    v.metadata.deletionTimestamp != null ||
    (phase !== 'Released' && phase !== 'Failed')
  )
    return false
  return lookup.claimNamed(ref.namespace ?? '', ref.name ?? '')?.metadata.uid !== ref.uid
}

/** What a fix needs to say the steps of a repair in order: the volumes' phases as read, the source flags. */
export interface ReleaseSteps {
  /** A volume's phase as read, before the plan (the judge's state is the one after it). */
  phaseAsRead: (volume: string) => string | null | undefined
  /** ` -f FILE` and the like, for the pvctl commands a fix prints. */
  source: string
}

/**
 * A repair of a volume that is Released only once the plan's release is written: reclaim judges the volume
 * as read, and refuses a Bound one. The steps in order: the controller's sync of the volume first (on a
 * snapshot, a simulation that exits 1, so `&&` goes no further: the repair is then for the cluster the
 * snapshot was taken of).
 */
export function afterRelease(volume: string, {phaseAsRead, source}: ReleaseSteps, repair: string): string {
  const asRead = phaseAsRead(volume)
  return asRead === 'Released' || asRead === 'Failed' ? repair : `pvctl sync pv/${volume}${source} && ${repair}`
}
