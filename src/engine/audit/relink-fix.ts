// The fix that offers `pvctl relink` where relink's decision allows it (ClaimLost, ClaimMisbound,
// VolumeClaimRefUidMismatch, RestoredUidMismatch, ...). PURE.
import type {FeatureGates} from '../api/feature-gates.js'
import type {ClusterState} from '../api/model.js'
import {type ClusterLookup, clusterLookup} from '../explain/lookup.js'
import {decideRelink, relinkCommand, type RelinkTarget} from '../repair/relink.js'

/** `pvctl relink …` for a target where relink's decision on the state allows it; else undefined (the finding keeps its other fix). */
export type RelinkFix = (target: RelinkTarget) => string | undefined

/** `lookup`: the state indexed once for every fix asked of it (audit asks for every Released volume and Lost claim). */
export function relinkFixOn(
  state: ClusterState,
  gates: FeatureGates,
  source: string,
  lookup: ClusterLookup = clusterLookup(state),
): RelinkFix {
  return (target) =>
    decideRelink({state, target, gates, lookup})?.allowed === true ? relinkCommand(target, source) : undefined
}
