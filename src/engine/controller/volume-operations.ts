// The work a volume plugin does, as a port. Without it the engine stops where the controller would
// start a goroutine and plans a `recycle`, `delete` or `provision` action; with it (the conformance
// mock plugin, later the executor's plugins) the operation runs to the end synchronously and the
// controller's follow-up writes — unbind after a recycle, remove the finalizer and the PV after a
// delete, create the PV after a provision — are planned too. Implementations used by the engine must be
// pure (the mock plugin consumes call lists; a real plugin runs in the executor instead).
import type {PersistentVolume, PersistentVolumeClaim, StorageClass} from '../api/model.js'

export interface ProvisionOptions {
  pvName: string
  claim: PersistentVolumeClaim
  storageClass: StorageClass
  /** The node the scheduler picked (AnnSelectedNode), if any. */
  selectedNode?: string
}

export interface VolumeOperations {
  /** plugin.Recycle: undefined on success, else the error text. */
  recycle(pluginName: string, volume: PersistentVolume): string | undefined
  /** plugin.NewDeleter then Delete(). `newDeleter` errors and `delete` errors are told apart, as Go does. */
  delete(
    pluginName: string,
    volume: PersistentVolume,
  ): {newDeleterError?: string; deleteError?: string; inUse?: boolean}
  /** plugin.NewProvisioner then Provision(): the new volume, or the error of either step. */
  provision(
    pluginName: string,
    options: ProvisionOptions,
  ): {newProvisionerError?: string; provisionError?: string; volume?: PersistentVolume}
}

/** An API error injected into a write the controller makes (the Go tests' reactor errors). */
export interface ApiFault {
  /** The error text, and for AlreadyExists the reason the controller checks. */
  error: string
  reason?: string
}

export type ApiFaults = (
  verb: 'create' | 'update' | 'delete',
  resource: 'persistentvolumes' | 'persistentvolumeclaims',
) => ApiFault | undefined
