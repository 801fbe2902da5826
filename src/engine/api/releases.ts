// Where the controller's own code (pv_controller.go, index.go, component-helpers' FindMatchingVolume)
// changed between the releases pvctl decides as, apart from its gates' defaults (feature-gates.ts). Each
// branch that depends on one is tagged `// RELEASE <name>` where the engine takes it, as the controller's
// branches carry their test-set ids, so that one grep finds every decision that moved.
import type {FeatureGates} from './feature-gates.js'

export const RELEASE_CHANGES = {
  /**
   * v1.30: findDeletablePlugin leaves a volume migrated to CSI (pv.kubernetes.io/migrated-to) or with a CSI
   * source to its external deleter, instead of looking for an in-tree deleter of its source.
   */
  deleterLeavesMigratedAndCSI: 30,
  /**
   * v1.31: the VolumeAttributesClass takes part in binding. FindMatchingVolume (component-helpers v0.31)
   * and checkVolumeSatisfyClaim compare it (or, with the gate off, refuse it), updateClaimStatus records it
   * in status.currentVolumeAttributesClassName. Before, the controller never looks at it.
   */
  volumeAttributesClassBinding: 31,
  /**
   * v1.36: deleteVolumeOperation looks for the deleter before it reads the volume again (a volume without
   * one is marked Failed at once), and provisionClaimOperation's clean-up of a volume it could not save
   * tries the deletion up to createProvisionedPVRetryCount times (before, the first failure ended it:
   * doDeleteVolume answered `deleted: false` with its error).
   */
  deleterFoundFirst: 36,
  /** v1.36: the controller's metric volume_operation_total_errors is deprecated for volume_operation_errors_total. */
  operationErrorsMetricRenamed: 36,
} as const

export type ReleaseChange = keyof typeof RELEASE_CHANGES

/** Whether the release the gates are those of has the change. */
export function hasChange(gates: Pick<FeatureGates, 'version'>, change: ReleaseChange): boolean {
  return gates.version >= RELEASE_CHANGES[change]
}

/**
 * How FindMatchingVolume treats VolumeAttributesClasses: compared (`equal`, the gate on), a volume that has
 * one refused (`none`, the gate off), or not looked at (`unchecked`, before v1.31).
 */
export type VACMatching = 'equal' | 'none' | 'unchecked'

export function vacMatching(gates: FeatureGates): VACMatching {
  // RELEASE volumeAttributesClassBinding
  if (!hasChange(gates, 'volumeAttributesClassBinding')) {
    return 'unchecked'
  } else {
    return gates.VolumeAttributesClass ? 'equal' : 'none'
  }
}
