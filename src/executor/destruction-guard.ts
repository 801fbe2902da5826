// The one door every destructive write on a live cluster goes through: a volume written Released, a
// recycler or cleanup pod started, a PV object deleted. Before each, the guard re-reads from the API
// server what the decision rests on, as the controller's own double-checks do:
//   - syncVolume: a claim missing from the cache is looked up in the API server before its volume is
//     released ("to make sure we will not reclaim a PV wrongly");
//   - recycleVolumeOperation / deleteVolumeOperation: the volume is read again, and isVolumeReleased
//     decides on the fresh object whether it still needs reclaiming.
// pvctl checks a little more than the controller, because its picture is a list taken once (and a re-plan
// after a conflict), not an informer kept current: the fresh volume must still be the one planned on (same
// uid), still Released or Failed, bound to the same claim uid, under the same reclaim policy, and its claim
// must still be gone, read from the API server, not from the list. Any change stops the operation and hands
// the fresh objects back, so the next plan is made on them.
//
// It also bounds how much a run may release at once (ReleaseBudget): a picture that shows most claims gone
// at once is likelier a broken list or a lagging informer than a cluster emptied on purpose.
//
// It is also the one door of `pvctl reclaim`, which gives a volume (and its data) to another claim: the
// volume, every claim (the old one, a claim of its name again, one that names the volume, a restored one),
// the pods of the old claim's namespace and the VolumeAttachments are read again, the reclaim is decided
// again on them, and the volume is PUT conditional on the resourceVersion just read. "Changed since it
// was read" is said only of what differs between the read and the re-read.
//
// test/executor/destruction-boundary.test.ts fails if a Released write, a plugin's pod, a PV DELETE or a
// reclaim's volume write is issued anywhere else.
import {ConflictError, NotFoundError} from '../cluster/api-errors.js'
import type {ClusterApi} from '../cluster/live-api.js'
import type {WorkloadApi} from '../cluster/workload-api.js'
import {claimKey, claimRefKey, type ClusterState, type PersistentVolume, type PersistentVolumeClaim, type Pod} from '../engine/api/model.js'
import type {VolumeAttachmentObject} from '../engine/explain/evidence.js'
import {decideReclaim, type ReclaimDecision, type ReclaimInput} from '../engine/repair/reclaim.js'
import {decideRelink, type RelinkDecision, type RelinkInput} from '../engine/repair/relink.js'
import {type Action, destroys, releases} from '../engine/simulation/plan.js'
import type {DeleteOutcome, LiveVolumePlugins} from '../volume-plugins/live-plugins.js'

/** The guard found the picture stale: the objects as the API server has them now, and why it stopped. */
export interface Refusal {
  refused: string
  /** The volume as read now (undefined: it is gone). */
  volume?: PersistentVolume
  volumeGone?: boolean
  /** The volume's claim as read now, when it exists. */
  claim?: PersistentVolumeClaim
}

export type Guarded<T> = {done: T} | Refusal

export function isRefusal<T>(r: Guarded<T>): r is Refusal {
  return 'refused' in r
}

/**
 * How many volumes one run (or, in loop mode, one window of time) may release, recycle or delete before
 * the guard stops: more than `limit`, or more than `share` of the volumes bound when the run began,
 * whichever is larger. `allow` counts each volume once.
 */
export class ReleaseBudget {
  private readonly spent = new Map<string, number>()

  constructor(
    private readonly opts: {
      /** Volumes bound to a claim (claimRef with a uid) when the budget was set. */
      boundVolumes: () => number
      /** At least this many may go at once (default 20). */
      limit?: number
      /** Or this share of the bound volumes, if larger (default 0.1). */
      share?: number
      /** Unlimited: --allow-mass-release. */
      unlimited?: boolean
      /** Loop mode: releases older than this many ms no longer count. */
      windowMs?: number
      now?: () => number
    },
  ) {}

  /** The most volumes that may go at once, for the current count of bound volumes. */
  get ceiling(): number {
    return Math.max(this.opts.limit ?? DEFAULT_RELEASE_LIMIT, Math.floor((this.opts.share ?? DEFAULT_RELEASE_SHARE) * this.opts.boundVolumes()))
  }

  /** Whether `volume` may be released (counted if so); undefined when it may, else why not. */
  take(volume: string): string | undefined {
    if (this.opts.unlimited) return undefined
    const now = this.opts.now?.() ?? 0
    if (this.opts.windowMs !== undefined) {
      for (const [name, at] of this.spent) if (now - at > this.opts.windowMs) this.spent.delete(name)
    }
    if (this.spent.has(volume)) return undefined
    if (this.spent.size >= this.ceiling) {
      return massReleaseMessage(this.spent.size + 1, this.opts.boundVolumes(), this.ceiling, this.opts.windowMs)
    }
    this.spent.set(volume, now)
    return undefined
  }
}

export const DEFAULT_RELEASE_LIMIT = 20
export const DEFAULT_RELEASE_SHARE = 0.1
/**
 * Loop mode's window: releases within it count together. Long enough to hold a relist's burst (every
 * volume of a lost claim list is synced within one resync), short enough that a namespace deleted on
 * purpose is reclaimed within the hour in steps.
 */
export const MASS_RELEASE_WINDOW_MS = 10 * 60_000

export function massReleaseMessage(count: number, bound: number, ceiling: number, windowMs?: number): string {
  const within = windowMs !== undefined ? ` within ${Math.round(windowMs / 1000)} s` : ' at once'
  return (
    `mass release guard: ${count} volumes would be released, recycled or deleted${within}, more than ${ceiling} ` +
    `(the larger of ${DEFAULT_RELEASE_LIMIT} and ${DEFAULT_RELEASE_SHARE * 100}% of the ${bound} bound volumes); ` +
    'this looks like a list or informer that lost claims rather than claims deleted on purpose'
  )
}

/**
 * The volumes a plan releases, recycles or deletes (a status write that makes one Released, a recycle, a
 * delete of its storage or of its object), each once: what the release budget counts.
 */
export function volumesDestroyedBy(actions: readonly Action[]): Set<string> {
  const names = new Set<string>()
  // Indexed: a one-shot sync runs this once over its 150k actions, and a for-of makes an iterator result
  // per action until the loop is optimized.
  for (let i = 0; i < actions.length; i++) {
    const a = actions[i]
    if (a.object.kind !== 'PersistentVolume') continue
    if (releases(a) || destroys(a)) names.add(a.object.name)
  }
  return names
}

/**
 * Why a plan would be refused by the mass-release guard before anything is written (more volumes released,
 * recycled or deleted than the budget of `state` allows), or undefined when it would not.
 */
export function massReleaseOf(state: {volumes: readonly PersistentVolume[]}, actions: readonly Action[]): string | undefined {
  const bound = countBoundVolumes(state.volumes)
  const ceiling = new ReleaseBudget({boundVolumes: () => bound}).ceiling
  const destroyed = volumesDestroyedBy(actions).size
  return destroyed > ceiling ? massReleaseMessage(destroyed, bound, ceiling) : undefined
}

/** Counts the volumes bound to a claim (a claimRef with a uid): the base of the mass-release share. */
export function countBoundVolumes(volumes: Iterable<PersistentVolume>): number {
  let n = 0
  for (const v of volumes) if ((v.spec.claimRef?.uid ?? '') !== '') n++
  return n
}

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
        return {refused: `claim ${claimRefKey(desired.spec.claimRef!)} exists in the API server (uid ${claim.metadata.uid}): the volume is not released`, claim}
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
  async recycle(plugins: LiveVolumePlugins, plugin: string, planned: PersistentVolume, signal?: AbortSignal): Promise<Guarded<string | undefined>> {
    const fresh = await this.stillReleased(planned, 'recycle')
    if (isRefusal(fresh)) return fresh
    return {done: await plugins.recycle(plugin, fresh.done, signal)}
  }

  /** A deleter removes the volume's storage, after the fresh volume is checked (deleteVolumeOperation). */
  async deleteStorage(plugins: LiveVolumePlugins, plugin: string, planned: PersistentVolume, signal?: AbortSignal): Promise<Guarded<DeleteOutcome>> {
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
    return {done: await workload.deleteVolume(fresh.done.metadata.name ?? '', {uid, resourceVersion})}
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
    if (why !== undefined) return {refused: `volume ${name} changed since it was planned to ${op}: ${why}`, volume: fresh}
    const claim = await this.claimStillHolding(fresh)
    if (claim !== undefined) {
      return {refused: `volume ${name} is not released: claim ${claimRefKey(fresh.spec.claimRef!)} exists in the API server (uid ${claim.metadata.uid})`, volume: fresh, claim}
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

/** What a reclaim reads again from the API server before it writes, and its one write. */
export interface ReclaimIo {
  readVolume(name: string): Promise<PersistentVolume>
  /** Every claim of the cluster: the old claim, a claim of its name again, claims naming the volume, restored ones. */
  listClaims(): Promise<PersistentVolumeClaim[]>
  /** Every pod of a namespace (the old claim's: the pods that could mount it). */
  listPods(namespace: string): Promise<Pod[]>
  listVolumeAttachments(): Promise<VolumeAttachmentObject[]>
  replaceVolume(volume: PersistentVolume): Promise<PersistentVolume>
}

/** How many times a reclaim whose PUT conflicts is read and decided again before it gives up. */
export const RECLAIM_ATTEMPTS = 3

/** A repair's guarded writes: done, or found done already on the objects read again (nothing written). */
export interface RepairWritten<D> {
  decision: D
  attempts: number
  /** The repair was found done on the re-read (by another writer since the load): nothing was written. */
  already: boolean
}

/**
 * `pvctl reclaim`'s write. `consented` is the decision the user saw and agreed to, on `state`. Each attempt
 * re-reads the volume (the same object, by uid), every claim, the pods of the old claim's namespace and the
 * VolumeAttachments, decides the reclaim again on them, and PUTs the edited volume conditional on the
 * resourceVersion just read. The volume found reclaimed already is done (nothing written); one whose
 * phase, claimRef or policy differ from what was read, a check that no longer holds, or one overridden on
 * other grounds than shown, stops it. A conflict (409) starts the next attempt; after RECLAIM_ATTEMPTS it
 * gives up.
 */
export async function guardedReclaim(
  io: ReclaimIo,
  state: ClusterState,
  consented: ReclaimDecision,
  request: Omit<ReclaimInput, 'state' | 'attachments' | 'pods'>,
): Promise<Guarded<RepairWritten<ReclaimDecision> & {volume: PersistentVolume}>> {
  const name = consented.volume.metadata.name ?? ''
  return conflictRetries<RepairWritten<ReclaimDecision> & {volume: PersistentVolume}>(`volume ${name} kept changing: ${RECLAIM_ATTEMPTS} conflicts in a row; nothing written`, async (attempt) => {
    const fresh = await readVolumeOrGone(io, name)
    if (isRefusal(fresh)) return fresh
    const recreated = changedObject(consented.volume, fresh.done)
    if (recreated !== undefined) return {refused: `volume ${name} changed since it was read: ${recreated}`, volume: fresh.done}
    const freshState = await rereadForReclaim(io, state, fresh.done)
    // Both lists were just read from the API server: a list that fails throws, and nothing is written.
    const decision = decideReclaim({...request, state: freshState.state, attachments: {observed: true, items: freshState.attachments}, pods: {observed: true}})!
    if (decision.already !== null) return {done: {volume: fresh.done, decision, attempts: attempt, already: true}}
    const why = changedSinceRead(consented.volume, fresh.done)
    if (why !== undefined) return {refused: `volume ${name} changed since it was read: ${why}`, volume: fresh.done}
    const stale = decidedAgain('reclaim', name, decision, consented)
    if (stale !== undefined) return {...stale, volume: fresh.done}
    // Decided again on the fresh objects, allowed, and to the same end. A resourceVersion that moved on
    // since the list (an unrelated write) is what a conflict would be: the edit is made on the fresh object.
    return {done: {volume: await io.replaceVolume(decision.edited), decision, attempts: attempt, already: false}}
  })
}

/**
 * Runs `attempt` until it is not stopped by a conflict (409), at most RECLAIM_ATTEMPTS times: each attempt
 * reads again and decides again, so a conflict is a new decision on the fresh objects, never a blind retry.
 */
async function conflictRetries<T>(gaveUp: string, attempt: (n: number) => Promise<Guarded<T>>): Promise<Guarded<T>> {
  for (let n = 1; n <= RECLAIM_ATTEMPTS; n++) {
    try {
      return await attempt(n)
    } catch (err) {
      if (err instanceof ConflictError) continue
      else throw err
    }
  }
  return {refused: gaveUp}
}

async function readVolumeOrGone(io: Pick<ReclaimIo, 'readVolume'>, name: string): Promise<Guarded<PersistentVolume>> {
  try {
    return {done: await io.readVolume(name)}
  } catch (err) {
    if (err instanceof NotFoundError) return {refused: `volume ${name} is gone`, volumeGone: true}
    else throw err
  }
}

interface Decided {
  allowed: boolean
  next: string | null
  checks: ReadonlyArray<{name: string; ok: boolean; forced: boolean; message: string}>
}

/**
 * A repair decided again on the fresh objects stops unless it is still allowed, still leads where the
 * consent was given, and overrides (--force, --not-owner) what the consent was shown overridden, no more.
 */
function decidedAgain(repair: string, name: string, decision: Decided, consented: Decided): Refusal | undefined {
  const overridden = (d: Decided) => d.checks.filter((c) => c.forced).map((c) => `${c.name}: ${c.message}`)
  if (!decision.allowed) {
    const blocked = decision.checks.filter((c) => !c.ok && !c.forced)
    return {refused: `the ${repair} of ${name} no longer holds on the objects read again: ${blocked.map((c) => `${c.name}: ${c.message}`).join('; ')}`}
  } else if (decision.next !== consented.next) {
    // The consent was to what the controller does next: the fresh objects change it.
    return {refused: `what the controller does next with ${name} changed since it was shown: ${decision.next ?? '<nothing>'}, not ${consented.next ?? '<nothing>'}`}
  } else if (overridden(decision).join('\n') !== overridden(consented).join('\n')) {
    // The consent covered the overrides it was shown (a claim disowned by its uid, the pods and attachments named).
    return {refused: `what the ${repair} of ${name} overrides changed since it was shown: ${overridden(decision).join('; ') || '<nothing>'}, not ${overridden(consented).join('; ') || '<nothing>'}`}
  } else {
    return undefined
  }
}

/** `state` with what the reclaim rests on replaced by the API server's answers now. */
async function rereadForReclaim(io: ReclaimIo, state: ClusterState, fresh: PersistentVolume): Promise<{state: ClusterState; attachments: VolumeAttachmentObject[]}> {
  const claims = await io.listClaims()
  const podNamespace = fresh.spec.claimRef?.namespace
  const pods = podNamespace === undefined ? state.pods : [...state.pods.filter((p) => p.metadata.namespace !== podNamespace), ...(await io.listPods(podNamespace))]
  const volumes = state.volumes.map((v) => (v.metadata.name === fresh.metadata.name ? fresh : v))
  return {state: {...state, volumes, claims, pods}, attachments: await io.listVolumeAttachments()}
}

/** Whether the fresh volume is another object than the one read (re-created under its name). */
function changedObject(read: PersistentVolume, fresh: PersistentVolume): string | undefined {
  return (fresh.metadata.uid ?? '') === (read.metadata.uid ?? '') ? undefined : `it was re-created (uid ${fresh.metadata.uid ?? '<none>'}, read as ${read.metadata.uid ?? '<none>'})`
}

/**
 * What differs between the volume as read and as read again, of what a decision on it rests on (the
 * object, its phase, its claimRef, its reclaim policy); undefined when nothing does.
 */
function changedSinceRead(read: PersistentVolume, fresh: PersistentVolume): string | undefined {
  const was = read.spec.claimRef
  const now = fresh.spec.claimRef
  const refText = (r: NonNullable<typeof now>) => `${claimRefKey(r)} (uid ${r.uid || '<none>'})`
  const recreated = changedObject(read, fresh)
  if (recreated !== undefined) {
    return recreated
  } else if ((fresh.status?.phase ?? '') !== (read.status?.phase ?? '')) {
    return `its phase is ${fresh.status?.phase ?? '<none>'} (read as ${read.status?.phase ?? '<none>'})`
  } else if (was != null && now == null) {
    return 'its claimRef was removed'
  } else if (now != null && (was == null || claimRefKey(now) !== claimRefKey(was) || (now.uid ?? '') !== (was.uid ?? ''))) {
    return `its claimRef now names ${refText(now)}${was == null ? ' (read without one)' : ''}`
  } else if (fresh.spec.persistentVolumeReclaimPolicy !== read.spec.persistentVolumeReclaimPolicy) {
    return `its reclaim policy is now ${fresh.spec.persistentVolumeReclaimPolicy ?? '<none>'}`
  } else {
    return undefined
  }
}

/** Why a fresh volume needs no reclaim of its storage (it is not Released or Failed), or undefined. */
function notReleased(fresh: PersistentVolume): string | undefined {
  const phase = fresh.status?.phase
  return phase === 'Released' || phase === 'Failed' ? undefined : `its phase is ${phase ?? '<none>'}`
}

/** What a relink reads again from the API server before it writes, and its writes. */
export interface RelinkIo {
  readVolume(name: string): Promise<PersistentVolume>
  readClaim(namespace: string, name: string): Promise<PersistentVolumeClaim>
  /** Every claim of the cluster, read again: NoOtherClaim rests on them (a claim naming the volume may have come). */
  listClaims(): Promise<PersistentVolumeClaim[]>
  replaceVolume(volume: PersistentVolume): Promise<PersistentVolume>
  replaceClaim(claim: PersistentVolumeClaim): Promise<PersistentVolumeClaim>
}

/** The objects a relink wrote, in the order written, and the decision they were written on. */
export interface RelinkWritten extends RepairWritten<RelinkDecision> {
  written: Array<PersistentVolume | PersistentVolumeClaim>
}

/**
 * `pvctl relink`'s writes for one pair. `consented` is the decision shown (and agreed to) on `state`. Each
 * attempt re-reads the volume and the claim (each must be the same object, by uid, as decided on), decides
 * the relink again on them, and PUTs the volume, then the claim, each conditional on the resourceVersion
 * just read. A conflict starts the next attempt, which decides again on what the API server has then: a
 * volume already written is found pointing at the claim, and only the claim is left to write.
 */
export async function guardedRelink(io: RelinkIo, state: ClusterState, consented: RelinkDecision, request: Omit<RelinkInput, 'state' | 'target'>): Promise<Guarded<RelinkWritten>> {
  const name = consented.volume?.name ?? ''
  const claimName = consented.claim!
  const written: RelinkWritten['written'] = []
  const result = await conflictRetries(`pv/${name} or pvc/${claimName.namespace}/${claimName.name} kept changing: ${RECLAIM_ATTEMPTS} conflicts in a row`, async (attempt) => {
    const volume = await readVolumeOrGone(io, name)
    if (isRefusal(volume)) return volume
    let claim: PersistentVolumeClaim
    try {
      claim = await io.readClaim(claimName.namespace, claimName.name)
    } catch (err) {
      if (err instanceof NotFoundError) return {refused: `claim ${claimName.namespace}/${claimName.name} is gone`, volume: volume.done}
      else throw err
    }
    const sameObjects = volume.done.metadata.uid === consented.volume?.object?.metadata.uid && claim.metadata.uid === claimName.object?.metadata.uid
    if (!sameObjects) return {refused: `pv/${name} or pvc/${claimName.namespace}/${claimName.name} was re-created since it was read`, volume: volume.done, claim}
    // The claims as they are now (a claim that names the volume since the load would be handed its data
    // otherwise), the pair's own as just read.
    const claims = (await io.listClaims()).map((c) => (claimKey(c) === claimKey(claim) ? claim : c))
    const fresh = {...state, volumes: state.volumes.map((v) => (v.metadata.name === name ? volume.done : v)), claims}
    const decision = decideRelink({...request, state: fresh, target: consented.target})!
    // The pair closed since the load (another writer, or this run's writes before a conflict): done.
    if (decision.already !== null) return {done: {written, decision, attempts: attempt, already: written.length === 0}}
    // After a conflict on the claim, the volume written already is part of the fresh state: the decision on
    // it writes the claim alone, to the same end.
    const stale = decidedAgain('relink', name, decision, consented)
    if (stale !== undefined) return {...stale, volume: volume.done, claim}
    for (const w of decision.writes) {
      // The volume first (relinkWrites orders them): an interrupted run leaves the volume pointing at the
      // claim, which the next run finds and completes with the claim's write.
      written.push(w.object.kind === 'PersistentVolume' ? await io.replaceVolume(w.after as PersistentVolume) : await io.replaceClaim(w.after as PersistentVolumeClaim))
    }
    return {done: {written, decision, attempts: attempt, already: false}}
  })
  return isRefusal(result) && written.length > 0 ? {...result, refused: `${result.refused}; written already: ${written.map((o) => `${o.kind === 'PersistentVolume' ? 'pv' : 'pvc'}/${o.metadata.name ?? ''}`).join(', ')} (a re-run completes the relink)`} : result
}
