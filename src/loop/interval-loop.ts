// `pvctl sync --interval DURATION`: the simpler loop. Every interval, a full one-shot sync — load the
// cluster (paginated LISTs), plan every claim and volume in scope until stable, and write the plan with
// the executor — then sleep. No informers and no queues: simpler, and heavier on the API server than
// --watch, which reacts to each change and lists only at its resync.
import type {ClusterApi} from '../cluster/live-api.js'
import {loadLiveState} from '../cluster/live-loader.js'
import type {Logger} from '../log.js'
import type {FeatureGates} from '../engine/api/feature-gates.js'
import type {VolumePluginMgr} from '../engine/controller/volume-plugins.js'
import {claimKey, type LabelSelector, type PersistentVolume, type PersistentVolumeClaim} from '../engine/api/model.js'
import {type Action, refKey} from '../engine/simulation/plan.js'
import {DEFAULT_MAX_ROUNDS, reconcile} from '../engine/simulation/reconcile.js'
import {countBoundVolumes, ReleaseBudget} from '../executor/destruction-guard.js'
import {executeSync, type ExecutedAction} from '../executor/executor.js'
import type {AuditStream} from './audit-stream.js'
import type {LoopMetrics} from './loop-metrics.js'
import type {EventSink} from './client-go/event-sink.js'
import type {LoopPlugins} from './pv-loop.js'
import {abortableSleep} from '../cluster/abortable-sleep.js'

export interface IntervalLoopOptions {
  gates: FeatureGates
  /** The controller's volume plugins as configured (--enable-hostpath-provisioner, --local-volume-deleter). */
  plugins?: VolumePluginMgr
  namespace?: string
  labelSelectorText?: string
  labelSelector?: LabelSelector
  intervalMs: number
  /** --chunk-size: objects per LIST page (0: one request). */
  chunkSize?: number
  concurrency: number
  writing: () => boolean
  signal: AbortSignal
  /** Before each sync (the binder check is repeated there). */
  beforeSync?: () => Promise<void>
  /** --allow-mass-release: no bound on the volumes one pass releases. */
  allowMassRelease?: boolean
}

export interface IntervalLoopDeps {
  api: ClusterApi
  log: Logger
  metrics: LoopMetrics
  audit: AuditStream
  events?: EventSink
  /** The volume plugins carried out when writing (a full pass waits for them, as one-shot sync does). */
  plugins?: LoopPlugins
}

function bySync<A extends Action>(actions: readonly A[]): Map<string, A[]> {
  const out = new Map<string, A[]>()
  for (const a of actions) {
    const list = out.get(a.sync)
    if (list === undefined) out.set(a.sync, [a])
    else list.push(a)
  }
  return out
}

export class IntervalLoop {
  readonly volumes = new Map<string, PersistentVolume>()
  readonly claims = new Map<string, PersistentVolumeClaim>()
  readonly claimQueue = {depth: 0, name: 'claims'}
  readonly volumeQueue = {depth: 0, name: 'volumes'}
  private previousSyncs = new Set<string>()
  hasSynced = false
  ticks = 0

  constructor(
    private readonly opts: IntervalLoopOptions,
    private readonly deps: IntervalLoopDeps,
  ) {
    deps.metrics.collect(this)
  }

  async run(): Promise<void> {
    const {log} = this.deps
    log.info('Starting periodic sync', {interval: `${this.opts.intervalMs}ms`})
    while (!this.opts.signal.aborted) {
      try {
        await this.tick()
      } catch (err) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the signal aborts while this awaits
        if (this.opts.signal.aborted) break
        log.error('Periodic sync failed; trying again at the next interval', {err})
      }
      await abortableSleep(this.opts.intervalMs, this.opts.signal)
    }
  }

  async tick(): Promise<void> {
    const {log, audit, metrics} = this.deps
    const state = await loadLiveState(this.deps.api, {
      namespace: this.opts.namespace,
      labelSelector: this.opts.labelSelectorText,
      chunkSize: this.opts.chunkSize,
    })
    this.volumes.clear()
    this.claims.clear()
    for (const v of state.volumes) this.volumes.set(v.metadata.name ?? '', v)
    for (const c of state.claims) this.claims.set(claimKey(c), c)
    this.hasSynced = true
    this.ticks++
    if (this.opts.signal.aborted) return
    await this.opts.beforeSync?.()
    const scope = {namespace: this.opts.namespace, labelSelector: this.opts.labelSelector}
    let syncs: Map<string, Action[]>
    if (!this.opts.writing()) {
      const plan = reconcile(state, {
        gates: this.opts.gates,
        plugins: this.opts.plugins,
        scope,
        maxRounds: DEFAULT_MAX_ROUNDS,
      })
      syncs = bySync(plan.actions)
      for (const [sync, actions] of syncs) audit.planned(sync, actions)
      log.v(2).info('Periodic sync planned', {actions: plan.actions.length, converged: plan.converged})
    } else {
      const result = await executeSync(this.deps.api, state, {
        gates: this.opts.gates,
        pluginMgr: this.opts.plugins,
        scope,
        maxRounds: DEFAULT_MAX_ROUNDS,
        concurrency: this.opts.concurrency,
        events: false,
        signal: this.opts.signal,
        // Each pass is a one-shot sync: its bound is the one-shot's, counted over the pass.
        budget: new ReleaseBudget({
          boundVolumes: () => countBoundVolumes(state.volumes),
          unlimited: this.opts.allowMassRelease,
        }),
        ...(this.deps.plugins === undefined
          ? {}
          : {plugins: this.deps.plugins.volumePlugins, workload: this.deps.plugins.workload, destructive: true}),
      })
      const executed = bySync<ExecutedAction>(result.actions)
      syncs = executed
      for (const [sync, actions] of executed) audit.executed(sync, actions)
      metrics.executed(result.actions)
      for (const v of result.state.volumes) this.volumes.set(v.metadata.name ?? '', v)
      for (const c of result.state.claims) this.claims.set(claimKey(c), c)
      if (this.deps.events !== undefined) {
        for (const e of result.events) {
          const obj =
            e.object.kind === 'PersistentVolume'
              ? this.volumes.get(e.object.name)
              : this.claims.get(`${e.object.namespace}/${e.object.name}`)
          await this.deps.events
            .record(e, {uid: obj?.metadata.uid, resourceVersion: obj?.metadata.resourceVersion})
            .catch((err: unknown) => log.v(2).info('Could not record event', {reason: e.reason, err}))
        }
      }
      for (const r of result.refusals) {
        log.error('Double-check stopped a destructive step', {
          action: r.action,
          object: refKey(r.object),
          reason: r.reason,
        })
      }
      const written = result.actions.filter((a) => a.outcome === 'written' || a.outcome === 'conflict-replanned').length
      log.info('Periodic sync done', {writes: written, failed: result.failed || undefined, converged: result.converged})
    }
    for (const sync of this.previousSyncs) if (!syncs.has(sync)) audit.forget(sync)
    this.previousSyncs = new Set(syncs.keys())
  }
}
