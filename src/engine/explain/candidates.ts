// Every volume as a candidate for a claim, with ALL the reasons the controller refuses it.
//
// The controller stops at the first failed check (a `continue` in FindMatchingVolume, a `return` in
// checkVolumeSatisfyClaim); an operator wants every one of them, so each check becomes a reason and none
// stops the others. Which checks apply, and in which situations, follows the controller exactly:
// - a claim that names no volume is matched by findBestMatchForClaim (index.go + FindMatchingVolume): the
//   access-mode index, then claimRef, size, volume mode, VolumeAttributesClass, deletion; a volume
//   pre-bound to the claim skips the rest; then delayed binding, phase, selector, class;
// - a claim that names its volume (spec.volumeName) is checked by checkVolumeSatisfyClaim against that
//   volume alone, and only while the volume has no claimRef;
// - a claim that completed binding is never matched again: syncBoundClaim looks at its own volume only.
// The choice itself is never made here: the controller's index makes it (explain-controller.ts), and a
// test checks that `eligible` is exactly what the controller's matcher accepts.
import type {FeatureGates} from '../api/feature-gates.js'
import {vacMatching} from '../api/releases.js'
import type {Candidate, Reason, ReasonCode} from './model.js'
import type {ClusterLookup, VolumeFacts} from './lookup.js'
import type {PersistentVolume, PersistentVolumeClaim} from '../api/model.js'
import {checkNodeAffinity, type NodeInfo} from '../api/node-affinity.js'
import {compareQuantities, QuantityError, quantityValue, type Quantity} from '../api/quantity.js'
import {
  type CompiledSelector,
  describeSelectorMismatch,
  type Labels,
  requirementMatches,
  SelectorError,
} from '../api/selector.js'
import {
  checkAccessModes,
  checkVolumeModeMismatches,
  getAccessModesAsString,
  getPersistentVolumeClaimClass,
  getPersistentVolumeClass,
  isVolumeBoundToClaim,
} from '../api/storage-helpers.js'
import {claimVAC, compareNames, storageQuantity, volumeVAC, volumeVACAdmitted} from '../matching/volume-index.js'

/** How the claim is being matched, as syncClaim decides it. */
export type MatchingPath =
  /** syncUnboundClaim with no spec.volumeName: findBestMatchForClaim. */
  | {kind: 'index'; claimClass: string; delayBinding: boolean; node?: NodeInfo}
  /** syncUnboundClaim with spec.volumeName: that volume, through checkVolumeSatisfyClaim. */
  | {kind: 'requested'; volumeName: string}
  /** syncBoundClaim: the claim keeps the volume it names (or has lost it). */
  | {kind: 'bound'; volumeName: string}

/** Makes a refusal: its code now, its words (`describe`) now or when first read. */
export type ReasonOf = (code: ReasonCode, describe: () => string) => Reason

/** A refusal worded at once: what an explanation of one claim carries. */
export const describedNow: ReasonOf = (code, describe) => ({code, message: describe()})

/**
 * A refusal worded only when its message is first read: a list of many claims ranks every volume by its
 * refusals but shows the words of a few (see describeReasons).
 */
export const describedLater: ReasonOf = (code, describe) => new UnwordedReason(code, describe)

class UnwordedReason implements Reason {
  private words: string | undefined
  constructor(
    readonly code: ReasonCode,
    private readonly describe: () => string,
  ) {}

  get message(): string {
    return (this.words ??= this.describe())
  }
}

/** The candidate with its reasons as plain data, worded: what is printed. */
export function describeReasons(c: Candidate): Candidate {
  return c.reasons.every((reason) => !(reason instanceof UnwordedReason))
    ? c
    : {...c, reasons: c.reasons.map(({code, message}) => ({code, message}))}
}

/** Every volume of the state as a candidate, in the state's order. */
export function describeCandidates(
  cluster: ClusterLookup,
  claim: PersistentVolumeClaim,
  path: MatchingPath,
  gates: FeatureGates,
): Candidate[] {
  return cluster.allFacts().map((facts) => candidateOf(facts, judge(cluster, facts, claim, path, gates, describedNow)))
}

/**
 * Whether a candidate can matter to the claim (`--only-relevant`): the volume the claim names always
 * does; others not when the claim does not consider them, nor when another claim that exists uses them.
 * Stale claimRefs and pre-bindings stay: they are often the answer.
 */
export function isRelevant(cluster: ClusterLookup, claim: PersistentVolumeClaim, candidate: Candidate): boolean {
  const volume = cluster.volumeByName(candidate.volume)
  return volume === undefined
    ? candidate.volume === claim.spec.volumeName || !candidate.reasons.some((r) => r.code === 'NotConsidered')
    : relevant(cluster.factsOf(volume), candidate.reasons, claim)
}

function relevant(facts: VolumeFacts, reasons: readonly Reason[], claim: PersistentVolumeClaim): boolean {
  if (facts.volume.metadata.name === claim.spec.volumeName) return true
  if (reasons.some((r) => r.code === 'NotConsidered')) return false
  return !heldByAnotherClaim(facts, claim)
}

/** The volume is bound (with a uid) to another claim that exists under that uid. */
export function inUseByAnotherClaim(
  cluster: ClusterLookup,
  volume: PersistentVolume,
  claim: PersistentVolumeClaim,
): boolean {
  return heldByAnotherClaim(cluster.factsOf(volume), claim)
}

function heldByAnotherClaim(facts: VolumeFacts, claim: PersistentVolumeClaim): boolean {
  const ref = facts.volume.spec.claimRef
  if (ref == null || (ref.uid ?? '') === '' || isVolumeBoundToClaim(facts.volume, claim)) return false
  return (facts.holder?.metadata.uid ?? '') === ref.uid
}

function candidateOf(facts: VolumeFacts, reasons: Reason[]): Candidate {
  const volume = facts.volume
  return {
    volume: volume.metadata.name ?? '',
    eligible: reasons.length === 0,
    reasons,
    capacity: volume.spec.capacity?.storage ?? null,
    storageClass: getPersistentVolumeClass(volume),
    phase: volume.status?.phase ?? null,
    accessModes: facts.accessModes,
    claimRef: facts.claimRefKey,
  }
}

/**
 * One volume judged for the claim in full (the words when first read), and whether --only-relevant keeps
 * it: what rankCandidates does with each volume it does not drop.
 */
export function judgeCandidate(
  cluster: ClusterLookup,
  facts: VolumeFacts,
  claim: PersistentVolumeClaim,
  path: MatchingPath,
  gates: FeatureGates,
): {candidate: Candidate; relevant: boolean} {
  const reasons = judge(cluster, facts, claim, path, gates, describedLater)
  return {candidate: candidateOf(facts, reasons), relevant: relevant(facts, reasons, claim)}
}

export function reasonsFor(
  cluster: ClusterLookup,
  volume: PersistentVolume,
  claim: PersistentVolumeClaim,
  path: MatchingPath,
  gates: FeatureGates,
): Reason[] {
  return judge(cluster, cluster.factsOf(volume), claim, path, gates, describedNow)
}

/**
 * The volume's refusals worded only when read, and on the index path cut short past `cap` as rankCandidates
 * cuts them: for a caller that weighs the codes of many pairs and words none of them.
 */
export function refusalsWithin(
  cluster: ClusterLookup,
  volume: PersistentVolume,
  claim: PersistentVolumeClaim,
  path: MatchingPath,
  gates: FeatureGates,
  cap: number,
): Reason[] {
  return judge(cluster, cluster.factsOf(volume), claim, path, gates, describedLater, cap)
}

/**
 * The volume's reasons; with a `cap`, the index path may stop as soon as there are more than that (the
 * words of each only when read, with describedLater).
 */
function judge(
  cluster: ClusterLookup,
  facts: VolumeFacts,
  claim: PersistentVolumeClaim,
  path: MatchingPath,
  gates: FeatureGates,
  r: ReasonOf,
  cap = Infinity,
): Reason[] {
  const volume = facts.volume
  switch (path.kind) {
    case 'index':
      return indexRefusals(cluster, facts, claim, path, gates, r, cap)
    case 'requested':
      return volume.metadata.name === path.volumeName
        ? requestedVolumeRefusals(cluster, facts, claim, gates, r)
        : [r('NotConsidered', () => `the claim asks for ${path.volumeName} (spec.volumeName)`)]
    case 'bound':
      return boundVolumeRefusals(cluster, facts, claim, path.volumeName, r)
  }
}

/** FindMatchingVolume's filters (and the access-mode index before it), every one of them. */
function indexRefusals(
  cluster: ClusterLookup,
  facts: VolumeFacts,
  claim: PersistentVolumeClaim,
  path: Extract<MatchingPath, {kind: 'index'}>,
  gates: FeatureGates,
  r: ReasonOf,
  cap: number,
): Reason[] {
  const volume = facts.volume
  const reasons: Reason[] = []
  // FindMatchingVolume refuses the claim itself before it looks at any volume.
  const unsupported = claimVACRefusal(claim, gates, r)
  if (unsupported !== undefined) reasons.push(unsupported)
  // The index lists only volumes whose access-mode set (as its key: known modes) holds every requested mode.
  // containsAllAccessModes(indexModes, ...), with the volume's set made once.
  if (!(claim.spec.accessModes ?? []).every((mode) => facts.indexModeSet.has(mode))) {
    reasons.push(accessModesReason(facts, claim, r))
  }
  const preBoundHere = isVolumeBoundToClaim(volume, claim)
  if (volume.spec.claimRef != null && !preBoundHere) {
    reasons.push(claimRefReason(cluster, facts, claim, r))
  }
  // More than `cap` already: the caller (rankCandidates) drops the volume, whatever else refuses it.
  if (reasons.length > cap) return reasons
  const capacity = capacityReason(volume, claim, compareQuantities, r)
  if (capacity !== undefined) reasons.push(capacity)
  if (checkVolumeModeMismatches(claim.spec, volume.spec)) reasons.push(volumeModeReason(volume, claim, r))
  const vac = volumeVACReason(volume, claim, gates, r)
  if (vac !== undefined) reasons.push(vac)
  if (volume.metadata.deletionTimestamp != null) reasons.push(beingDeletedReason(volume, r))
  if (reasons.length > cap) return reasons
  if (preBoundHere) {
    // A volume pre-bound to the claim is the answer whatever its phase, labels or class.
    return reasons
  }
  if (path.delayBinding) {
    reasons.push(
      r('DelayBinding', () => `class '${path.claimClass}' binds on first consumer: the scheduler picks the volume`),
    )
    const node = path.node
    if (node !== undefined && checkNodeAffinity(volume.spec.nodeAffinity, node) !== undefined) {
      reasons.push(r('NodeAffinityMismatch', () => `its node affinity excludes node ${node.name ?? ''}`))
    }
  }
  if (volume.status?.phase !== 'Available') {
    reasons.push(
      r('VolumeNotAvailable', () =>
        volume.status?.phase === undefined
          ? 'no phase yet, not Available'
          : `phase ${volume.status.phase}, not Available`,
      ),
    )
  }
  if (claim.spec.selector != null) reasons.push(...selectorReasons(cluster, volume, claim, r))
  const volumeClass = getPersistentVolumeClass(volume)
  if (volumeClass !== path.claimClass) {
    reasons.push(r('StorageClassMismatch', () => `class '${volumeClass}' ≠ '${path.claimClass}'`))
  }
  return reasons
}

/** checkVolumeSatisfyClaim's checks for the volume a claim asks for by name, every one of them. */
function requestedVolumeRefusals(
  cluster: ClusterLookup,
  facts: VolumeFacts,
  claim: PersistentVolumeClaim,
  gates: FeatureGates,
  r: ReasonOf,
): Reason[] {
  const volume = facts.volume
  if (volume.spec.claimRef != null) {
    // Claimed already: by this claim (the binding is finished), or by another one.
    return isVolumeBoundToClaim(volume, claim) ? [] : [claimRefReason(cluster, facts, claim, r)]
  }
  const reasons: Reason[] = []
  if (volume.metadata.deletionTimestamp != null) reasons.push(beingDeletedReason(volume, r))
  // Go compares Value()s here (whole units, rounded up), not the exact quantities as matching does.
  const capacity = capacityReason(volume, claim, (a, b) => (quantityValue(a) < quantityValue(b) ? -1 : 0), r)
  if (capacity !== undefined) reasons.push(capacity)
  const volumeClass = getPersistentVolumeClass(volume)
  const claimClass = getPersistentVolumeClaimClass(claim)
  if (volumeClass !== claimClass)
    reasons.push(r('StorageClassMismatch', () => `class '${volumeClass}' ≠ '${claimClass}'`))
  if (checkVolumeModeMismatches(claim.spec, volume.spec)) reasons.push(volumeModeReason(volume, claim, r))
  if (!checkAccessModes(claim, volume)) reasons.push(accessModesReason(facts, claim, r))
  const unsupported = claimVACRefusal(claim, gates, r)
  if (unsupported !== undefined) reasons.push(unsupported)
  const vac = volumeVACReason(volume, claim, gates, r)
  if (vac !== undefined) reasons.push(vac)
  return reasons
}

/** syncBoundClaim: only the claim's own volume counts, and only its claimRef decides. */
function boundVolumeRefusals(
  cluster: ClusterLookup,
  facts: VolumeFacts,
  claim: PersistentVolumeClaim,
  volumeName: string,
  r: ReasonOf,
): Reason[] {
  const volume = facts.volume
  if (volumeName === '') {
    return [r('NotConsidered', () => 'the claim completed binding once: the controller never matches it again')]
  } else if (volume.metadata.name !== volumeName) {
    return [r('NotConsidered', () => `the claim is bound to ${volumeName}`)]
  } else if (volume.spec.claimRef == null || (volume.spec.claimRef.uid ?? '') === (claim.metadata.uid ?? '')) {
    // Unbound (the controller binds it again) or pointing back: the volume is the claim's.
    return []
  } else {
    return [claimRefReason(cluster, facts, claim, r)]
  }
}

// -------------------------------------------------------------------------------------------------------
// One reason each, with the values that make it concrete.

/** A claim that names a VolumeAttributesClass while the gate is off (v1.31+): refused whatever the volume. */
function claimVACRefusal(claim: PersistentVolumeClaim, gates: FeatureGates, r: ReasonOf): Reason | undefined {
  const name = claimVAC(claim)
  return vacMatching(gates) === 'none' && name !== ''
    ? r(
        'VolumeAttributesClassUnsupported',
        () => `the claim names VolumeAttributesClass '${name}', refused while the VolumeAttributesClass gate is off`,
      )
    : undefined
}

/** The VolumeAttributesClass filter (FindMatchingVolume, checkVolumeSatisfyClaim) against this volume. */
function volumeVACReason(
  volume: PersistentVolume,
  claim: PersistentVolumeClaim,
  gates: FeatureGates,
  r: ReasonOf,
): Reason | undefined {
  const vac = vacMatching(gates)
  if (volumeVACAdmitted(claim, volume, vac)) {
    return undefined
  } else if (vac === 'equal') {
    return r(
      'VolumeAttributesClassMismatch',
      () => `VolumeAttributesClass '${volumeVAC(volume)}' ≠ '${claimVAC(claim)}'`,
    )
  } else {
    return r(
      'VolumeAttributesClassMismatch',
      () => `has VolumeAttributesClass '${volumeVAC(volume)}': never bound while the VolumeAttributesClass gate is off`,
    )
  }
}

function capacityReason(
  volume: PersistentVolume,
  claim: PersistentVolumeClaim,
  cmp: (a: Quantity, b: Quantity) => number,
  r: ReasonOf,
): Reason | undefined {
  const offered = storageQuantity(volume.spec.capacity)
  const requested = storageQuantity(claim.spec.resources?.requests)
  if (cmp(offered, requested) >= 0) return undefined
  return r(
    'CapacityTooSmall',
    () => `${volume.spec.capacity?.storage ?? '0'} < requested ${claim.spec.resources?.requests?.storage ?? '0'}`,
  )
}

function accessModesReason(facts: VolumeFacts, claim: PersistentVolumeClaim, r: ReasonOf): Reason {
  return r('AccessModesMismatch', () => {
    const offered = facts.accessModes || 'none'
    const offeredSet = new Set(facts.volume.spec.accessModes ?? [])
    const missing = (claim.spec.accessModes ?? []).filter(
      (m) => !offeredSet.has(m) || getAccessModesAsString([m]) === '',
    )
    return `offers ${offered}, claim needs ${missing.map((m) => getAccessModesAsString([m]) || m).join(',')}`
  })
}

function volumeModeReason(volume: PersistentVolume, claim: PersistentVolumeClaim, r: ReasonOf): Reason {
  return r(
    'VolumeModeMismatch',
    () => `volumeMode ${volume.spec.volumeMode ?? 'Filesystem'} ≠ ${claim.spec.volumeMode ?? 'Filesystem'}`,
  )
}

function beingDeletedReason(volume: PersistentVolume, r: ReasonOf): Reason {
  return r('VolumeBeingDeleted', () => `being deleted since ${volume.metadata.deletionTimestamp}`)
}

/** Who holds the volume: a bound claim (uid) or a pre-binding (no uid), and whether that claim still exists. */
function claimRefReason(cluster: ClusterLookup, facts: VolumeFacts, claim: PersistentVolumeClaim, r: ReasonOf): Reason {
  const ref = facts.volume.spec.claimRef
  const key = facts.claimRefKey
  if (ref == null || key === null) {
    throw new Error(
      `invariant: a claimRef reason for volume ${facts.volume.metadata.name ?? ''}, which has no claimRef`,
    )
  }
  const uid = ref.uid ?? ''
  if (uid === '') {
    return r('PreBoundToOtherClaim', () => `pre-bound to ${key}`)
  }
  const holder = facts.holder
  if ((ref.name ?? '') === (claim.metadata.name ?? '') && (ref.namespace ?? '') === (claim.metadata.namespace ?? '')) {
    return r('BoundToOtherClaim', () => `bound to an earlier claim ${key} (uid ${uid}), not this one`)
  } else if (holder === undefined || (holder.metadata.uid ?? '') !== uid) {
    return r('BoundToOtherClaim', () => `bound to ${key}, which no longer exists (stale claimRef)`)
  } else {
    return r('BoundToOtherClaim', () => `bound to ${key}`)
  }
}

function selectorReasons(
  cluster: ClusterLookup,
  volume: PersistentVolume,
  claim: PersistentVolumeClaim,
  r: ReasonOf,
): Reason[] {
  const compiled = cluster.selectorOf(claim)
  if (compiled instanceof SelectorError)
    return [r('SelectorMismatch', () => `the claim's selector is invalid: ${compiled.message}`)]
  const labels = volume.metadata.labels
  const misses = selectorMisses(compiled, labels)
  if (misses === 0) return []
  // One reason per requirement the labels miss, as describeSelectorMismatch words them; the words are
  // only worked out when one of them is read.
  let messages: string[] | undefined
  const message = (i: number) => (messages ??= describeSelectorMismatch(claim.spec.selector, labels))[i]
  return Array.from({length: misses}, (_, i) => r('SelectorMismatch', () => message(i)))
}

/** How many SelectorMismatch reasons a valid selector gives a volume of these labels. */
export function selectorMisses(compiled: CompiledSelector, labels: Labels): number {
  if (compiled.kind === 'nothing') return 1
  let misses = 0
  for (const req of compiled.requirements) if (!requirementMatches(req, labels)) misses++
  return misses
}

/**
 * What judge, candidateOf, relevant and the near-miss tests read of a volume judged for a claim that no
 * claimRef names and that names no volume (a request group's stand-in), but for its size, name and labels:
 * volumes whose parts have the same JSON texts get the same reasons (by code) from such a claim, but for
 * CapacityTooSmall and one SelectorMismatch per requirement their labels miss (explain-volume-classes.ts).
 * A check added to judge that reads another field of the volume must add it here.
 */
export function judgedAlikeParts(facts: VolumeFacts): unknown[] {
  const volume = facts.volume
  const ref = volume.spec.claimRef
  // Whom the claimRef names only matters as: nobody, a pre-binding, a claim that holds it, or a stale uid.
  const held =
    ref == null
      ? 'none'
      : (ref.uid ?? '') === ''
        ? 'pre-bound'
        : (facts.holder?.metadata.uid ?? '') === ref.uid
          ? 'held'
          : 'stale'
  return [
    facts.accessModes,
    held,
    volume.spec.volumeMode ?? 'Filesystem',
    volume.metadata.deletionTimestamp != null,
    volume.spec.nodeAffinity ?? null,
    volume.status?.phase ?? null,
    getPersistentVolumeClass(volume),
    volume.spec.volumeAttributesClassName ?? '',
  ]
}

// -------------------------------------------------------------------------------------------------------
// Order: how close each volume came.

/** How near two candidates came to the claim: negative when the first is nearer. */
export type CandidateOrder = (a: Candidate, b: Candidate) => number

/**
 * The volume the controller picks first, then the other eligible ones, then by fewest reasons, then by
 * the capacity closest to the request, then by name (the controller's own tie-break). A capacity's
 * distance is worked out once, when first compared.
 */
export function candidateOrder(claim: PersistentVolumeClaim, chosen: string | null): CandidateOrder {
  const requested = storageQuantity(claim.spec.resources?.requests)
  const distances = new Map<Candidate, bigint>()
  const distance = (c: Candidate): bigint => {
    let d = distances.get(c)
    if (d === undefined) {
      d = capacityDistance(c, requested)
      distances.set(c, d)
    }
    return d
  }
  return (a, b) => {
    if ((a.volume === chosen) !== (b.volume === chosen)) return a.volume === chosen ? -1 : 1
    if (a.eligible !== b.eligible) return a.eligible ? -1 : 1
    if (a.reasons.length !== b.reasons.length) return a.reasons.length - b.reasons.length
    const da = distance(a)
    const db = distance(b)
    if (da !== db) return da < db ? -1 : 1
    return compareNames(a.volume, b.volume)
  }
}

function capacityDistance(c: Candidate, requested: Quantity): bigint {
  let q: Quantity
  try {
    q = storageQuantity(c.capacity === null ? undefined : {storage: c.capacity})
  } catch (err) {
    // An unreadable capacity (only hand-built states have one) is as far as it gets.
    if (err instanceof QuantityError) return 1n << 200n
    throw err
  }
  const d = q.nanos - requested.nanos
  return d < 0n ? -d : d
}

/** The nearest candidates of a claim, found without keeping every volume's (see rankCandidates). */
export interface CandidateRanking {
  /** The nearest candidates and those asked for (RankingOptions), nearest first. */
  nearest: Candidate[]
  /** How many volumes there are to list (the relevant ones, with onlyRelevant); how many are eligible. */
  total: number
  eligible: number
}

export interface RankingOptions {
  /** How many of the nearest to keep. */
  keep: number
  /** --only-relevant: leave out (and do not count) the candidates isRelevant refuses. */
  onlyRelevant: boolean
  /** Volumes kept wherever they rank: the chosen one, the one the claim names. */
  named: readonly string[]
  /** Kept too, wherever they rank: the nearest `count` candidates that pass each test. */
  nearestPassing: readonly NearestPassing[]
}

/** The nearest `count` candidates that pass `test` (a near miss of a suggestion). */
export interface NearestPassing {
  test: (c: Candidate) => boolean
  count: number
}

/**
 * One pass over every volume that keeps the nearest candidates (and those RankingOptions asks for), in
 * candidateOrder. A volume that cannot rank among the kept ones is judged (its reasons counted,
 * their words never worked out) and dropped at once, and one that another claim holds is not even
 * judged when it is sure to rank below them: a list of thousands of claims over thousands of volumes
 * allocates per claim what it keeps, not a candidate per volume.
 */
export function rankCandidates(
  cluster: ClusterLookup,
  claim: PersistentVolumeClaim,
  path: MatchingPath,
  gates: FeatureGates,
  order: CandidateOrder,
  opts: RankingOptions,
): CandidateRanking {
  const {keep, named} = opts
  const kept: Candidate[] = []
  const extra = new Set<Candidate>()
  const passing = opts.nearestPassing.map(() => [] as Candidate[])
  let total = 0
  let eligible = 0
  for (const facts of cluster.allFacts()) {
    const volume = facts.volume
    const name = volume.metadata.name ?? ''
    const worst = kept.length === keep ? kept[keep - 1] : undefined
    const wanted = named.includes(name)
    // Held by another claim that exists: irrelevant (isRelevant), never eligible, never a near miss a fix
    // could free (nearMissTests), and, sure to have more reasons than the farthest kept, it is out.
    if (
      path.kind === 'index' &&
      worst !== undefined &&
      !wanted &&
      heldByAnotherClaim(facts, claim) &&
      fewestIndexRefusals(facts) > worst.reasons.length
    ) {
      if (!opts.onlyRelevant) total++
      continue
    }
    // More reasons than the farthest of every kind kept: out of all of them (fewer reasons ranks first).
    const cap =
      wanted || worst === undefined
        ? Infinity
        : Math.max(worst.reasons.length, fewestToKeep(passing, opts.nearestPassing))
    const reasons = judge(cluster, facts, claim, path, gates, describedLater, cap)
    if (reasons.length > cap) {
      if (!opts.onlyRelevant || relevant(facts, reasons, claim)) total++
      continue
    }
    const c = candidateOf(facts, reasons)
    if (opts.onlyRelevant && !relevant(facts, reasons, claim)) continue
    total++
    if (c.eligible) eligible++
    if (wanted) extra.add(c)
    for (let i = 0; i < passing.length; i++) {
      const {test, count} = opts.nearestPassing[i]
      // The test (a lookup or two) only for a candidate near enough to be kept.
      if (nearEnough(passing[i], c, order, count) && test(c)) keepNearest(passing[i], c, order, count)
    }
    keepNearest(kept, c, order, keep)
  }
  for (const c of passing.flat()) extra.add(c)
  const nearest = [...new Set([...kept, ...extra])].sort(order)
  return {nearest, total, eligible}
}

/** Whether c would be among the nearest `keep` with those kept. */
function nearEnough(kept: readonly Candidate[], c: Candidate, order: CandidateOrder, keep: number): boolean {
  return kept.length < keep || order(c, kept[keep - 1]) < 0
}

/** Adds c to `kept` (nearest first) if it is among the nearest `keep`. */
function keepNearest(kept: Candidate[], c: Candidate, order: CandidateOrder, keep: number): void {
  // Most volumes are farther than the farthest kept one: one comparison each.
  if (!nearEnough(kept, c, order, keep)) return
  let at = kept.length
  while (at > 0 && order(c, kept[at - 1]) < 0) at--
  kept.splice(at, 0, c)
  if (kept.length > keep) kept.pop()
}

/**
 * The fewest reasons indexRefusals gives a volume held by another claim (heldByAnotherClaim): its claimRef
 * refuses it, and then so does any phase but Available.
 */
function fewestIndexRefusals(facts: VolumeFacts): number {
  return facts.volume.status?.phase === 'Available' ? 1 : 2
}

/** The most reasons a candidate may have and still be kept as one of the nearest passing a test. */
function fewestToKeep(passing: ReadonlyArray<readonly Candidate[]>, wanted: RankingOptions['nearestPassing']): number {
  let most = 0
  for (let i = 0; i < passing.length; i++) {
    const p = passing[i]
    // Not full yet: any candidate that passes is kept.
    if (p.length < wanted[i].count) return Infinity
    most = Math.max(most, p[p.length - 1].reasons.length)
  }
  return most
}

/** The first of the candidates sorted by candidateOrder that `test` accepts, without sorting them. */
export function firstCandidate(
  candidates: readonly Candidate[],
  order: CandidateOrder,
  test: (c: Candidate) => boolean,
): Candidate | undefined {
  let best: Candidate | undefined
  for (const c of candidates) {
    // Strictly better only: of equals the earlier wins, as in the stable sort.
    if (test(c) && (best === undefined || order(c, best) < 0)) best = c
  }
  return best
}
