// The simulated cluster: the controller's informer caches and the API server in one in-memory store.
// Every write the controller makes goes through here: it bumps resourceVersion as the API server
// would, becomes the new cached object (storeVolumeUpdate / storeClaimUpdate), and is recorded as an
// action of the plan. Events go to a recorder that aggregates duplicates, like client-go's.
import {ApiError, claimRefOf, type ClusterClient, volumeRef} from '../controller/cluster-client.js'
import {type CacheSlot, CacheStore} from './cache-store.js'
import {diffJson} from './json-patch.js'
import {
  claimKey,
  type ClusterState,
  type Node,
  type ObjectReference,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type Pod,
  type StorageClass,
} from '../api/model.js'
import {
  type Action,
  type ActionType,
  type EventType,
  type ObjectRef,
  operationKey,
  type OperationType,
  type PlannedEvent,
  refKey,
  refOfVolume,
  type SyncError,
} from './plan.js'
import {podClaimKeys} from '../api/storage-helpers.js'
import {PersistentVolumeOrderedIndex, type VolumeIndex} from '../matching/volume-index.js'
import {IndexedVolumeIndex} from '../matching/volume-match-index.js'

/**
 * How findBestMatchForClaim is answered: 'indexed' (the default) from indexes kept current as volumes
 * are written; 'scan', the literal port, by scanning each compatible access-mode set. Same decisions.
 */
export type MatchingStrategy = 'indexed' | 'scan'

export interface SimulatedClusterOptions {
  matching?: MatchingStrategy
  /**
   * Replay, rather than run again, a sync that wrote nothing while nothing it read has been written
   * since (see QuietSync). Only sound when a sync is a function of what it reads through the cluster:
   * not with operations run to the end or injected API errors, whose ports keep state of their own.
   */
  replayQuietSyncs?: boolean
  /**
   * Operations running outside this plan (the goroutinemap of a controller that keeps running: loop mode
   * carries a recycle out in the background). scheduleOperation skips them, as the seed skips an operation
   * of a name still running.
   */
  runningOperations?: Iterable<string>
  /**
   * Another cluster whose informer caches and matching index this one takes as they are, instead of
   * caching `state` (informerCache()); `state` must then be what they hold.
   */
  caches?: SimulatedCluster
  /**
   * The API server's clock for this plan (RFC 3339), when it stamps status.lastPhaseTransitionTime on a
   * volume whose phase a status write changes (persistentvolumeStatusStrategy.PrepareForUpdate; the
   * PersistentVolumeLastPhaseTransitionTime gate, GA from v1.31). Unset: no stamp (the Go tests' fake client
   * makes none, and loop mode's writes leave it to the real server).
   */
  phaseTransitionTime?: string
}

/**
 * A sync that wrote nothing, with everything it read and said. The controller is a function of the
 * objects it reads (the claims, volumes and matching index here; classes, pods and nodes never change
 * under it): while none of them has been written since, syncing the object again would read the same
 * and say the same. Its events, requeues and errors are replayed instead. A round after the first
 * is mostly such syncs; the plan stays exactly the one of running them all (test/engine/differential).
 *
 * What it read is kept as the objects themselves: a write always puts a new object in the cache (the
 * controller writes copies), so "not written since" is "the cache still holds that very object".
 */
export interface QuietSync {
  /** The first claim and the first volume it read (its own object and the other end of the pointer, most
   * often): the cache slot, and the object the slot held (undefined: none of that key); others in `more`. */
  claimSlot: ClaimSlot | undefined
  claim: PersistentVolumeClaim | undefined
  volumeSlot: VolumeSlot | undefined
  volume: PersistentVolume | undefined
  more: Array<{slot: ClaimSlot | VolumeSlot; object: unknown}> | undefined
  /** volumeWrites when it ran, if it asked the matching index (which depends on every volume); else -1. */
  index: number
  /** operationStarts when it ran, if it asked whether an operation was running; else -1. */
  operations: number
  /** The events it emitted, once per emission (replayed by counting them again, no look-up). */
  events: PlannedEvent[] | undefined
  requeued: string[] | undefined
  errors: SyncError[] | undefined
}

export type ClaimSlot = CacheSlot<PersistentVolumeClaim, QuietSync>
export type VolumeSlot = CacheSlot<PersistentVolume, QuietSync>

/** Whether `key` is the claim key (claimToClaimKey) of that namespace and name, without building one. */
function isClaimKey(key: string, namespace: string, name: string): boolean {
  return (
    key.length === namespace.length + 1 + name.length &&
    key.charCodeAt(namespace.length) === 0x2f && // "/"
    key.startsWith(namespace) &&
    key.endsWith(name)
  )
}

/** The slot being synced looked `other` up: each is the other's peer from now on (none outside a sync). */
function meet(synced: ClaimSlot | VolumeSlot | undefined, other: ClaimSlot | VolumeSlot): void {
  if (synced !== undefined) {
    synced.peer = other
    other.peer = synced
  } else {
    // Not in a sync of the other kind.
  }
}

/**
 * The API server's validation of an update that the controller can run into: ValidateObjectMetaUpdate's
 * "no new finalizers on an object being deleted" (a 422). The controller adds a finalizer in one place,
 * annealing a volume's deletion finalizers, and a volume already being deleted must not get it. Status
 * writes never change metadata.
 */
function refusal(
  kind: 'PersistentVolume' | 'PersistentVolumeClaim',
  cached: PersistentVolume | PersistentVolumeClaim | undefined,
  after: PersistentVolume | PersistentVolumeClaim,
): ApiError | undefined {
  if (cached?.metadata.deletionTimestamp == null || after.metadata.finalizers === cached.metadata.finalizers)
    return undefined
  const before = new Set(cached.metadata.finalizers ?? [])
  // sets.NewString(...).Difference(...).List(): sorted, each once.
  const added = [...new Set((after.metadata.finalizers ?? []).filter((f) => !before.has(f)))].sort()
  if (added.length === 0) return undefined
  return new ApiError(
    `${kind} ${JSON.stringify(after.metadata.name ?? '')} is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
  )
}

/** A write's patch leaves out the resourceVersion: the API server sets it, the controller does not. */
const bumpedByTheServer = '/metadata/resourceVersion'

/**
 * The higher of two resourceVersions as numbers, `max` being a decimal digit string without leading
 * zeros; an `rv` that is not a decimal integer does not count. Digit strings compare as numbers by
 * length, then text: no BigInt for each of the cluster's objects, only for the result.
 */
function higherResourceVersion(max: string, rv: string | undefined): string {
  if (rv === undefined || !isDigits(rv)) return max
  let digits = rv
  if (digits.length > 1 && digits.startsWith('0')) digits = digits.replace(/^0+(?=\d)/, '')
  return digits.length > max.length || (digits.length === max.length && digits > max) ? digits : max
}

/** /^\d+$/.test(text), without the regular expression: this runs for every object of every sync's cluster. */
function isDigits(text: string): boolean {
  if (text.length === 0) return false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x30 || c > 0x39) return false
  }
  return true
}

/**
 * The decimal digit string `digits` (no leading zeros) as a number while it is exact, else as a bigint.
 * Fifteen digits or fewer are below Number.MAX_SAFE_INTEGER (sixteen digits): no BigInt is made for
 * them, as a cluster is made for every sync of loop mode.
 */
function resourceVersionNumber(digits: string): number | bigint {
  if (digits.length <= 15) return Number(digits)
  const last = BigInt(digits)
  return last < BigInt(Number.MAX_SAFE_INTEGER) ? Number(last) : last
}

/** The caches of a state without nodes, or without pods: one empty map for every such cluster (never written). */
const NO_NODES: ReadonlyMap<string, Node> = new Map()
const NO_PODS_BY_CLAIM: ReadonlyMap<string, readonly Pod[]> = new Map()
/** No claims requeued (never written). */
const NO_CLAIMS: ReadonlySet<string> = new Set()

/**
 * The classes of the last list cached, by list: loop mode's slices share one list of classes while they
 * stay the same (sync-slice.ts), and a sync is a cluster of a handful of objects, where a map of every
 * class made again for each would be most of its set-up. Checked member by member, as a list may change.
 */
const classMaps = new WeakMap<
  readonly StorageClass[],
  {members: StorageClass[]; names: string[]; byName: ReadonlyMap<string, StorageClass>}
>()

function classesByName(list: readonly StorageClass[]): ReadonlyMap<string, StorageClass> {
  const cached = classMaps.get(list)
  if (cached !== undefined && sameClasses(cached.members, cached.names, list)) return cached.byName
  const byName = new Map(list.map((sc) => [sc.metadata.name ?? '', sc]))
  classMaps.set(list, {members: [...list], names: list.map((sc) => sc.metadata.name ?? ''), byName})
  return byName
}

function sameClasses(
  members: readonly StorageClass[],
  names: readonly string[],
  list: readonly StorageClass[],
): boolean {
  if (members.length !== list.length) return false
  for (let i = 0; i < list.length; i++) {
    if (members[i] !== list[i] || names[i] !== (list[i].metadata.name ?? '')) return false
  }
  return true
}

/** podIndexer's PodPVCIndex over the pods of a state. */
function podsByClaimKey(pods: readonly Pod[]): Map<string, Pod[]> {
  const byClaim = new Map<string, Pod[]>()
  for (const pod of pods) {
    for (const key of podClaimKeys(pod)) {
      const list = byClaim.get(key)
      if (list === undefined) byClaim.set(key, [pod])
      // A pod that mounts a claim twice is listed once: the indexer keeps a set of pods per key.
      else if (list[list.length - 1] !== pod) list.push(pod)
    }
  }
  return byClaim
}

export class SimulatedCluster implements ClusterClient {
  readonly volumes: CacheStore<PersistentVolume, QuietSync>
  readonly claims: CacheStore<PersistentVolumeClaim, QuietSync>
  readonly classes: ReadonlyMap<string, StorageClass>
  readonly nodes: ReadonlyMap<string, Node>
  /** podIndexer, made at the first look-up: only a recycle (isVolumeUsed) and a claim waiting for its first consumer ask. */
  private podsByClaimKey: ReadonlyMap<string, readonly Pod[]> | undefined
  /** The pods it is made from until then. */
  private readonly pods: readonly Pod[]

  readonly actions: Action[] = []
  readonly errors: SyncError[] = []
  /** Made at the first event: most syncs of loop mode (a cluster of one object's slice) emit none. */
  private events: Map<string, PlannedEvent> | undefined
  /**
   * The objects written since the last takeTouched() or forgetTouched(), as refs: their keys are made
   * only when asked for (a sync of named objects follows its writes up; a full round has no use for them).
   */
  private touched: ObjectRef[] = []
  /**
   * Claims the controller asked to sync soon (claimQueue.Add in syncVolume), since the last
   * clearRequeuedClaims(); the set is made at the first (most syncs of loop mode ask for none).
   */
  private requeued: Set<string> | undefined
  /**
   * Asynchronous operations scheduled and not finished (goroutinemap): never scheduled twice. The caller's
   * set while this plan starts none (it is copied at the first start, never written): a sync of loop mode
   * is given one, and most start nothing.
   */
  private runningOperations: ReadonlySet<string>
  /** runningOperations once it is this cluster's own. */
  private ownRunningOperations: Set<string> | undefined
  /** The operations this plan started (scheduleOperation's names), in order. */
  readonly startedOperations: string[] = []
  /** The plugin of each operation planned, by operationKey: the one the executor runs it with. */
  readonly operationPlugins: Record<string, string> = {}
  /** Bumped when a volume is created or deleted (the set of names changes). */
  volumeNamesGeneration = 0
  round = 1
  /** The sync in progress, as beginSync() named it; its text is made only if the sync plans something. */
  private syncPrefix = ''
  private syncSlot: ClaimSlot | VolumeSlot | undefined
  private syncText: string | undefined = ''
  private lastResourceVersion: number | bigint
  private readonly matching: MatchingStrategy
  /** The matching index, built on first use and then told about every volume write. */
  private index: VolumeIndex | undefined
  /** Whether quiet syncs are kept (in their objects' cache slots) and replayed. */
  private readonly replaying: boolean
  /** What the sync in progress has read and said so far; undefined when nothing is noted. */
  private reading: QuietSync | undefined
  /** actions.length when the sync in progress began: it is quiet if it still is at its end. */
  private actionsAtBegin = 0
  /** Bumped on every volume write (the matching index changes), and on every operation started. */
  /** SimulatedClusterOptions.phaseTransitionTime. */
  private readonly phaseTransitionTime: string | undefined
  private volumeWrites = 0
  private operationStarts = 0
  /** Syncs begun and run, and syncs replayed instead. */
  syncsRun = 0
  syncsReplayed = 0

  constructor(state: ClusterState, options: SimulatedClusterOptions = {}) {
    this.matching = options.matching ?? 'indexed'
    this.phaseTransitionTime = options.phaseTransitionTime
    this.replaying = options.replayQuietSyncs === true
    const running = options.runningOperations
    this.ownRunningOperations = running instanceof Set ? undefined : new Set(running)
    this.runningOperations = this.ownRunningOperations ?? (running as ReadonlySet<string>)
    const caches = options.caches
    if (caches !== undefined) {
      this.volumes = caches.volumes
      this.claims = caches.claims
      this.classes = caches.classes
      this.nodes = caches.nodes
      this.podsByClaimKey = caches.podsByClaimKey
      this.pods = caches.pods
      this.index = caches.index
      this.lastResourceVersion = caches.lastResourceVersion
      return
    } else {
      this.volumes = new CacheStore(state.volumes.length)
      this.claims = new CacheStore(state.claims.length)
      this.classes = classesByName(state.classes)
      this.nodes = state.nodes.length === 0 ? NO_NODES : new Map(state.nodes.map((n) => [n.metadata.name ?? '', n]))
      this.podsByClaimKey = state.pods.length === 0 ? NO_PODS_BY_CLAIM : undefined
      this.pods = state.pods
    }
    let maxRv = '0'
    for (const v of state.volumes) {
      this.volumes.set(v.metadata.name ?? '', v)
      maxRv = higherResourceVersion(maxRv, v.metadata.resourceVersion)
    }
    for (const c of state.claims) {
      this.claims.set(claimKey(c), c)
      maxRv = higherResourceVersion(maxRv, c.metadata.resourceVersion)
    }
    this.lastResourceVersion = resourceVersionNumber(maxRv)
  }

  /**
   * A cluster of this one's informer caches and matching index as they are, the state after its plan, for
   * a controller that only asks (explain's): what a cluster made of that state would cache and answer,
   * without caching and indexing it all again (about a second of CPU at 100k volumes). Nothing of the plan
   * comes with it (its actions, events, errors, running operations), and the quiet syncs kept in the cache
   * slots are let go: only a further round of this cluster would replay them, and none runs.
   */
  informerCache(): SimulatedCluster {
    this.volumes.forgetSyncs()
    this.claims.forgetSyncs()
    return new SimulatedCluster(
      {volumes: [], claims: [], classes: [], pods: [], nodes: []},
      {matching: this.matching, caches: this},
    )
  }

  /**
   * The controller's volume index (ctrl.volumes): findBestMatchForClaim over the volumes as they are
   * now. Built over the cache on first use; every volume write afterwards updates it in place.
   */
  volumeIndex(): VolumeIndex {
    if (this.reading !== undefined) this.reading.index = this.volumeWrites
    if (this.index === undefined) {
      this.index =
        this.matching === 'scan'
          ? new PersistentVolumeOrderedIndex(this.volumes.values())
          : new IndexedVolumeIndex(this.volumes)
    } else {
      // Kept current by the writes.
    }
    return this.index
  }

  /**
   * A sync of the claim ("pvc/") or volume ("pv/") of that cache slot starts: what it plans is stamped
   * with it. False when the sync is quiet and nothing it read has been written since: it has been
   * replayed, and the caller does not run it (nor calls endSync).
   */
  beginSync(prefix: 'pvc/', slot: ClaimSlot): boolean
  beginSync(prefix: 'pv/', slot: VolumeSlot): boolean
  beginSync(prefix: 'pvc/' | 'pv/', slot: ClaimSlot | VolumeSlot): boolean {
    this.syncPrefix = prefix
    this.syncSlot = slot
    this.syncText = undefined
    if (!this.replaying) {
      this.syncsRun++
      return true
    }
    const quiet = slot.sync
    if (quiet !== undefined && this.unchanged(quiet)) {
      this.replay(quiet)
      this.syncsReplayed++
      return false
    } else {
      // Never run, or something it read has changed: run it, and note what it reads.
      this.syncsRun++
      this.actionsAtBegin = this.actions.length
      this.reading = {
        claimSlot: undefined,
        claim: undefined,
        volumeSlot: undefined,
        volume: undefined,
        more: undefined,
        index: -1,
        operations: -1,
        events: undefined,
        requeued: undefined,
        errors: undefined,
      }
      return true
    }
  }

  /** The sync begun last has ended: kept (in its slot) as a quiet sync if it wrote nothing. */
  endSync(): void {
    const reading = this.reading
    if (reading === undefined) return
    this.reading = undefined
    this.slotInSync.sync = this.actions.length === this.actionsAtBegin ? reading : undefined
  }

  /** The slot of the sync in progress: beginSync sets it before the sync reads, writes or asks its name. */
  private get slotInSync(): ClaimSlot | VolumeSlot {
    if (this.syncSlot === undefined) throw new Error('invariant: no sync has begun')
    return this.syncSlot
  }

  private unchanged(quiet: QuietSync): boolean {
    if (quiet.index >= 0 && quiet.index !== this.volumeWrites) return false
    if (quiet.operations >= 0 && quiet.operations !== this.operationStarts) return false
    if (quiet.claimSlot !== undefined && quiet.claimSlot.object !== quiet.claim) return false
    if (quiet.volumeSlot !== undefined && quiet.volumeSlot.object !== quiet.volume) return false
    for (const read of quiet.more ?? []) {
      if (read.slot.object !== read.object) return false
    }
    return true
  }

  private replay(quiet: QuietSync): void {
    for (const event of quiet.events ?? []) event.count++
    for (const key of quiet.requeued ?? []) (this.requeued ??= new Set()).add(key)
    for (const error of quiet.errors ?? []) this.errors.push({object: error.object, message: error.message})
  }

  /** The cached volume of that name, as a sync reads it. */
  volume(name: string): PersistentVolume | undefined {
    return this.volumeIn(this.volumeSlotNamed(name))
  }

  /**
   * The slot of a volume name. A claim's sync asks for its own volume, most often: the slot its claim's
   * slot last met (its peer) when the name is that slot's key, else looked up, and then each slot is the
   * other's peer. At 100k objects a look-up of a key (hash it, probe, compare) costs a microsecond.
   */
  private volumeSlotNamed(name: string): VolumeSlot {
    const synced = this.syncPrefix === 'pvc/' ? this.syncSlot : undefined
    const peer = synced?.peer as VolumeSlot | undefined
    if (peer !== undefined && peer.key === name) return peer
    const slot = this.volumes.slot(name)
    meet(synced, slot)
    return slot
  }

  /** The cached volume of a slot the caller holds, as a sync reads it. */
  volumeIn(slot: VolumeSlot): PersistentVolume | undefined {
    const reading = this.reading
    if (reading === undefined || reading.volumeSlot === slot) {
      // Nothing noted, or read already (a quiet sync reads the same object twice).
    } else if (reading.volumeSlot === undefined) {
      reading.volumeSlot = slot
      reading.volume = slot.object
    } else {
      ;(reading.more ??= []).push({slot, object: slot.object})
    }
    return slot.object
  }

  /**
   * The cached claim a claimRef names (by its claim key, claimrefToClaimKey), as a sync reads it. A
   * volume's sync asks for its own claim, most often: the slot its volume's slot last met, when the
   * claimRef names it (no key built), else looked up, and then each slot is the other's peer (see
   * volumeSlotNamed).
   */
  claimOf(ref: ObjectReference): PersistentVolumeClaim | undefined {
    const namespace = ref.namespace ?? ''
    const name = ref.name ?? ''
    const synced = this.syncPrefix === 'pv/' ? this.syncSlot : undefined
    const peer = synced?.peer as ClaimSlot | undefined
    if (peer !== undefined && isClaimKey(peer.key, namespace, name)) return this.claimIn(peer)
    const slot = this.claims.slot(`${namespace}/${name}`)
    meet(synced, slot)
    return this.claimIn(slot)
  }

  /** The cached claim of a slot the caller holds, as a sync reads it. */
  claimIn(slot: ClaimSlot): PersistentVolumeClaim | undefined {
    const reading = this.reading
    if (reading === undefined || reading.claimSlot === slot) {
      // Nothing noted, or read already.
    } else if (reading.claimSlot === undefined) {
      reading.claimSlot = slot
      reading.claim = slot.object
    } else {
      ;(reading.more ??= []).push({slot, object: slot.object})
    }
    return slot.object
  }

  /** The claims asked to be synced again since the last clearRequeuedClaims(), in the order first asked. */
  get requeuedClaims(): ReadonlySet<string> {
    return this.requeued ?? NO_CLAIMS
  }

  clearRequeuedClaims(): void {
    // Dropped rather than cleared: clear() makes the set a new table, even when it is empty.
    this.requeued = undefined
  }

  /** claimQueue.Add: the claim is synced again soon. */
  requeueClaim(key: string): void {
    if (this.reading !== undefined) (this.reading.requeued ??= []).push(key)
    ;(this.requeued ??= new Set()).add(key)
  }

  /** Whether an operation of that name was scheduled and has not finished. */
  isOperationRunning(name: string): boolean {
    if (this.reading !== undefined) this.reading.operations = this.operationStarts
    return this.runningOperations.has(name)
  }

  operationStarted(name: string): void {
    const running = (this.ownRunningOperations ??= new Set(this.runningOperations))
    running.add(name)
    this.runningOperations = running
    this.startedOperations.push(name)
    this.operationStarts++
  }

  /** The sync in progress ("pvc/NS/NAME" or "pv/NAME"). Most syncs plan nothing and never ask. */
  get currentSync(): string {
    return (this.syncText ??= this.syncPrefix + this.slotInSync.key)
  }

  /** podIndexer.ByIndex(PodPVCIndex, key) */
  podsByClaim(key: string): readonly Pod[] {
    return (this.podsByClaimKey ??= podsByClaimKey(this.pods)).get(key) ?? []
  }

  private nextResourceVersion(): string {
    // A number while it is exact (resourceVersions of real clusters are far below 2^53): a bigint per
    // write is an allocation, and its arithmetic is slower.
    if (typeof this.lastResourceVersion === 'number' && this.lastResourceVersion < Number.MAX_SAFE_INTEGER) {
      this.lastResourceVersion += 1
    } else {
      this.lastResourceVersion = BigInt(this.lastResourceVersion) + 1n
    }
    return String(this.lastResourceVersion)
  }

  private record<T extends PersistentVolume | PersistentVolumeClaim>(
    type: ActionType,
    ref: ObjectRef,
    cached: T | undefined,
    after: T,
    reason: string,
    subresource?: 'status',
  ): T {
    if (cached !== undefined && after.metadata === cached.metadata) {
      // The controller writes a copy it owns (copyForWrite): stamping the new resourceVersion on a
      // metadata the cache still holds would rewrite an object already planned from.
      throw new Error(`invariant: a write of ${refKey(ref)} shares its metadata with the cached object`)
    } else {
      // A copy of its own.
    }
    // An object the cache does not hold is diffed against itself: no patch, as before.
    const before = cached ?? after
    // Built field by field in the report's key order (JSON.stringify follows insertion order), the
    // optional fields without a spread each: this runs for every write of a plan.
    const action = {action: type, object: ref, reason, patch: diffJson(before, after, bumpedByTheServer)} as Action
    if (subresource !== undefined) action.subresource = subresource
    if (before.metadata.resourceVersion !== undefined) action.resourceVersion = before.metadata.resourceVersion
    action.round = this.round
    action.sync = this.currentSync
    this.actions.push(action)
    this.touched.push(ref)
    // The request body, with the version the API server gives it, is what the server returns and the
    // cache stores: the controller never reads its copy after the write, it goes on with the answer
    // (as the Go controller does with the object Update returns). No second copy of every write.
    after.metadata.resourceVersion = this.nextResourceVersion()
    return after
  }

  /**
   * kubeClient.PersistentVolumes().Update / UpdateStatus, then storeVolumeUpdate. Throws ApiError where
   * the API server refuses the write (see refusal).
   */
  updateVolume(type: ActionType, volume: PersistentVolume, reason: string, subresource?: 'status'): PersistentVolume {
    const name = volume.metadata.name ?? ''
    const slot =
      this.syncPrefix === 'pv/' && this.slotInSync.key === name
        ? (this.syncSlot as VolumeSlot)
        : this.volumeSlotNamed(name)
    const refused = subresource === undefined ? refusal('PersistentVolume', slot.object, volume) : undefined
    if (refused !== undefined) throw refused
    const stamped = subresource === 'status' ? this.withPhaseTransitionTime(slot.object, volume) : volume
    const saved = this.record(type, volumeRef(volume), slot.object, stamped, reason, subresource)
    this.volumes.put(slot, saved)
    this.volumeWrites++
    this.index?.store(saved)
    return saved
  }

  /**
   * persistentvolumeStatusStrategy.PrepareForUpdate: a status write that changes the phase and leaves the
   * transition time as it was (or unset) gets the server's time; one that keeps the phase and sets none
   * keeps the old one.
   */
  private withPhaseTransitionTime(old: PersistentVolume | undefined, volume: PersistentVolume): PersistentVolume {
    const now = this.phaseTransitionTime
    const status = volume.status ?? {}
    const before = old?.status ?? {}
    if (now === undefined) {
      return volume
    } else if (
      status.phase === before.phase &&
      status.lastPhaseTransitionTime == null &&
      before.lastPhaseTransitionTime != null
    ) {
      // phase didn't change, preserve the existing transition time if set
      return {...volume, status: {...status, lastPhaseTransitionTime: before.lastPhaseTransitionTime}}
    } else if (
      status.phase !== before.phase &&
      (status.lastPhaseTransitionTime == null || status.lastPhaseTransitionTime === before.lastPhaseTransitionTime)
    ) {
      // phase changed and client didn't set or didn't change the transition time
      return {...volume, status: {...status, lastPhaseTransitionTime: now}}
    } else {
      // The writer set a time of its own, or nothing changes.
      return volume
    }
  }

  /** kubeClient.PersistentVolumeClaims(ns).Update / UpdateStatus, then storeClaimUpdate. Throws ApiError as updateVolume. */
  updateClaim(
    type: ActionType,
    claim: PersistentVolumeClaim,
    reason: string,
    subresource?: 'status',
  ): PersistentVolumeClaim {
    const slot = this.slotOfSyncedClaim(claim) ?? this.claims.slot(claimKey(claim))
    const refused = subresource === undefined ? refusal('PersistentVolumeClaim', slot.object, claim) : undefined
    if (refused !== undefined) throw refused
    const saved = this.record(type, claimRefOf(claim), slot.object, claim, reason, subresource)
    this.claims.put(slot, saved)
    return saved
  }

  /**
   * The slot of the claim being synced, when `claim` is (a copy of) it: most claim writes are, and the
   * slot is then at hand without building the claim's key and looking it up.
   */
  private slotOfSyncedClaim(claim: PersistentVolumeClaim): ClaimSlot | undefined {
    if (this.syncPrefix !== 'pvc/') return undefined
    const slot = this.syncSlot as ClaimSlot
    const synced = slot.object?.metadata
    return synced !== undefined && synced.name === claim.metadata.name && synced.namespace === claim.metadata.namespace
      ? slot
      : undefined
  }

  /** kubeClient.PersistentVolumes().Create, then storeVolumeUpdate: a provisioned volume. */
  createVolume(volume: PersistentVolume, reason: string): PersistentVolume {
    const name = volume.metadata.name ?? ''
    const saved = {...volume, metadata: {...volume.metadata, resourceVersion: this.nextResourceVersion()}}
    this.actions.push({
      action: 'create-volume',
      object: volumeRef(volume),
      reason,
      patch: [],
      round: this.round,
      sync: this.currentSync,
    })
    this.touched.push(volumeRef(volume))
    const slot = this.volumes.slot(name)
    if (slot.object === undefined) this.volumeNamesGeneration++
    this.volumes.put(slot, saved)
    this.volumeWrites++
    this.index?.store(saved)
    return saved
  }

  /** kubeClient.PersistentVolumes().Delete: the object goes (its finalizers were removed first). */
  deleteVolume(name: string, reason: string): void {
    const before = this.volumes.get(name)
    this.actions.push({
      action: 'delete-volume',
      object: refOfVolume(name),
      reason,
      patch: [],
      ...(before?.metadata.resourceVersion !== undefined ? {resourceVersion: before.metadata.resourceVersion} : {}),
      round: this.round,
      sync: this.currentSync,
    })
    this.touched.push(refOfVolume(name))
    if (this.volumes.delete(name)) this.volumeNamesGeneration++
    this.volumeWrites++
    this.index?.remove(name)
  }

  /** An asynchronous operation (recycle, delete, provision) handed to `plugin`: planned, not written. */
  planOperation(type: OperationType, ref: ObjectRef, plugin: string, reason: string, resourceVersion?: string): void {
    const action: Action = {
      action: type,
      object: ref,
      reason,
      patch: [],
      ...(resourceVersion !== undefined ? {resourceVersion} : {}),
      round: this.round,
      sync: this.currentSync,
    }
    this.actions.push(action)
    this.operationPlugins[operationKey(action)] = plugin
    this.touched.push(ref)
  }

  /** eventRecorder.Event; identical events are aggregated with a count, as the recorder does. */
  recordEvent(ref: ObjectRef, type: EventType, reason: string, message: string): void {
    const key = `${refKey(ref)}\u0000${type}\u0000${reason}\u0000${message}`
    const events = (this.events ??= new Map<string, PlannedEvent>())
    let event = events.get(key)
    if (event !== undefined) {
      event.count++
    } else {
      event = {object: ref, type, reason, message, count: 1, sync: this.currentSync}
      events.set(key, event)
    }
    if (this.reading !== undefined) (this.reading.events ??= []).push(event)
  }

  recordError(ref: ObjectRef, message: string): void {
    if (this.reading !== undefined) (this.reading.errors ??= []).push({object: ref, message})
    this.errors.push({object: ref, message})
  }

  plannedEvents(): PlannedEvent[] {
    return this.events === undefined ? [] : [...this.events.values()]
  }

  /** The refKeys of objects written since the last call. */
  takeTouched(): Set<string> {
    const keys = new Set<string>()
    for (const ref of this.touched) keys.add(refKey(ref))
    this.touched = []
    return keys
  }

  /** Drops the objects written so far unasked: nobody follows them up. */
  forgetTouched(): void {
    if (this.touched.length > 0) this.touched = []
  }
}
