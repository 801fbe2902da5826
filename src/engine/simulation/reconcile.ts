// The one entry point of the engine: cluster state in, plan out.
//
// A round syncs every claim in scope (by namespace, then name — the order an informer lists them in,
// which is etcd's key order) and then every volume in scope (by name), as the controller's two workers
// would after a start-up. Rounds repeat until one makes no write, at most `maxRounds` times. With named
// objects, a round syncs those objects plus every object the previous round wrote or requeued, as the
// controller reacts to its own writes through its informers. A sync that wrote nothing, and none of
// whose reads has been written since, is replayed rather than run again (its events counted again): it
// would decide the same. After the first round most syncs are such.
import type {MigrationPolicy} from '../controller/csi-migration.js'
import {defaultFeatureGates, type FeatureGates} from '../api/feature-gates.js'
import type {ApiFaults, VolumeOperations} from '../controller/volume-operations.js'
import {type ClusterState, type PersistentVolume, type PersistentVolumeClaim} from '../api/model.js'
import {type ControllerOptions, PersistentVolumeController} from '../controller/pv-controller.js'
import type {Action, ObjectRef, PlannedEvent, SyncError} from './plan.js'
import {compileLabelSelector, type CompiledSelector} from '../api/selector.js'
import type {LabelSelector} from '../api/model.js'
import {type ClaimSlot, type MatchingStrategy, SimulatedCluster, type VolumeSlot} from './simulated-cluster.js'
import {compareNames} from '../matching/volume-index.js'
import {type CacheSlot, filledObject} from './cache-store.js'
import {defaultVolumePluginMgr, type VolumePluginMgr} from '../controller/volume-plugins.js'

/** The bound of "until stable", as the Go multi-sync tests use. */
export const DEFAULT_MAX_ROUNDS = 100

export interface ReconcileScope {
  /** Only claims of this namespace, and the volumes that are unbound or point into it. */
  namespace?: string
  /** Only objects whose labels match. */
  labelSelector?: LabelSelector
}

export interface ReconcileOptions {
  gates?: FeatureGates
  plugins?: VolumePluginMgr
  enableDynamicProvisioning?: boolean
  /** Plugin operations run to the end (see volume-operations.ts); default: planned as actions. */
  operations?: VolumeOperations
  /** API errors injected into the controller's writes (conformance reactor errors). */
  apiFaults?: ApiFaults
  /** CSI migration as the Go tests mock it. */
  migration?: MigrationPolicy
  maxRounds?: number
  /** Sync only these objects (and what their syncs touch). */
  targets?: readonly ObjectRef[]
  scope?: ReconcileScope
  /**
   * How a claim's volume is found: 'indexed' (default) or 'scan', the literal port of the controller's
   * scan, kept as the reference the indexed engine is tested against. The plans are identical.
   */
  matching?: MatchingStrategy
  /**
   * Replay the syncs that wrote nothing and read nothing written since (simulated-cluster.ts, QuietSync)
   * instead of running them again: the same plan, faster. Default true; never with `operations` or
   * `apiFaults`. False runs every sync, as the reference the replay is tested against.
   */
  replayQuietSyncs?: boolean
  /** Operations running outside this plan, by the controller's names (SimulatedClusterOptions.runningOperations). */
  runningOperations?: Iterable<string>
  /** The API server's clock, to stamp phase changes of volumes with (SimulatedClusterOptions.phaseTransitionTime). */
  now?: string
}

export interface ReconcileResult {
  rounds: number
  converged: boolean
  actions: Action[]
  events: PlannedEvent[]
  errors: SyncError[]
  /** Every PV and PVC after the plan, sorted by kind, namespace, name. */
  volumes: PersistentVolume[]
  claims: PersistentVolumeClaim[]
  /**
   * Each of `volumes` and `claims` as the state gave it (the last of a name, as the cache keeps it), or
   * as it ends when the plan created it: the report's "before" side, without a second map of the state.
   */
  before: {volumes: PersistentVolume[]; claims: PersistentVolumeClaim[]}
  /** How many syncs ran, and how many were replayed instead (replayQuietSyncs): how, not what, was planned. */
  syncs: {run: number; replayed: number}
  /**
   * The operations the plan started and left running (a recycle, a delete, an in-tree provision handed to
   * a plugin), by the controller's names ("recycle-NAME[UID]"): what a caller that carries them out holds
   * as running (runningOperations) until they end.
   */
  operationsStarted: string[]
  /**
   * The plugin the controller found for each operation in `actions` (recycle, delete, provision), by
   * operationKey: the plugin an executor runs it with. Beside the actions, not in them: an action is a
   * document of the output contract, which names the plugin in its reason only.
   */
  operationPlugins: Readonly<Record<string, string>>
}

export function reconcile(state: ClusterState, options: ReconcileOptions = {}): ReconcileResult {
  const targets = options.targets
  if (targets !== undefined && targets.length === 1 && options.maxRounds === 1)
    return syncOnce(state, targets[0], options)
  return runRounds(state, options).result
}

/**
 * reconcile, and the informer caches its cluster holds after the plan (SimulatedCluster.informerCache): the
 * cache of the state after the plan, its matching index current, for explaining that state without
 * caching and indexing it again.
 */
export function reconcileKeepingCache(
  state: ClusterState,
  options: ReconcileOptions = {},
): {result: ReconcileResult; cache: SimulatedCluster} {
  const {result, cluster} = runRounds(state, options)
  return {result, cache: cluster.informerCache()}
}

/** The controller's options of a reconcile: the optional ones set one by one, without a spread each (loop mode builds a controller per sync). */
function controllerOptions(options: ReconcileOptions): ControllerOptions {
  const ctrlOptions: ControllerOptions = {
    gates: options.gates ?? defaultFeatureGates,
    plugins: options.plugins ?? defaultVolumePluginMgr(),
    enableDynamicProvisioning: options.enableDynamicProvisioning ?? true,
  }
  if (options.operations !== undefined) ctrlOptions.operations = options.operations
  if (options.apiFaults !== undefined) ctrlOptions.apiFaults = options.apiFaults
  if (options.migration !== undefined) ctrlOptions.migration = options.migration
  return ctrlOptions
}

/**
 * One round of one named object (loop mode's every sync, over the slice of objects it reads): runRounds'
 * plan of it, made without the rounds' machinery (list orders kept across rounds, follow-ups, the loaded
 * objects matched up by slot), which was most of the garbage of a sync that plans nothing. The plan is
 * runRounds' to the last field (test/engine/sync-slice.test.ts holds it so).
 */
function syncOnce(state: ClusterState, target: ObjectRef, options: ReconcileOptions): ReconcileResult {
  const cluster = new SimulatedCluster(state, {
    matching: options.matching ?? 'indexed',
    replayQuietSyncs: false,
    runningOperations: options.runningOperations,
    phaseTransitionTime: phaseTransitionTime(options),
  })
  const ctrl = new PersistentVolumeController(cluster, controllerOptions(options))
  // The slice as loaded, in list order: the plan's "before" side.
  const volumeSlots = sorted(cluster.volumes.filledSlots(), compareVolumeSlots)
  const claimSlots = sorted(cluster.claims.filledSlots(), compareClaimSlots)
  const volumesBefore = objectsOf(volumeSlots)
  const claimsBefore = objectsOf(claimSlots)
  const namesBefore = cluster.volumeNamesGeneration
  if (target.kind === 'PersistentVolume') {
    const slot = cluster.volumes.filledSlot(target.name)
    if (slot !== undefined) ctrl.syncVolumeIn(slot)
    else {
      // Not in the slice (deleted): nothing to sync, as runRounds finds no slot.
    }
  } else {
    const slot = cluster.claims.filledSlot(`${target.namespace ?? 'default'}/${target.name}`)
    if (slot !== undefined) ctrl.syncClaimIn(slot)
    else {
      // Not in the slice.
    }
  }
  // The only round: nobody follows its writes up.
  cluster.forgetTouched()
  let volumes: PersistentVolume[]
  let before: PersistentVolume[]
  if (cluster.volumeNamesGeneration === namesBefore) {
    // The same volumes (claims are never created or deleted by the controller): the same slots.
    volumes = objectsOf(volumeSlots)
    before = volumesBefore
  } else {
    // A volume created or deleted: the slots as they are now, each with its object as loaded, if any.
    const now = sorted(cluster.volumes.filledSlots(), compareVolumeSlots)
    volumes = objectsOf(now)
    before = new LoadedObjects(volumeSlots, volumesBefore).of(now)
  }
  return {
    rounds: 1,
    converged: cluster.actions.length === 0,
    actions: cluster.actions,
    events: cluster.plannedEvents(),
    errors: cluster.errors,
    volumes,
    claims: objectsOf(claimSlots),
    before: {volumes: before, claims: claimsBefore},
    syncs: {run: cluster.syncsRun, replayed: cluster.syncsReplayed},
    operationsStarted: cluster.startedOperations,
    operationPlugins: cluster.operationPlugins,
  }
}

function runRounds(
  state: ClusterState,
  options: ReconcileOptions,
): {result: ReconcileResult; cluster: SimulatedCluster} {
  const maxRounds = options.maxRounds ?? DEFAULT_MAX_ROUNDS
  // A quiet sync is replayed in a later round: with one round (loop mode's every sync) none comes, and
  // noting what each sync reads would be work for nobody.
  const replayQuietSyncs =
    (options.replayQuietSyncs ?? true) &&
    options.operations === undefined &&
    options.apiFaults === undefined &&
    maxRounds > 1
  const cluster = new SimulatedCluster(state, {
    matching: options.matching ?? 'indexed',
    replayQuietSyncs,
    runningOperations: options.runningOperations,
    phaseTransitionTime: phaseTransitionTime(options),
  })
  const ctrl = new PersistentVolumeController(cluster, controllerOptions(options))
  const targets = options.targets
  // Asked only by a round over every object in scope: named targets are synced whatever the scope, and a
  // scope's selector is compiled only for such a round.
  const inScope = scopePredicate(targets === undefined ? options.scope : undefined)

  let rounds = 0
  let converged = false
  let followUps: ReadonlySet<string> = NO_FOLLOW_UPS
  const order = new ListOrder(cluster)
  // The cache as loaded: writes replace the cache's objects, never these.
  const loadedVolumes = new LoadedObjects(order.volumeSlots())
  const loadedClaims = new LoadedObjects(order.claimSlots())
  while (rounds < maxRounds) {
    rounds++
    cluster.round = rounds
    const writesBefore = cluster.actions.length
    const {claims, volumes} =
      targets === undefined ? allInScope(order, inScope) : targetsAndFollowUps(cluster, targets, followUps)
    cluster.clearRequeuedClaims()
    // Indexed: see docs/design.md, "Loops that run once".
    for (let i = 0; i < claims.length; i++) ctrl.syncClaimIn(claims[i])
    for (let i = 0; i < volumes.length; i++) ctrl.syncVolumeIn(volumes[i])
    if (targets === undefined) {
      // Every object in scope is synced in every round: what this one wrote needs no follow-up.
      cluster.forgetTouched()
    } else if (rounds < maxRounds) {
      const next = cluster.takeTouched()
      for (const key of cluster.requeuedClaims) next.add(`pvc/${key}`)
      followUps = next
    } else {
      // The last round (loop mode's only one): nobody follows its writes up.
      cluster.forgetTouched()
    }
    if (cluster.actions.length === writesBefore) {
      converged = true
      break
    }
  }

  const volumeSlots = order.volumeSlots()
  const claimSlots = order.claimSlots()
  const result = {
    rounds,
    converged,
    actions: cluster.actions,
    events: cluster.plannedEvents(),
    errors: cluster.errors,
    volumes: objectsOf(volumeSlots),
    claims: objectsOf(claimSlots),
    before: {volumes: loadedVolumes.of(volumeSlots), claims: loadedClaims.of(claimSlots)},
    syncs: {run: cluster.syncsRun, replayed: cluster.syncsReplayed},
    operationsStarted: cluster.startedOperations,
    operationPlugins: cluster.operationPlugins,
  }
  return {result, cluster}
}

/**
 * The informers' list order (claims by namespace then name, volumes by name) of the cache slots, sorted
 * once and again only when the set of objects changes (a volume created or deleted), not in every round.
 */
class ListOrder {
  private claims: ClaimSlot[] | undefined
  private claimsSize = -1
  private volumes: VolumeSlot[] | undefined
  private volumesGeneration = -1

  constructor(private readonly cluster: SimulatedCluster) {}

  claimSlots(): readonly ClaimSlot[] {
    if (this.claims === undefined || this.claimsSize !== this.cluster.claims.size) {
      this.claims = sorted(this.cluster.claims.filledSlots(), compareClaimSlots)
      this.claimsSize = this.cluster.claims.size
    } else {
      // Claims are never created or deleted by the controller.
    }
    return this.claims
  }

  volumeSlots(): readonly VolumeSlot[] {
    if (this.volumes === undefined || this.volumesGeneration !== this.cluster.volumeNamesGeneration) {
      this.volumes = sorted(this.cluster.volumes.filledSlots(), compareVolumeSlots)
      this.volumesGeneration = this.cluster.volumeNamesGeneration
    } else {
      // The same names as when sorted.
    }
    return this.volumes
  }
}

/** The list sorted in place; one of a single slot (a sync's own, in loop mode) is in order as it is. */
function sorted<T>(list: T[], compare: (a: T, b: T) => number): T[] {
  return list.length < 2 ? list : list.sort(compare)
}

/** The objects of a list of slots as they were when listed, matched up with a later list of slots. */
class LoadedObjects<T> {
  constructor(
    private readonly slots: ReadonlyArray<CacheSlot<T, unknown>>,
    private readonly objects: ReadonlyArray<T | undefined> = objectsOf(slots),
  ) {}

  /** Each slot's object as listed then, or as it is now if it had none. */
  of(slots: ReadonlyArray<CacheSlot<T, unknown>>): T[] {
    if (slots === this.slots) {
      // The same list (ListOrder sorts again only when the set of names changes): no lookups.
      const objects = new Array<T>(slots.length)
      for (let i = 0; i < slots.length; i++) objects[i] = this.objects[i] ?? filledObject(slots[i])
      return objects
    } else {
      const loaded = new Map(this.slots.map((slot, i) => [slot, this.objects[i]]))
      return slots.map((slot) => loaded.get(slot) ?? filledObject(slot))
    }
  }
}

/** The object of each slot, in a list made at its length (a plan's lists are of one or two objects in loop mode). */
function objectsOf<T>(slots: ReadonlyArray<CacheSlot<T, unknown>>): T[] {
  const objects = new Array<T>(slots.length)
  for (let i = 0; i < slots.length; i++) objects[i] = filledObject(slots[i])
  return objects
}

function compareClaims(a: PersistentVolumeClaim, b: PersistentVolumeClaim): number {
  return compareNames(a.metadata.namespace, b.metadata.namespace) || compareNames(a.metadata.name, b.metadata.name)
}

/** Claims' slots in list order (by namespace, then name). */
const compareClaimSlots = (a: ClaimSlot, b: ClaimSlot): number => compareClaims(filledObject(a), filledObject(b))

/** Volumes' slots in list order (by name). */
const compareVolumeSlots = (a: VolumeSlot, b: VolumeSlot): number => compareNames(a.key, b.key)

type ScopePredicate = {
  claim: (c: PersistentVolumeClaim) => boolean
  volume: (v: PersistentVolume) => boolean
  /** True when there is no scope: every object is in it. */
  everything: boolean
}

export function scopePredicate(scope: ReconcileScope | undefined): ScopePredicate {
  const ns = scope?.namespace
  const selector: CompiledSelector | undefined =
    scope?.labelSelector !== undefined ? compileLabelSelector(scope.labelSelector) : undefined
  return {
    everything: ns === undefined && selector === undefined,
    claim: (c) =>
      (ns === undefined || c.metadata.namespace === ns) &&
      (selector === undefined || selector.matches(c.metadata.labels)),
    volume: (v) =>
      (ns === undefined || v.spec.claimRef == null || v.spec.claimRef.namespace === ns) &&
      (selector === undefined || selector.matches(v.metadata.labels)),
  }
}

function allInScope(
  order: ListOrder,
  inScope: ScopePredicate,
): {claims: readonly ClaimSlot[]; volumes: readonly VolumeSlot[]} {
  if (inScope.everything) return {claims: order.claimSlots(), volumes: order.volumeSlots()}
  return {
    claims: order.claimSlots().filter((slot) => inScope.claim(filledObject(slot))),
    volumes: order.volumeSlots().filter((slot) => inScope.volume(filledObject(slot))),
  }
}

/** The follow-ups of the first round: none. */
const NO_FOLLOW_UPS: ReadonlySet<string> = new Set()

function targetsAndFollowUps(
  cluster: SimulatedCluster,
  targets: readonly ObjectRef[],
  followUps: ReadonlySet<string>,
): {claims: readonly ClaimSlot[]; volumes: readonly VolumeSlot[]} {
  if (targets.length === 1 && followUps.size === 0) {
    // One object and nothing to follow up (loop mode's every sync): its slot, with no sets to sort.
    const t = targets[0]
    if (t.kind === 'PersistentVolume') {
      const slot = cluster.volumes.filledSlot(t.name)
      return {claims: [], volumes: slot === undefined ? [] : [slot]}
    } else {
      const slot = cluster.claims.filledSlot(`${t.namespace ?? 'default'}/${t.name}`)
      return {claims: slot === undefined ? [] : [slot], volumes: []}
    }
  } else {
    // Several: each once, in key order.
  }
  const claimKeys = new Set<string>()
  const volumeNames = new Set<string>()
  for (const t of targets) {
    if (t.kind === 'PersistentVolume') volumeNames.add(t.name)
    else claimKeys.add(`${t.namespace ?? 'default'}/${t.name}`)
  }
  for (const key of followUps) {
    if (key.startsWith('pv/')) volumeNames.add(key.slice(3))
    else if (key.startsWith('pvc/')) claimKeys.add(key.slice(4))
  }
  return {
    claims: [...claimKeys]
      .filter((k) => cluster.claims.has(k))
      .sort()
      .map((k) => cluster.claims.slot(k)),
    volumes: [...volumeNames]
      .filter((n) => cluster.volumes.has(n))
      .sort()
      .map((n) => cluster.volumes.slot(n)),
  }
}

/** The time the API server stamps phase changes with: `now`, where the gate has it stamp them at all. */
function phaseTransitionTime(options: ReconcileOptions): string | undefined {
  return options.now !== undefined && (options.gates ?? defaultFeatureGates).PersistentVolumeLastPhaseTransitionTime
    ? options.now
    : undefined
}
