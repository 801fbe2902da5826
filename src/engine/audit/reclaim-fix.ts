// The fix that offers `pvctl reclaim pv/X --for NS/CLAIM` where reclaim's decision allows it: a claim that
// names a volume held back only by the stale claimRef of a claim that is gone. PURE.
import type {FeatureGates} from '../api/feature-gates.js'
import type {ClusterState} from '../api/model.js'
import {type ClaimName, decideReclaim} from '../repair/reclaim.js'

/** `pvctl reclaim pv/VOLUME --for NS/CLAIM …` where reclaim's decision on the state allows it; else undefined. */
export type ReclaimFix = (volume: string, target: ClaimName) => string | undefined

/**
 * The VolumeAttachments are not read here (the reclaim reads them when it is run, and its guard again before
 * it writes); the pods are judged when the state holds any.
 */
export function reclaimFixOn(state: ClusterState, gates: FeatureGates, steps: ReleaseSteps): ReclaimFix {
  const pods = state.pods.length > 0 ? {observed: true as const} : {observed: false as const, reason: 'the state holds no Pod'}
  return (volume, target) => {
    const d = decideReclaim({state, volumeName: volume, target, force: new Set(), attachments: {observed: false, reason: 'not read by audit'}, pods, gates})
    return d?.allowed === true ? afterRelease(volume, steps, `pvctl reclaim pv/${volume} --for ${target.namespace}/${target.name}${steps.source}`) : undefined
  }
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
