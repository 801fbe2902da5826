// The re-reads before a destructive step of the controller's plan, as the controller's own double-checks:
//   - syncVolume: a claim missing from the cache is looked up in the API server before its volume is
//     released ("to make sure we will not reclaim a PV wrongly");
//   - recycleVolumeOperation / deleteVolumeOperation: the volume is read again, and isVolumeReleased
//     decides on the fresh object whether it still needs reclaiming.
// pvctl checks a little more than the controller, because its picture is a list taken once (and a re-plan
// after a conflict), not an informer kept current: the fresh volume must still be the one planned on (same
// uid), still Released or Failed, bound to the same claim uid, under the same reclaim policy, and its claim
// must still be gone, read from the API server, not from the list. Any change stops the operation and hands
// the fresh objects back, so the next plan is made on them. Each step also takes from the release budget.
import {NotFoundError} from '../../cluster/api-errors.js'
import type {ClusterApi} from '../../cluster/live-api.js'
import type {WorkloadApi} from '../../cluster/workload-api.js'
import {claimKey, type PersistentVolume, type PersistentVolumeClaim} from '../../engine/api/model.js'
import type {DeleteOutcome, LiveVolumePlugins} from '../../volume-plugins/live-plugins.js'
import {changedSinceRead, notReleased} from './changed.js'
import {type Guarded, isRefusal} from './refusal.js'
import type {ReleaseBudget} from '../../engine/simulation/release-budget.js'

export class DestructionGuard {
  constructor(
    private readonly api: Pick<ClusterApi, 'readVolume' | 'readClaim' | 'replaceVolumeStatus'>,
    private readonly budget?: ReleaseBudget,
  ) {}

  /**
   * Writes a volume's status. A write that makes it Released first asks the API server for its claim
   * (syncVolume's double-check): found, with the claimRef's uid and bound to no other volume, the
   * volume is not released and nothing is written.
   */
  async replaceVolumeStatus(current: PersistentVolume, desired: PersistentVolume): Promise<Guarded<PersistentVolume>> {
    const releasing = desired.status?.phase === 'Released' && current.status?.phase !== 'Released'
    if (releasing) {
      const claim = await this.claimStillHolding(desired)
      if (claim !== undefined) {
        return {
          refused: `claim ${claimKey(claim)} exists in the API server (uid ${claim.metadata.uid}): the volume is not released`,
          claim,
        }
      } else {
        // The claim is gone (or is another claim of the same name, or is bound elsewhere): released.
      }
      const over = this.budget?.take(desired.metadata.name ?? '')
      if (over !== undefined) return {refused: over}
    } else {
      // Not a release: an ordinary conditional write.
    }
    return {done: await this.api.replaceVolumeStatus(desired)}
  }

  /** A recycler pod scrubs the volume, after the fresh volume is checked (recycleVolumeOperation). */
  async recycle(
    plugins: LiveVolumePlugins,
    plugin: string,
    planned: PersistentVolume,
    signal?: AbortSignal,
  ): Promise<Guarded<string | undefined>> {
    const fresh = await this.stillReleased(planned, 'recycle')
    if (isRefusal(fresh)) return fresh
    return {done: await plugins.recycle(plugin, fresh.done, signal)}
  }

  /** A deleter removes the volume's storage, after the fresh volume is checked (deleteVolumeOperation). */
  async deleteStorage(
    plugins: LiveVolumePlugins,
    plugin: string,
    planned: PersistentVolume,
    signal?: AbortSignal,
  ): Promise<Guarded<DeleteOutcome>> {
    const fresh = await this.stillReleased(planned, 'delete')
    if (isRefusal(fresh)) return fresh
    return {done: await plugins.delete(plugin, fresh.done, signal)}
  }

  /**
   * Deletes the PV object once its storage is gone: checked again, then deleted on the condition that
   * it is still the object just read (DeleteOptions preconditions: uid and resourceVersion).
   */
  async deleteVolumeObject(workload: WorkloadApi, planned: PersistentVolume): Promise<Guarded<void>> {
    const fresh = await this.stillReleased(planned, 'delete')
    if (isRefusal(fresh)) return fresh
    const {uid, resourceVersion} = fresh.done.metadata
    await workload.deleteVolume(fresh.done.metadata.name ?? '', {uid, resourceVersion})
    return {done: undefined}
  }

  /**
   * The volume as the API server has it now, if it still needs this reclaim: the same object (uid), still
   * Released or Failed, bound to the same claim uid, the same policy, and isVolumeReleased on it with its
   * claim read from the API server.
   */
  private async stillReleased(planned: PersistentVolume, op: 'recycle' | 'delete'): Promise<Guarded<PersistentVolume>> {
    const name = planned.metadata.name ?? ''
    let fresh: PersistentVolume
    try {
      fresh = await this.api.readVolume(name)
    } catch (err) {
      if (err instanceof NotFoundError) return {refused: `volume ${name} is gone`, volumeGone: true}
      else throw err
    }
    const why = changedSinceRead(planned, fresh) ?? notReleased(fresh)
    if (why !== undefined)
      return {refused: `volume ${name} changed since it was planned to ${op}: ${why}`, volume: fresh}
    const claim = await this.claimStillHolding(fresh)
    if (claim !== undefined) {
      return {
        refused: `volume ${name} is not released: claim ${claimKey(claim)} exists in the API server (uid ${claim.metadata.uid})`,
        volume: fresh,
        claim,
      }
    } else {
      // isVolumeReleased on the fresh volume and the fresh claim: it still needs reclaiming.
    }
    const over = this.budget?.take(name)
    if (over !== undefined) return {refused: over, volume: fresh}
    return {done: fresh}
  }

  /**
   * isVolumeReleased's claim lookup, asked of the API server: the claim the volume's claimRef names, when it
   * exists with that uid and is bound to no other volume (the volume is then not released); else undefined.
   */
  private async claimStillHolding(volume: PersistentVolume): Promise<PersistentVolumeClaim | undefined> {
    const ref = volume.spec.claimRef
    if (ref == null || (ref.uid ?? '') === '') {
      // No claimRef, or one without a uid (pre-bound): isVolumeReleased is false, and the engine never
      // releases such a volume; nothing holds it by uid.
      return undefined
    } else {
      // Bound by uid: ask the API server for the claim.
    }
    let claim: PersistentVolumeClaim
    try {
      claim = await this.api.readClaim(ref.namespace ?? '', ref.name ?? '')
    } catch (err) {
      if (err instanceof NotFoundError) return undefined
      else throw err
    }
    if ((claim.metadata.uid ?? '') !== ref.uid) {
      // Another claim of the same name: the one the volume was bound to is gone.
      return undefined
    } else if ((claim.spec.volumeName ?? '') !== '' && claim.spec.volumeName !== volume.metadata.name) {
      // The claim is bound to another volume: this one *is* released.
      return undefined
    } else {
      return claim
    }
  }
}
