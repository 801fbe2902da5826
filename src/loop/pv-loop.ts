// The PV controller's loop (pv_controller_base.go), around pvctl's pure engine:
//
//   informers   volumes, claims, classes, pods, nodes: list and watch (informer.ts); volume and claim
//               events enqueue the object's key, as the seed's event handlers do
//   the cache   the controller's own copies of volumes and claims (ctrl.volumes, ctrl.claims), fed by
//               the informers AND by its own writes (storeObjectUpdate: an older resourceVersion never
//               replaces a newer one), so that the next sync sees what the last one wrote before the
//               watch brings it back — one claim worker cannot bind two claims to one volume
//   two queues  claims and volumes, each with ONE worker: the seed's claimWorker and volumeWorker "must
//               run only once, syncClaim/syncVolume is not reentrant"; two syncs of claims at once could
//               both pick the same volume
//   a sync      one object: reconcile([that object], 1 round), the same engine as the dry run, over the
//               objects the sync reads (engine/simulation/sync-slice.ts: the object, what it names, its pods and,
//               for a claim to match, the volumes it may match), not the whole cache, so that a sync
//               costs the same in a large cluster as in a small one; its writes go through the executor
//               (executeSync), in the controller's order, each conditional on the resourceVersion
//               read, a conflict re-read and re-planned over the slice made again
//   resync      every --resync period every claim and volume of the informers' caches is synced (the
//               seed's resync(): it lists nothing); every --relist-period, if set, the informers also list
//               again beside their watches and the merge queues every object, as a resync does
//   back-off    a sync whose write failed, or that the engine ended in an error, comes back after a
//               per-key exponential back-off (work-queue.ts)
//   operations  a sync that starts a volume plugin's operation (a recycler pod, a cleanup pod, an in-tree
//               provision) is carried out in the background, as the seed's scheduleOperation runs it in a
//               goroutine: the worker goes on with the next key, and the operation's name stays running
//               (the goroutinemap) so that no sync starts it again until it has ended
//
// Whether a sync writes or only plans is asked of `writing()` at every sync: it changes with leadership
// and with the built-in binder check, and --dry-run never writes.
import {setImmediate as yieldToEventLoop} from 'node:timers/promises'

import type {ClusterApi, WatchApi} from '../cluster/live-api.js'
import type {Logger} from '../log.js'
import {present} from '../engine/api/invariant.js'
import type {FeatureGates} from '../engine/api/feature-gates.js'
import type {VolumePluginMgr} from '../engine/controller/volume-plugins.js'
import {
  claimKey,
  claimRefKey,
  type ClusterState,
  type LabelSelector,
  type Node,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type Pod,
  type StorageClass,
} from '../engine/api/model.js'
import {
  type Action,
  type ObjectRef,
  type PlannedEvent,
  refKey,
  refOfClaim,
  refOfVolume,
} from '../engine/simulation/plan.js'
import {reconcile, type ReconcileResult, scopePredicate} from '../engine/simulation/reconcile.js'
import {PodsByClaim, stateForSync, type SyncSources, VolumeCache} from '../engine/simulation/sync-slice.js'
import {countBoundVolumes, MASS_RELEASE_WINDOW_MS, ReleaseBudget} from '../executor/destruction-guard.js'
import {executeSync, type ExecutedAction, type ExecuteResult} from '../executor/executor.js'
import type {WorkloadApi} from '../cluster/workload-api.js'
import type {LiveVolumePlugins} from '../volume-plugins/live-plugins.js'
import type {AuditStream, PrintedSlot} from './audit-stream.js'
import type {LoopMetrics} from './loop-metrics.js'
import type {EventSink} from './client-go/event-sink.js'
import {Informer, MERGE_SLICE, type WireObject} from './client-go/informer.js'
import {KeptPlans, type KeptSlot} from './kept-plans.js'
import {type Lane, WorkQueue} from './client-go/work-queue.js'

export interface LoopOptions {
  gates: FeatureGates
  /** The controller's volume plugins as configured (--enable-hostpath-provisioner, --local-volume-deleter). */
  plugins?: VolumePluginMgr
  /** -n: claims and pods of this namespace; volumes unbound or bound into it. */
  namespace?: string
  /** -l: as given (the LIST and WATCH of claims) and parsed (which volumes are synced). */
  labelSelectorText?: string
  labelSelector?: LabelSelector
  resyncMs: number
  /** --relist-period: the informers list again this often, beside their watches (0 or undefined: never on a timer). */
  relistMs?: number
  /** --chunk-size: objects per LIST page of the informers (0: one request). */
  chunkSize?: number
  /** Whether this sync may write (leader, binder check, not --dry-run). */
  writing: () => boolean
  /** Stop issuing writes (shutdown, lost leadership). */
  signal: AbortSignal
  /** Back-off of failed keys (default 5 ms doubling, at most the resync period). */
  backOffBaseMs?: number
  /** Called at each resync, before its relists queue the pass (the binder check is repeated there). */
  onResync?: () => Promise<void>
  /** --allow-mass-release: no bound on the volumes released within MASS_RELEASE_WINDOW_MS. */
  allowMassRelease?: boolean
}

/** The volume plugins a loop carries out, and the pods and PV objects they create and delete (fenced as every write). */
export interface LoopPlugins {
  volumePlugins: LiveVolumePlugins
  workload: WorkloadApi
}

export interface LoopDeps {
  /** Reads and writes (throttled; writes fenced by leadership). */
  api: ClusterApi
  /** Watches (not throttled: they are long-lived). */
  watchApi: WatchApi
  log: Logger
  metrics: LoopMetrics
  audit: AuditStream
  /** Where the controller's events go; none with --no-events. */
  events?: EventSink
  /** The volume plugins carried out when writing; without them their operations stay `not-executed`. */
  plugins?: LoopPlugins
  now?: () => number
}

type Wire<T> = T & WireObject

/**
 * How long a worker syncs keys before the event loop gets a turn (watch events, the lease's renewal,
 * /metrics, SIGTERM): long enough that the turns cost little beside the syncs, short beside the lease's
 * renew deadline and the 1 s a watch event's sync is meant to take.
 */
export const WORKER_SLICE_MS = 10

/**
 * What the loop keeps of an object from one sync to the next: its last plan (replayed while the sync reads
 * the same objects) and what the audit stream printed of it. Held as the memo of the object's key in its
 * work queue: the worker that takes the key has it at hand, where a map of every object would be looked
 * up at every sync.
 */
interface SyncMemo extends KeptSlot, PrintedSlot {}

/** The goroutinemap of a sync while no operation runs (most syncs): one set for them all, never changed. */
const NONE_RUNNING: ReadonlySet<string> = new Set()

/**
 * storeObjectUpdate: false when `obj` is older than the cached version (the same version passes: periodic
 * syncs). `old`: what the store holds under `key`, when the caller has looked it up already.
 */
export function storeObjectUpdate<T extends {metadata: {resourceVersion?: string}}>(
  store: Map<string, T>,
  key: string,
  obj: T,
  old: T | undefined = store.get(key),
): boolean {
  if (old === obj) {
    // The very object cached (a resync's sync of an object unchanged): nothing to store, nor to index again.
    return true
  } else if (old !== undefined) {
    const oldRv = Number(old.metadata.resourceVersion)
    const newRv = Number(obj.metadata.resourceVersion)
    if (Number.isFinite(oldRv) && Number.isFinite(newRv) && oldRv > newRv) return false
  }
  store.set(key, obj)
  return true
}

interface OperationStart {
  plugin: string
  operation: 'provision' | 'delete'
  startedMs: number
}

export class PersistentVolumeLoop {
  readonly volumes = new VolumeCache()
  readonly claims = new Map<string, PersistentVolumeClaim>()
  /** The pod informer's index by claim (podIndexer). */
  private readonly podsByClaim = new PodsByClaim()
  /** What a sync's objects are read from. */
  private readonly sources: SyncSources
  readonly claimQueue: WorkQueue<SyncMemo>
  readonly volumeQueue: WorkQueue<SyncMemo>
  private readonly volumeInformer: Informer<Wire<PersistentVolume>>
  private readonly claimInformer: Informer<Wire<PersistentVolumeClaim>>
  private readonly classInformer: Informer<Wire<StorageClass>>
  private readonly podInformer: Informer<Wire<Pod>>
  private readonly nodeInformer: Informer<Wire<Node>>
  private readonly inScope
  /** operationTimestamps: provisioning and deletion started, for volume_operation_total_seconds. */
  private readonly operations = new Map<string, OperationStart>()
  /** The goroutinemap: operations carried out in the background, by the controller's names, until they end. */
  private readonly running = new Map<string, Promise<void>>()
  private workers: Promise<void>[] = []
  /** Each object's last plan, replayed while its sync reads the same objects. */
  readonly plans = new KeptPlans()
  /** How many volumes the loop may release, recycle or delete within a window (destruction-guard.ts). */
  private readonly budget: ReleaseBudget
  private resyncTimer: NodeJS.Timeout | undefined
  private relistTimer: NodeJS.Timeout | undefined
  private started = false
  private stopped = false
  private readonly now: () => number
  syncs = 0
  /** Counts the changes of the controller's cache of volumes and claims (what the pv_collector gauges count). */
  generation = 0

  constructor(
    private readonly opts: LoopOptions,
    private readonly deps: LoopDeps,
  ) {
    this.now = deps.now ?? (() => performance.now())
    // Kept across syncs: a burst of releases is many syncs of one volume each (a relist that lost claims).
    this.budget = new ReleaseBudget({
      boundVolumes: () => countBoundVolumes(this.volumes.values()),
      windowMs: MASS_RELEASE_WINDOW_MS,
      now: this.now,
      unlimited: opts.allowMassRelease,
    })
    const backOff = {baseMs: opts.backOffBaseMs ?? 5, maxMs: Math.max(1000, opts.resyncMs)}
    this.claimQueue = new WorkQueue<SyncMemo>('claims', backOff, deps.metrics.queue('claims'))
    this.volumeQueue = new WorkQueue<SyncMemo>('volumes', backOff, deps.metrics.queue('volumes'))
    this.inScope = scopePredicate({namespace: opts.namespace, labelSelector: opts.labelSelector})
    const common = {watchApi: deps.watchApi, log: deps.log, metrics: deps.metrics.informers, chunkSize: opts.chunkSize}
    const api = deps.api
    // The lane of a key (work-queue.ts): a change is an event, synced before the keys of a pass; the
    // start-up's list and a relisted object whose resourceVersion has not moved are the pass itself.
    const laneOf = (old: WireObject | undefined, obj: WireObject): Lane => {
      if (!this.started) return 'bulk' // the start-up's list: every object, the first pass
      if (old !== undefined && old.metadata.resourceVersion === obj.metadata.resourceVersion) return 'bulk' // a relist of an unchanged object
      return 'event' // created, changed, or deleted: what a watch delivers
    }
    this.volumeInformer = new Informer<Wire<PersistentVolume>>({
      ...common,
      resource: 'persistentvolumes',
      list: (p) => api.listVolumes(p),
      handlers: {
        onAdd: (v, key) => this.enqueueVolume(v, key, laneOf(undefined, v)),
        onUpdate: (o, v, key) => this.enqueueVolume(v, key, laneOf(o, v)),
        onDelete: (v, key) => this.enqueueVolume(v, key, laneOf(undefined, v)),
      },
    })
    this.claimInformer = new Informer<Wire<PersistentVolumeClaim>>({
      ...common,
      resource: 'persistentvolumeclaims',
      namespace: opts.namespace,
      labelSelector: opts.labelSelectorText,
      list: (p) => api.listClaims(opts.namespace, p),
      // The informer's key of a claim is its claim key ("namespace/name"): the very string its store holds.
      handlers: {
        onAdd: (c, key) => this.claimQueue.add(key, laneOf(undefined, c)),
        onUpdate: (o, c, key) => this.claimQueue.add(key, laneOf(o, c)),
        onDelete: (c, key) => this.claimQueue.add(key, laneOf(undefined, c)),
      },
    })
    this.classInformer = new Informer<Wire<StorageClass>>({
      ...common,
      resource: 'storageclasses',
      list: (p) => api.listClasses(p),
    })
    const pods = this.podsByClaim
    this.podInformer = new Informer<Wire<Pod>>({
      ...common,
      resource: 'pods',
      namespace: opts.namespace,
      list: (p) => api.listPods(opts.namespace, p),
      handlers: {
        onAdd: (pod) => pods.set(pod),
        onUpdate: (old, pod) => pods.set(pod, old),
        onDelete: (pod) => pods.delete(pod),
      },
    })
    this.nodeInformer = new Informer<Wire<Node>>({...common, resource: 'nodes', list: (p) => api.listNodes(p)})
    this.sources = {
      volumes: this.volumes,
      claims: this.claims,
      classes: this.classInformer.store,
      nodes: this.nodeInformer.store,
      pods,
    }
  }

  /** A volume in scope, or one the controller's cache holds (it may have left the scope: synced once more). */
  private enqueueVolume(v: PersistentVolume, name: string, lane: Lane): void {
    if (this.inScope.volume(v) || this.volumes.has(name)) this.volumeQueue.add(name, lane)
  }

  private get informers(): Array<Informer<WireObject>> {
    return [this.volumeInformer, this.claimInformer, this.classInformer, this.podInformer, this.nodeInformer]
  }

  /** All informers have listed. */
  get hasSynced(): boolean {
    return this.started && this.informers.every((i) => i.hasSynced)
  }

  /** WaitForCacheSync, initializeCaches, then the workers and the resync. Rejects when the first list fails. */
  async start(): Promise<void> {
    const {log} = this.deps
    log.info('Starting controller', {controller: 'persistentvolume-binder-controller'})
    await Promise.all(this.informers.map((i) => i.start()))
    if (this.stopped) {
      // Stopped while the informers listed (SIGTERM during start-up): their stores hold what the lists left
      // them, not the cluster; the caches are not synced and no worker starts.
      return
    } else {
      // Listed: the informers hold the cluster as of their lists.
    }
    // initializeCaches: the controller's cache starts as the informers' contents.
    for (const [key, v] of this.volumeInformer.store) this.volumes.set(key, v)
    for (const [key, c] of this.claimInformer.store) this.claims.set(key, c)
    this.generation++
    this.started = true
    log.info('Caches are synced', {volumes: this.volumes.size, claims: this.claims.size})
    this.deps.metrics.collect(this)
    this.workers = [
      this.worker(this.volumeQueue, (k) => this.processVolume(k)),
      this.worker(this.claimQueue, (k) => this.processClaim(k)),
    ]
    this.scheduleResync()
    this.scheduleRelist()
  }

  /** Stops taking keys, lets the syncs in flight end (no new writes: the signal), stops the informers. */
  async stop(graceMs: number): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    clearTimeout(this.resyncTimer)
    clearTimeout(this.relistTimer)
    this.claimQueue.shutDown()
    this.volumeQueue.shutDown()
    const informers = Promise.all(this.informers.map((i) => i.stop()))
    let timer: NodeJS.Timeout | undefined
    const grace = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), graceMs)))
    // The operations in the background end too: the signal stops their waiting for a plugin's pod.
    const result = await Promise.race([
      Promise.all([...this.workers, ...this.running.values()]).then(() => 'done' as const),
      grace,
    ])
    clearTimeout(timer)
    if (result === 'timeout')
      this.deps.log.info('Workers still busy at shutdown; leaving them', {graceMs, operations: this.running.size})
    await informers
    this.deps.log.info('Shutting down controller', {controller: 'persistentvolume-binder-controller'})
  }

  private scheduleResync(): void {
    this.repeat(
      this.opts.resyncMs,
      () => this.resync(),
      'Resync failed',
      (t) => (this.resyncTimer = t),
    )
  }

  private scheduleRelist(): void {
    this.repeat(
      this.opts.relistMs ?? 0,
      () => this.relist(),
      'Relist failed',
      (t) => (this.relistTimer = t),
    )
  }

  /** Runs `run` every `periodMs` after the last run ended (never when 0), until stop(). */
  private repeat(
    periodMs: number,
    run: () => Promise<void>,
    failed: string,
    keep: (timer: NodeJS.Timeout) => void,
  ): void {
    if (this.stopped || periodMs <= 0) return
    const timer = setTimeout(() => {
      void run()
        .catch((err: unknown) => this.deps.log.error(failed, {err}))
        .finally(() => this.repeat(periodMs, run, failed, keep))
    }, periodMs)
    timer.unref()
    keep(timer)
  }

  /**
   * The seed's resync(): every claim and volume the informers hold is queued (claimLister.List,
   * volumeLister.List), in the bulk lane, and synced on what the cache holds; nothing is listed. The
   * keys are added MERGE_SLICE at a time with a turn of the event loop between: 200k de-duplicated adds
   * in one stretch would hold the watches behind them.
   */
  async resync(): Promise<void> {
    if (this.stopped) return
    this.deps.log.v(4).info('Resyncing PV controller')
    // The binder check first: the pass's syncs ask writing().
    await this.opts.onResync?.()
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() sets it while this awaits
    if (this.stopped) return
    this.deps.metrics.resyncStarted.set(Date.now() / 1000)
    await this.queueAll(this.claimInformer.store, (_, key) => this.claimQueue.add(key, 'bulk'))
    await this.queueAll(this.volumeInformer.store, (v, name) => this.enqueueVolume(v, name, 'bulk'))
    this.deps.metrics.resyncQueued.set(Date.now() / 1000)
  }

  private async queueAll<T>(store: ReadonlyMap<string, T>, enqueue: (obj: T, key: string) => void): Promise<void> {
    let n = 0
    for (const [key, obj] of store) {
      if (this.stopped) return
      enqueue(obj, key)
      if (++n % MERGE_SLICE === 0) await yieldToEventLoop()
    }
  }

  /**
   * --relist-period: every informer lists again beside its watch (listBesideWatch: the watch goes on, the
   * list is merged by resourceVersion). The merge's handlers queue every object it holds (an unchanged one
   * in the bulk lane, laneOf), as DeltaFIFO.Replace hands a relist to the handlers: a change the watch
   * did not deliver is synced.
   */
  async relist(): Promise<void> {
    if (this.stopped) return
    this.deps.log.v(4).info('Listing every kind again', {relistPeriod: `${this.opts.relistMs}ms`})
    await Promise.all(this.informers.map((i) => i.listBesideWatch('relist-period')))
  }

  private async worker(queue: WorkQueue<SyncMemo>, process: (key: string) => Promise<void> | undefined): Promise<void> {
    for (;;) {
      let key = await queue.get()
      if (key === undefined) return
      // A slice of the event loop's time: keys one after the other for up to WORKER_SLICE_MS, then a
      // turn of the event loop. A sync that only plans awaits nothing, and the next key is at hand:
      // without the turn, a burst (the start-up's, a resync's: every object) would hold off the watches,
      // the lease's renewal and SIGTERM until both queues are empty; with a turn after every key, the
      // turns cost more than the syncs. An event added meanwhile is taken first (tryGet, as get).
      const sliceEnds = performance.now() + WORKER_SLICE_MS
      while (key !== undefined) {
        // A sync that only plans is done when it returns (most syncs of a pass): nothing to await.
        const pending = this.processKey(queue, process, key)
        if (pending !== undefined) await pending
        key = performance.now() < sliceEnds ? queue.tryGet() : undefined
      }
      await yieldToEventLoop()
    }
  }

  /** One key: done when this returns, or when the promise it returns settles (a sync that writes). */
  private processKey(
    queue: WorkQueue<SyncMemo>,
    process: (key: string) => Promise<void> | undefined,
    key: string,
  ): Promise<void> | undefined {
    let pending: Promise<void> | undefined
    try {
      pending = process(key)
    } catch (err) {
      this.syncFailed(queue, key, err)
    }
    if (pending === undefined) {
      queue.done(key)
      return undefined
    } else {
      return pending.then(
        () => queue.done(key),
        (err: unknown) => {
          this.syncFailed(queue, key, err)
          queue.done(key)
        },
      )
    }
  }

  private syncFailed(queue: WorkQueue<SyncMemo>, key: string, err: unknown): void {
    this.deps.log.error('Sync failed', {queue: queue.name, key, err})
    if (!this.stopped) queue.addRateLimited(key)
  }

  /** claimWorker's workFunc: undefined when done, else a promise (its sync writes). */
  private processClaim(key: string): Promise<void> | undefined {
    const claim = this.claimInformer.store.get(key)
    if (claim !== undefined) {
      // updateClaim
      if (!this.store(this.claims, key, claim)) return undefined
      this.operationFinishedIfBound(claim)
      const [namespace, name] = splitKey(key)
      return this.syncOne(refOfClaim(namespace, name), this.claimQueue, key, claim)
    }
    // deleteClaim: the claim left the informer.
    const cached = this.claims.get(key)
    if (cached === undefined) return undefined
    this.claims.delete(key)
    this.generation++
    this.operations.delete(`pvc/${key}`)
    this.claimQueue.drop(key)
    this.claimQueue.forget(key)
    this.deps.log.v(4).info('Claim deleted', {claim: key})
    const volumeName = cached.spec.volumeName ?? ''
    // Sync the volume now rather than at the next resync: it may be Released.
    if (volumeName !== '') this.volumeQueue.add(volumeName)
    return undefined
  }

  /** volumeWorker's workFunc: undefined when done, else a promise (its sync writes). */
  private processVolume(name: string): Promise<void> | undefined {
    const volume = this.volumeInformer.store.get(name)
    if (volume !== undefined) {
      if (!this.store(this.volumes, name, volume)) return undefined
      return this.syncOne(refOfVolume(name), this.volumeQueue, name, volume)
    }
    const cached = this.volumes.get(name)
    if (cached === undefined) return undefined
    this.volumes.delete(name)
    this.generation++
    this.volumeQueue.drop(name)
    this.volumeQueue.forget(name)
    this.deps.log.v(4).info('Volume deleted', {volume: name})
    this.operationFinished(`pv/${name}`)
    // Sync the claim now rather than at the next resync: it may be Lost.
    if (cached.spec.claimRef != null) this.claimQueue.add(claimRefKey(cached.spec.claimRef))
    return undefined
  }

  /**
   * One sync of one object (`cached`, as just stored in the controller's cache): planned (done when this
   * returns), or planned and written (done when the promise it returns settles).
   */
  private syncOne(
    ref: ObjectRef,
    queue: WorkQueue<SyncMemo>,
    key: string,
    cached: PersistentVolume | PersistentVolumeClaim,
  ): Promise<void> | undefined {
    if (this.opts.signal.aborted) return undefined
    const memo = queue.memo(key) ?? newMemo(queue, key)
    // A claim's queue key is its claim key.
    const state = stateForSync(
      this.sources,
      ref,
      this.opts.gates,
      cached,
      ref.kind === 'PersistentVolumeClaim' ? key : undefined,
    )
    this.syncs++
    const runningOperations = this.running.size === 0 ? NONE_RUNNING : new Set(this.running.keys())
    // The sync's plan: all there is to it when not writing; else the executor's first, which also says
    // whether the sync starts an operation.
    // The slice holds a handful of volumes, matched once: the literal scan builds no index to ask it.
    // Kept and replayed while the sync reads the same objects (kept-plans.ts): a resync's pass over what
    // has not changed asks the engine nothing.
    const writing = this.opts.writing()
    const planned = this.plans.plan(memo, state, runningOperations, writing, () =>
      reconcile(state, {
        gates: this.opts.gates,
        plugins: this.opts.plugins,
        targets: [ref],
        maxRounds: 1,
        runningOperations,
        matching: 'scan',
      }),
    )
    if (!writing) {
      this.deps.audit.plannedIn(memo, planned.actions)
      this.deps.metrics.synced(queue.name, 'planned')
      // Its fields only for a log that prints them: most syncs are below the verbosity.
      const level = planned.actions.length > 0 ? 2 : 4
      if (this.deps.log.enabled(level))
        this.deps.log.v(level).info('Synced (planned only)', {sync: refKey(ref), actions: planned.actions.length})
      queue.forget(key)
      return undefined
    }
    const sync = refKey(ref)
    const plugins = this.deps.plugins
    const operations = plugins === undefined ? [] : planned.operationsStarted
    if (operations.length > 0) {
      // scheduleOperation's goroutine: the sync that starts a plugin's operation (a pod that may run for
      // minutes) is carried out in the background, its operations running (the goroutinemap) until it ends.
      this.deps.log.v(2).info('Starting operation', {sync, operations: operations.join(',')})
      // operationTimestamps: volume_operation_total_seconds counts from now, not from when the pod is done.
      for (const a of planned.actions) this.noteOperationStart(a)
      const run = this.execute(ref, state, runningOperations, planned, plugins)
        .then((result) => this.finishSync(sync, memo, result, queue, key))
        .catch((err: unknown) => {
          this.deps.log.error('Operation failed', {sync, operations: operations.join(','), err})
          if (!this.opts.signal.aborted) queue.addRateLimited(key)
        })
        .finally(() => {
          for (const name of operations) this.running.delete(name)
        })
      for (const name of operations) this.running.set(name, run)
      return undefined
    }
    return this.execute(ref, state, runningOperations, planned).then((result) =>
      this.finishSync(sync, memo, result, queue, key),
    )
  }

  /** One sync written by the executor; with the volume plugins, their operations carried out to the end. */
  private execute(
    ref: ObjectRef,
    state: ClusterState,
    runningOperations: ReadonlySet<string>,
    firstPlan: ReconcileResult,
    plugins?: LoopPlugins,
  ): Promise<ExecuteResult> {
    return executeSync(this.deps.api, state, {
      firstPlan,
      gates: this.opts.gates,
      pluginMgr: this.opts.plugins,
      targets: [ref],
      maxRounds: 1,
      concurrency: 1,
      events: false,
      signal: this.opts.signal,
      runningOperations,
      budget: this.budget,
      // After a conflict: the re-read objects replace the cache's older ones (an object the informers do
      // not hold stays out), and the sync's slice is made again from it, as the seed's next sync of the
      // object would read it.
      restate: (reread) => {
        for (const obj of reread) if (this.isCached(obj)) this.cacheObject(obj)
        return stateForSync(this.sources, ref, this.opts.gates)
      },
      // Loop mode writes only with --yes: consent to what the controller does, reclaiming included.
      ...(plugins === undefined ? {} : {plugins: plugins.volumePlugins, workload: plugins.workload, destructive: true}),
    })
  }

  /** What follows a sync carried out: the cache, the audit stream, metrics, events, and the queue. */
  private async finishSync(
    sync: string,
    memo: SyncMemo,
    result: ExecuteResult,
    queue: WorkQueue<SyncMemo>,
    key: string,
  ): Promise<void> {
    // storeVolumeUpdate / storeClaimUpdate of what was written (and re-read on a conflict).
    for (const r of new Set(result.actions.map((a) => refKey(a.object)))) this.cacheFrom(result.state, r)
    this.deps.audit.executedIn(memo, result.actions)
    this.deps.metrics.executed(result.actions)
    this.noteOperations(result.actions, result.events)
    if (this.deps.events !== undefined) await this.recordEvents(result.events)
    const failed = result.failed || result.errors.length > 0
    for (const r of result.refusals) {
      // Logged and skipped, never carried out: the next sync of the object decides again on what it reads then.
      this.deps.log.error('Double-check stopped a destructive step', {
        sync,
        action: r.action,
        object: refKey(r.object),
        reason: r.reason,
      })
    }
    this.deps.metrics.synced(queue.name, failed ? 'error' : 'ok')
    const written = result.actions.filter((a) => a.outcome === 'written' || a.outcome === 'conflict-replanned').length
    this.deps.log.v(written > 0 || failed ? 2 : 4).info('Synced', {
      sync,
      writes: written,
      errors: result.errors.map((e) => e.message),
      failed: result.failed || undefined,
    })
    if (failed && !this.opts.signal.aborted) queue.addRateLimited(key)
    else queue.forget(key)
  }

  /** storeObjectUpdate into the controller's cache, counting a change (not the very object stored again). */
  private store<T extends PersistentVolume | PersistentVolumeClaim>(
    store: Map<string, T>,
    key: string,
    obj: T,
  ): boolean {
    const before = store.get(key)
    const stored = storeObjectUpdate(store, key, obj, before)
    const rv = obj.metadata.resourceVersion
    if (stored && before !== obj && (rv === undefined || rv === '' || before?.metadata.resourceVersion !== rv))
      this.generation++
    else {
      // Older than the cached one, the very object, or the same version of it (a relist): the same content.
    }
    return stored
  }

  private cacheFrom(state: ClusterState, ref: string): void {
    const obj = ref.startsWith('pv/')
      ? state.volumes.find((o) => o.metadata.name === ref.slice(3))
      : state.claims.find((o) => claimKey(o) === ref.slice(4))
    if (obj !== undefined) this.cacheObject(obj)
  }

  /** storeVolumeUpdate / storeClaimUpdate of an object read or written (never older than the cached one). */
  private cacheObject(obj: PersistentVolume | PersistentVolumeClaim): void {
    if (isVolume(obj)) {
      this.store(this.volumes, obj.metadata.name ?? '', obj)
    } else {
      const claim = obj
      this.store(this.claims, claimKey(claim), claim)
      this.operationFinishedIfBound(claim)
    }
  }

  private isCached(obj: PersistentVolume | PersistentVolumeClaim): boolean {
    return isVolume(obj) ? this.volumes.has(obj.metadata.name ?? '') : this.claims.has(claimKey(obj))
  }

  private async recordEvents(events: readonly PlannedEvent[]): Promise<void> {
    for (const e of events) {
      const obj =
        e.object.kind === 'PersistentVolume'
          ? this.volumes.get(e.object.name)
          : this.claims.get(`${e.object.namespace}/${e.object.name}`)
      try {
        await present(this.deps.events, 'events are recorded only with a recorder').record(e, {
          uid: obj?.metadata.uid,
          resourceVersion: obj?.metadata.resourceVersion,
        })
      } catch (err) {
        this.deps.log.v(2).info('Could not record event', {reason: e.reason, object: refKey(e.object), err})
      }
    }
  }

  /** operationTimestamps.AddIfNotExist and volume_operation_total_errors, from what a sync did. */
  private noteOperations(actions: readonly ExecutedAction[], events: readonly PlannedEvent[]): void {
    for (const a of actions) this.noteOperationStart(a)
    for (const e of events) {
      if (e.reason === 'ProvisioningFailed') this.deps.metrics.operationFailed(this.pluginOf(e.object), 'provision')
      else if (e.reason === 'VolumeFailedDelete') this.deps.metrics.operationFailed(this.pluginOf(e.object), 'delete')
    }
  }

  /** operationTimestamps.AddIfNotExist of a provisioning or a deletion an action starts. */
  private noteOperationStart(a: Action): void {
    const operation =
      a.action === 'provision' || a.action === 'set-provisioner'
        ? 'provision'
        : a.action === 'delete'
          ? 'delete'
          : undefined
    const key = refKey(a.object)
    if (operation !== undefined && !this.operations.has(key))
      this.operations.set(key, {plugin: this.pluginOf(a.object), operation, startedMs: this.now()})
  }

  private operationFinishedIfBound(claim: PersistentVolumeClaim): void {
    // Most syncs of a bound claim come while no provisioning is timed: no key is made for them.
    if (claim.status?.phase === 'Bound' && this.operations.size > 0) this.operationFinished(`pvc/${claimKey(claim)}`)
  }

  private operationFinished(key: string): void {
    const op = this.operations.get(key)
    if (op === undefined) return
    this.operations.delete(key)
    this.deps.metrics.operationSucceeded(op.plugin, op.operation, (this.now() - op.startedMs) / 1000)
  }

  /** The plugin named in metrics: the class's provisioner for a claim, provisioned-by for a volume. */
  private pluginOf(ref: ObjectRef): string {
    if (ref.kind === 'PersistentVolumeClaim') {
      const claim = this.claims.get(`${ref.namespace}/${ref.name}`)
      const klass = this.classInformer.store.get(claim?.spec.storageClassName ?? '')
      return klass?.provisioner || 'N/A'
    }
    const volume = this.volumes.get(ref.name)
    return volume?.metadata.annotations?.['pv.kubernetes.io/provisioned-by'] || 'N/A'
  }
}

/** Volumes are cluster-scoped, claims namespaced: what an object read back from the API server is. */
function isVolume(obj: PersistentVolume | PersistentVolumeClaim): obj is PersistentVolume {
  return (obj.metadata.namespace ?? '') === ''
}

/** The memo of a key being processed, made now (its first sync). */
function newMemo(queue: WorkQueue<SyncMemo>, key: string): SyncMemo {
  const memo: SyncMemo = {kept: undefined, printed: undefined}
  queue.setMemo(key, memo)
  return memo
}

function splitKey(key: string): [string, string] {
  const slash = key.indexOf('/')
  return [key.slice(0, slash), key.slice(slash + 1)]
}
