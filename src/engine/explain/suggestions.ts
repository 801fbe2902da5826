// What would fix a claim that does not bind, each suggestion concrete: the nearest volume and the one field
// that keeps it out, the command that sets a default class, the Released volume whose stale claimRef is in
// the way. Suggestions are advice, not decisions: the verdict never depends on them.
import {AnnSelectedNode, IsDefaultStorageClassAnnotation, NotSupportedProvisioner} from '../api/constants.js'
import {closeNames} from '../api/close-names.js'
import type {ControllerQueries} from './controller-queries.js'
import {type CandidateOrder, firstCandidate, inUseByAnotherClaim} from './candidates.js'
import type {ClusterLookup} from './lookup.js'
import {livenessAdvice} from './liveness.js'
import type {Candidate, ControllerLiveness, Reason, StorageClassInPlay} from './model.js'
import {boundClaimRef, type Decision, decidedVolume} from './verdict.js'
import {
  claimKey,
  claimRefKey,
  type ClusterState,
  type PersistentVolume,
  type PersistentVolumeClaim,
} from '../api/model.js'
import {deepCopy, getAccessModesAsString} from '../api/storage-helpers.js'

export function suggestFixes(
  q: ControllerQueries,
  state: ClusterState,
  claim: PersistentVolumeClaim,
  d: Decision,
  candidates: readonly Candidate[],
  order: CandidateOrder,
  provisioner: ControllerLiveness | null = null,
): string[] {
  const ctx: Context = {cluster: q.lookup, claim, order}
  const asked: Asked = {q, state, claim, d, candidates, ctx, provisioner}
  return dedupe([...defaultClassConflict(d.storageClass), ...fixesForVerdict(asked)])
}

/** What the suggestions for one claim's decision are made from. */
interface Asked {
  q: ControllerQueries
  state: ClusterState
  claim: PersistentVolumeClaim
  d: Decision
  candidates: readonly Candidate[]
  ctx: Context
  provisioner: ControllerLiveness | null
}

/** More than one default class, where the claim gets (or would get) the default: which wins, and how to unmark the rest. */
function defaultClassConflict(cls: StorageClassInPlay): string[] {
  if (cls.defaultClasses.length > 1 && (cls.selection === 'Unset' || cls.assignedByNextSync)) {
    return [
      `${cls.defaultClasses.length} classes are marked default (${cls.defaultClasses.join(', ')}): '${cls.defaultClasses[0]}', the newest, wins; unmark the others with kubectl annotate storageclass NAME ${IsDefaultStorageClassAnnotation}=false --overwrite`,
    ]
  }
  return []
}

/** The fixes the verdict calls for. */
function fixesForVerdict(asked: Asked): string[] {
  const {claim, d, candidates, ctx} = asked
  const ns = claim.metadata.namespace ?? ''
  const cls = d.storageClass
  switch (d.verdict) {
    case 'Bound':
    case 'WillBind':
    case 'WillProvision':
      return []
    case 'NoMatchingVolume':
      return [...nearMisses(ctx, candidates), noMatchingVolumeFix(asked.state, cls)]
    case 'ProvisioningNotSupported':
      return [...nearMisses(ctx, candidates), provisioningNotSupportedFix(claim, d)]
    case 'StorageClassNotFound':
      return storageClassNotFoundFixes(asked)
    case 'ExternalProvisioning':
      return externalProvisioningFixes(asked)
    case 'WaitForFirstConsumer':
      return [
        `nothing is wrong: start a pod that mounts the claim and the scheduler picks a node, then a volume (or asks '${cls.provisioner ?? cls.name}' for one)`,
      ]
    case 'WaitForPodScheduled':
      return [`see why the scheduler cannot place it: kubectl describe pod ${d.unscheduledPods[0]} -n ${ns}`]
    case 'RequestedVolumeNotFound':
      return requestedVolumeNotFoundFixes(asked)
    case 'RequestedVolumeBoundElsewhere':
      return [requestedVolumeBoundElsewhereFix(asked.q, claim, d)]
    case 'RequestedVolumeMismatch': {
      const requested = candidates.find((c) => c.volume === d.volume?.metadata.name)
      return requested !== undefined ? requested.reasons.flatMap((r) => fixFor(ctx, requested, r)) : []
    }
    case 'Lost':
      return [lostClaimFix(asked.q, claim, d)]
    case 'Misbound':
      return [misboundFix(asked.q, claim, d)]
    case 'SyncError':
      return [`fix what the controller reports; it retries the claim on every sync`]
  }
}

/** NoMatchingVolume: a class that would provision for the claim, or a volume without a class. */
function noMatchingVolumeFix(state: ClusterState, cls: StorageClassInPlay): string {
  if (cls.selection === 'NoClass') {
    const names = state.classes.map((c) => c.metadata.name ?? '')
    return `storageClassName "" means "no class": nothing is ever provisioned for it; create a matching PersistentVolume without a class${names.length > 0 ? `, or recreate the claim with a class (${names.join(', ')})` : ''}`
  } else if (state.classes.length > 0) {
    const pick = state.classes.length === 1 ? state.classes[0].metadata.name : 'CLASS'
    return `make a class the default and the controller gives it to this claim: kubectl annotate storageclass ${pick} ${IsDefaultStorageClassAnnotation}=true${state.classes.length > 1 ? ` (CLASS one of: ${state.classes.map((c) => c.metadata.name).join(', ')})` : ''}`
  } else {
    return 'create a StorageClass and mark it default (storageclass.kubernetes.io/is-default-class: "true"), or create a matching PersistentVolume without a class'
  }
}

/** ProvisioningNotSupported: a class that provisions, or what the controller reports. */
function provisioningNotSupportedFix(claim: PersistentVolumeClaim, d: Decision): string {
  if (d.provisioner === NotSupportedProvisioner) {
    return `create a PersistentVolume of class '${d.storageClass.name}' with ${describeNeed(claim)}, or recreate the claim with a class that provisions`
  } else {
    return `fix what the controller reports ("${d.error}"): the claim is retried on every sync`
  }
}

/** StorageClassNotFound: the class to create, or the volumes that already bear its name. */
function storageClassNotFoundFixes({q, state, claim, d, candidates, ctx}: Asked): string[] {
  const cls = d.storageClass
  const close = closeNames(
    cls.name,
    state.classes.map((c) => c.metadata.name ?? ''),
  )
  const out = nearMisses(ctx, candidates)
  const labelled = q.lookup.volumesOfClass(cls.name).length
  if (labelled > 0) {
    // A class name static volumes bear as a label: they bind by it without a StorageClass object, and
    // a class made now would not make one of them fit.
    out.push(
      `'${cls.name}' names no StorageClass but ${labelled} volume${labelled === 1 ? ' bears' : 's bear'} it, and ${labelled === 1 ? 'it binds' : 'they bind'} by that name alone: creating the class would not bind this claim (none fits it); a volume of class '${cls.name}' with ${describeNeed(claim)} would`,
    )
    return out
  }
  out.push(
    `create StorageClass '${cls.name}', or recreate the claim with an existing class${close.length > 0 ? ` (did you mean ${close.map((c) => `'${c}'`).join(' or ')}?)` : state.classes.length > 0 ? ` (${state.classes.map((c) => c.metadata.name).join(', ')})` : ''}`,
  )
  return out
}

/** ExternalProvisioning: whether the provisioner runs, then the near misses. */
function externalProvisioningFixes({claim, d, candidates, ctx, provisioner}: Asked): string[] {
  const ns = claim.metadata.namespace ?? ''
  const name = claim.metadata.name ?? ''
  const out: string[] = []
  // Evidence that answers whether it runs (explain-liveness.ts) has its own advice; this is for when none could be read.
  if (provisioner === null || provisioner.verdict === 'Unknown') {
    out.push(
      `check that the provisioner '${d.provisioner}' is running: kubectl get csidriver ${d.provisioner}; a live provisioner reports on the claim: kubectl get events -n ${ns} --field-selector involvedObject.name=${name}`,
    )
  } else {
    out.push(...livenessAdvice(provisioner, 'this claim'))
  }
  out.push(...nearMisses(ctx, candidates))
  return out
}

/** RequestedVolumeNotFound: the volume the claim may have meant, or the one to create. */
function requestedVolumeNotFoundFixes({q, state, claim, d}: Asked): string[] {
  const out: string[] = []
  const close = closeNames(
    d.claim.spec.volumeName ?? '',
    state.volumes.map((v) => v.metadata.name ?? ''),
  )
  if (close.length > 0)
    out.push(`did you mean ${close.join(' or ')}? spec.volumeName cannot be changed once set: recreate the claim`)
  out.push(
    `create PersistentVolume ${d.claim.spec.volumeName}, or recreate the claim without spec.volumeName${alternative(q, claim)}`,
  )
  return out
}

/** RequestedVolumeBoundElsewhere: relink, free the volume of a gone claim, or leave it to the claim that uses it. */
function requestedVolumeBoundElsewhereFix(q: ControllerQueries, claim: PersistentVolumeClaim, d: Decision): string {
  const volume = decidedVolume(d)
  const v = volume.metadata.name ?? ''
  const way = relinkWay(q, claim)
  if (way !== undefined) {
    return relinkSuggestion(volume, way)
  } else if (!inUseByAnotherClaim(q.lookup, volume, claim)) {
    // The claim it names is gone: the volume, its data on it, is what this claim asks for. Freed of its
    // stale claimRef, the claim's next sync binds it (the guarded reclaim takes this patch's place where
    // pvctl offers it: engine/repair/offers.ts).
    return `${v} still names ${claimRefKey(boundClaimRef(volume))}, which is gone (phase ${volume.status?.phase ?? '<none>'}, reclaim policy ${volume.spec.persistentVolumeReclaimPolicy ?? '<none>'}, its old data on it): this claim asks for it, so freeing it gives it to this claim: ${removeClaimRefPatch(v)}`
  } else {
    return `${v} is in use by ${claimRefKey(boundClaimRef(volume))}: recreate the claim without spec.volumeName${alternative(q, claim)}; deleting it loses nothing, it never held data`
  }
}

/** Lost: restore the volume, relink the one that still names the claim, or start over. */
function lostClaimFix(q: ControllerQueries, claim: PersistentVolumeClaim, d: Decision): string {
  // A claim that lost its spec.volumeName, still named by one volume: relink's decision sets it again.
  const naming = d.claim.spec.volumeName ? [] : q.lookup.volumesClaiming(claimKey(claim))
  const way = naming.length === 1 ? relinkWay(q, claim) : undefined
  const namedBy = way === undefined ? undefined : naming[0]
  return d.claim.spec.volumeName
    ? `restore PersistentVolume ${d.claim.spec.volumeName} (from a backup) with spec.claimRef naming ${claimKey(claim)} and uid ${claim.metadata.uid ?? ''}, and they bind again; else delete the claim (its data went with ${d.claim.spec.volumeName}) and create a new one`
    : namedBy !== undefined
      ? `${namedBy.metadata.name ?? ''} still names this claim${namedBy.spec.claimRef?.uid === claim.metadata.uid ? '' : ' (with the uid of an older claim of that name)'}, but spec.volumeName was cleared: relink them, and the controller binds them again with its data: ${way}`
      : `delete the claim and create a new one, empty: a Lost claim never binds again, and no volume names it any more`
}

/** Misbound: relink, or leave the volume to the claim it belongs to. */
function misboundFix(q: ControllerQueries, claim: PersistentVolumeClaim, d: Decision): string {
  const way = relinkWay(q, claim)
  const volume = decidedVolume(d)
  return way !== undefined
    ? relinkSuggestion(volume, way)
    : `${volume.metadata.name} belongs to ${claimRefKey(boundClaimRef(volume))}: delete this claim and create a new one (without spec.volumeName); the volume and its data stay with ${claimRefKey(boundClaimRef(volume))}`
}

/**
 * The relink of the claim as `pvctl relink pvc/NAME` decides it on the state explained, through the
 * ExplainOptions port (engine/repair decides it; explain may not import it): the command(s) to run, or
 * undefined where relink refuses it, or where no port was given (then no relink is offered).
 */
function relinkWay(q: ControllerQueries, claim: PersistentVolumeClaim): string | undefined {
  return q.opts.relink?.({namespace: claim.metadata.namespace ?? '', name: claim.metadata.name ?? ''})
}

/** The relink, as the operator runs it: the volume keeps its data, the claim gets it back. */
function relinkSuggestion(volume: PersistentVolume, way: string): string {
  const v = volume.metadata.name ?? ''
  const uid = volume.spec.claimRef?.uid ?? ''
  const names =
    uid === ''
      ? 'names this claim but its claimRef lost the uid'
      : `names this claim with the uid of an older claim of that name (uid ${uid})`
  return `${v} ${names}: relink them (the claimRef gets this claim's uid), and the controller binds them with ${v}'s data: ${way}`
}

/** The verdicts whose suggestions name near misses (nearMisses): a bounded explanation ranks for them. */
export const NEAR_MISS_VERDICTS: ReadonlySet<Decision['verdict']> = new Set([
  'NoMatchingVolume',
  'ProvisioningNotSupported',
  'StorageClassNotFound',
  'ExternalProvisioning',
])

/** The kubectl patch that removes a volume's claimRef by hand (engine/repair offers the guarded reclaim instead, where it is allowed). */
export function removeClaimRefPatch(volume: string): string {
  return `kubectl patch pv ${volume} --type json -p '[{"op":"remove","path":"/spec/claimRef"}]'`
}

/**
 * The candidates nearMisses picks: the nearest of each test (of the second, the nearest two, since the
 * first of those may be the nearest of the first). A bounded explanation keeps them whatever they rank.
 */
export function nearMissTests(
  cluster: ClusterLookup,
  claim: PersistentVolumeClaim,
): {fixable: (c: Candidate) => boolean; released: (c: Candidate) => boolean} {
  const fixable = (c: Candidate) =>
    !c.eligible && !c.reasons.some((r) => r.code === 'NotConsidered') && !heldByLiveClaim({cluster, claim}, c)
  const released = (c: Candidate) =>
    c.phase === 'Released' &&
    c.reasons.every((r) => r.code === 'BoundToOtherClaim' || r.code === 'VolumeNotAvailable') &&
    fixable(c)
  return {fixable, released}
}

/**
 * The nearest volume and what keeps it out, and any Released volume that would fit but for its stale
 * claimRef: the two fixes an administrator most often needs.
 */
function nearMisses(ctx: Context, candidates: readonly Candidate[]): string[] {
  const out: string[] = []
  const tests = nearMissTests(ctx.cluster, ctx.claim)
  const nearest = firstCandidate(candidates, ctx.order, tests.fixable)
  if (nearest !== undefined) {
    const what = nearest.reasons.map((r) => r.message).join('; ')
    const fixes = nearest.reasons.flatMap((r) => fixFor(ctx, nearest, r))
    if (nearest.reasons.length === 1) {
      out.push(
        `the nearest volume, ${nearest.volume}, is kept out only by: ${what}${fixes.length > 0 ? ` — ${fixes.join('; ')}` : ''}`,
      )
    } else {
      out.push(`the nearest volume, ${nearest.volume}, is kept out by ${nearest.reasons.length} things: ${what}`)
    }
  }
  const released = firstCandidate(candidates, ctx.order, (c) => c !== nearest && tests.released(c))
  if (released !== undefined) out.push(...released.reasons.flatMap((r) => fixFor(ctx, released, r)))
  return out
}

/** The concrete change that removes one reason, when there is one to make. */
function fixFor(ctx: Context, c: Candidate, r: Reason): string[] {
  const {claim, cluster} = ctx
  const v = c.volume
  switch (r.code) {
    case 'CapacityTooSmall':
      return [
        `a claim requesting at most ${c.capacity} fits ${v}; else create or expand a volume to ${claim.spec.resources?.requests?.storage}`,
      ]
    case 'StorageClassMismatch': {
      const want = /≠ '(.*)'$/.exec(r.message)?.[1] ?? ''
      return [`give ${v} the class '${want}': kubectl patch pv ${v} -p '{"spec":{"storageClassName":"${want}"}}'`]
    }
    case 'SelectorMismatch': {
      const lack = /^labels lack ([^,]+)$/.exec(r.message) ?? /^label \S+, want (\S+)$/.exec(r.message)
      return lack !== null
        ? [`label it: kubectl label pv ${v} ${lack[1]}${r.message.startsWith('label ') ? ' --overwrite' : ''}`]
        : []
    }
    case 'AccessModesMismatch':
      return [
        `${v} offers ${c.accessModes || 'no access mode'}: a claim that asks for ${c.accessModes || 'none'} (or a volume that offers ${getAccessModesAsString(claim.spec.accessModes)}) would fit`,
      ]
    case 'VolumeModeMismatch':
      return [
        `volumeMode cannot change on either side: a claim with volumeMode ${cluster.volumeByName(v)?.spec.volumeMode ?? 'Filesystem'} would fit ${v}`,
      ]
    case 'BoundToOtherClaim':
      // No claimRef: an earlier claim of the pass takes it (a List), and no patch gives it back.
      return c.claimRef !== null && !heldByLiveClaim(ctx, c)
        ? [
            `${v} still names ${c.claimRef} in spec.claimRef (phase ${c.phase ?? '<none>'}, reclaim policy ${cluster.volumeByName(v)?.spec.persistentVolumeReclaimPolicy ?? '<none>'}, its old data still on it): to reuse it, ${removeClaimRefPatch(v)}`,
          ]
        : []
    case 'PreBoundToOtherClaim':
      return [
        `${v} is reserved for ${c.claimRef} (claimRef without uid): if that claim will not come, kubectl patch pv ${v} --type json -p '[{"op":"remove","path":"/spec/claimRef"}]'`,
      ]
    case 'VolumeNotAvailable':
      if (c.claimRef === null && (c.phase === null || c.phase === 'Pending')) {
        return [`${v} becomes Available on its next sync; the claim's sync after that can bind it`]
      }
      return c.phase === 'Failed' ? [`${v} is Failed: pvctl explain pv/${v}`] : []
    case 'VolumeBeingDeleted':
    case 'DelayBinding':
    case 'NodeAffinityMismatch':
    case 'VolumeAttributesClassMismatch':
    case 'VolumeAttributesClassUnsupported':
    case 'NotConsidered':
      return []
  }
}

interface Context {
  cluster: ClusterLookup
  claim: PersistentVolumeClaim
  /** How near each candidate came: the candidates need not be sorted (a list keeps only the nearest). */
  order: CandidateOrder
}

/** The candidate is in use by another claim that exists: no fix of ours should take it away. */
function heldByLiveClaim(ctx: Pick<Context, 'cluster' | 'claim'>, c: Candidate): boolean {
  const volume = ctx.cluster.volumeByName(c.volume)
  return volume !== undefined && inUseByAnotherClaim(ctx.cluster, volume, ctx.claim)
}

/** ", then V would match": what the controller picks for the claim without spec.volumeName. */
function alternative(q: ControllerQueries, claim: PersistentVolumeClaim): string {
  const free = deepCopy(claim)
  delete free.spec.volumeName
  const delay = q.isDelayBindingMode(free)
  if (delay.error !== undefined) return ''
  const match = q.findBestMatchForClaim(free, delay.value)
  return match.value === undefined ? '' : ` (then ${match.value.metadata.name} would match)`
}

export function describeNeed(claim: PersistentVolumeClaim): string {
  const parts = [
    `at least ${claim.spec.resources?.requests?.storage ?? '0'}`,
    getAccessModesAsString(claim.spec.accessModes) || 'any access mode',
    claim.spec.volumeMode ?? 'Filesystem',
  ]
  if (claim.metadata.annotations?.[AnnSelectedNode] !== undefined)
    parts.push(`usable on node ${claim.metadata.annotations[AnnSelectedNode]}`)
  return parts.join(', ')
}

function dedupe(lines: string[]): string[] {
  return [...new Set(lines)]
}
