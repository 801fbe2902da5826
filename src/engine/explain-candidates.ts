// Every volume as a candidate for a claim, with ALL the reasons the controller refuses it.
//
// The controller stops at the first failed check (a `continue` in FindMatchingVolume, a `return` in
// checkVolumeSatisfyClaim); an operator wants every one of them, so each check becomes a reason and none
// stops the others. Which checks apply, and in which situations, follows the controller exactly:
// - a claim that names no volume is matched by findBestMatchForClaim (index.go + FindMatchingVolume): the
//   access-mode index, then claimRef, size, volume mode, deletion; a volume pre-bound to the claim skips
//   the rest; then delayed binding, phase, selector, class, VolumeAttributesClass;
// - a claim that names its volume (spec.volumeName) is checked by checkVolumeSatisfyClaim against that
//   volume alone, and only while the volume has no claimRef;
// - a claim that completed binding is never matched again: syncBoundClaim looks at its own volume only.
// The choice itself is never made here: the controller's index makes it (explain-controller.ts), and a
// test checks that `eligible` is exactly what the controller's matcher accepts.
import type {FeatureGates} from './feature-gates.js'
import type {Candidate, Reason} from './explain-model.js'
import {claimKey, claimRefKey, type ClusterState, type PersistentVolume, type PersistentVolumeClaim} from './model.js'
import {checkNodeAffinity, type NodeInfo} from './node-affinity.js'
import {compareQuantities, QuantityError, quantityValue, type Quantity} from './quantity.js'
import {compileLabelSelector, describeSelectorMismatch, SelectorError} from './selector.js'
import {
  checkAccessModes,
  checkVolumeModeMismatches,
  containsAllAccessModes,
  getAccessModesAsString,
  getAccessModesFromString,
  getPersistentVolumeClaimClass,
  getPersistentVolumeClass,
  isVolumeBoundToClaim,
} from './storage-helpers.js'
import {compareNames, storageQuantity} from './volume-index.js'

/** How the claim is being matched, as syncClaim decides it. */
export type MatchingPath =
  /** syncUnboundClaim with no spec.volumeName: findBestMatchForClaim. */
  | {kind: 'index'; claimClass: string; delayBinding: boolean; node?: NodeInfo}
  /** syncUnboundClaim with spec.volumeName: that volume, through checkVolumeSatisfyClaim. */
  | {kind: 'requested'; volumeName: string}
  /** syncBoundClaim: the claim keeps the volume it names (or has lost it). */
  | {kind: 'bound'; volumeName: string}

/**
 * What the candidates need from the cluster, indexed once per explanation: judging a volume's claimRef
 * looks its claim up, and a scan of every claim for every volume would make a large cluster quadratic.
 */
export interface ClusterLookup {
  readonly volumes: readonly PersistentVolume[]
  claimByKey(key: string): PersistentVolumeClaim | undefined
  volumeByName(name: string): PersistentVolume | undefined
}

/** The lookup of a state; of two objects with one name the later wins, as in the informer cache. */
export function clusterLookup(state: ClusterState): ClusterLookup {
  const claims = new Map(state.claims.map((c) => [claimKey(c), c]))
  const volumes = new Map(state.volumes.map((v) => [v.metadata.name ?? '', v]))
  return {volumes: state.volumes, claimByKey: (key) => claims.get(key), volumeByName: (name) => volumes.get(name)}
}

/** Every volume of the state as a candidate, in the state's order. */
export function describeCandidates(cluster: ClusterLookup, claim: PersistentVolumeClaim, path: MatchingPath, gates: FeatureGates): Candidate[] {
  return cluster.volumes.map((volume) => candidateOf(volume, reasonsFor(cluster, volume, claim, path, gates)))
}

/**
 * Whether a candidate can matter to the claim (`--only-relevant`): the volume the claim names always
 * does; others not when the claim does not consider them, nor when another claim that exists uses them.
 * Stale claimRefs and pre-bindings stay: they are often the answer.
 */
export function isRelevant(cluster: ClusterLookup, claim: PersistentVolumeClaim, candidate: Candidate): boolean {
  if (candidate.volume === claim.spec.volumeName) return true
  if (candidate.reasons.some((r) => r.code === 'NotConsidered')) return false
  const volume = cluster.volumeByName(candidate.volume)
  return volume === undefined || !inUseByAnotherClaim(cluster, volume, claim)
}

/** The volume is bound (with a uid) to another claim that exists under that uid. */
export function inUseByAnotherClaim(cluster: ClusterLookup, volume: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const ref = volume.spec.claimRef
  if (ref == null || (ref.uid ?? '') === '' || isVolumeBoundToClaim(volume, claim)) return false
  return (cluster.claimByKey(claimRefKey(ref))?.metadata.uid ?? '') === ref.uid
}

function candidateOf(volume: PersistentVolume, reasons: Reason[]): Candidate {
  const ref = volume.spec.claimRef
  return {
    volume: volume.metadata.name ?? '',
    eligible: reasons.length === 0,
    reasons,
    capacity: volume.spec.capacity?.storage ?? null,
    storageClass: getPersistentVolumeClass(volume),
    phase: volume.status?.phase ?? null,
    accessModes: getAccessModesAsString(volume.spec.accessModes),
    claimRef: ref == null ? null : claimRefKey(ref),
  }
}

export function reasonsFor(cluster: ClusterLookup, volume: PersistentVolume, claim: PersistentVolumeClaim, path: MatchingPath, gates: FeatureGates): Reason[] {
  switch (path.kind) {
    case 'index':
      return indexRefusals(cluster, volume, claim, path, gates)
    case 'requested':
      return volume.metadata.name === path.volumeName
        ? requestedVolumeRefusals(cluster, volume, claim)
        : [{code: 'NotConsidered', message: `the claim asks for ${path.volumeName} (spec.volumeName)`}]
    case 'bound':
      return boundVolumeRefusals(cluster, volume, claim, path.volumeName)
  }
}

/** FindMatchingVolume's filters (and the access-mode index before it), every one of them. */
function indexRefusals(
  cluster: ClusterLookup,
  volume: PersistentVolume,
  claim: PersistentVolumeClaim,
  path: Extract<MatchingPath, {kind: 'index'}>,
  gates: FeatureGates,
): Reason[] {
  const reasons: Reason[] = []
  const claimVAC = claim.spec.volumeAttributesClassName ?? ''
  if (!gates.VolumeAttributesClass && claimVAC !== '') {
    // FindMatchingVolume refuses the claim itself before it looks at any volume.
    reasons.push({code: 'VolumeAttributesClassMismatch', message: `the claim names VolumeAttributesClass '${claimVAC}', refused while the VolumeAttributesClass gate is off`})
  }
  // The index lists only volumes whose access-mode set (as its key: known modes) holds every requested mode.
  if (!containsAllAccessModes(getAccessModesFromString(getAccessModesAsString(volume.spec.accessModes)), claim.spec.accessModes)) {
    reasons.push(accessModesReason(volume, claim))
  }
  const preBoundHere = isVolumeBoundToClaim(volume, claim)
  if (volume.spec.claimRef != null && !preBoundHere) {
    reasons.push(claimRefReason(cluster, volume, claim))
  }
  const capacity = capacityReason(volume, claim, compareQuantities)
  if (capacity !== undefined) reasons.push(capacity)
  if (checkVolumeModeMismatches(claim.spec, volume.spec)) reasons.push(volumeModeReason(volume, claim))
  if (volume.metadata.deletionTimestamp != null) reasons.push(beingDeletedReason(volume))
  if (preBoundHere) {
    // A volume pre-bound to the claim is the answer whatever its phase, labels or class.
    return reasons
  }
  if (path.delayBinding) {
    reasons.push({
      code: 'DelayBinding',
      message: `class '${path.claimClass}' binds on first consumer: the scheduler picks the volume`,
    })
    if (path.node !== undefined && checkNodeAffinity(volume.spec.nodeAffinity, path.node) !== undefined) {
      reasons.push({code: 'NodeAffinityMismatch', message: `its node affinity excludes node ${path.node.name ?? ''}`})
    }
  }
  if (volume.status?.phase !== 'Available') {
    reasons.push({code: 'VolumeNotAvailable', message: volume.status?.phase === undefined ? 'no phase yet, not Available' : `phase ${volume.status.phase}, not Available`})
  }
  if (claim.spec.selector != null) reasons.push(...selectorReasons(volume, claim))
  const volumeClass = getPersistentVolumeClass(volume)
  if (volumeClass !== path.claimClass) {
    reasons.push({code: 'StorageClassMismatch', message: `class '${volumeClass}' ≠ '${path.claimClass}'`})
  }
  const volumeVAC = (volume.spec.volumeAttributesClassName as string | undefined) ?? ''
  if (gates.VolumeAttributesClass && claimVAC !== volumeVAC) {
    reasons.push({code: 'VolumeAttributesClassMismatch', message: `VolumeAttributesClass '${volumeVAC}' ≠ '${claimVAC}'`})
  }
  return reasons
}

/** checkVolumeSatisfyClaim's checks for the volume a claim asks for by name, every one of them. */
function requestedVolumeRefusals(cluster: ClusterLookup, volume: PersistentVolume, claim: PersistentVolumeClaim): Reason[] {
  if (volume.spec.claimRef != null) {
    // Claimed already: by this claim (the binding is finished), or by another one.
    return isVolumeBoundToClaim(volume, claim) ? [] : [claimRefReason(cluster, volume, claim)]
  }
  const reasons: Reason[] = []
  if (volume.metadata.deletionTimestamp != null) reasons.push(beingDeletedReason(volume))
  // Go compares Value()s here (whole units, rounded up), not the exact quantities as matching does.
  const capacity = capacityReason(volume, claim, (a, b) => (quantityValue(a) < quantityValue(b) ? -1 : 0))
  if (capacity !== undefined) reasons.push(capacity)
  const volumeClass = getPersistentVolumeClass(volume)
  const claimClass = getPersistentVolumeClaimClass(claim)
  if (volumeClass !== claimClass) reasons.push({code: 'StorageClassMismatch', message: `class '${volumeClass}' ≠ '${claimClass}'`})
  if (checkVolumeModeMismatches(claim.spec, volume.spec)) reasons.push(volumeModeReason(volume, claim))
  if (!checkAccessModes(claim, volume)) reasons.push(accessModesReason(volume, claim))
  return reasons
}

/** syncBoundClaim: only the claim's own volume counts, and only its claimRef decides. */
function boundVolumeRefusals(cluster: ClusterLookup, volume: PersistentVolume, claim: PersistentVolumeClaim, volumeName: string): Reason[] {
  if (volumeName === '') {
    return [{code: 'NotConsidered', message: 'the claim completed binding once: the controller never matches it again'}]
  } else if (volume.metadata.name !== volumeName) {
    return [{code: 'NotConsidered', message: `the claim is bound to ${volumeName}`}]
  } else if (volume.spec.claimRef == null || (volume.spec.claimRef.uid ?? '') === (claim.metadata.uid ?? '')) {
    // Unbound (the controller binds it again) or pointing back: the volume is the claim's.
    return []
  } else {
    return [claimRefReason(cluster, volume, claim)]
  }
}

// -------------------------------------------------------------------------------------------------------
// One reason each, with the values that make it concrete.

function capacityReason(volume: PersistentVolume, claim: PersistentVolumeClaim, cmp: (a: Quantity, b: Quantity) => number): Reason | undefined {
  const offered = storageQuantity(volume.spec.capacity)
  const requested = storageQuantity(claim.spec.resources?.requests)
  if (cmp(offered, requested) >= 0) return undefined
  return {code: 'CapacityTooSmall', message: `${volume.spec.capacity?.storage ?? '0'} < requested ${claim.spec.resources?.requests?.storage ?? '0'}`}
}

function accessModesReason(volume: PersistentVolume, claim: PersistentVolumeClaim): Reason {
  const offered = getAccessModesAsString(volume.spec.accessModes) || 'none'
  const offeredSet = new Set(volume.spec.accessModes ?? [])
  const missing = (claim.spec.accessModes ?? []).filter((m) => !offeredSet.has(m) || getAccessModesAsString([m]) === '')
  return {code: 'AccessModesMismatch', message: `offers ${offered}, claim needs ${missing.map((m) => getAccessModesAsString([m]) || m).join(',')}`}
}

function volumeModeReason(volume: PersistentVolume, claim: PersistentVolumeClaim): Reason {
  return {code: 'VolumeModeMismatch', message: `volumeMode ${volume.spec.volumeMode ?? 'Filesystem'} ≠ ${claim.spec.volumeMode ?? 'Filesystem'}`}
}

function beingDeletedReason(volume: PersistentVolume): Reason {
  return {code: 'VolumeBeingDeleted', message: `being deleted since ${volume.metadata.deletionTimestamp}`}
}

/** Who holds the volume: a bound claim (uid) or a pre-binding (no uid), and whether that claim still exists. */
function claimRefReason(cluster: ClusterLookup, volume: PersistentVolume, claim: PersistentVolumeClaim): Reason {
  const ref = volume.spec.claimRef!
  const key = claimRefKey(ref)
  const uid = ref.uid ?? ''
  if (uid === '') {
    return {code: 'PreBoundToOtherClaim', message: `pre-bound to ${key}`}
  }
  const holder = cluster.claimByKey(key)
  if (key === claimKey(claim)) {
    return {code: 'BoundToOtherClaim', message: `bound to an earlier claim ${key} (uid ${uid}), not this one`}
  } else if (holder === undefined || (holder.metadata.uid ?? '') !== uid) {
    return {code: 'BoundToOtherClaim', message: `bound to ${key}, which no longer exists (stale claimRef)`}
  } else {
    return {code: 'BoundToOtherClaim', message: `bound to ${key}`}
  }
}

function selectorReasons(volume: PersistentVolume, claim: PersistentVolumeClaim): Reason[] {
  try {
    compileLabelSelector(claim.spec.selector)
    return describeSelectorMismatch(claim.spec.selector, volume.metadata.labels).map((message) => ({code: 'SelectorMismatch' as const, message}))
  } catch (err) {
    if (err instanceof SelectorError) return [{code: 'SelectorMismatch', message: `the claim's selector is invalid: ${err.message}`}]
    throw err
  }
}

// -------------------------------------------------------------------------------------------------------
// Order: how close each volume came.

/**
 * The volume the controller picks first, then the other eligible ones, then by fewest reasons, then by
 * the capacity closest to the request, then by name (the controller's own tie-break).
 */
export function sortCandidates(candidates: readonly Candidate[], claim: PersistentVolumeClaim, chosen: string | null): Candidate[] {
  const requested = storageQuantity(claim.spec.resources?.requests)
  const distance = (c: Candidate): bigint => {
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
  const distances = new Map(candidates.map((c) => [c, distance(c)]))
  return [...candidates].sort((a, b) => {
    if ((a.volume === chosen) !== (b.volume === chosen)) return a.volume === chosen ? -1 : 1
    if (a.eligible !== b.eligible) return a.eligible ? -1 : 1
    if (a.reasons.length !== b.reasons.length) return a.reasons.length - b.reasons.length
    const da = distances.get(a)!
    const db = distances.get(b)!
    if (da !== db) return da < db ? -1 : 1
    return compareNames(a.volume, b.volume)
  })
}
