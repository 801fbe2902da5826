// Matching a claim to a volume: persistentVolumeOrderedIndex.findBestMatchForClaim (index.go) and
// FindMatchingVolume (component-helpers/storage/volume/pv_helpers.go), ported literally.
//
// This literal port is the reference: each claim scans every volume of each compatible access-mode
// set, claims × volumes comparisons for a whole cluster. The engine's default, IndexedVolumeIndex
// (volume-match-index.ts), answers the same question from indexes and is tested against this one
// (test/engine/differential*.test.ts).
//
// Determinism: Go walks index buckets and their members in map order, so among equally good volumes
// (same capacity) and among access-mode sets of the same size its choice is random. pvctl walks
// mode sets by (size, key) and volumes by name, so of several equal volumes the one whose name sorts
// first wins and every plan is reproducible.
import type {FeatureGates} from '../api/feature-gates.js'
import {type VACMatching, vacMatching} from '../api/releases.js'
import {
  claimKey,
  type PersistentVolume,
  type PersistentVolumeAccessMode,
  type PersistentVolumeClaim,
} from '../api/model.js'
import {checkNodeAffinity, type NodeInfo} from '../api/node-affinity.js'
import {compareQuantities, parseQuantity, type Quantity} from '../api/quantity.js'
import {compileLabelSelector, type CompiledSelector} from '../api/selector.js'
import {present} from '../api/invariant.js'
import {
  checkAccessModes,
  checkVolumeModeMismatches,
  containsAllAccessModes,
  getAccessModesAsString,
  getAccessModesFromString,
  getPersistentVolumeClaimClass,
  getPersistentVolumeClass,
  isVolumeBoundToClaim,
} from '../api/storage-helpers.js'

/** A domain error of the matcher (a Go `error` return), e.g. an unusable selector. */
export class MatchError extends Error {}

/**
 * Selectors compiled, by the selector object: a claim is matched in every round, and the copies the
 * controller writes share their spec's selector with the claim they were made from (copyForWrite).
 */
const compiledSelectors = new WeakMap<object, CompiledSelector | Error>()

/** The claim's selector as FindMatchingVolume compiles it (undefined: no selector), with Go's error text. */
export function compileClaimSelector(claim: PersistentVolumeClaim): CompiledSelector | undefined {
  const selector = claim.spec.selector
  if (selector == null) return undefined
  let compiled = typeof selector === 'object' ? compiledSelectors.get(selector) : undefined
  if (compiled === undefined) {
    try {
      compiled = compileLabelSelector(selector)
    } catch (err) {
      compiled = err as Error
    }
    if (typeof selector === 'object') compiledSelectors.set(selector, compiled)
  } else {
    // Compiled for this claim, or for the claim it was copied from.
  }
  if (compiled instanceof Error) {
    throw new MatchError(
      `error creating internal label selector for claim: ${claim.metadata.namespace}/${claim.metadata.name}: ${compiled.message}`,
    )
  }
  return compiled
}

const zero = parseQuantity('0')

/**
 * The storage quantity of a resource list; absent means zero, as a missing map entry does in Go. Every
 * scan of a bucket parses every capacity in it: parseQuantity parses each text once.
 */
export function storageQuantity(list: Record<string, string> | null | undefined): Quantity {
  const s = list?.storage
  return s === undefined ? zero : parseQuantity(s)
}

/**
 * What the controller asks of its volume cache when a claim names no volume (ctrl.volumes, a
 * persistentVolumeOrderedIndex, in Go): findBestMatchForClaim over the volumes as they are now. The
 * cache tells the index about every volume written (storeVolumeUpdate) or deleted.
 *
 * Two implementations make identical decisions: PersistentVolumeOrderedIndex below, the literal port
 * (each claim scans every volume of each compatible access-mode set), and IndexedVolumeIndex
 * (volume-match-index.ts), which answers from indexes. ReconcileOptions.matching picks one.
 */
export interface VolumeIndex {
  findBestMatchForClaim(
    claim: PersistentVolumeClaim,
    delayBinding: boolean,
    gates: FeatureGates,
  ): PersistentVolume | undefined
  /** A volume was created or changed: index this version of it (replacing any other of that name). */
  store(volume: PersistentVolume): void
  /** The volume of this name was deleted. */
  remove(name: string): void
}

/** VolumeAttributesClass names, ptr.Deref(spec.volumeAttributesClassName, ""). */
export function claimVAC(claim: PersistentVolumeClaim): string {
  return claim.spec.volumeAttributesClassName ?? ''
}
export function volumeVAC(volume: PersistentVolume): string {
  return (volume.spec.volumeAttributesClassName as string | undefined) ?? ''
}

/** FindMatchingVolume's error for a claim that names a VolumeAttributesClass while the gate is off. */
export function unsupportedClaimVAC(claim: PersistentVolumeClaim): string {
  return `unsupported volumeAttributesClassName is set on claim ${claimKey(claim)} when the feature-gate VolumeAttributesClass is disabled`
}

/**
 * FindMatchingVolume's VolumeAttributesClass filter (component-helpers v0.31): with the gate on the
 * claim's and the volume's must be equal (unset equals ""); with it off a volume that has one is never
 * matched, not even when it is pre-bound to the claim. Before v1.31 there is no such filter.
 */
export function volumeVACAdmitted(claim: PersistentVolumeClaim, volume: PersistentVolume, vac: VACMatching): boolean {
  switch (vac) {
    case 'equal':
      return claimVAC(claim) === volumeVAC(volume)
    case 'none':
      // when the feature gate is disabled, the PV object has VAC set, then we should not bind at all.
      return volumeVAC(volume) === ''
    case 'unchecked':
      return true
  }
}

export interface FindMatchingVolumeOptions {
  node?: NodeInfo
  excludedVolumes?: ReadonlySet<string>
  delayBinding: boolean
  /** vacMatching of the gates: FindMatchingVolume's vacEnabled, or (before v1.31) no VolumeAttributesClass check. */
  vac: VACMatching
}

/**
 * FindMatchingVolume: the pre-bound volume for this claim if any (it wins even over smaller ones), else
 * the smallest Available volume of the claim's class that matches its selector, mode and size.
 */
export function findMatchingVolume(
  claim: PersistentVolumeClaim,
  volumes: readonly PersistentVolume[],
  opts: FindMatchingVolumeOptions,
): PersistentVolume | undefined {
  if (opts.vac === 'none' && claimVAC(claim) !== '') {
    throw new MatchError(unsupportedClaimVAC(claim))
  }
  let smallestVolume: PersistentVolume | undefined
  let smallestVolumeQty: Quantity | undefined
  const requestedQty = storageQuantity(claim.spec.resources?.requests)
  const requestedClass = getPersistentVolumeClaimClass(claim)

  const selector = compileClaimSelector(claim)

  for (const volume of volumes) {
    if (opts.excludedVolumes?.has(volume.metadata.name ?? '')) {
      continue
    }
    if (volume.spec.claimRef != null && !isVolumeBoundToClaim(volume, claim)) {
      continue
    }
    const volumeQty = storageQuantity(volume.spec.capacity)
    if (compareQuantities(volumeQty, requestedQty) < 0) {
      continue
    }
    // filter out mismatching volumeModes
    if (checkVolumeModeMismatches(claim.spec, volume.spec)) {
      continue
    }
    // filter out mismatching volumeAttributesClassName: before the pre-bound volume is returned
    if (!volumeVACAdmitted(claim, volume, opts.vac)) {
      continue
    }
    // a volume being deleted is never bound
    if (volume.metadata.deletionTimestamp != null) {
      continue
    }
    let nodeAffinityValid = true
    if (opts.node !== undefined) {
      // Scheduler path: the volume's node affinity must admit the node.
      if (checkNodeAffinity(volume.spec.nodeAffinity, opts.node) !== undefined) {
        nodeAffinityValid = false
      }
    }
    if (isVolumeBoundToClaim(volume, claim)) {
      // A pre-bound volume is the answer, unless it cannot be used on this node.
      if (!nodeAffinityValid) return undefined
      return volume
    }
    if (opts.node === undefined && opts.delayBinding) {
      // The PV controller does not bind this claim: the scheduler will, once a pod picks a node.
      continue
    }
    // filter out: non-Available volumes (binding them would likely conflict), selector mismatches,
    // other classes, node affinity mismatches
    if (volume.status?.phase !== 'Available') {
      continue
    } else if (selector !== undefined && !selector.matches(volume.metadata.labels)) {
      continue
    }
    if (getPersistentVolumeClass(volume) !== requestedClass) {
      continue
    }
    if (!nodeAffinityValid) {
      continue
    }
    if (opts.node !== undefined) {
      // Scheduler path: access modes are checked here, the controller path checks them by index.
      if (!checkAccessModes(claim, volume)) {
        continue
      }
    }
    // smallestVolumeQty is set with smallestVolume: Go's `smallestVolume == nil ||` test.
    if (smallestVolumeQty === undefined || compareQuantities(smallestVolumeQty, volumeQty) > 0) {
      smallestVolume = volume
      smallestVolumeQty = volumeQty
    }
  }
  return smallestVolume
}

/**
 * The access-mode index of persistentVolumeOrderedIndex: volumes bucketed by their mode set
 * (GetAccessModesAsString), each bucket ordered by name.
 */
export class PersistentVolumeOrderedIndex implements VolumeIndex {
  private readonly buckets = new Map<string, PersistentVolume[]>()
  /** The bucket of each indexed volume, by name, for store() and remove(). */
  private readonly bucketOf = new Map<string, string>()

  constructor(volumes: Iterable<PersistentVolume>) {
    for (const volume of volumes) {
      const key = getAccessModesAsString(volume.spec.accessModes)
      let bucket = this.buckets.get(key)
      if (bucket === undefined) {
        bucket = []
        this.buckets.set(key, bucket)
      }
      bucket.push(volume)
      this.bucketOf.set(volume.metadata.name ?? '', key)
    }
    for (const bucket of this.buckets.values()) {
      bucket.sort((a, b) => compareNames(a.metadata.name, b.metadata.name))
    }
  }

  /** The volumes of a mode set the index holds (bucketOf names it, or matchingKeys listed it). */
  private bucket(key: string): PersistentVolume[] {
    return present(this.buckets.get(key), 'the volume index holds every mode set it lists')
  }

  /**
   * storeVolumeUpdate: the volume takes the place of the one of its name, in its bucket's name order.
   * The index then holds what one built from scratch over the current volumes would hold.
   */
  store(volume: PersistentVolume): void {
    const name = volume.metadata.name ?? ''
    const key = getAccessModesAsString(volume.spec.accessModes)
    const oldKey = this.bucketOf.get(name)
    if (oldKey === key) {
      // Same mode set (every write of the controller): replace it where it is.
      const bucket = this.bucket(key)
      const i = nameIndex(bucket, name)
      if (i < bucket.length && bucket[i].metadata.name === name) bucket[i] = volume
      else bucket.splice(i, 0, volume)
      return
    } else {
      this.remove(name)
    }
    let bucket = this.buckets.get(key)
    if (bucket === undefined) {
      bucket = []
      this.buckets.set(key, bucket)
    } else {
      // The mode set has volumes already.
    }
    bucket.splice(nameIndex(bucket, name), 0, volume)
    this.bucketOf.set(name, key)
  }

  /** The volume is gone; a mode set without volumes is no longer indexed, as after a rebuild. */
  remove(name: string): void {
    const key = this.bucketOf.get(name)
    if (key === undefined) return
    const bucket = this.bucket(key)
    const i = nameIndex(bucket, name)
    if (i < bucket.length && bucket[i].metadata.name === name) bucket.splice(i, 1)
    if (bucket.length === 0) this.buckets.delete(key)
    this.bucketOf.delete(name)
  }

  /** listByAccessModes */
  listByAccessModes(modes: readonly PersistentVolumeAccessMode[]): PersistentVolume[] {
    return this.buckets.get(getAccessModesAsString(modes)) ?? []
  }

  /**
   * allPossibleMatchingAccessModes: every indexed mode set that contains all requested modes, fewest
   * modes first, so a claim gets the volume with the least extra capability.
   */
  allPossibleMatchingAccessModes(
    requestedModes: readonly PersistentVolumeAccessMode[] | null | undefined,
  ): PersistentVolumeAccessMode[][] {
    return this.matchingKeys(requestedModes).map((key) => [...modesOfKey(key)])
  }

  /** The keys of the mode sets of allPossibleMatchingAccessModes, in its order. */
  private matchingKeys(requestedModes: readonly PersistentVolumeAccessMode[] | null | undefined): string[] {
    const keys: string[] = []
    for (const key of this.buckets.keys()) if (containsAllAccessModes(modesOfKey(key), requestedModes)) keys.push(key)
    if (keys.length > 1) {
      keys.sort((a, b) => {
        const la = modesOfKey(a).length
        const lb = modesOfKey(b).length
        return la !== lb ? la - lb : compareNames(a, b)
      })
    } else {
      // One mode set or none (a sync's slice, most often): nothing to order.
    }
    return keys
  }

  /** findBestMatchForClaim / findByClaim: the first mode set (fewest modes) that yields a match wins. */
  findBestMatchForClaim(
    claim: PersistentVolumeClaim,
    delayBinding: boolean,
    gates: FeatureGates,
  ): PersistentVolume | undefined {
    for (const key of this.matchingKeys(claim.spec.accessModes)) {
      // listByAccessModes of the key's modes: the key is GetAccessModesAsString's, which gives it back.
      const volumes = this.bucket(key)
      const best = findMatchingVolume(claim, volumes, {delayBinding, vac: vacMatching(gates)})
      if (best !== undefined) return best
    }
    return undefined
  }
}

/**
 * getAccessModesFromString of an index key, made once per key: a claim's match reads the modes of every
 * bucket. The keys are GetAccessModesAsString's, of the four known modes: at most sixteen.
 */
const modesOfKeys = new Map<string, readonly PersistentVolumeAccessMode[]>()

function modesOfKey(key: string): readonly PersistentVolumeAccessMode[] {
  let modes = modesOfKeys.get(key)
  if (modes === undefined) {
    modes = getAccessModesFromString(key)
    modesOfKeys.set(key, modes)
  } else {
    // Asked for before.
  }
  return modes
}

/** Where a volume of this name is, or belongs, in a bucket ordered by name. */
function nameIndex(bucket: readonly PersistentVolume[], name: string): number {
  let lo = 0
  let hi = bucket.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (compareNames(bucket[mid].metadata.name, name) < 0) lo = mid + 1
    else hi = mid
  }
  return lo
}

export function compareNames(a: string | undefined, b: string | undefined): number {
  const x = a ?? ''
  const y = b ?? ''
  return x < y ? -1 : x > y ? 1 : 0
}
