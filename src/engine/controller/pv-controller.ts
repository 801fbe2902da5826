// The PersistentVolume controller's decisions: a line-by-line port of pv_controller.go (v1.31) and the
// annealing functions of pv_controller_base.go. Function names are the Go names, so one grep finds a
// decision in both codebases; "// OBSERVATION" and "// [Unit test set N]" comments are kept where the Go
// code has them, and the conformance cases carry the same ids. A branch that differs by release is tagged
// "// RELEASE <change>" (api/releases.ts) and taken by the version of the gates (FeatureGates.version).
//
// KEEP THE SPACE SHUTTLE FLYING: every `if` has its `else`, even when it does nothing, because each
// branch is a state of the bidirectional PV <-> PVC pointer that someone once had to reason about.
//
// Differences by design (docs/design.md):
// - A Go `return err` becomes a thrown ControllerError, caught once per sync and reported as a sync
//   error; the object is retried on the next round, as the work queue would.
// - Asynchronous operations (recycle, delete, provision through a plugin) run their checks here and then
//   become planned actions; without a VolumeOperations port nothing more happens to the object.
// - Writes never conflict: the simulated cluster is the API server and the cache at once.
import {
  AnnBetaStorageProvisioner,
  AnnBindCompleted,
  AnnBoundByController,
  AnnDynamicallyProvisioned,
  AnnMigratedTo,
  AnnPreResizeCapacity,
  AnnSelectedNode,
  AnnStorageProvisioner,
  Events,
  PVDeletionInTreeProtectionFinalizer,
} from '../api/constants.js'
import {
  applyMigrationAnnotationChange,
  CSIMigration,
  migrationAnnotationChange,
  type MigrationPolicy,
  modifyDeletionFinalizers,
  updateMigrationAnnotations,
} from './csi-migration.js'
import type {FeatureGates} from '../api/feature-gates.js'
import {hasChange, vacMatching} from '../api/releases.js'
import {jsonEqual} from '../api/json-equal.js'
import {
  claimKey,
  claimRefKey,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type StorageClass,
} from '../api/model.js'
import {compareQuantities, isValidQuantity, quantityValue} from '../api/quantity.js'
import {
  type ActionType,
  ApiError,
  type CachedObject,
  claimRefOf,
  type ClusterClient,
  volumeRef,
} from './cluster-client.js'
import {
  checkAccessModes,
  checkVolumeModeMismatches,
  copyForStatusWrite,
  copyForWrite,
  copyOnWrite,
  deepCopy,
  getBindVolumeToClaim,
  getClaimReference,
  getDefaultClass,
  getPersistentVolumeClaimClass,
  getPersistentVolumeClass,
  hasAnnotation,
  isDelayBindingProvisioning,
  isPodTerminated,
  isVolumeBoundToClaim,
  persistentVolumeClaimHasClass,
  setMetaDataAnnotation,
} from '../api/storage-helpers.js'
import {claimVAC, MatchError, storageQuantity, type VolumeIndex, volumeVAC} from '../matching/volume-index.js'
import type {ApiFaults, VolumeOperations} from './volume-operations.js'
import type {VolumePlugin, VolumePluginMgr} from './volume-plugins.js'

/** The default CSI migration of each gates: it keeps nothing but them, and loop mode makes a controller per sync. */
const migrations = new WeakMap<FeatureGates, CSIMigration>()

function migrationOf(gates: FeatureGates): CSIMigration {
  let migration = migrations.get(gates)
  if (migration === undefined) {
    migration = new CSIMigration(gates)
    migrations.set(gates, migration)
  } else {
    // Made for these gates before.
  }
  return migration
}

/** A Go `error` return of a sync: the object stays as it is and is synced again later. */
export class ControllerError extends Error {}

export interface ControllerOptions {
  gates: FeatureGates
  plugins: VolumePluginMgr
  /** kube-controller-manager --enable-dynamic-provisioning (default true). */
  enableDynamicProvisioning: boolean
  /** Runs plugin operations to the end; without it they are planned as actions. */
  operations?: VolumeOperations
  /** Errors to inject into the controller's API writes (the Go tests' reactor errors). */
  apiFaults?: ApiFaults
  /** CSI migration as the Go tests mock it; by default v1.31's plugin manager and translator. */
  migration?: MigrationPolicy
}

/**
 * Why a write is made, for the plan. A no-op sync (most syncs of a converged cluster) writes nothing and
 * never reads its reasons: the hot paths pass a function, so the text (and the claim key in it) is made
 * only for a write.
 */
type Reason = string | (() => string)

function reasonText(reason: Reason): string {
  return typeof reason === 'string' ? reason : reason()
}

/** createProvisionedPVRetryCount: tries to save a provisioned PV, and to clean up its asset. */
const createProvisionedPVRetryCount = 5

export class PersistentVolumeController {
  private readonly migration: MigrationPolicy

  constructor(
    readonly cluster: ClusterClient,
    readonly opts: ControllerOptions,
  ) {
    this.migration = opts.migration ?? migrationOf(opts.gates)
  }

  // ---------------------------------------------------------------------------------------------
  // Entry points: one sync of one object; errors are reported, not thrown.

  /** syncClaimByKey: the claim of that cache slot (a round walks the slots in list order). */
  syncClaimIn(slot: CachedObject<PersistentVolumeClaim>): void {
    if (!this.cluster.beginSync('pvc/', slot)) return
    try {
      const claim = this.cluster.claimIn(slot)
      if (claim === undefined) return
      try {
        this.syncClaim(claim)
      } catch (err) {
        if (err instanceof ControllerError) this.cluster.recordError(claimRefOf(claim), err.message)
        else throw err
      }
    } finally {
      this.cluster.endSync()
    }
  }

  /** syncVolumeByName: the volume of that cache slot. */
  syncVolumeIn(slot: CachedObject<PersistentVolume>): void {
    if (!this.cluster.beginSync('pv/', slot)) return
    try {
      const volume = this.cluster.volumeIn(slot)
      if (volume === undefined) return
      try {
        this.syncVolume(volume)
      } catch (err) {
        if (err instanceof ControllerError) this.cluster.recordError(volumeRef(volume), err.message)
        else throw err
      }
    } finally {
      this.cluster.endSync()
    }
  }

  // ---------------------------------------------------------------------------------------------
  // syncClaim and its halves.

  /** syncClaim: the main decision for a claim, split by whether binding ever completed. */
  syncClaim(claim: PersistentVolumeClaim): void {
    // Set correct "migrated-to" annotations on PVC and update in API server if necessary
    claim = this.updateClaimMigrationAnnotations(claim)

    if (!hasAnnotation(claim.metadata, AnnBindCompleted)) {
      this.syncUnboundClaim(claim)
    } else {
      this.syncBoundClaim(claim)
    }
  }

  /** syncUnboundClaim: a claim that has not completed binding. */
  syncUnboundClaim(claim: PersistentVolumeClaim): void {
    // This is a new PVC that has not completed binding
    // OBSERVATION: pvc is "Pending"
    if ((claim.spec.volumeName ?? '') === '') {
      // User did not care which PV they get.
      const delayBinding = this.isDelayBindingMode(claim)

      // [Unit test set 1]
      let volume: PersistentVolume | undefined
      try {
        volume = this.volumeIndex().findBestMatchForClaim(claim, delayBinding, this.opts.gates)
      } catch (err) {
        if (err instanceof MatchError) {
          throw new ControllerError(`error finding PV for claim "${claimKey(claim)}": ${err.message}`)
        }
        throw err
      }
      if (volume === undefined) {
        // No PV could be found. Try to provision one if possible.
        // OBSERVATION: pvc is "Pending", will retry
        const updated = this.assignDefaultStorageClass(claim)
        if (updated) {
          // The claim changed; the next sync of it continues with the class.
          return
        } else {
          // The claim keeps its class (or has none and there is no default).
        }

        if (delayBinding && !isDelayBindingProvisioning(claim)) {
          // Scheduler does not observe any pod using this claim.
          this.emitEventForUnboundDelayBindingClaim(claim)
        } else if (getPersistentVolumeClaimClass(claim) !== '') {
          // provisionClaim may start an asynchronous operation that updates the claim itself, so
          // this branch returns directly; binding continues in a later sync.
          this.provisionClaim(claim)
          return
        } else {
          this.cluster.recordEvent(
            claimRefOf(claim),
            'Normal',
            Events.FailedBinding,
            'no persistent volumes available for this claim and no storage class is set',
          )
        }

        // Mark the claim as Pending and try to find a match in the next periodic syncClaim
        this.updateClaimStatus(claim, 'Pending', undefined)
        return
      } else /* pv != undefined */ {
        // Found a PV for this claim
        // OBSERVATION: pvc is "Pending", pv is "Available"
        this.bind(volume, claim, matchReason(volume, claim))
        // OBSERVATION: claim is "Bound", pv is "Bound"
        return
      }
    } else /* pvc.Spec.VolumeName != nil */ {
      // [Unit test set 2]
      // User asked for a specific PV.
      const volume = this.cluster.volume(claim.spec.volumeName ?? '')
      if (volume === undefined) {
        // User asked for a PV that does not exist.
        // OBSERVATION: pvc is "Pending"
        // Retry later.
        this.updateClaimStatus(claim, 'Pending', undefined)
        return
      } else {
        if (volume.spec.claimRef == null) {
          // User asked for a PV that is not claimed
          // OBSERVATION: pvc is "Pending", pv is "Available"
          const mismatch = checkVolumeSatisfyClaim(volume, claim, this.opts.gates)
          if (mismatch !== undefined) {
            // The volume does not satisfy the requirements of the claim.
            const msg = `Cannot bind to requested volume "${volume.metadata.name}": ${mismatch}`
            this.cluster.recordEvent(claimRefOf(claim), 'Warning', Events.VolumeMismatch, msg)
            this.updateClaimStatus(claim, 'Pending', undefined)
          } else {
            this.bind(volume, claim, `requested by the claim's spec.volumeName`)
          }
          // OBSERVATION: pvc is "Bound", pv is "Bound"
          return
        } else if (isVolumeBoundToClaim(volume, claim)) {
          // User asked for a PV that is claimed by this PVC
          // OBSERVATION: pvc is "Pending", pv is "Bound"
          // Finish the volume binding by adding claim UID.
          this.bind(
            volume,
            claim,
            () => `finish the binding: ${volume.metadata.name} already points at ${claimKey(claim)}`,
          )
          // OBSERVATION: pvc is "Bound", pv is "Bound"
          return
        } else {
          // User asked for a PV that is claimed by someone else
          // OBSERVATION: pvc is "Pending", pv is "Bound"
          const claimMsg = `volume "${volume.metadata.name}" already bound to a different claim.`
          if (!hasAnnotation(claim.metadata, AnnBoundByController)) {
            this.cluster.recordEvent(claimRefOf(claim), 'Warning', Events.FailedBinding, claimMsg)
            // User asked for a specific PV, retry later
            this.updateClaimStatus(claim, 'Pending', undefined)
            return
          } else {
            // This should never happen because someone had to remove
            // AnnBindCompleted annotation on the claim.
            this.cluster.recordEvent(claimRefOf(claim), 'Warning', Events.FailedBinding, claimMsg)
            throw new ControllerError(
              `invalid binding of claim "${claimKey(claim)}" to volume "${claim.spec.volumeName}": volume already claimed by "${claimRefKey(volume.spec.claimRef)}"`,
            )
          }
        }
      }
    }
  }

  /** syncBoundClaim: a claim that was bound before (AnnBindCompleted). */
  syncBoundClaim(claim: PersistentVolumeClaim): void {
    // HasAnnotation(pvc, AnnBindCompleted)
    // This PVC has previously been bound
    // OBSERVATION: pvc is not "Pending"
    // [Unit test set 3]
    if ((claim.spec.volumeName ?? '') === '') {
      // Claim was bound before but not any more.
      this.updateClaimStatusWithEvent(
        claim,
        'Lost',
        undefined,
        'Warning',
        Events.ClaimLost,
        'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!',
      )
      return
    } else {
      // The claim names its volume; look at the other end of the pointer.
    }
    const volume = this.cluster.volume(claim.spec.volumeName ?? '')
    if (volume === undefined) {
      // Claim is bound to a non-existing volume.
      this.updateClaimStatusWithEvent(
        claim,
        'Lost',
        undefined,
        'Warning',
        Events.ClaimLost,
        'Bound claim has lost its PersistentVolume. Data on the volume is lost!',
      )
      return
    } else {
      if (volume.spec.claimRef == null) {
        // Claim is bound but volume has come unbound.
        // Or, a claim was bound and the controller has not received updated
        // volume yet. We can't distinguish these cases.
        // Bind the volume again and set all states to Bound.
        this.bind(volume, claim, () => `re-bind: ${volume.metadata.name} lost its claimRef`)
        return
      } else if ((volume.spec.claimRef.uid ?? '') === (claim.metadata.uid ?? '')) {
        // All is well
        // NOTE: bind() call here will do nothing in most cases as
        // everything should be already set.
        this.bind(volume, claim, () => `complete the binding of ${claimKey(claim)} and ${volume.metadata.name}`)
        return
      } else {
        // Claim is bound but volume has a different claimant.
        // Set the claim phase to 'Lost', which is a terminal phase.
        this.updateClaimStatusWithEvent(
          claim,
          'Lost',
          undefined,
          'Warning',
          Events.ClaimMisbound,
          'Two claims are bound to the same volume, this one is bound incorrectly',
        )
        return
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // syncVolume

  /** syncVolume: the main decision for a volume. */
  syncVolume(volume: PersistentVolume): void {
    // Set correct "migrated-to" annotations and modify finalizers on PV and update in API server if
    // necessary
    volume = this.updateVolumeMigrationAnnotationsAndFinalizers(volume)

    // [Unit test set 4]
    if (volume.spec.claimRef == null) {
      // Volume is unused
      this.updateVolumePhase(volume, 'Available', '', 'volume has no claimRef')
      return
    } else /* pv.Spec.ClaimRef != nil */ {
      // Volume is bound to a claim.
      const ref = volume.spec.claimRef
      if ((ref.uid ?? '') === '') {
        // The PV is reserved for a PVC; that PVC has not yet been
        // bound to this PV; the PVC sync will handle it.
        this.updateVolumePhase(volume, 'Available', '', () => `volume is pre-bound to claim ${claimRefKey(ref)}`)
        return
      } else {
        // The volume is bound to a claim with a uid: look the claim up.
      }
      // Get the PVC by _name_
      let claim: PersistentVolumeClaim | undefined = this.cluster.claimOf(ref)
      if (claim === undefined) {
        // Go double-checks the informer and then the API server before it reclaims a volume whose
        // claim is missing; the simulated cluster is all three, so the answer stands.
      } else {
        // Claim found.
      }
      if (claim !== undefined && (claim.metadata.uid ?? '') !== (ref.uid ?? '')) {
        // The claim that the PV was pointing to was deleted, and another
        // with the same name created. (Go re-reads it from the API server first; it is the same.)
        claim = undefined
      } else {
        // Same claim, or none.
      }

      if (claim === undefined) {
        // If we get into this block, the claim must have been deleted;
        // NOTE: reclaimVolume may either release the PV back into the pool or
        // recycle it or do nothing (retain)

        // Do not overwrite previous Failed state - let the user see that
        // something went wrong, while we still re-try to reclaim the volume.
        if (volume.status?.phase !== 'Released' && volume.status?.phase !== 'Failed') {
          volume = this.updateVolumePhase(volume, 'Released', '', `claim ${claimRefKey(ref)} is gone`)
        } else {
          // Already Released or Failed: reclaim again without touching the phase.
        }
        this.reclaimVolume(volume)
        return
      } else if ((claim.spec.volumeName ?? '') === '') {
        if (checkVolumeModeMismatches(claim.spec, volume.spec)) {
          // Binding for the volume won't be called in syncUnboundClaim,
          // because findBestMatchForClaim won't return the volume due to volumeMode mismatch.
          const volumeMsg = `Cannot bind PersistentVolume to requested PersistentVolumeClaim "${claim.metadata.name}" due to incompatible volumeMode.`
          this.cluster.recordEvent(volumeRef(volume), 'Warning', Events.VolumeMismatch, volumeMsg)
          const claimMsg = `Cannot bind PersistentVolume "${volume.metadata.name}" to requested PersistentVolumeClaim due to incompatible volumeMode.`
          this.cluster.recordEvent(claimRefOf(claim), 'Warning', Events.VolumeMismatch, claimMsg)
          // Skipping syncClaim
          return
        } else {
          // Modes match: the claim sync can bind it.
        }

        if (hasAnnotation(volume.metadata, AnnBoundByController)) {
          // The binding is not completed; let PVC sync handle it
        } else {
          // Dangling PV; try to re-establish the link in the PVC sync
        }
        // In both cases, the volume is Bound and the claim is Pending.
        // Next syncClaim will fix it. To speed it up, we enqueue the claim.
        this.cluster.requeueClaim(claimKey(claim))
        return
      } else if (claim.spec.volumeName === volume.metadata.name) {
        // Volume is bound to a claim properly, update status if necessary
        this.updateVolumePhase(volume, 'Bound', '', () => `volume and claim ${claimKey(claim)} point at each other`)
        return
      } else {
        // Volume is bound to a claim, but the claim is bound elsewhere
        if (
          hasAnnotation(volume.metadata, AnnDynamicallyProvisioned) &&
          volume.spec.persistentVolumeReclaimPolicy === 'Delete'
        ) {
          // This volume was dynamically provisioned for this claim. The
          // claim got bound elsewhere, and thus this volume is not
          // needed. Delete it.
          // Mark the volume as Released for external deleters and to let
          // the user know. Don't overwrite existing Failed status!
          if (volume.status?.phase !== 'Released' && volume.status?.phase !== 'Failed') {
            volume = this.updateVolumePhase(
              volume,
              'Released',
              '',
              `provisioned for ${claimKey(claim)}, which is bound to ${claim.spec.volumeName}`,
            )
          } else {
            // Already Released or Failed.
          }
          this.reclaimVolume(volume)
          return
        } else {
          // Volume is bound to a claim, but the claim is bound elsewhere
          // and it's not dynamically provisioned.
          if (hasAnnotation(volume.metadata, AnnBoundByController)) {
            // This is part of the normal operation of the controller; the
            // controller tried to use this volume for a claim but the claim
            // was fulfilled by another volume. We did this; fix it.
            this.unbindVolume(volume, `roll back: ${claimKey(claim)} is bound to ${claim.spec.volumeName}`)
            return
          } else {
            // The PV must have been created with this ptr; leave it alone.
            // This just updates the volume phase and clears
            // volume.Spec.ClaimRef.UID. It leaves the volume pre-bound
            // to the claim.
            this.unbindVolume(
              volume,
              `clear claimRef.uid (pre-bound by a user): ${claimKey(claim)} is bound to ${claim.spec.volumeName}`,
            )
            return
          }
        }
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Writes of status and phase.

  /**
   * updateClaimStatus: saves phase, access modes and capacity of the claim's status. Capacity is set
   * only when the phase changes (a discrepancy may be intentional: filesystem vs block size), and from
   * the pre-resize-capacity annotation when a resize is pending.
   */
  updateClaimStatus(
    claim: PersistentVolumeClaim,
    phase: string,
    volume: PersistentVolume | undefined,
    reason?: Reason,
  ): PersistentVolumeClaim {
    let dirty = false
    // claim.DeepCopy(), made on the first change (copyOnWrite): a claim whose status is already right is
    // not copied. Only the status is written; the copy always has one to write into.
    const claimCopy = copyOnWrite(claim, copyForStatusWrite)
    const claimClone = () => {
      const clone = claimCopy()
      if (clone.status == null) clone.status = {}
      return clone as PersistentVolumeClaim & {status: NonNullable<PersistentVolumeClaim['status']>}
    }
    const status = claim.status ?? {}
    if (status.phase !== phase) {
      claimClone().status.phase = phase
      dirty = true
    } else {
      // Phase already set.
    }

    if (volume === undefined) {
      // Need to reset AccessModes, Capacity and CurrentVolumeAttributesClassName
      if (status.accessModes != null) {
        delete claimClone().status.accessModes
        dirty = true
      } else {
        // Already unset.
      }
      if (status.capacity != null) {
        delete claimClone().status.capacity
        dirty = true
      } else {
        // Already unset.
      }
      // RELEASE volumeAttributesClassBinding
      if (
        hasChange(this.opts.gates, 'volumeAttributesClassBinding') &&
        status.currentVolumeAttributesClassName != null
      ) {
        delete claimClone().status.currentVolumeAttributesClassName
        dirty = true
      } else {
        // Already unset, or (before v1.31) not the controller's field.
      }
    } else {
      // Need to update AccessModes, Capacity and CurrentVolumeAttributesClassName
      if (!jsonEqual(emptyToUndefined(status.accessModes), emptyToUndefined(volume.spec.accessModes))) {
        claimClone().status.accessModes = volume.spec.accessModes
        if (claimClone().status.accessModes == null) delete claimClone().status.accessModes
        dirty = true
      } else {
        // Access modes already match.
      }

      // Update Capacity if the claim is becoming Bound, not if it was already.
      // A discrepancy can be intentional to mean that the PVC filesystem size
      // doesn't match the PV block device size, so don't clobber it
      if (status.phase !== phase) {
        const volumeCap = volume.spec.capacity?.storage
        if (volumeCap === undefined) {
          throw new ControllerError(`PersistentVolume "${volume.metadata.name}" is without a storage capacity`)
        }
        const claimCap = status.capacity?.storage
        // If PV has a resize annotation, set the claim's request capacity
        if (hasAnnotation(volume.metadata, AnnPreResizeCapacity)) {
          const pre = volume.metadata.annotations?.[AnnPreResizeCapacity] ?? ''
          // A malformed annotation falls back to the volume's capacity, as Go does after logging.
          const preQty = isValidQuantity(pre) ? pre : volumeCap
          claimClone().status.capacity = {...(claimClone().status.capacity ?? {}), storage: preQty}
          dirty = true
        } else if (
          claimCap === undefined ||
          compareQuantities(storageQuantity(volume.spec.capacity), storageQuantity(status.capacity)) !== 0
        ) {
          claimClone().status.capacity = deepCopy(volume.spec.capacity)
          dirty = true
        } else {
          // Capacity already matches.
        }
      } else {
        // Already in this phase: keep the capacity as it is.
      }

      // RELEASE volumeAttributesClassBinding
      if (vacMatching(this.opts.gates) === 'equal') {
        // The controller sets the current VolumeAttributesClass of a statically provisioned volume while
        // binding only: afterwards the external resizer (or an admin) owns the field.
        const volumeVACName = volume.spec.volumeAttributesClassName ?? undefined
        if (
          status.phase === 'Pending' &&
          phase === 'Bound' &&
          (status.currentVolumeAttributesClassName ?? undefined) !== volumeVACName
        ) {
          if (volumeVACName === undefined) delete claimClone().status.currentVolumeAttributesClassName
          else claimClone().status.currentVolumeAttributesClassName = volumeVACName
          dirty = true
        } else {
          // Not binding now, or already the volume's.
        }
      } else {
        // Without the gate (or before v1.31) the field is left alone.
      }
    }

    if (!dirty) {
      // Nothing to do.
      return claim
    } else {
      return this.cluster.updateClaim(
        'set-claim-phase',
        claimClone(),
        reason !== undefined
          ? reasonText(reason)
          : status.phase !== phase
            ? `${status.phase ?? '<none>'} -> ${phase}`
            : `refresh status (${phase})`,
        'status',
      )
    }
  }

  /** updateClaimStatusWithEvent: only on a real phase change, and then with the event. */
  updateClaimStatusWithEvent(
    claim: PersistentVolumeClaim,
    phase: string,
    volume: PersistentVolume | undefined,
    eventtype: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ): PersistentVolumeClaim {
    if (claim.status?.phase === phase) {
      // Nothing to do.
      return claim
    } else {
      const newClaim = this.updateClaimStatus(
        claim,
        phase,
        volume,
        `${claim.status?.phase ?? '<none>'} -> ${phase} (${reason})`,
      )
      // Emit the event only when the status change happens, not every time syncClaim is called.
      this.cluster.recordEvent(claimRefOf(newClaim), eventtype, reason, message)
      return newClaim
    }
  }

  /** updateVolumePhase: saves phase and message of the volume's status. */
  updateVolumePhase(volume: PersistentVolume, phase: string, message: string, reason?: Reason): PersistentVolume {
    if (volume.status?.phase === phase) {
      // Nothing to do.
      return volume
    } else {
      const volumeClone = copyForStatusWrite(volume)
      const status = (volumeClone.status ??= {})
      status.phase = phase
      if (message === '') delete status.message
      else status.message = message
      return this.cluster.updateVolume(
        'set-volume-phase',
        volumeClone,
        `${volume.status?.phase ?? '<none>'} -> ${phase}${reason !== undefined ? `: ${reasonText(reason)}` : ''}`,
        'status',
      )
    }
  }

  /** updateVolumePhaseWithEvent: only on a real phase change, and then with the event. */
  updateVolumePhaseWithEvent(
    volume: PersistentVolume,
    phase: string,
    eventtype: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ): PersistentVolume {
    if (volume.status?.phase === phase) {
      // Nothing to do.
      return volume
    } else {
      const newVol = this.updateVolumePhase(volume, phase, message, reason)
      // Emit the event only when the status change happens, not every time syncVolume is called.
      this.cluster.recordEvent(volumeRef(newVol), eventtype, reason, message)
      return newVol
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Binding.

  /**
   * assignDefaultStorageClass: gives a claim without any class the default class, retroactively.
   * Returns whether the claim was updated.
   */
  assignDefaultStorageClass(claim: PersistentVolumeClaim): boolean {
    if (persistentVolumeClaimHasClass(claim)) {
      // The user asked for a class.
      return false
    } else {
      // No class at all: a default may apply.
    }
    const klass = getDefaultClass([...this.cluster.classes.values()])
    if (klass === undefined) {
      // No default storage class.
      return false
    } else {
      const claimClone = copyForWrite(claim)
      claimClone.spec.storageClassName = klass.metadata.name
      const defaults = [...this.cluster.classes.values()].filter(
        (c) => c !== klass && getDefaultClass([c]) !== undefined,
      ).length
      this.cluster.updateClaim(
        'assign-storage-class',
        claimClone,
        defaults > 0
          ? `claim has no class: assigning default class ${klass.metadata.name} (newest of ${defaults + 1} default classes)`
          : `claim has no class: assigning default class ${klass.metadata.name}`,
      )
      return true
    }
  }

  /** bindVolumeToClaim: saves the volume with claimRef (and AnnBoundByController) if anything changed. */
  bindVolumeToClaim(volume: PersistentVolume, claim: PersistentVolumeClaim, reason: Reason): PersistentVolume {
    const {volume: volumeClone, dirty} = getBindVolumeToClaim(volume, claim)
    // Save the volume only if something was changed
    if (dirty) {
      return this.cluster.updateVolume('bind-volume', volumeClone, reasonText(reason))
    } else {
      // Already bound to this claim.
      return volume
    }
  }

  /** bindClaimToVolume: saves the claim with volumeName, AnnBoundByController and AnnBindCompleted. */
  bindClaimToVolume(claim: PersistentVolumeClaim, volume: PersistentVolume, reason: Reason): PersistentVolumeClaim {
    let dirty = false
    // Check if the claim was already bound (either by controller or by user)
    let shouldBind = false
    if (volume.metadata.name !== claim.spec.volumeName) {
      shouldBind = true
    } else {
      // Already pointing at this volume.
    }
    // claim.DeepCopy(), made on the first change (copyOnWrite): a claim already bound is not copied.
    // Reads below go to the original where the copy can only differ by what this function wrote.
    const claimClone = copyOnWrite(claim)
    if (shouldBind) {
      dirty = true
      // Bind the claim to the volume
      claimClone().spec.volumeName = volume.metadata.name
      // Set AnnBoundByController if it is not set yet
      if (!hasAnnotation(claimClone().metadata, AnnBoundByController)) {
        setMetaDataAnnotation(claimClone().metadata, AnnBoundByController, 'yes')
      } else {
        // Already set.
      }
    } else {
      // Nothing to bind.
    }
    // Set AnnBindCompleted if it is not set yet (AnnBoundByController, the only annotation written
    // above, is another key: the original's answer is the copy's)
    if (!hasAnnotation(claim.metadata, AnnBindCompleted)) {
      setMetaDataAnnotation(claimClone().metadata, AnnBindCompleted, 'yes')
      dirty = true
    } else {
      // Already set.
    }
    if (dirty) {
      return this.cluster.updateClaim('bind-claim', claimClone(), reasonText(reason))
    } else {
      // Already bound to this volume.
      return claim
    }
  }

  /**
   * bind: volume first, then volume status, then claim, then claim status, so that a run interrupted
   * after any step leaves a state the next sync completes ("complete bind after crash", 1-8..1-10).
   */
  bind(volume: PersistentVolume, claim: PersistentVolumeClaim, reason: Reason): void {
    // Each step's result in a const of its own: a reason, made later if at all, reads the objects of its step.
    const boundVolume = this.bindVolumeToClaim(
      volume,
      claim,
      () => `claimRef -> ${claimKey(claim)}: ${reasonText(reason)}`,
    )
    const savedVolume = this.updateVolumePhase(boundVolume, 'Bound', '', () => `claim ${claimKey(claim)}`)
    const boundClaim = this.bindClaimToVolume(
      claim,
      savedVolume,
      () => `volumeName -> ${savedVolume.metadata.name}: ${reasonText(reason)}`,
    )
    this.updateClaimStatus(
      boundClaim,
      'Bound',
      savedVolume,
      () => `${boundClaim.status?.phase ?? '<none>'} -> Bound: volume ${savedVolume.metadata.name}`,
    )
  }

  /**
   * unbindVolume: rolls back a binding. A volume bound by the controller loses its claimRef; one
   * pre-bound by a user keeps it and loses only the uid. Then the volume is Available.
   */
  unbindVolume(volume: PersistentVolume, reason: string): void {
    const volumeClone = copyForWrite(volume)
    if (hasAnnotation(volume.metadata, AnnBoundByController)) {
      // The volume was bound by the controller.
      delete volumeClone.spec.claimRef
      // The volume has the annotation (its copy's own map): Go's delete() on it.
      const annotations = volumeClone.metadata.annotations ?? {}
      Reflect.deleteProperty(annotations, AnnBoundByController)
      if (Object.keys(annotations).length === 0) {
        // No annotations look better than an empty annotation map.
        delete volumeClone.metadata.annotations
      } else {
        // Other annotations stay.
      }
    } else {
      // The volume was pre-bound by user. Clear only the binding UID.
      volumeClone.spec.claimRef = {...volumeClone.spec.claimRef}
      delete volumeClone.spec.claimRef.uid
    }
    const newVol = this.cluster.updateVolume('unbind-volume', volumeClone, reason)
    // Update the status
    this.updateVolumePhase(newVol, 'Available', '', 'unbound')
  }

  // ---------------------------------------------------------------------------------------------
  // Reclaim: Retain, Recycle, Delete.

  /** reclaimVolume: applies the volume's reclaim policy. */
  reclaimVolume(volume: PersistentVolume): void {
    if ((volume.metadata.annotations?.[AnnMigratedTo] ?? '') !== '') {
      // PV is Migrated. The PV controller should stand down and the external
      // provisioner will handle this PV
      return
    } else {
      // Not migrated: the policy applies here.
    }
    switch (volume.spec.persistentVolumeReclaimPolicy) {
      case 'Retain':
        // Nothing to do: the volume stays Released with its data until an administrator acts.
        break
      case 'Recycle': {
        const opName = `recycle-${volume.metadata.name}[${volume.metadata.uid ?? ''}]`
        this.scheduleOperation(opName, () => this.recycleVolumeOperation(volume))
        break
      }
      case 'Delete': {
        const opName = `delete-${volume.metadata.name}[${volume.metadata.uid ?? ''}]`
        this.scheduleOperation(opName, () => this.deleteVolumeOperation(volume))
        break
      }
      default:
        // Unknown PersistentVolumeReclaimPolicy
        this.updateVolumePhaseWithEvent(
          volume,
          'Failed',
          'Warning',
          Events.VolumeUnknownReclaimPolicy,
          'Volume has unrecognized PersistentVolumeReclaimPolicy',
        )
    }
  }

  /**
   * scheduleOperation: runs an operation unless one of that name is still running. An operation that
   * hands work to a plugin stays "running" for the rest of the plan, so it is planned once.
   */
  private scheduleOperation(opName: string, operation: () => boolean): void {
    if (this.cluster.isOperationRunning(opName)) {
      // Operation is already running, skipping.
      return
    } else {
      const stillRunning = operation()
      if (stillRunning) this.cluster.operationStarted(opName)
    }
  }

  /**
   * recycleVolumeOperation, up to the plugin call: re-reads the volume, checks it still needs
   * reclaiming and is not in use, finds a recycler. Returns true when a recycle is planned.
   */
  recycleVolumeOperation(volume: PersistentVolume): boolean {
    // Read the current volume state (a previous operation may have saved a newer version).
    const newVolume = this.cluster.volume(volume.metadata.name ?? '')
    if (newVolume === undefined) {
      // Error reading the volume: give up until the next sync.
      return false
    }
    if (!this.isVolumeReleased(newVolume)) {
      // Volume no longer needs recycling, skipping.
      return false
    } else {
      // Still released.
    }
    const {pods, used} = this.isVolumeUsed(newVolume)

    // Verify the claim is in cache: if so, then it is a different PVC with the same name since the
    // volume is known to be released at this moment. The new (cached) PVC must use a different PV --
    // we checked that the PV is unused in isVolumeReleased. So the old PV is safe to be recycled.
    const claimCached = this.cluster.claimOf(releasedClaimRef(volume)) !== undefined
    if (used && !claimCached) {
      const msg = `Volume is used by pods: ${pods.join(',')}`
      this.cluster.recordEvent(volumeRef(volume), 'Normal', Events.VolumeFailedRecycle, msg)
      return false
    } else {
      // Not used, or the pods use a new claim of the same name.
    }

    // Use the newest volume copy, this will save us from version conflicts on saving.
    volume = newVolume

    // Find a plugin.
    const found = this.opts.plugins.findRecyclablePluginBySpec(volume)
    if (found.plugin === undefined) {
      // No recycler found. Emit an event and mark the volume Failed.
      // Despite the volume being Failed, the controller will retry recycling the volume in every
      // syncVolume() call.
      this.updateVolumePhaseWithEvent(
        volume,
        'Failed',
        'Warning',
        Events.VolumeFailedRecycle,
        'No recycler plugin found for the volume!',
      )
      return false
    } else if (this.opts.operations === undefined) {
      // Plugin found: the recycle itself is the plugin's (and the executor's) work.
      this.cluster.planOperation(
        'recycle',
        volumeRef(volume),
        found.plugin.name,
        `Recycle policy, claim ${claimRefKey(releasedClaimRef(volume))} gone: scrub ${volume.spec.capacity?.storage ?? '?'}${describeSource(volume)} with ${found.plugin.name}`,
        volume.metadata.resourceVersion,
      )
      return true
    } else {
      // Plugin found: recycle through it now.
      this.cluster.planOperation(
        'recycle',
        volumeRef(volume),
        found.plugin.name,
        `Recycle policy: scrub${describeSource(volume)} with ${found.plugin.name}`,
        volume.metadata.resourceVersion,
      )
      const recycleError = this.opts.operations.recycle(found.plugin.name, volume)
      if (recycleError !== undefined) {
        // Recycler failed. Despite the volume being Failed, the controller will retry recycling the
        // volume in every syncVolume() call.
        this.updateVolumePhaseWithEvent(
          volume,
          'Failed',
          'Warning',
          Events.VolumeFailedRecycle,
          `Recycle failed: ${recycleError}`,
        )
        return false
      } else {
        this.cluster.recordEvent(volumeRef(volume), 'Normal', Events.VolumeRecycled, 'Volume recycled')
        // Make the volume available again.
        this.unbindVolume(volume, 'recycled: available again')
        return false
      }
    }
  }

  /**
   * deleteVolumeOperation, up to the plugin call: re-reads the volume, checks it still needs
   * reclaiming, finds a deleter (or learns that an external one is in charge). Returns true when a
   * deletion is planned.
   */
  deleteVolumeOperation(volume: PersistentVolume): boolean {
    // RELEASE deleterFoundFirst
    const deleterFirst = hasChange(this.opts.gates, 'deleterFoundFirst')
    const early = deleterFirst ? this.findDeletablePlugin(volume) : undefined
    if (early === undefined) {
      // Before v1.36: the deleter is looked up once the volume is read again and still released.
    } else if (early.error !== undefined) {
      // No deleter: the volume is marked Failed before it is read again, and nothing more happens.
      this.updateVolumePhaseWithEvent(volume, 'Failed', 'Warning', Events.VolumeFailedDelete, early.error)
      return false
    } else if (early.plugin === undefined) {
      // External deleter is requested, do nothing: the volume waits for it.
      return false
    } else {
      // A deleter: read the volume again before using it.
    }
    const newVolume = this.cluster.volume(volume.metadata.name ?? '')
    if (newVolume === undefined) {
      // Error reading the volume.
      return false
    }
    if (!this.opts.gates.HonorPVReclaimPolicy) {
      if (newVolume.metadata.deletionTimestamp != null) {
        // Volume is already being deleted.
        return false
      } else {
        // Not being deleted.
      }
    } else {
      // With HonorPVReclaimPolicy a volume being deleted is still reclaimed: its finalizer waits for it.
    }
    if (!this.isVolumeReleased(newVolume)) {
      // Volume no longer needs deletion, skipping.
      return false
    } else {
      // Still released.
    }

    const found = early ?? this.findDeletablePlugin(volume)
    // Without operations, the deleter's refusal of this volume ends the operation before any plugin work.
    const refusal = this.opts.operations === undefined ? found.plugin?.deleteRefusal?.(volume) : undefined
    if (found.error !== undefined) {
      // The plugin failed (here: none found): mark the volume as Failed and send a Warning event.
      // Despite the volume being Failed, the controller will retry deleting the volume in every
      // syncVolume() call.
      this.updateVolumePhaseWithEvent(volume, 'Failed', 'Warning', Events.VolumeFailedDelete, found.error)
      return false
    } else if (found.plugin === undefined) {
      // External deleter is requested, do nothing: the volume waits for it.
      return false
    } else if (refusal !== undefined) {
      // The deleter refuses this volume whatever the storage holds: the controller's operation fails at
      // once with Delete()'s error, as below, and nothing is left for an executor to try.
      this.updateVolumePhaseWithEvent(volume, 'Failed', 'Warning', Events.VolumeFailedDelete, refusal)
      return false
    } else if (this.opts.operations === undefined) {
      this.cluster.planOperation(
        'delete',
        volumeRef(volume),
        found.plugin.name,
        `Delete policy, claim ${claimRefKey(releasedClaimRef(volume))} gone: delete ${volume.spec.capacity?.storage ?? '?'}${describeSource(volume)} with ${found.plugin.name}`,
        volume.metadata.resourceVersion,
      )
      return true
    } else {
      this.cluster.planOperation(
        'delete',
        volumeRef(volume),
        found.plugin.name,
        `Delete policy: delete ${volume.spec.capacity?.storage ?? '?'}${describeSource(volume)} with ${found.plugin.name}`,
        volume.metadata.resourceVersion,
      )
      const pluginError = this.doDeleteVolume(this.opts.operations, volume, found.plugin.name)
      if (pluginError !== undefined) {
        if (pluginError.inUse) {
          // The plugin needs more time: not a failure, a Normal event only.
          this.cluster.recordEvent(volumeRef(volume), 'Normal', Events.VolumeDelete, pluginError.message)
        } else {
          // The plugin failed: mark the volume Failed with a Warning event. Despite the volume being
          // Failed, the controller will retry deleting it in every syncVolume() call.
          this.updateVolumePhaseWithEvent(volume, 'Failed', 'Warning', Events.VolumeFailedDelete, pluginError.message)
        }
        return false
      } else {
        // The storage is gone: delete the PV object (its in-tree finalizer went in doDeleteVolume).
        const fault = this.opts.apiFaults?.('delete', 'persistentvolumes')
        if (fault === undefined) {
          this.cluster.deleteVolume(volume.metadata.name ?? '', 'the storage asset was deleted')
        } else {
          // Could not delete the object: the next sync deletes the volume again.
        }
        return false
      }
    }
  }

  /**
   * doDeleteVolume with a deleter plugin: NewDeleter, Delete, then (HonorPVReclaimPolicy) the removal
   * of the in-tree protection finalizer. Returns the error, if any.
   */
  private doDeleteVolume(
    operations: VolumeOperations,
    volume: PersistentVolume,
    pluginName: string,
  ): {message: string; inUse?: boolean} | undefined {
    const result = operations.delete(pluginName, volume)
    if (result.newDeleterError !== undefined) {
      return {message: `failed to create deleter for volume "${volume.metadata.name}": ${result.newDeleterError}`}
    } else if (result.deleteError !== undefined) {
      return {message: result.deleteError, inUse: result.inUse}
    } else {
      // Deleted from the underlying storage.
    }
    if (this.opts.gates.HonorPVReclaimPolicy) {
      const current = this.cluster.volume(volume.metadata.name ?? '')
      if (current !== undefined && (current.metadata.finalizers ?? []).includes(PVDeletionInTreeProtectionFinalizer)) {
        const clone = copyForWrite(current)
        const rest = (clone.metadata.finalizers ?? []).filter((f) => f !== PVDeletionInTreeProtectionFinalizer)
        if (rest.length > 0) clone.metadata.finalizers = rest
        else delete clone.metadata.finalizers
        this.cluster.updateVolume(
          'remove-finalizer',
          clone,
          `the storage asset was deleted: remove ${PVDeletionInTreeProtectionFinalizer}`,
        )
      } else {
        // No in-tree finalizer to remove.
      }
    } else {
      // Without HonorPVReclaimPolicy the controller never added the finalizer.
    }
    return undefined
  }

  /**
   * findDeletablePlugin: the plugin that provisioned the volume, else none when an external deleter
   * is in charge (external provisioner, migrated or CSI volume), else the plugin for its source.
   */
  findDeletablePlugin(volume: PersistentVolume): {
    plugin?: Pick<VolumePlugin, 'name' | 'deleteRefusal'>
    error?: string
  } {
    // Find a plugin. Try to find the same plugin that provisioned the volume
    if (hasAnnotation(volume.metadata, AnnDynamicallyProvisioned)) {
      const provisionPluginName = volume.metadata.annotations?.[AnnDynamicallyProvisioned] ?? ''
      if (provisionPluginName !== '') {
        const byName = this.opts.plugins.findDeletablePluginByName(provisionPluginName)
        if (byName.error !== undefined) {
          if (!provisionPluginName.startsWith('kubernetes.io/')) {
            // External provisioner is requested, do not report error
            return {}
          } else {
            return {error: byName.error}
          }
        } else {
          return {plugin: byName.plugin}
        }
      } else {
        // An empty provisioned-by: look the plugin up by the volume's source.
      }
    } else {
      // Not dynamically provisioned.
    }

    // RELEASE deleterLeavesMigratedAndCSI
    if (!hasChange(this.opts.gates, 'deleterLeavesMigratedAndCSI')) {
      // v1.29: the plugin of the volume's source decides, whatever it was migrated to.
    } else if (hasAnnotation(volume.metadata, AnnMigratedTo)) {
      // CSI migration scenario - do not depend on in-tree plugin
      return {}
    } else if (volume.spec.csi != null) {
      // CSI volume source scenario - external provisioner is requested
      return {}
    } else {
      // An in-tree volume.
    }

    // The plugin that provisioned the volume was not found or the volume was not dynamically
    // provisioned. Try to find a plugin by spec.
    const bySpec = this.opts.plugins.findDeletablePluginBySpec(volume)
    if (bySpec.error !== undefined) {
      // No deleter found.
      return {error: `error getting deleter volume plugin for volume "${volume.metadata.name}": ${bySpec.error}`}
    } else {
      return {plugin: bySpec.plugin}
    }
  }

  /**
   * isVolumeReleased: the volume has a claimRef with a uid, and that claim is gone (or is a new claim
   * of the same name) or is bound to another volume.
   */
  isVolumeReleased(volume: PersistentVolume): boolean {
    // A volume needs reclaim if it has ClaimRef and appropriate claim does not exist.
    const ref = volume.spec.claimRef
    if (ref == null) {
      return false
    } else if ((ref.uid ?? '') === '') {
      // This is a volume bound by user and the controller has not finished
      // binding to the real claim yet.
      return false
    } else {
      // Bound with a uid: look at the claim.
    }
    const claim = this.cluster.claimOf(ref)
    if (claim !== undefined && (claim.metadata.uid ?? '') === ref.uid) {
      // the claim still exists and has the right UID
      if ((claim.spec.volumeName ?? '') !== '' && claim.spec.volumeName !== volume.metadata.name) {
        // the claim is bound to another PV, this PV *is* released
        return true
      } else {
        return false
      }
    } else {
      return true
    }
  }

  /** isVolumeUsed: the running pods ("namespace/name", sorted) that use the volume's claim. */
  isVolumeUsed(volume: PersistentVolume): {pods: string[]; used: boolean} {
    const ref = volume.spec.claimRef
    if (ref == null) return {pods: [], used: false}
    const names = new Set<string>()
    for (const pod of this.cluster.podsByClaim(claimRefKey(ref))) {
      if (isPodTerminated(pod)) continue
      names.add(`${pod.metadata.namespace}/${pod.metadata.name}`)
    }
    const pods = [...names].sort()
    return {pods, used: pods.length !== 0}
  }

  /** findNonScheduledPodsByPVC: active pods that use the claim and have no node yet. */
  findNonScheduledPodsByPVC(claim: PersistentVolumeClaim): string[] {
    const podNames: string[] = []
    for (const pod of this.cluster.podsByClaim(claimKey(claim))) {
      if (isPodTerminated(pod)) continue
      if ((pod.spec?.nodeName ?? '') === '') podNames.push(pod.metadata.name ?? '')
    }
    return podNames
  }

  /** emitEventForUnboundDelayBindingClaim: WaitForFirstConsumer, or WaitForPodScheduled with the pods. */
  emitEventForUnboundDelayBindingClaim(claim: PersistentVolumeClaim): void {
    let reason: string = Events.WaitForFirstConsumer
    let message = 'waiting for first consumer to be created before binding'
    const podNames = this.findNonScheduledPodsByPVC(claim)
    if (podNames.length > 0) {
      reason = Events.WaitForPodScheduled
      if (podNames.length > 1) {
        // Only one pod is used in volume scheduling, but we can't know which: name them all.
        message = `waiting for pods ${podNames.join(',')} to be scheduled`
      } else {
        message = `waiting for pod ${podNames[0]} to be scheduled`
      }
    } else {
      // No pod yet: the expected wait for a first consumer.
    }
    this.cluster.recordEvent(claimRefOf(claim), 'Normal', reason, message)
  }

  // ---------------------------------------------------------------------------------------------
  // Provisioning.

  /** provisionClaim: hands the claim to a provisioner plugin or an external provisioner. */
  provisionClaim(claim: PersistentVolumeClaim): void {
    if (!this.opts.enableDynamicProvisioning) {
      return
    } else {
      // Provisioning enabled.
    }
    const opName = `provision-${claimKey(claim)}[${claim.metadata.uid ?? ''}]`
    const found = this.findProvisionablePlugin(claim)
    // findProvisionablePlugin does not return an error for external provisioners
    if (found.error !== undefined) {
      this.cluster.recordEvent(claimRefOf(claim), 'Warning', Events.ProvisioningFailed, found.error)
      // The controller retries the provisioning in every syncUnboundClaim() call.
      return
    } else {
      // A plugin, or an external provisioner.
    }
    const storageClass = found.storageClass
    this.scheduleOperation(opName, () => {
      if (found.plugin === undefined) {
        this.provisionClaimOperationExternal(claim, storageClass)
        // The hand-off is complete: nothing keeps running on our side.
        return false
      } else {
        return this.provisionClaimOperation(claim, found.plugin, storageClass)
      }
    })
  }

  /**
   * findProvisionablePlugin: the plugin for the class's provisioner, or none for an external one. An
   * answer without an error has the class; an error has it unless the class is not found.
   */
  findProvisionablePlugin(claim: PersistentVolumeClaim):
    | {
        plugin?: Pick<VolumePlugin, 'name' | 'supportsMountOption' | 'newProvisionerError'>
        storageClass: StorageClass
        error?: undefined
      }
    | {plugin?: undefined; storageClass?: StorageClass; error: string} {
    // provisionClaim() which leads here is never called with claimClass=="".
    const claimClass = getPersistentVolumeClaimClass(claim)
    const klass = this.cluster.classes.get(claimClass)
    if (klass === undefined) {
      return {error: `storageclass.storage.k8s.io "${claimClass}" not found`}
    } else {
      // Class found.
    }
    const provisioner = klass.provisioner ?? ''
    // Find a plugin for the class
    if (this.migration.isMigrationEnabledForPlugin(provisioner)) {
      // CSI migration scenario - do not depend on in-tree plugin
      return {storageClass: klass}
    } else {
      // Not migrated.
    }
    const found = this.opts.plugins.findProvisionablePluginByName(provisioner)
    if (found.error !== undefined) {
      if (!provisioner.startsWith('kubernetes.io/')) {
        // External provisioner is requested, do not report error
        return {storageClass: klass}
      } else {
        return {storageClass: klass, error: found.error}
      }
    } else {
      return {plugin: found.plugin, storageClass: klass}
    }
  }

  /**
   * provisionClaimOperation, up to the plugin call: checks the data source and mount options, marks
   * the claim with its provisioner, skips a volume that already exists. Returns true when a
   * provisioning is planned.
   */
  provisionClaimOperation(
    claim: PersistentVolumeClaim,
    plugin: Pick<VolumePlugin, 'name' | 'supportsMountOption' | 'newProvisionerError'>,
    storageClass: StorageClass,
  ): boolean {
    const pluginName = plugin.name
    if (pluginName !== 'kubernetes.io/csi' && claim.spec.dataSource != null) {
      // Only CSI plugin can have a DataSource. Fail the operation.
      const strerr = `plugin "${pluginName}" is not a CSI plugin. Only CSI plugin can provision a claim with a datasource`
      this.cluster.recordEvent(claimRefOf(claim), 'Warning', Events.ProvisioningFailed, strerr)
      return false
    } else {
      // No data source, or a CSI plugin.
    }
    const provisionerName = storageClass.provisioner ?? ''
    // Add provisioner annotation to be consistent with external provisioner workflow
    claim = this.setClaimProvisioner(claim, provisionerName)

    // A previous provisionClaimOperation may just have finished: the PV name is deterministic.
    const pvName = getProvisionedVolumeNameForClaim(claim)
    if (this.cluster.volume(pvName) !== undefined) {
      // Volume has been already provisioned, nothing to do.
      return false
    } else {
      // Not provisioned yet.
    }
    const mountOptions = storageClass.mountOptions ?? []
    // Refuse to provision if the plugin doesn't support mount options, creation
    // of PV would be rejected by validation anyway
    if (!plugin.supportsMountOption && mountOptions.length > 0) {
      const strerr = `Mount options are not supported by the provisioner but StorageClass "${storageClass.metadata.name}" has mount options [${mountOptions.join(' ')}]`
      this.cluster.recordEvent(claimRefOf(claim), 'Warning', Events.ProvisioningFailed, strerr)
      return false
    } else {
      // Mount options are fine.
    }
    if (plugin.newProvisionerError !== undefined) {
      // NewProvisioner fails by the plugin's configuration alone: known before any plugin work.
      this.cluster.recordEvent(
        claimRefOf(claim),
        'Warning',
        Events.ProvisioningFailed,
        `Failed to create provisioner: ${plugin.newProvisionerError}`,
      )
      return false
    } else {
      // The plugin provisions.
    }
    if (this.opts.operations === undefined) {
      this.cluster.planOperation(
        'provision',
        claimRefOf(claim),
        pluginName,
        `no volume matches: provision ${pvName} with ${pluginName} (class ${storageClass.metadata.name})`,
        claim.metadata.resourceVersion,
      )
      return true
    } else {
      this.runProvisioner(this.opts.operations, claim, pluginName, storageClass, pvName)
      return false
    }
  }

  /** The rest of provisionClaimOperation: Provision(), then save the PV (retrying), or clean up. */
  private runProvisioner(
    operations: VolumeOperations,
    claim: PersistentVolumeClaim,
    pluginName: string,
    storageClass: StorageClass,
    pvName: string,
  ): void {
    const claimClass = getPersistentVolumeClaimClass(claim)
    const selectedNode = claim.metadata.annotations?.[AnnSelectedNode]
    if (selectedNode !== undefined && !this.cluster.nodes.has(selectedNode)) {
      this.cluster.recordEvent(
        claimRefOf(claim),
        'Warning',
        Events.ProvisioningFailed,
        `Failed to get target node: node "${selectedNode}" not found`,
      )
      return
    } else {
      // No node selected, or it exists.
    }
    this.cluster.planOperation(
      'provision',
      claimRefOf(claim),
      pluginName,
      `provision ${pvName} with ${pluginName} (class ${storageClass.metadata.name})`,
      claim.metadata.resourceVersion,
    )
    const result = operations.provision(pluginName, {
      pvName,
      claim,
      storageClass,
      ...(selectedNode !== undefined ? {selectedNode} : {}),
    })
    if (result.newProvisionerError !== undefined) {
      this.cluster.recordEvent(
        claimRefOf(claim),
        'Warning',
        Events.ProvisioningFailed,
        `Failed to create provisioner: ${result.newProvisionerError}`,
      )
      return
    } else if (result.provisionError !== undefined || result.volume === undefined) {
      // Only a failure of the provisioning itself asks the scheduler to pick another node.
      this.rescheduleProvisioning(claim)
      this.cluster.recordEvent(
        claimRefOf(claim),
        'Warning',
        Events.ProvisioningFailed,
        `Failed to provision volume with StorageClass "${storageClass.metadata.name}": ${result.provisionError ?? 'no volume returned'}`,
      )
      return
    } else {
      // Provisioned: make the PV object.
    }
    const volume = deepCopy(result.volume)
    if ((volume.metadata.name ?? '') === '') volume.metadata.name = pvName
    // Bind it to the claim
    volume.spec.claimRef = getClaimReference(claim)
    volume.status = {...(volume.status ?? {}), phase: 'Bound'}
    volume.spec.storageClassName = claimClass
    // Add AnnBoundByController (used in deleting the volume)
    setMetaDataAnnotation(volume.metadata, AnnBoundByController, 'yes')
    setMetaDataAnnotation(volume.metadata, AnnDynamicallyProvisioned, pluginName)
    if (this.opts.gates.HonorPVReclaimPolicy && volume.spec.persistentVolumeReclaimPolicy === 'Delete') {
      // The in-tree protection finalizer, only for the Delete policy.
      volume.metadata.finalizers = [PVDeletionInTreeProtectionFinalizer]
    } else {
      // No finalizer.
    }

    // Try to create the PV object several times
    let saveError: string | undefined
    for (let i = 0; i < createProvisionedPVRetryCount; i++) {
      const fault = this.opts.apiFaults?.('create', 'persistentvolumes')
      if (fault === undefined) {
        this.cluster.createVolume(volume, `provisioned by ${pluginName} for claim ${claimKey(claim)}`)
        saveError = undefined
        break
      } else if (fault.reason === 'AlreadyExists') {
        // The API server saved it before failing to answer: reuse it.
        saveError = undefined
        break
      } else {
        // Save failed, try again (Go waits createProvisionedPVInterval).
        saveError = fault.error
      }
    }

    if (saveError !== undefined) {
      // We have a storage asset outside of Kubernetes but no PV object for it: say so, and delete the
      // asset, several times if need be.
      const strerr = `Error creating provisioned PV object for claim ${claimKey(claim)}: ${saveError}. Deleting the volume.`
      this.cluster.recordEvent(claimRefOf(claim), 'Warning', Events.ProvisioningFailed, strerr)
      let deleteError: string | undefined
      // RELEASE deleterFoundFirst: up to createProvisionedPVRetryCount tries from v1.36; before, doDeleteVolume
      // answers `deleted: false` with any error, and that ends the loop after the first.
      const tries = hasChange(this.opts.gates, 'deleterFoundFirst') ? createProvisionedPVRetryCount : 1
      for (let i = 0; i < tries; i++) {
        const found = this.findDeletablePlugin(volume)
        if (found.error !== undefined) {
          deleteError = found.error
        } else if (found.plugin === undefined) {
          // Unreachable: an internal plugin provisioned it, so an internal plugin deletes it.
          deleteError = undefined
          break
        } else {
          const r = operations.delete(found.plugin.name, volume)
          deleteError =
            r.newDeleterError !== undefined
              ? `failed to create deleter for volume "${volume.metadata.name}": ${r.newDeleterError}`
              : r.deleteError
          if (deleteError === undefined) break
          // Delete failed, try again after a while (Go waits createProvisionedPVInterval).
        }
      }
      if (deleteError !== undefined) {
        // Delete failed several times: an orphaned volume that nothing here can fix.
        const cleanup = `Error cleaning provisioned volume for claim ${claimKey(claim)}: ${deleteError}. Please delete manually.`
        this.cluster.recordEvent(claimRefOf(claim), 'Warning', Events.ProvisioningCleanupFailed, cleanup)
      } else {
        // Cleaned up.
      }
    } else {
      this.cluster.recordEvent(
        claimRefOf(claim),
        'Normal',
        Events.ProvisioningSucceeded,
        `Successfully provisioned volume ${volume.metadata.name} using ${pluginName}`,
      )
    }
  }

  /** rescheduleProvisioning: drops AnnSelectedNode so the scheduler retries with another node. */
  rescheduleProvisioning(claim: PersistentVolumeClaim): void {
    if (!hasAnnotation(claim.metadata, AnnSelectedNode)) {
      // Provisioning not triggered by the scheduler, skip
      return
    } else {
      const clone = copyForWrite(claim)
      // The claim has the annotation (its copy's own map): Go's delete() on it.
      Reflect.deleteProperty(clone.metadata.annotations ?? {}, AnnSelectedNode)
      const node = claim.metadata.annotations?.[AnnSelectedNode] ?? ''
      this.cluster.updateClaim(
        'reschedule-provisioning',
        clone,
        `provisioning failed on node ${node}: let the scheduler pick again`,
      )
    }
  }

  /** provisionClaimOperationExternal: annotate the claim for the external provisioner and say so. */
  provisionClaimOperationExternal(claim: PersistentVolumeClaim, storageClass: StorageClass): void {
    let provisionerName = storageClass.provisioner ?? ''
    if (this.migration.isMigrationEnabledForPlugin(provisionerName)) {
      // update the provisioner name to use the migrated CSI plugin name
      const csiName = this.migration.getCSINameFromInTreeName(provisionerName)
      if (csiName === undefined) {
        const strerr = `error getting CSI name for In tree plugin ${provisionerName}: could not find CSI Driver name for plugin ${provisionerName}`
        this.cluster.recordEvent(claimRefOf(claim), 'Warning', Events.ProvisioningFailed, strerr)
        return
      } else {
        provisionerName = csiName
      }
    } else {
      // Not migrated: the class's provisioner is the one to wait for.
    }
    // Add provisioner annotation so external provisioners know when to start
    claim = this.setClaimProvisioner(claim, provisionerName)
    const msg =
      `Waiting for a volume to be created either by the external provisioner '${provisionerName}' ` +
      'or manually by the system administrator. If volume creation is delayed, please verify that ' +
      'the provisioner is running and correctly registered.'
    // External provisioner has been requested for provisioning the volume
    // Report an event and wait for external provisioner to finish
    this.cluster.recordEvent(claimRefOf(claim), 'Normal', Events.ExternalProvisioning, msg)
  }

  /** setClaimProvisioner: both storage-provisioner annotations (GA and beta) name the provisioner. */
  setClaimProvisioner(claim: PersistentVolumeClaim, provisionerName: string): PersistentVolumeClaim {
    if (claim.metadata.annotations?.[AnnStorageProvisioner] === provisionerName) {
      // annotation is already set, nothing to do
      return claim
    } else {
      const claimClone = copyForWrite(claim)
      // The beta annotation is still written in v1.31 for older provisioners.
      setMetaDataAnnotation(claimClone.metadata, AnnBetaStorageProvisioner, provisionerName)
      setMetaDataAnnotation(claimClone.metadata, AnnStorageProvisioner, provisionerName)
      updateMigrationAnnotations(this.migration, claimClone.metadata.annotations, true)
      return this.cluster.updateClaim('set-provisioner', claimClone, `hand the claim to provisioner ${provisionerName}`)
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Annealing (pv_controller_base.go).

  /**
   * updateClaimMigrationAnnotations. Go copies the claim and lets updateMigrationAnnotations change the
   * copy's annotations (its TODO says the copy could be avoided); here the change is worked out first and
   * the claim copied only when there is one — every sync of a claim starts here.
   */
  updateClaimMigrationAnnotations(claim: PersistentVolumeClaim): PersistentVolumeClaim {
    const change = migrationAnnotationChange(this.migration, claim.metadata.annotations, true)
    if (change === undefined) {
      return claim
    } else {
      const claimClone = copyForWrite(claim)
      // A change implies annotations (it is read from them).
      applyMigrationAnnotationChange((claimClone.metadata.annotations ??= {}), change)
      return this.cluster.updateClaim(
        'set-migration-annotation',
        claimClone,
        migrationReason(claimClone.metadata.annotations),
      )
    }
  }

  /**
   * updateVolumeMigrationAnnotationsAndFinalizers. As updateClaimMigrationAnnotations, the volume is
   * copied only when something changes. modifyDeletionFinalizers reads the original: it copies the
   * finalizers it returns, and reads provisioned-by and the reclaim policy, which the migrated-to
   * annotation does not touch.
   */
  updateVolumeMigrationAnnotationsAndFinalizers(volume: PersistentVolume): PersistentVolume {
    const annChange = migrationAnnotationChange(this.migration, volume.metadata.annotations, false)
    const {finalizers, modified: finalizersModified} = modifyDeletionFinalizers(this.migration, this.opts.gates, volume)
    if (annChange === undefined && !finalizersModified) {
      return volume
    } else {
      const volumeClone = copyForWrite(volume)
      // A change implies annotations (it is read from them).
      if (annChange !== undefined) applyMigrationAnnotationChange((volumeClone.metadata.annotations ??= {}), annChange)
      let type: ActionType = 'set-migration-annotation'
      let reason = migrationReason(volumeClone.metadata.annotations)
      if (finalizersModified) {
        const before = new Set(volume.metadata.finalizers ?? [])
        const after = new Set(finalizers ?? [])
        const added = [...after].filter((f) => !before.has(f))
        const removed = [...before].filter((f) => !after.has(f))
        type = added.length > 0 ? 'add-finalizer' : 'remove-finalizer'
        reason = [
          added.length > 0 ? `add finalizer ${added.join(', ')}` : '',
          removed.length > 0 ? `remove finalizer ${removed.join(', ')}` : '',
        ]
          .filter((s) => s !== '')
          .join('; ')
        reason += ` (reclaim policy ${volume.spec.persistentVolumeReclaimPolicy ?? '<none>'}, provisioned by ${volume.metadata.annotations?.[AnnDynamicallyProvisioned] ?? '<none>'})`
        if (finalizers == null || finalizers.length === 0) delete volumeClone.metadata.finalizers
        else volumeClone.metadata.finalizers = finalizers
      } else {
        // Only the annotation changed.
      }
      try {
        return this.cluster.updateVolume(type, volumeClone, reason)
      } catch (err) {
        // The one write of the controller the API server refuses (a finalizer added to a volume being
        // deleted): nothing was saved, and every sync of the volume stops here, as in Go.
        if (err instanceof ApiError)
          throw new ControllerError(
            `persistent Volume Controller can't anneal migration annotations or finalizer: ${err.message}`,
          )
        else throw err
      }
    }
  }

  // ---------------------------------------------------------------------------------------------

  /** IsDelayBindingMode: the claim's class binds on first consumer. */
  isDelayBindingMode(claim: PersistentVolumeClaim): boolean {
    const className = getPersistentVolumeClaimClass(claim)
    if (className === '') return false
    const klass = this.cluster.classes.get(className)
    if (klass === undefined) return false
    if (klass.volumeBindingMode == null) {
      throw new ControllerError(`VolumeBindingMode not set for StorageClass "${className}"`)
    }
    return klass.volumeBindingMode === 'WaitForFirstConsumer'
  }

  /**
   * The matching index over the current volumes (ctrl.volumes): the cluster's cache keeps it current,
   * as storeVolumeUpdate does, on every volume it writes, creates or deletes.
   */
  volumeIndex(): VolumeIndex {
    return this.cluster.volumeIndex()
  }
}

/**
 * checkVolumeSatisfyClaim: why a volume the claim asked for by name cannot be bound to it, or
 * undefined when it can. The texts are Go's.
 */
export function checkVolumeSatisfyClaim(
  volume: PersistentVolume,
  claim: PersistentVolumeClaim,
  gates: FeatureGates,
): string | undefined {
  // Go compares Value()s here (whole units, rounded up), not the exact quantities as matching does.
  const requestedSize = quantityValue(storageQuantity(claim.spec.resources?.requests))
  // check if PV's DeletionTimeStamp is set, if so, return error.
  if (volume.metadata.deletionTimestamp != null) {
    return `the volume is marked for deletion "${volume.metadata.name}"`
  }
  const volumeSize = quantityValue(storageQuantity(volume.spec.capacity))
  if (volumeSize < requestedSize) {
    return 'requested PV is too small'
  }
  const requestedClass = getPersistentVolumeClaimClass(claim)
  if (getPersistentVolumeClass(volume) !== requestedClass) {
    return 'storageClassName does not match'
  }
  if (checkVolumeModeMismatches(claim.spec, volume.spec)) {
    return 'incompatible volumeMode'
  }
  if (!checkAccessModes(claim, volume)) {
    return 'incompatible accessMode'
  }
  // RELEASE volumeAttributesClassBinding
  switch (vacMatching(gates)) {
    case 'equal':
      if (claimVAC(claim) !== volumeVAC(volume)) {
        return 'volumeAttributesClassName does not match'
      } else {
        // The same class, or none on either.
        return undefined
      }
    case 'none':
      if (claimVAC(claim) !== '' || volumeVAC(volume) !== '') {
        return 'volumeAttributesClassName is not supported when the feature-gate VolumeAttributesClass is disabled'
      } else {
        // Neither names one.
        return undefined
      }
    case 'unchecked':
      // Before v1.31 checkVolumeSatisfyClaim does not look at it.
      return undefined
  }
}

/** getProvisionedVolumeNameForClaim: "pvc-<claim uid>", unique and deterministic. */
export function getProvisionedVolumeNameForClaim(claim: PersistentVolumeClaim): string {
  return `pvc-${claim.metadata.uid ?? ''}`
}

function emptyToUndefined<T>(list: readonly T[] | null | undefined): readonly T[] | undefined {
  return list == null || list.length === 0 ? undefined : list
}

function matchReason(volume: PersistentVolume, claim: PersistentVolumeClaim): string {
  if (isVolumeBoundToClaim(volume, claim)) {
    return `pre-bound to ${claimKey(claim)}`
  }
  const req = claim.spec.resources?.requests?.storage
  return `smallest match for ${req ?? '0'} (${volume.spec.capacity?.storage ?? '0'}, class "${getPersistentVolumeClass(volume)}")`
}

/** The claimRef of a volume being reclaimed: a volume is reclaimed only while it names a claim that is gone. */
function releasedClaimRef(volume: PersistentVolume): NonNullable<PersistentVolume['spec']['claimRef']> {
  const ref = volume.spec.claimRef
  if (ref == null) {
    throw new Error(`invariant: volume "${volume.metadata.name ?? ''}" is reclaimed without a claimRef`)
  } else {
    return ref
  }
}

function migrationReason(annotations: Record<string, string> | null | undefined): string {
  const to = annotations?.[AnnMigratedTo]
  return to !== undefined ? `CSI migration: migrated-to ${to}` : 'CSI migration rolled back: remove migrated-to'
}

const volumeSources = [
  'nfs',
  'hostPath',
  'local',
  'csi',
  'iscsi',
  'fc',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'azureDisk',
  'azureFile',
  'cinder',
  'rbd',
  'cephfs',
  'glusterfs',
  'vsphereVolume',
  'portworxVolume',
  'flexVolume',
]

/** The fields of a volume source describeSource reads: strings in core/v1 (a template prints any value as String() does). */
type SourceFields = {server?: string; path?: string; driver?: string; volumeHandle?: string}

/** " (NFS server:/export)"-style description of where the data lives, for consent prompts. */
export function describeSource(volume: PersistentVolume): string {
  for (const source of volumeSources) {
    const s = volume.spec[source] as SourceFields | undefined | null
    if (s == null) continue
    switch (source) {
      case 'nfs':
        return ` (NFS ${s.server ?? ''}:${s.path ?? ''})`
      case 'hostPath':
        return ` (hostPath ${s.path ?? ''})`
      case 'local':
        return ` (local ${s.path ?? ''})`
      case 'csi':
        return ` (CSI ${s.driver ?? ''} ${s.volumeHandle ?? ''})`
      default:
        return ` (${source})`
    }
  }
  return ''
}
