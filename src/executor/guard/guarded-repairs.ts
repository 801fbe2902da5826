// The guarded writes of the repairs the controller leaves to people. `pvctl reclaim` gives a volume (and
// its data) to another claim: the volume, every claim (the old one, a claim of its name again, one that
// names the volume, a restored one), the pods of the old claim's namespace and the VolumeAttachments are
// read again, the reclaim is decided again on them, and the volume is PUT conditional on the
// resourceVersion just read. `pvctl relink` likewise re-reads its pair and decides again before each PUT.
// "Changed since it was read" is said only of what differs between the read and the re-read.
import {ConflictError, NotFoundError} from '../../cluster/api-errors.js'
import {
  claimKey,
  type ClusterState,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type Pod,
} from '../../engine/api/model.js'
import {present} from '../../engine/api/invariant.js'
import type {VolumeAttachmentObject} from '../../engine/explain/evidence.js'
import {decideReclaim, type ReclaimDecision, type ReclaimInput} from '../../engine/repair/reclaim.js'
import {decideRelink, type RelinkDecision, type RelinkInput} from '../../engine/repair/relink.js'
import {changedObject, changedSinceRead} from './changed.js'
import {type Guarded, isRefusal, type Refusal} from './refusal.js'

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
  return conflictRetries<RepairWritten<ReclaimDecision> & {volume: PersistentVolume}>(
    `volume ${name} kept changing: ${RECLAIM_ATTEMPTS} conflicts in a row; nothing written`,
    async (attempt) => {
      const fresh = await readVolumeOrGone(io, name)
      if (isRefusal(fresh)) return fresh
      const recreated = changedObject(consented.volume, fresh.done)
      if (recreated !== undefined)
        return {refused: `volume ${name} changed since it was read: ${recreated}`, volume: fresh.done}
      const freshState = await rereadForReclaim(io, state, fresh.done)
      // Both lists were just read from the API server: a list that fails throws, and nothing is written.
      const decided = decideReclaim({
        ...request,
        state: freshState.state,
        attachments: {observed: true, items: freshState.attachments},
        pods: {observed: true},
      })
      const decision = present(decided, 'a reclaim decides on a volume the state holds (its re-read is in it)')
      if (decision.already !== null) return {done: {volume: fresh.done, decision, attempts: attempt, already: true}}
      const why = changedSinceRead(consented.volume, fresh.done)
      if (why !== undefined) return {refused: `volume ${name} changed since it was read: ${why}`, volume: fresh.done}
      const stale = decidedAgain('reclaim', name, decision, consented)
      if (stale !== undefined) return {...stale, volume: fresh.done}
      // Decided again on the fresh objects, allowed, and to the same end. A resourceVersion that moved on
      // since the list (an unrelated write) is what a conflict would be: the edit is made on the fresh object.
      return {done: {volume: await io.replaceVolume(decision.edited), decision, attempts: attempt, already: false}}
    },
  )
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
    return {
      refused: `the ${repair} of ${name} no longer holds on the objects read again: ${blocked.map((c) => `${c.name}: ${c.message}`).join('; ')}`,
    }
  } else if (decision.next !== consented.next) {
    // The consent was to what the controller does next: the fresh objects change it.
    return {
      refused: `what the controller does next with ${name} changed since it was shown: ${decision.next ?? '<nothing>'}, not ${consented.next ?? '<nothing>'}`,
    }
  } else if (overridden(decision).join('\n') !== overridden(consented).join('\n')) {
    // The consent covered the overrides it was shown (a claim disowned by its uid, the pods and attachments named).
    return {
      refused: `what the ${repair} of ${name} overrides changed since it was shown: ${overridden(decision).join('; ') || '<nothing>'}, not ${overridden(consented).join('; ') || '<nothing>'}`,
    }
  } else {
    return undefined
  }
}

/** `state` with what the reclaim rests on replaced by the API server's answers now. */
async function rereadForReclaim(
  io: ReclaimIo,
  state: ClusterState,
  fresh: PersistentVolume,
): Promise<{state: ClusterState; attachments: VolumeAttachmentObject[]}> {
  const claims = await io.listClaims()
  const podNamespace = fresh.spec.claimRef?.namespace
  const pods =
    podNamespace === undefined
      ? state.pods
      : [...state.pods.filter((p) => p.metadata.namespace !== podNamespace), ...(await io.listPods(podNamespace))]
  const volumes = state.volumes.map((v) => (v.metadata.name === fresh.metadata.name ? fresh : v))
  return {state: {...state, volumes, claims, pods}, attachments: await io.listVolumeAttachments()}
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
export async function guardedRelink(
  io: RelinkIo,
  state: ClusterState,
  consented: RelinkDecision,
  request: Omit<RelinkInput, 'state' | 'target'>,
): Promise<Guarded<RelinkWritten>> {
  const name = consented.volume?.name ?? ''
  const claimName = present(consented.claim, 'a consented relink names its claim')
  const written: RelinkWritten['written'] = []
  const result = await conflictRetries(
    `pv/${name} or pvc/${claimName.namespace}/${claimName.name} kept changing: ${RECLAIM_ATTEMPTS} conflicts in a row`,
    async (attempt) => {
      const volume = await readVolumeOrGone(io, name)
      if (isRefusal(volume)) return volume
      let claim: PersistentVolumeClaim
      try {
        claim = await io.readClaim(claimName.namespace, claimName.name)
      } catch (err) {
        if (err instanceof NotFoundError)
          return {refused: `claim ${claimName.namespace}/${claimName.name} is gone`, volume: volume.done}
        else throw err
      }
      const sameObjects =
        volume.done.metadata.uid === consented.volume?.object?.metadata.uid &&
        claim.metadata.uid === claimName.object?.metadata.uid
      if (!sameObjects)
        return {
          refused: `pv/${name} or pvc/${claimName.namespace}/${claimName.name} was re-created since it was read`,
          volume: volume.done,
          claim,
        }
      // The claims as they are now (a claim that names the volume since the load would be handed its data
      // otherwise), the pair's own as just read.
      const claims = (await io.listClaims()).map((c) => (claimKey(c) === claimKey(claim) ? claim : c))
      const fresh = {...state, volumes: state.volumes.map((v) => (v.metadata.name === name ? volume.done : v)), claims}
      const decision = present(
        decideRelink({...request, state: fresh, target: consented.target}),
        'a relink decides on a pair the state holds',
      )
      // The pair closed since the load (another writer, or this run's writes before a conflict): done.
      if (decision.already !== null)
        return {done: {written, decision, attempts: attempt, already: written.length === 0}}
      // After a conflict on the claim, the volume written already is part of the fresh state: the decision on
      // it writes the claim alone, to the same end.
      const stale = decidedAgain('relink', name, decision, consented)
      if (stale !== undefined) return {...stale, volume: volume.done, claim}
      for (const w of decision.writes) {
        // The volume first (relinkWrites orders them): an interrupted run leaves the volume pointing at the
        // claim, which the next run finds and completes with the claim's write.
        written.push(
          w.object.kind === 'PersistentVolume'
            ? await io.replaceVolume(w.after as PersistentVolume)
            : await io.replaceClaim(w.after),
        )
      }
      return {done: {written, decision, attempts: attempt, already: false}}
    },
  )
  return isRefusal(result) && written.length > 0
    ? {
        ...result,
        refused: `${result.refused}; written already: ${written.map((o) => `${o.kind === 'PersistentVolume' ? 'pv' : 'pvc'}/${o.metadata.name ?? ''}`).join(', ')} (a re-run completes the relink)`,
      }
    : result
}
