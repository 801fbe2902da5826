// `pvctl sync --watch` and `pvctl sync --interval`: the long-running use-case. It wires the loop together
// and runs it until a signal:
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

import type {Logger} from '../cli/log.js'
import {defaultVolumePluginMgr, type VolumePluginOptions} from '../engine/controller/volume-plugins.js'
import type {LabelSelector} from '../engine/api/model.js'
import {ExitCode, UsageError} from '../errors.js'
import {AuditStream} from '../loop/audit-stream.js'
import {checkBuiltinBinder, builtinBinderEnabled, type BinderCheck} from '../loop/builtin-binder.js'
import {LoopMetrics} from '../loop/loop-metrics.js'
import {EventSink} from '../loop/client-go/event-sink.js'
import {fenceWrites} from '../loop/client-go/fenced-api.js'
import {IntervalLoop} from '../loop/interval-loop.js'
import {LeaderElector, validateLeaderElection} from '../loop/client-go/leader-election.js'
import {type MetricsServer, parseBindAddress, startMetricsServer} from '../loop/client-go/metrics-server.js'
import {loopPermissions} from '../loop/permissions.js'
import {PersistentVolumeLoop} from '../loop/pv-loop.js'
import {requirePermissions} from '../executor/permissions.js'
import {decideLiveVersion, type EngineRequest} from './load-cluster-state.js'
import {describeSource} from '../engine/api/kube-version.js'
import {openLoopSession} from './loop-session.js'
import {loadRecyclerPodTemplate} from './recycler-template.js'
import {Events} from '../engine/api/constants.js'
import {refOfVolume} from '../engine/simulation/plan.js'
import {LiveVolumePlugins} from '../volume-plugins/live-plugins.js'

export interface LeaderElectOptions {
  namespace: string
  name: string
  leaseDurationMs: number
  renewDeadlineMs: number
  retryPeriodMs: number
  /** Default: "<hostname>_<uuid>", as kube-controller-manager. */
  identity?: string
}

/** The plugin options (--enable-hostpath-provisioner, --local-volume-deleter) as one-shot sync takes them. */
export interface RunLoopOptions extends VolumePluginOptions {
  /** --watch (informers) or --interval (a full sync every intervalMs). */
  mode: 'watch' | 'interval'
  intervalMs?: number
  resyncMs: number
  /** --relist-period: every kind listed again this often beside the watches (0 or undefined: only when a watch asks). */
  relistMs?: number
  dryRun: boolean
  yes: boolean
  /** --allow-mass-release: the loop releases however many volumes its syncs find released. */
  allowMassRelease?: boolean
  /** --kube-version and --feature-gates; without --kube-version the API server's /version decides. */
  engine?: EngineRequest
  namespace?: string
  labelSelector?: LabelSelector
  labelSelectorText?: string
  kubeconfig?: string
  context?: string
  qps: number
  burst: number
  requestTimeoutMs?: number
  /** --chunk-size: objects per LIST page (0: one request). */
  chunkSize?: number
  concurrency: number
  events: boolean
  output: 'text' | 'json'
  leaderElect?: LeaderElectOptions
  /** kube-controller-manager's --controllers, to say its binder is disabled. */
  controllers: string[]
  /** --recycler-pod-template: a file holding one Pod. */
  recyclerPodTemplate?: string
  metricsBindAddress: string
}

export interface LoopUi {
  /** The audit stream (stdout). */
  out(text: string): void
  /** Structured logs (stderr). */
  log: Logger
  /** Aborted on SIGTERM / SIGINT. */
  signal: AbortSignal
}

/** The checks that need no cluster: a usage error is exit 2 before anything starts. */
export function validateLoopOptions(opts: RunLoopOptions): void {
  if (!opts.dryRun && !opts.yes) {
    throw new UsageError('loop mode writes to the cluster for as long as it runs: pass --yes to consent, or --dry-run for an audit stream')
  }
  if (opts.resyncMs <= 0) throw new UsageError('--resync must be longer than 0')
  if (opts.mode === 'interval' && !(opts.intervalMs !== undefined && opts.intervalMs > 0)) throw new UsageError('--interval must be longer than 0')
  if (opts.leaderElect !== undefined) validateLeaderElection(opts.leaderElect)
  builtinBinderEnabled(opts.controllers)
  parseBindAddress(opts.metricsBindAddress)
}

export async function runLoop(opts: RunLoopOptions, ui: LoopUi): Promise<number> {
  validateLoopOptions(opts)
  const recyclerTemplate = opts.recyclerPodTemplate === undefined ? undefined : await loadRecyclerPodTemplate(opts.recyclerPodTemplate)
  const log = ui.log
  const session = openLoopSession({
    kubeconfig: opts.kubeconfig,
    context: opts.context,
    qps: opts.qps,
    burst: opts.burst,
    requestTimeoutMs: opts.requestTimeoutMs,
    leaseTimeoutMs: opts.leaderElect !== undefined ? Math.max(500, Math.floor(opts.leaderElect.renewDeadlineMs / 2)) : 5000,
  })
  const {version, gates} = await decideLiveVersion(() => session.serverVersion(), [], opts.engine, {notice: (line) => log.info(line)})
  log.info(`Deciding as Kubernetes ${version.version}`, {source: describeSource(version)})
  const metrics = new LoopMetrics(gates)
  const stop = new AbortController()
  const stopping = () => stop.abort()
  ui.signal.addEventListener('abort', stopping, {once: true})
  if (ui.signal.aborted) stop.abort()

  const elector =
    opts.leaderElect === undefined
      ? undefined
      : new LeaderElector(
          {...opts.leaderElect, identity: opts.leaderElect.identity ?? `${hostname()}_${randomUUID()}`},
          session.leaseApi,
          log,
          {onStartedLeading: () => metrics.leader.set(1, {name: opts.leaderElect!.name}), onStoppedLeading: () => metrics.leader.set(0, {name: opts.leaderElect!.name})},
        )
  if (elector !== undefined) metrics.leader.set(0, {name: elector.config.name})

  let binder: BinderCheck = {write: false, reason: 'not checked yet'}
  let role: 'starting' | 'standby' | 'running' = 'starting'
  let loop: PersistentVolumeLoop | IntervalLoop | undefined
  // Batched: a pass prints a line for most objects; flushed when the loop ends.
  const audit = new AuditStream(opts.output, ui.out, undefined, true)
  let lost = false

  const writeRefusal = (): string | undefined => {
    if (opts.dryRun) return '--dry-run'
    if (stop.signal.aborted) return 'shutting down'
    if (elector !== undefined && !elector.mayWrite()) return `not the leader of ${elector.lockName} (or its renewal is overdue)`
    if (!binder.write) return 'another binder may be running'
    return undefined
  }
  const writing = () => writeRefusal() === undefined
  const api = fenceWrites(session.api, writeRefusal)

  let server: MetricsServer | undefined
  if (parseBindAddress(opts.metricsBindAddress) !== undefined) {
    server = await startMetricsServer({
      address: opts.metricsBindAddress,
      metrics: () => {
        metrics.writing.set(writing() ? 1 : 0)
        return metrics.render()
      },
      healthz: () => (lost ? 'leader election lost' : undefined),
      readyz: () => (role === 'standby' ? undefined : role === 'running' && loop?.hasSynced ? undefined : 'caches not synced'),
    })
    log.info('Serving metrics and health checks', {address: server.address, paths: '/metrics /healthz /readyz'})
  }

  const checkBinder = async (): Promise<void> => {
    if (opts.dryRun) return
    const before = binder
    binder = await checkBuiltinBinder(session.leaseApi, opts.controllers, new Date())
    if (before.write !== binder.write || before.reason === 'not checked yet') {
      if (binder.write) log.info('Writing as the PersistentVolume binder', {reason: binder.reason})
      else log.info('Not writing: running as an audit stream', {reason: binder.reason})
    }
  }

  let exitCode: number = ExitCode.Ok
  try {
    if (elector !== undefined) {
      role = 'standby'
      if (!(await elector.acquire(stop.signal))) return ExitCode.Ok
      void elector.renewLoop(stop.signal).then((r) => {
        if (r === 'lost') {
          lost = true
          exitCode = ExitCode.Cluster
          stop.abort()
        }
      })
    }
    role = 'running'

    const wanted = loopPermissions({
      dryRun: opts.dryRun,
      events: opts.events,
      recyclerNamespace: recyclerTemplate?.metadata.namespace ?? 'default',
      namespace: opts.namespace,
      lease: elector !== undefined ? {namespace: elector.config.namespace, name: elector.config.name} : undefined,
      readsKcmLease: !opts.dryRun && builtinBinderEnabled(opts.controllers),
    })
    await requirePermissions(session.api, wanted, 'grant them (see deploy/rbac.yaml)')
    await checkBinder()

    const plugins = defaultVolumePluginMgr(opts)
    const events = opts.events && !opts.dryRun ? new EventSink(api) : undefined
    // The volume plugins' pods and PV objects are writes like any other: fenced by leadership.
    const workload = fenceWrites(session.workload, writeRefusal)
    const volumePlugins = opts.dryRun
      ? undefined
      : {
          workload,
          volumePlugins: new LiveVolumePlugins(workload, {
            recyclerTemplate,
            // The recycler pod's events, relayed on the volume as the controller's recycler event recorder does.
            onPodEvent: (volume, e) => {
              const name = volume.metadata.name ?? ''
              void events?.record(
                {object: refOfVolume(name), type: e.type === 'Warning' ? 'Warning' : 'Normal', reason: Events.RecyclerPod, message: `Recycler pod: ${e.message}`, count: 1, sync: `pv/${name}`},
                {uid: volume.metadata.uid, resourceVersion: volume.metadata.resourceVersion},
              ).catch((err: unknown) => log.v(2).info('Could not record event', {reason: Events.RecyclerPod, object: `pv/${name}`, err}))
            },
          }),
        }
    log.info(opts.dryRun ? 'Dry run: planning only, nothing is written' : 'Starting', {mode: opts.mode, server: session.server, context: session.contextName})
    if (opts.mode === 'watch') {
      const watchLoop = new PersistentVolumeLoop(
        {
          gates,
          plugins,
          namespace: opts.namespace,
          labelSelector: opts.labelSelector,
          labelSelectorText: opts.labelSelectorText,
          resyncMs: opts.resyncMs,
          relistMs: opts.relistMs,
          chunkSize: opts.chunkSize,
          writing,
          signal: stop.signal,
          onResync: checkBinder,
          allowMassRelease: opts.allowMassRelease,
        },
        {api, watchApi: session.watchApi, log, metrics, audit, events, plugins: volumePlugins},
      )
      loop = watchLoop
      try {
        await startOrStop(watchLoop.start(), stop.signal)
        if (!stop.signal.aborted) await new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), {once: true}))
      } finally {
        stop.abort()
        await watchLoop.stop(1000)
      }
    } else {
      const intervalLoop = new IntervalLoop(
        {
          gates,
          plugins,
          namespace: opts.namespace,
          labelSelector: opts.labelSelector,
          labelSelectorText: opts.labelSelectorText,
          intervalMs: opts.intervalMs!,
          chunkSize: opts.chunkSize,
          concurrency: opts.concurrency,
          writing,
          signal: stop.signal,
          beforeSync: checkBinder,
          allowMassRelease: opts.allowMassRelease,
        },
        {api, log, metrics, audit, events, plugins: volumePlugins},
      )
      loop = intervalLoop
      await intervalLoop.run()
    }
  } catch (err) {
    exitCode = -1 // reported by the caller's error presenter
    throw err
  } finally {
    ui.signal.removeEventListener('abort', stopping)
    stop.abort()
    audit.flush()
    if (elector !== undefined && !lost) await elector.release()
    await server?.close()
    if (exitCode >= 0) log.info('Stopped', {exitCode})
  }
  return exitCode
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
