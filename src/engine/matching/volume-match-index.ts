// findBestMatchForClaim answered from indexes: the decisions of the literal port in volume-index.ts
// (findMatchingVolume over each access-mode bucket), at the cost of a few ordered-list look-ups.
//
// What the literal scan decides, bucket by bucket (mode sets with fewest modes first, then by key):
//   1. a volume pre-bound to the claim (claimRef names it, with its uid or none) that is big enough,
//      of the claim's volume mode and VolumeAttributesClass (with the gate off: of none) and not being
//      deleted wins over anything else in the bucket; of several, the first by name;
//   2. else, unless binding is delayed, the smallest volume that has no claimRef, is Available, not
//      being deleted, of the claim's class, volume mode and VolumeAttributesClass (with the gate off:
//      of none), big enough and matched by the claim's selector; of equal sizes the first by name;
//   3. only when the bucket yields nothing does the next one count.
// The index keeps exactly those sets:
//   - per bucket, how many volumes it has (a mode set counts while it has any, as in a rebuilt index);
//   - pre-bound volumes by the namespace and name of their claimRef (any volume with a claimRef: the check of
//     IsVolumeBoundToClaim, which also accepts a claimRef without uid, is made on the few found);
//   - the pool of rule 2 by bucket, class, volume mode and VolumeAttributesClass, each ordered by
//     capacity then name, with the same volumes again by each of their labels (key=value), so that a
//     selector with an equality (matchLabels, or `In`) walks only volumes that carry one of its values.
// Every write of a volume re-files it: a bound volume leaves the pool, an unbound one enters it, a new
// claimRef moves its pre-bound entry. A selector with no equality walks the pool of its bucket in order
// until a volume matches. A volume whose capacity does not parse sends its bucket back to the literal
// scan, which then fails (or not) exactly where the controller's would.
import type {FeatureGates} from '../api/feature-gates.js'
import {type VACMatching, vacMatching} from '../api/releases.js'
import {ClaimKeyedMap} from '../api/claim-keyed-map.js'
import {type PersistentVolume, type PersistentVolumeClaim} from '../api/model.js'
import {present} from '../api/invariant.js'
import {SortedList} from './sorted-list.js'
import {
  getAccessModesAsString,
  getAccessModesFromString,
  getPersistentVolumeClaimClass,
  getPersistentVolumeClass,
  isVolumeBoundToClaim,
} from '../api/storage-helpers.js'
import type {CompiledSelector} from '../api/selector.js'
import {
  claimVAC,
  compareNames,
  compileClaimSelector,
  findMatchingVolume,
  MatchError,
  storageQuantity,
  unsupportedClaimVAC,
  type VolumeIndex,
  volumeVACAdmitted,
} from './volume-index.js'

/**
 * A volume and where it is filed. A write that leaves the filing as it was (most writes: the phase or
 * annotations of a bound volume) only swaps the volume; any other write files a new entry.
 */
interface Entry {
  readonly name: string
  volume: PersistentVolume
  /** GetAccessModesAsString of its modes: its bucket. */
  readonly bucket: string
  /** Capacity in nanos; undefined when it does not parse. */
  readonly nanos: bigint | undefined
  /** The same as a double (NaN when it does not parse): ordered as the nanos are, and cheaper to compare. */
  readonly size: number
  /** The namespace and name its claimRef names, when it has one (as filed: never re-read from the volume). */
  readonly claimNamespace: string | undefined
  readonly claimName: string | undefined
  /** Its pool group, when it is a candidate of rule 2. */
  readonly group: PoolGroup | undefined
  /** The label keys (key=value) it is filed under in its group. */
  readonly labelKeys: readonly string[]
}

/** Candidates of rule 2 that share bucket, class, volume mode and VolumeAttributesClass. */
interface PoolGroup {
  readonly all: SortedList<Entry>
  readonly byLabel: Map<string, SortedList<Entry>>
}

interface Bucket {
  /** Volumes of this mode set. */
  count: number
  /** Of them, volumes whose capacity does not parse. */
  unparsed: number
}

/** class → volume mode → VolumeAttributesClass → group (raw values, compared as the scan's !== does). */
type PoolByClass = Map<unknown, Map<unknown, Map<unknown, PoolGroup>>>

function byCapacityThenName(a: Entry, b: Entry): number {
  // Number() never reverses the order of two bigints, it may only make close ones equal: then the bigints.
  if (a.size !== b.size) return a.size < b.size ? -1 : 1
  const [x, y] = [a.nanos, b.nanos]
  // Pooled entries all parse; were one not to, the names decide, as a comparison with undefined would.
  if (x === undefined || y === undefined) return compareNames(a.name, b.name)
  return x < y ? -1 : x > y ? 1 : compareNames(a.name, b.name)
}

function labelKey(key: string, value: string): string {
  return `${key}\u0000${value}`
}

function volumeMode(spec: {volumeMode?: unknown}): unknown {
  return spec.volumeMode ?? 'Filesystem'
}

function volumeVAC(volume: PersistentVolume): unknown {
  return volume.spec.volumeAttributesClassName ?? ''
}

const knownModes = new Set(getAccessModesFromString('RWO,ROX,RWX,RWOP'))

// GetAccessModesAsString by bit set: the key of each of the 16 mode sets, computed once.
const modeBits = new Map([...knownModes].map((mode, i) => [mode, 1 << i]))
const keysByBits = Array.from({length: 16}, (_, bits) =>
  getAccessModesAsString([...knownModes].filter((_, i) => (bits & (1 << i)) !== 0)),
)

/** getAccessModesAsString without building a set: this runs for every volume write. */
function bucketKey(modes: readonly string[] | null | undefined): string {
  let bits = 0
  for (const mode of modes ?? []) bits |= modeBits.get(mode) ?? 0
  return keysByBits[bits]
}

function isKeyedByName(
  volumes: Iterable<PersistentVolume> | ReadonlyMap<string, PersistentVolume>,
): volumes is ReadonlyMap<string, PersistentVolume> {
  return typeof (volumes as Partial<ReadonlyMap<string, PersistentVolume>>).get === 'function'
}

export class IndexedVolumeIndex implements VolumeIndex {
  private readonly entries = new Map<string, Entry>()
  private readonly buckets = new Map<string, Bucket>()
  /** Volumes with a claimRef, by its claim: one entry, or several (rare: a claim name reused). */
  private readonly prebound = new ClaimKeyedMap<Entry | Entry[]>()
  private readonly pool = new Map<string, PoolByClass>()
  /** allPossibleMatchingAccessModes by requested modes; dropped when a bucket appears or empties. */
  private bucketOrder = new Map<string, string[]>()

  /**
   * Indexes the volumes; of two with the same name the later one counts, as in a cache keyed by name.
   * The same index as storing them one by one, built faster: each ordered list is sorted once.
   */
  constructor(volumes: Iterable<PersistentVolume> | ReadonlyMap<string, PersistentVolume>) {
    // A cache keyed by name (the simulated cluster's) holds the latest of each name already.
    let latest: ReadonlyMap<string, PersistentVolume>
    if (isKeyedByName(volumes)) {
      latest = volumes
    } else {
      const byName = new Map<string, PersistentVolume>()
      for (const volume of volumes) byName.set(volume.metadata.name ?? '', volume)
      latest = byName
    }
    const unsorted = new Map<SortedList<Entry>, Entry[]>()
    // forEach, not for-of: no [name, volume] pair per volume of a large cache (docs/design.md, "Loops that run once").
    latest.forEach((volume, name) => this.link(this.entryOf(name, volume), unsorted))
    for (const [list, entries] of unsorted) list.insertAll(entries)
  }

  store(volume: PersistentVolume): void {
    const name = volume.metadata.name ?? ''
    const old = this.entries.get(name)
    if (old !== undefined && sameFilingInputs(old.volume, volume)) {
      // Most writes: a phase, an annotation. The copy shares every field the filing is made of.
      old.volume = volume
      return
    } else {
      // A new name, or a field of the filing may have changed.
    }
    const entry = this.entryOf(name, volume, old)
    if (old !== undefined && sameFiling(old, entry)) {
      old.volume = volume
      return
    } else if (old !== undefined) {
      this.unlink(old)
    } else {
      // A new name.
    }
    this.link(entry)
  }

  remove(name: string): void {
    const old = this.entries.get(name)
    if (old !== undefined) {
      this.unlink(old)
      this.entries.delete(name)
    } else {
      // Not indexed.
    }
  }

  findBestMatchForClaim(
    claim: PersistentVolumeClaim,
    delayBinding: boolean,
    gates: FeatureGates,
  ): PersistentVolume | undefined {
    const keys = this.allPossibleMatchingAccessModes(claim.spec.accessModes)
    if (keys.length === 0) return undefined
    // findMatchingVolume's preamble, in its order. The scan repeats it for every bucket with the same
    // outcome, so its errors are raised exactly when some bucket is scanned: when keys is not empty.
    const vac = vacMatching(gates)
    if (vac === 'none' && claimVAC(claim) !== '') {
      throw new MatchError(unsupportedClaimVAC(claim))
    }
    const requested = storageQuantity(claim.spec.resources?.requests).nanos
    const requestedClass = getPersistentVolumeClaimClass(claim)
    // No selector (undefined): every volume passes the label filter.
    const selector = compileClaimSelector(claim)
    // The volumes pre-bound to the claim, looked up once for all its buckets.
    const preboundToClaim = this.prebound.get(claim.metadata.namespace, claim.metadata.name)

    for (const key of keys) {
      const bucket = present(this.buckets.get(key), 'the match index holds every mode set it lists')
      if (bucket.unparsed > 0) {
        // A capacity that does not parse: the literal scan decides, and fails where it fails.
        const volumes = [...this.entries.values()]
          .filter((e) => e.bucket === key)
          .map((e) => e.volume)
          .sort((a, b) => compareNames(a.metadata.name, b.metadata.name))
        const best = findMatchingVolume(claim, volumes, {delayBinding, vac})
        if (best !== undefined) return best
        continue
      } else {
        // Every capacity of the bucket is known: the indexes decide.
      }
      const prebound = this.preboundIn(key, claim, requested, vac, preboundToClaim)
      if (prebound !== undefined) return prebound.volume
      if (delayBinding) {
        // The PV controller does not bind this claim: the scheduler will, once a pod picks a node.
        continue
      } else {
        const smallest = this.smallestIn(key, claim, requestedClass, requested, selector, vac)
        if (smallest !== undefined) return smallest.volume
      }
    }
    return undefined
  }

  /** The buckets a claim may use, fewest modes first, then by key (allPossibleMatchingAccessModes). */
  allPossibleMatchingAccessModes(requestedModes: readonly string[] | null | undefined): readonly string[] {
    const requested = requestedModes ?? []
    const signature = requested.join('\u0000')
    let keys = this.bucketOrder.get(signature)
    if (keys === undefined) {
      // A mode pvctl does not know is in no mode set (GetAccessModesFromString drops it), so no bucket
      // contains all requested modes.
      const usable = requested.every((mode) => knownModes.has(mode))
      keys = [...this.buckets.keys()]
        .map((key) => ({key, modes: new Set(getAccessModesFromString(key))}))
        .filter(({modes}) => usable && requested.every((mode) => modes.has(mode)))
        .sort((a, b) => a.modes.size - b.modes.size || compareNames(a.key, b.key))
        .map(({key}) => key)
      this.bucketOrder.set(signature, keys)
    } else {
      // Computed since the last change of the set of buckets.
    }
    return keys
  }

  /** Rule 1 in one bucket: the first (by name) usable volume of `found`, those pre-bound to the claim. */
  private preboundIn(
    bucket: string,
    claim: PersistentVolumeClaim,
    requested: bigint,
    vac: VACMatching,
    found: Entry | Entry[] | undefined,
  ): Entry | undefined {
    if (found === undefined) {
      return undefined
    } else if (!Array.isArray(found)) {
      return usablePrebound(found, bucket, claim, requested, vac) ? found : undefined
    } else {
      let best: Entry | undefined
      for (const e of found) {
        if (
          usablePrebound(e, bucket, claim, requested, vac) &&
          (best === undefined || compareNames(e.name, best.name) < 0)
        )
          best = e
      }
      return best
    }
  }

  /** Rule 2 in one bucket: the smallest pool volume (then first by name) that passes every filter. */
  private smallestIn(
    bucket: string,
    claim: PersistentVolumeClaim,
    requestedClass: string,
    requested: bigint,
    selector: CompiledSelector | undefined,
    vac: VACMatching,
  ): Entry | undefined {
    const byVAC = this.pool.get(bucket)?.get(requestedClass)?.get(volumeMode(claim.spec))
    if (byVAC === undefined) return undefined
    let best: Entry | undefined
    const consider = (group: PoolGroup | undefined) => {
      const e = group === undefined ? undefined : firstInGroup(group, requested, selector, best)
      if (e !== undefined && (best === undefined || byCapacityThenName(e, best) < 0)) best = e
    }
    if (vac === 'unchecked') {
      // Before v1.31 the VolumeAttributesClass of a volume plays no part.
      for (const group of byVAC.values()) consider(group)
    } else {
      // With the gate, the claim's VolumeAttributesClass; without it, only volumes that have none.
      consider(byVAC.get(vac === 'equal' ? claimVAC(claim) : ''))
    }
    return best
  }

  /** The entry of a volume; `previous`, its entry before a write, lends what the write left as it was. */
  private entryOf(name: string, volume: PersistentVolume, previous?: Entry): Entry {
    let nanos: bigint | undefined
    let size: number
    if (previous !== undefined && previous.volume.spec.capacity === volume.spec.capacity) {
      // The same capacity object (a write copies what it changes): no second parse of the quantity.
      nanos = previous.nanos
      size = previous.size
    } else {
      try {
        nanos = storageQuantity(volume.spec.capacity).nanos
      } catch {
        nanos = undefined
      }
      size = nanos === undefined ? Number.NaN : Number(nanos)
    }
    const bucket =
      previous !== undefined && previous.volume.spec.accessModes === volume.spec.accessModes
        ? previous.bucket
        : bucketKey(volume.spec.accessModes)
    const ref = volume.spec.claimRef
    const pooled =
      nanos !== undefined &&
      ref == null &&
      volume.metadata.deletionTimestamp == null &&
      volume.status?.phase === 'Available'
    const labelKeys: string[] = []
    const labels = volume.metadata.labels
    if (pooled && labels != null) {
      for (const k of Object.keys(labels)) {
        const v = labels[k]
        // Only a string value can equal a selector's value.
        if (typeof v === 'string') labelKeys.push(labelKey(k, v))
      }
    } else {
      // Not a candidate of rule 2: its labels are never asked about.
    }
    return {
      name,
      volume,
      bucket,
      nanos,
      size,
      claimNamespace: ref == null ? undefined : (ref.namespace ?? ''),
      claimName: ref == null ? undefined : (ref.name ?? ''),
      group: pooled ? this.groupFor(bucket, volume) : undefined,
      labelKeys,
    }
  }

  private groupFor(bucket: string, volume: PersistentVolume): PoolGroup {
    // Map by map, written out: no closure made for each volume filed.
    let byClass = this.pool.get(bucket)
    if (byClass === undefined)
      this.pool.set(bucket, (byClass = new Map<unknown, Map<unknown, Map<unknown, PoolGroup>>>()))
    const volumeClass = getPersistentVolumeClass(volume)
    let byMode = byClass.get(volumeClass)
    if (byMode === undefined) byClass.set(volumeClass, (byMode = new Map<unknown, Map<unknown, PoolGroup>>()))
    const mode = volumeMode(volume.spec)
    let byVAC = byMode.get(mode)
    if (byVAC === undefined) byMode.set(mode, (byVAC = new Map<unknown, PoolGroup>()))
    const vac = volumeVAC(volume)
    let group = byVAC.get(vac)
    if (group === undefined)
      byVAC.set(vac, (group = {all: new SortedList<Entry>(byCapacityThenName), byLabel: new Map()}))
    return group
  }

  /** Files the entry; with `unsorted`, its ordered lists are collected there to be filled at once. */
  private link(e: Entry, unsorted?: Map<SortedList<Entry>, Entry[]>): void {
    this.entries.set(e.name, e)
    let bucket = this.buckets.get(e.bucket)
    if (bucket === undefined) {
      bucket = {count: 0, unparsed: 0}
      this.buckets.set(e.bucket, bucket)
      this.bucketOrder = new Map()
    } else {
      // A known mode set.
    }
    bucket.count++
    if (e.nanos === undefined) bucket.unparsed++
    if (e.claimName !== undefined) {
      const found = this.prebound.get(e.claimNamespace, e.claimName)
      if (found === undefined) this.prebound.set(e.claimNamespace, e.claimName, e)
      else if (Array.isArray(found)) found.push(e)
      else this.prebound.set(e.claimNamespace, e.claimName, [found, e])
    } else {
      // Not pre-bound.
    }
    if (e.group !== undefined) {
      fileIn(e.group.all, e, unsorted)
      for (const key of e.labelKeys) {
        let list = e.group.byLabel.get(key)
        if (list === undefined) e.group.byLabel.set(key, (list = new SortedList<Entry>(byCapacityThenName)))
        fileIn(list, e, unsorted)
      }
    } else {
      // Not in the pool.
    }
  }

  /** Takes the entry out of every place it is filed but the map by name (which store() overwrites). */
  private unlink(e: Entry): void {
    const bucket = present(this.buckets.get(e.bucket), 'a volume is filed under its mode set')
    bucket.count--
    if (e.nanos === undefined) bucket.unparsed--
    if (bucket.count === 0) {
      this.buckets.delete(e.bucket)
      this.bucketOrder = new Map()
    } else {
      // The mode set keeps other volumes.
    }
    if (e.claimName !== undefined) {
      const found = present(
        this.prebound.get(e.claimNamespace, e.claimName),
        'a pre-bound volume is filed under its claim',
      )
      if (!Array.isArray(found)) {
        this.prebound.delete(e.claimNamespace, e.claimName)
      } else {
        found.splice(found.indexOf(e), 1)
        if (found.length === 1) this.prebound.set(e.claimNamespace, e.claimName, found[0])
      }
    } else {
      // Was not pre-bound.
    }
    if (e.group !== undefined) {
      e.group.all.remove(e)
      for (const key of e.labelKeys) {
        const list = present(e.group.byLabel.get(key), 'a volume is filed under each of its label keys')
        list.remove(e)
        if (list.size === 0) e.group.byLabel.delete(key)
      }
    } else {
      // Was not in the pool.
    }
  }
}

/** Inserts the entry in its ordered list, or, with `unsorted` (a build), collects it there to be sorted in. */
function fileIn(list: SortedList<Entry>, e: Entry, unsorted: Map<SortedList<Entry>, Entry[]> | undefined): void {
  if (unsorted === undefined) {
    list.insert(e)
  } else {
    const collected = unsorted.get(list)
    if (collected === undefined) unsorted.set(list, [e])
    else collected.push(e)
  }
}

/**
 * The scan's checks of a pre-bound volume: in the bucket, bound to this claim, big enough, same mode,
 * VolumeAttributesClass admitted, not deleted.
 */
function usablePrebound(
  e: Entry,
  bucket: string,
  claim: PersistentVolumeClaim,
  requested: bigint,
  vac: VACMatching,
): boolean {
  const volume = e.volume
  return (
    e.bucket === bucket &&
    isVolumeBoundToClaim(volume, claim) &&
    e.nanos !== undefined &&
    e.nanos >= requested &&
    volumeMode(claim.spec) === volumeMode(volume.spec) &&
    volumeVACAdmitted(claim, volume, vac) &&
    volume.metadata.deletionTimestamp == null
  )
}

/**
 * The first volume of the group, in (capacity, name) order, that is big enough and matched by the
 * selector; undefined if there is none or none before `bound` (a better one found already).
 */
function firstInGroup(
  group: PoolGroup,
  requested: bigint,
  selector: CompiledSelector | undefined,
  bound: Entry | undefined,
): Entry | undefined {
  const bigEnough = (e: Entry) => e.nanos !== undefined && e.nanos >= requested
  if (selector === undefined || selector.kind === 'everything') {
    return group.all.first(bigEnough)
  } else if (selector.kind === 'nothing') {
    return undefined
  } else {
    // Walk the smallest of the lists that every match must be in: the volumes carrying one of the
    // values of an equality requirement, or the whole group when there is no such requirement.
    let lists: Array<SortedList<Entry>> = [group.all]
    let size = group.all.size
    for (const r of selector.requirements) {
      if (r.operator !== 'Equals' && r.operator !== 'In') continue
      const found = r.values
        .map((v) => group.byLabel.get(labelKey(r.key, v)))
        .filter((l): l is SortedList<Entry> => l !== undefined)
      const total = found.reduce((n, l) => n + l.size, 0)
      if (total < size) {
        lists = found
        size = total
      } else {
        // Not narrower than what we have.
      }
    }
    let best = bound
    let found: Entry | undefined
    for (const list of lists) {
      for (const e of list.from(bigEnough)) {
        if (best !== undefined && byCapacityThenName(e, best) >= 0) break
        if (selector.matches(e.volume.metadata.labels)) {
          best = e
          found = e
          break
        } else {
          // Not selected: the next one in order.
        }
      }
    }
    return found
  }
}

/**
 * Whether entryOf would file `b` as it filed `a` because every field it reads is the same object or
 * value (a write copies the objects it changes, and shares the rest). False says nothing: then entryOf.
 */
function sameFilingInputs(a: PersistentVolume, b: PersistentVolume): boolean {
  if (
    a.spec.capacity !== b.spec.capacity ||
    a.spec.accessModes !== b.spec.accessModes ||
    a.spec.claimRef !== b.spec.claimRef
  ) {
    return false
  } else if (a.spec.claimRef != null) {
    // A volume with a claimRef is in no pool group and filed under no label: nothing else is read.
    return true
  } else {
    return (
      a.status?.phase === b.status?.phase &&
      a.metadata.deletionTimestamp === b.metadata.deletionTimestamp &&
      a.metadata.labels === b.metadata.labels &&
      getPersistentVolumeClass(a) === getPersistentVolumeClass(b) &&
      volumeMode(a.spec) === volumeMode(b.spec) &&
      volumeVAC(a) === volumeVAC(b)
    )
  }
}

/** Both entries sit in the same places, in the same order: the new one may just replace the volume. */
function sameFiling(a: Entry, b: Entry): boolean {
  return (
    a.bucket === b.bucket &&
    a.nanos === b.nanos &&
    a.claimNamespace === b.claimNamespace &&
    a.claimName === b.claimName &&
    a.group === b.group &&
    a.labelKeys.length === b.labelKeys.length &&
    a.labelKeys.every((key, i) => key === b.labelKeys[i])
  )
}
