// The cluster as the controller sees it, as Go's PersistentVolumeController sees a clientset (kubeClient), its
// informers' listers and caches (volumes, claims, classes, nodes, the pod index), its scheduled operations
// (goroutinemap) and an EventRecorder. The simulated cluster (engine/simulation) is the one that answers it:
// it records each write, operation and event as the plan.
import type {Node, ObjectReference, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass} from '../api/model.js'
import type {VolumeIndex} from '../matching/volume-index.js'

export type ObjectKind = 'PersistentVolume' | 'PersistentVolumeClaim'

/** An object the controller writes, operates on or records an event about. */
export interface ObjectRef {
  kind: ObjectKind
  namespace?: string
  name: string
}

/** The write kinds of docs/output-contract.md (new ones may be added). */
export type ActionType =
  | 'bind-volume'
  | 'bind-claim'
  | 'set-volume-phase'
  | 'set-claim-phase'
  | 'unbind-volume'
  | 'assign-storage-class'
  | 'set-provisioner'
  | 'set-migration-annotation'
  | 'add-finalizer'
  | 'remove-finalizer'
  | 'recycle'
  | 'delete'
  | 'provision'
  | 'create-volume'
  | 'delete-volume'
  | 'reschedule-provisioning'

/** The actions a volume plugin carries out (asynchronous in the controller): planned, not written. */
export type OperationType = Extract<ActionType, 'recycle' | 'delete' | 'provision'>

export type EventType = 'Normal' | 'Warning'

/** A write the API server refuses, as the error text client-go returns (a Go `error` for the controller). */
export class ApiError extends Error {}

export function volumeRef(volume: PersistentVolume): ObjectRef {
  return {kind: 'PersistentVolume', name: volume.metadata.name ?? ''}
}

export function claimRefOf(claim: PersistentVolumeClaim): ObjectRef {
  return {kind: 'PersistentVolumeClaim', namespace: claim.metadata.namespace ?? '', name: claim.metadata.name ?? ''}
}

/** One object's entry in the informer cache, as a sync is handed it: the controller hands it back to the cluster. */
export interface CachedObject<T> {
  readonly key: string
  readonly object: T | undefined
}

export interface ClusterClient {
  /** The classes' and nodes' listers. */
  readonly classes: ReadonlyMap<string, StorageClass>
  readonly nodes: ReadonlyMap<string, Node>

  /**
   * A sync of the object of that cache entry begins; false: it need not run (nothing it reads changed since
   * it last ran), and the caller neither runs it nor calls endSync.
   */
  beginSync(prefix: 'pvc/', entry: CachedObject<PersistentVolumeClaim>): boolean
  beginSync(prefix: 'pv/', entry: CachedObject<PersistentVolume>): boolean
  endSync(): void

  /** The cached objects, as a sync reads them. */
  claimIn(entry: CachedObject<PersistentVolumeClaim>): PersistentVolumeClaim | undefined
  volumeIn(entry: CachedObject<PersistentVolume>): PersistentVolume | undefined
  volume(name: string): PersistentVolume | undefined
  /** The claim a claimRef names (claimrefToClaimKey). */
  claimOf(ref: ObjectReference): PersistentVolumeClaim | undefined
  /** podIndexer.ByIndex(PodPVCIndex, key). */
  podsByClaim(key: string): readonly Pod[]
  /** The volumes, indexed for findMatchingVolume (volumes.findBestMatchForClaim). */
  volumeIndex(): VolumeIndex

  /** claimQueue.Add: the claim is synced again soon. */
  requeueClaim(key: string): void
  /** runningOperations.IsOperationPending. */
  isOperationRunning(name: string): boolean
  operationStarted(name: string): void

  /** kubeClient's Update / UpdateStatus, then the cache's update. Throws ApiError where the API server refuses the write. */
  updateVolume(type: ActionType, volume: PersistentVolume, reason: string, subresource?: 'status'): PersistentVolume
  updateClaim(
    type: ActionType,
    claim: PersistentVolumeClaim,
    reason: string,
    subresource?: 'status',
  ): PersistentVolumeClaim
  createVolume(volume: PersistentVolume, reason: string): PersistentVolume
  deleteVolume(name: string, reason: string): void
  /** An asynchronous operation (recycle, delete, provision) handed to `plugin`. */
  planOperation(type: OperationType, ref: ObjectRef, plugin: string, reason: string, resourceVersion?: string): void

  /** eventRecorder.Event. */
  recordEvent(ref: ObjectRef, type: EventType, reason: string, message: string): void
  /** A sync that returned an error (retried on the next sync). */
  recordError(ref: ObjectRef, message: string): void
}
