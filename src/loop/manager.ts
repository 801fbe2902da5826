// Loop mode's manager, as controller-runtime's Manager holds a controller's machinery together: it starts
// the operability endpoints, waits for leadership, checks the permissions and the built-in binder, runs
// the loop, and takes it all down again on a signal:
//
//   1. the operability endpoints (/metrics, /healthz, /readyz) when --metrics-bind-address is set
//   2. with --leader-elect: wait for the Lease; keep renewing it; writes are fenced by it; losing it ends
//      the process (exit 3), as kube-controller-manager exits, for its Deployment to restart it
//   3. the built-in binder check (builtin-binder.ts), at start and at every resync: audit or write
//   4. the permission check: what is missing is named before anything starts
//   5. the loop: informers and workers (--watch), or a full sync every interval (--interval)
//   6. on SIGTERM/SIGINT: stop issuing writes, let the syncs in flight end (at most 1 s), stop the
//      watches, release the Lease, close the endpoints — well within the 2 s a Pod is usually given
import {hostname} from 'node:os'
import {randomUUID} from 'node:crypto'

import type {ClusterApi, LeaseApi, WatchApi} from '../cluster/live-api.js'
import type {WorkloadApi} from '../cluster/workload-api.js'
import type {Logger} from '../log.js'
import {present} from '../engine/api/invariant.js'
import {Events} from '../engine/api/constants.js'
import type {FeatureGates} from '../engine/api/feature-gates.js'
import type {Pod} from '../engine/api/model.js'
import {defaultVolumePluginMgr} from '../engine/controller/volume-plugins.js'
import {refOfVolume} from '../engine/simulation/plan.js'
import {ExitCode} from '../errors.js'
import {requirePermissions} from '../executor/permissions.js'
import {LiveVolumePlugins} from '../volume-plugins/live-plugins.js'
import {AuditStream} from './audit-stream.js'
import {type BinderCheck, builtinBinderEnabled, checkBuiltinBinder} from './builtin-binder.js'
import {EventSink} from './client-go/event-sink.js'
import {fenceWrites} from './client-go/fenced-api.js'
import {LeaderElector} from './client-go/leader-election.js'
import {type MetricsServer, parseBindAddress, startMetricsServer} from './client-go/metrics-server.js'
import {IntervalLoop} from './interval-loop.js'
import type {LoopManagerOptions} from './loop-options.js'
import {LoopMetrics} from './loop-metrics.js'
import {loopPermissions} from './permissions.js'
import {type LoopPlugins, PersistentVolumeLoop} from './pv-loop.js'

/** The clients of the cluster the manager runs against, as the use-case opened them. */
export interface LoopClients {
  /** Reads and writes (throttled); the manager fences the writes. */
  api: ClusterApi
  /** The volume plugins' pods and PV objects; fenced likewise. */
  workload: WorkloadApi
  watchApi: WatchApi
  /** Leader election and the binder check. */
  leaseApi: LeaseApi
  server: string
  contextName: string
}

export interface LoopManagerDeps {
  clients: LoopClients
  /** The release the loop decides as. */
  gates: FeatureGates
  log: Logger
  /** The audit stream (stdout). */
  out(text: string): void
  /** --recycler-pod-template, read. */
  recyclerTemplate?: Pod
}

type Role = 'starting' | 'standby' | 'running'

export class LoopManager {
  private readonly metrics: LoopMetrics
  /** Aborted on the caller's signal, on a lost lease, and when the loop ends. */
  private readonly stop = new AbortController()
  private readonly elector?: LeaderElector
  /** Batched: a pass prints a line for most objects; flushed when the loop ends. */
  private readonly audit: AuditStream
  /** The API as the loop writes to it: every write fenced by writeRefusal. */
  private readonly api: ClusterApi
  private binder: BinderCheck = {write: false, reason: 'not checked yet'}
  private role: Role = 'starting'
  private loop?: PersistentVolumeLoop | IntervalLoop
  private server?: MetricsServer
  private lost = false
  private exitCode: number = ExitCode.Ok

  /** `opts` are validated (validateLoopOptions). */
  constructor(
    private readonly opts: LoopManagerOptions,
    private readonly deps: LoopManagerDeps,
  ) {
    this.metrics = new LoopMetrics(deps.gates)
    this.elector = this.makeElector()
    if (this.elector !== undefined) this.metrics.leader.set(0, {name: this.elector.config.name})
    this.audit = new AuditStream(opts.output, (text) => deps.out(text), undefined, true)
    this.api = fenceWrites(deps.clients.api, this.writeRefusal)
  }

  /** Runs the loop until `signal` (or a lost lease); the exit code. */
  async start(signal: AbortSignal): Promise<number> {
    const stopping = () => this.stop.abort()
    signal.addEventListener('abort', stopping, {once: true})
    if (signal.aborted) this.stop.abort()
    this.server = await this.serveEndpoints()
    try {
      if (!(await this.lead())) return ExitCode.Ok
      this.role = 'running'
      await requirePermissions(this.deps.clients.api, this.permissions(), 'grant them (see deploy/rbac.yaml)')
      await this.checkBinder()
      await this.runLoop()
    } catch (err) {
      this.exitCode = -1 // reported by the caller's error presenter
      throw err
    } finally {
      signal.removeEventListener('abort', stopping)
      await this.shutdown()
    }
    return this.exitCode
  }

  /** Why this process may not write now, or undefined when it may. */
  private readonly writeRefusal = (): string | undefined => {
    if (this.opts.dryRun) return '--dry-run'
    if (this.stop.signal.aborted) return 'shutting down'
    if (this.elector !== undefined && !this.elector.mayWrite())
      return `not the leader of ${this.elector.lockName} (or its renewal is overdue)`
    if (!this.binder.write) return 'another binder may be running'
    return undefined
  }

  private readonly writing = (): boolean => this.writeRefusal() === undefined

  private makeElector(): LeaderElector | undefined {
    const leaderElect = this.opts.leaderElect
    if (leaderElect === undefined) return undefined
    const leader = this.metrics.leader
    return new LeaderElector(
      {...leaderElect, identity: leaderElect.identity ?? `${hostname()}_${randomUUID()}`},
      this.deps.clients.leaseApi,
      this.deps.log,
      {
        onStartedLeading: () => leader.set(1, {name: leaderElect.name}),
        onStoppedLeading: () => leader.set(0, {name: leaderElect.name}),
      },
    )
  }

  private async serveEndpoints(): Promise<MetricsServer | undefined> {
    if (parseBindAddress(this.opts.metricsBindAddress) === undefined) return undefined
    const server = await startMetricsServer({
      address: this.opts.metricsBindAddress,
      metrics: () => {
        this.metrics.writing.set(this.writing() ? 1 : 0)
        return this.metrics.render()
      },
      healthz: () => (this.lost ? 'leader election lost' : undefined),
      readyz: () =>
        this.role === 'standby'
          ? undefined
          : this.role === 'running' && this.loop?.hasSynced
            ? undefined
            : 'caches not synced',
    })
    this.deps.log.info('Serving metrics and health checks', {
      address: server.address,
      paths: '/metrics /healthz /readyz',
    })
    return server
  }

  /** With --leader-elect: waits for the Lease and keeps renewing it. False when stopped before leading. */
  private async lead(): Promise<boolean> {
    const elector = this.elector
    if (elector === undefined) return true
    this.role = 'standby'
    if (!(await elector.acquire(this.stop.signal))) return false
    void elector.renewLoop(this.stop.signal).then((r) => {
      if (r === 'lost') {
        this.lost = true
        this.exitCode = ExitCode.Cluster
        this.stop.abort()
      }
    })
    return true
  }

  private permissions() {
    return loopPermissions({
      dryRun: this.opts.dryRun,
      events: this.opts.events,
      recyclerNamespace: this.deps.recyclerTemplate?.metadata.namespace ?? 'default',
      namespace: this.opts.namespace,
      lease:
        this.elector !== undefined
          ? {namespace: this.elector.config.namespace, name: this.elector.config.name}
          : undefined,
      readsKcmLease: !this.opts.dryRun && builtinBinderEnabled(this.opts.controllers),
    })
  }

  /** Whether kube-controller-manager's binder runs: at start and at every resync; logged when it changes. */
  private readonly checkBinder = async (): Promise<void> => {
    if (this.opts.dryRun) return
    const before = this.binder
    this.binder = await checkBuiltinBinder(this.deps.clients.leaseApi, this.opts.controllers, new Date())
    if (before.write !== this.binder.write || before.reason === 'not checked yet') {
      if (this.binder.write) this.deps.log.info('Writing as the PersistentVolume binder', {reason: this.binder.reason})
      else this.deps.log.info('Not writing: running as an audit stream', {reason: this.binder.reason})
    }
  }

  private async runLoop(): Promise<void> {
    const {opts, deps} = this
    const plugins = defaultVolumePluginMgr(opts)
    const events = opts.events && !opts.dryRun ? new EventSink(this.api) : undefined
    const volumePlugins = opts.dryRun ? undefined : this.liveVolumePlugins(events)
    deps.log.info(opts.dryRun ? 'Dry run: planning only, nothing is written' : 'Starting', {
      mode: opts.mode,
      server: deps.clients.server,
      context: deps.clients.contextName,
    })
    // What both loops take: the engine's settings, the scope, and whether and until when they may write.
    const common = {
      gates: deps.gates,
      plugins,
      namespace: opts.namespace,
      labelSelector: opts.labelSelector,
      labelSelectorText: opts.labelSelectorText,
      chunkSize: opts.chunkSize,
      writing: this.writing,
      signal: this.stop.signal,
      allowMassRelease: opts.allowMassRelease,
    }
    const loopDeps = {
      api: this.api,
      log: deps.log,
      metrics: this.metrics,
      audit: this.audit,
      events,
      plugins: volumePlugins,
    }
    if (opts.mode === 'watch')
      await this.watch(
        new PersistentVolumeLoop(
          {...common, resyncMs: opts.resyncMs, relistMs: opts.relistMs, onResync: this.checkBinder},
          {...loopDeps, watchApi: deps.clients.watchApi},
        ),
      )
    else
      await this.everyInterval(
        new IntervalLoop(
          {
            ...common,
            intervalMs: present(opts.intervalMs, 'loop options of the interval mode have its interval'),
            concurrency: opts.concurrency,
            beforeSync: this.checkBinder,
          },
          loopDeps,
        ),
      )
  }

  /** The volume plugins' pods and PV objects are writes like any other: fenced by leadership. */
  private liveVolumePlugins(events: EventSink | undefined): LoopPlugins {
    const log = this.deps.log
    const workload = fenceWrites(this.deps.clients.workload, this.writeRefusal)
    return {
      workload,
      volumePlugins: new LiveVolumePlugins(workload, {
        recyclerTemplate: this.deps.recyclerTemplate,
        // The recycler pod's events, relayed on the volume as the controller's recycler event recorder does.
        onPodEvent: (volume, e) => {
          const name = volume.metadata.name ?? ''
          void events
            ?.record(
              {
                object: refOfVolume(name),
                type: e.type === 'Warning' ? 'Warning' : 'Normal',
                reason: Events.RecyclerPod,
                message: `Recycler pod: ${e.message}`,
                count: 1,
                sync: `pv/${name}`,
              },
              {uid: volume.metadata.uid, resourceVersion: volume.metadata.resourceVersion},
            )
            .catch((err: unknown) =>
              log.v(2).info('Could not record event', {reason: Events.RecyclerPod, object: `pv/${name}`, err}),
            )
        },
      }),
    }
  }

  /** --watch: informers and workers until stopped; the syncs in flight get 1 s to end. */
  private async watch(loop: PersistentVolumeLoop): Promise<void> {
    this.loop = loop
    try {
      await startOrStop(loop.start(), this.stop.signal)
      if (!this.stop.signal.aborted)
        await new Promise<void>((resolve) => this.stop.signal.addEventListener('abort', () => resolve(), {once: true}))
    } finally {
      this.stop.abort()
      await loop.stop(1000)
    }
  }

  /** --interval: a full one-shot sync every interval until stopped. */
  private async everyInterval(loop: IntervalLoop): Promise<void> {
    this.loop = loop
    await loop.run()
  }

  private async shutdown(): Promise<void> {
    this.stop.abort()
    this.audit.flush()
    if (this.elector !== undefined && !this.lost) await this.elector.release()
    await this.server?.close()
    if (this.exitCode >= 0) this.deps.log.info('Stopped', {exitCode: this.exitCode})
  }
}

/** Waits for start-up, unless a signal comes first (then the start-up is left to fail or finish). */
async function startOrStop(started: Promise<void>, signal: AbortSignal): Promise<void> {
  // Should the signal win, a failure of the start-up that follows is the shutdown's, not news.
  started.catch(() => {})
  if (signal.aborted) return
  let onAbort: () => void = () => {}
  const aborted = new Promise<void>((resolve) => {
    onAbort = () => resolve()
    signal.addEventListener('abort', onAbort, {once: true})
  })
  try {
    await Promise.race([started, aborted])
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}
