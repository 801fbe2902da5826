// The live half of `pvctl sync`: plan on the loaded state, then (after consent and a permission
// check) write it with the executor, and report what became of every write.
import type {ClusterApi, LeaseApi} from '../cluster/live-api.js'
import type {ClusterState} from '../engine/api/model.js'
import {ExitCode, UsageError} from '../errors.js'
import type {WorkloadApi} from '../cluster/workload-api.js'
import type {Pod} from '../engine/api/model.js'
import {type ObjectRef, type PlannedEvent, refKey} from '../engine/simulation/plan.js'
import type {VolumeOperations} from '../engine/controller/volume-operations.js'
import {defaultVolumePluginMgr} from '../engine/controller/volume-plugins.js'
import {BINDER_CONTROLLER, builtinBinderState, KCM_LEASE_KEY} from '../loop/builtin-binder.js'
import {countBoundVolumes, massReleaseOf, ReleaseBudget, volumesDestroyedBy} from '../executor/destruction-guard.js'
import {type ExecutedAction, type ExecuteResult, executeSync} from '../executor/executor.js'
import {LiveVolumePlugins} from '../volume-plugins/live-plugins.js'
import type {PodWait} from '../volume-plugins/pod-runner.js'
import {permissionsFor, requirePermissions} from '../executor/permissions.js'
import {type SyncOptions, planSync, hasChanges, summarize} from '../engine/simulation/plan-sync.js'
import type {SyncReport} from '../engine/simulation/sync-report.js'
import {asked} from './request-errors.js'

export interface ApplyOptions extends SyncOptions {
  concurrency: number
  events: boolean
  /** Pods and PV objects for the volume plugins; without it recycle/delete/provision stay planned. */
  workload?: WorkloadApi
  recyclerTemplate?: Pod
  /** Asks the user `question` (typing a confirmation when `destructive`); undefined when no one can be asked. */
  confirm?: (question: string, destructive: boolean) => Promise<boolean>
  /** Where the question is asked: "context NAME". */
  target?: string
  /** A plugin's pod is being waited for: what, its phase, how long so far and the deadline. */
  onWaiting?: (w: PodWait) => void
  yes: boolean
  /** --allow-mass-release: no bound on how many volumes one run releases, recycles or deletes. */
  allowMassRelease?: boolean
  /** kube-controller-manager's Lease is read with it, and --controllers says whether its binder is disabled. */
  leases?: Pick<LeaseApi, 'readLease'>
  controllers?: readonly string[]
  /** Said before consent is asked (kube-controller-manager runs beside pvctl). */
  notice?: (line: string) => void
  /**
   * The writes begin (consent given, permissions checked): from now on an interrupt aborts the signal
   * returned, and the run stops issuing writes and reports. Without it, nothing interrupts the writes.
   */
  writing?: () => Promise<AbortSignal | undefined>
  onProgress?: (done: number, known: number) => void
}

export interface ApplyResult {
  report: SyncReport
  exitCode: number
  /** A line for stderr when the run ended early or partly. */
  notice?: string
  /** The plan was shown and not confirmed: nothing was written, and the report is that plan. */
  declined?: boolean
}

const OPERATIONS = new Set(['recycle', 'delete', 'provision'])

/** The plugins succeed: what the controller then writes, for telling the user before it starts. */
const SUCCEEDING: VolumeOperations = {
  recycle: () => undefined,
  delete: () => ({}),
  // A provisioned volume's writes depend on the volume the plugin returns: not predicted.
  provision: () => ({provisionError: 'not predicted'}),
}

/**
 * The question consent is asked with: how many writes, which operations on which volumes, and the writes
 * that follow the operations once they succeed, so that the final count can be held to it.
 */
export function consentQuestion(plan: SyncReport, predicted: SyncReport, target: string): string {
  const writes = plan.actions.filter((a) => !OPERATIONS.has(a.action)).length
  const ops = plan.actions.filter((a) => OPERATIONS.has(a.action))
  const followUps = predicted.actions.filter((a) => !OPERATIONS.has(a.action)).length - writes
  const what = ops.map(
    (a) =>
      `${a.action} ${refKey(a.object)}${a.action === 'recycle' ? ' (scrubs its data)' : a.action === 'delete' ? ' (deletes its storage)' : ''}`,
  )
  const operations =
    ops.length === 0 ? '' : `, and carry out ${ops.length} operation${ops.length === 1 ? '' : 's'}: ${what.join(', ')}`
  const after =
    followUps > 0
      ? ` Once they succeed, ${followUps} more write${followUps === 1 ? '' : 's'} follow (${writes + followUps} in all).`
      : ''
  return `Write ${writes} change${writes === 1 ? '' : 's'} to ${target}${operations}?${after}`
}

/** Whether the plan destroys data (a recycle scrubs a volume, a delete removes it). */
export function destroys(plan: SyncReport): boolean {
  return plan.actions.some((a) => a.action === 'recycle' || a.action === 'delete')
}

export async function applySync(
  api: ClusterApi,
  state: ClusterState,
  opts: ApplyOptions,
  showPlan: (plan: SyncReport) => void,
): Promise<ApplyResult> {
  const plan = asked(() => planSync(state, {...opts, dryRun: true}))
  if (!hasChanges(plan)) {
    return {report: {...plan, dryRun: false}, exitCode: ExitCode.Ok}
  }
  refuseMassRelease(state, plan, opts)
  await checkBuiltinBinderBeside(plan, opts)
  const budget = new ReleaseBudget({
    boundVolumes: () => countBoundVolumes(state.volumes),
    unlimited: opts.allowMassRelease,
  })
  if (!opts.yes) {
    const declined = await askConsent(state, plan, opts, showPlan)
    if (declined !== undefined) return declined
  }
  const recyclerNamespace = opts.recyclerTemplate?.metadata.namespace ?? 'default'
  await requirePermissions(
    api,
    permissionsFor(plan.actions, opts.events, opts.workload === undefined ? undefined : {recyclerNamespace}),
    'ask a cluster admin for them',
  )

  const hasTargets = opts.targets !== undefined && opts.targets.length > 0
  // Pod events of recyclers, relayed on the volume as the controller's recycler event recorder does.
  const podEvents: PlannedEvent[] = []
  const plugins = livePlugins(opts, podEvents)
  const signal = await opts.writing?.()
  const result = await executeSync(api, state, {
    plugins,
    pluginMgr: defaultVolumePluginMgr(opts),
    workload: opts.workload,
    // Consent was given (--yes, or typed at the prompt) to the plan, which lists what is destroyed.
    destructive: true,
    gates: opts.gates,
    scope: hasTargets ? undefined : {namespace: opts.namespace, labelSelector: opts.labelSelector},
    targets: hasTargets ? opts.targets : undefined,
    maxRounds: opts.maxRounds ?? 100,
    concurrency: opts.concurrency,
    events: opts.events,
    signal,
    onProgress: opts.onProgress,
    budget,
  })
  const report = reportOf(plan, result, podEvents, opts)
  return outcomeOf(plan, result, report)
}

/**
 * Before anyone is asked: a plan that releases much of the cluster at once rests, likelier than not, on
 * a list that lost claims. The executor's budget holds the same bound as the plan grows while it runs.
 */
function refuseMassRelease(state: ClusterState, plan: SyncReport, opts: ApplyOptions): void {
  const mass = massReleaseOf(state, plan.actions)
  if (!opts.allowMassRelease && mass !== undefined) {
    throw new UsageError(`refusing to write: ${mass}`, [
      'check that the claims are all there (kubectl get pvc -A), and pvctl sync --dry-run',
      'if these volumes are to go, pass --allow-mass-release',
    ])
  }
}

/** Asks for consent to the plan, shown first: the result of a declined run, or undefined when consent is given. */
async function askConsent(
  state: ClusterState,
  plan: SyncReport,
  opts: ApplyOptions,
  showPlan: (plan: SyncReport) => void,
): Promise<ApplyResult | undefined> {
  if (opts.confirm === undefined) {
    throw new UsageError(
      'refusing to write without confirmation: no terminal to ask on; pass --yes to write, or --dry-run to plan only',
    )
  }
  // The plan is shown only to the person asked to consent; with --yes the final report says it all.
  showPlan(plan)
  const predicted = planSync(state, {...opts, dryRun: true, operations: SUCCEEDING})
  if (!(await opts.confirm(consentQuestion(plan, predicted, opts.target ?? 'the cluster'), destroys(plan)))) {
    return {report: plan, exitCode: ExitCode.Changes, notice: 'nothing written (not confirmed)', declined: true}
  }
  return undefined
}

/** The volume plugins that run pods (recycle, delete, provision), each recycler pod's events kept in `podEvents`. */
function livePlugins(opts: ApplyOptions, podEvents: PlannedEvent[]): LiveVolumePlugins | undefined {
  return opts.workload === undefined
    ? undefined
    : new LiveVolumePlugins(opts.workload, {
        recyclerTemplate: opts.recyclerTemplate,
        onWaiting: opts.onWaiting,
        onPodEvent: (volume, e) =>
          podEvents.push({
            object: {kind: 'PersistentVolume', name: volume.metadata.name ?? ''},
            type: e.type === 'Warning' ? 'Warning' : 'Normal',
            reason: 'RecyclerPod',
            message: `Recycler pod: ${e.message}`,
            count: 1,
            sync: `pv/${volume.metadata.name}`,
          }),
      })
}

/** The report of the run: the final state as planSync scopes it, and what was written, in the order written. */
function reportOf(plan: SyncReport, result: ExecuteResult, podEvents: PlannedEvent[], opts: ApplyOptions): SyncReport {
  // planSync's `before` of the final state is that state, scoped and sorted as the report wants it.
  const after = planSync(result.state, {...opts, dryRun: false, maxRounds: 1})
  return {
    ...after,
    dryRun: false,
    rounds: result.rounds,
    converged: result.converged,
    actions: result.actions,
    events: [...result.events, ...podEvents],
    errors: result.errors,
    // What was done: the writes made and the plugin operations carried out (a recycle, a delete).
    summary: summarize(
      result.actions.filter(
        (a) => a.outcome === 'written' || a.outcome === 'conflict-replanned' || a.outcome === 'executed',
      ),
    ),
    objects: after.before ?? after.objects,
    before: plan.before,
  }
}

/** The exit code and the notice of a run: done, interrupted, stopped by the double-check, or with failed writes. */
function outcomeOf(plan: SyncReport, result: ExecuteResult, report: SyncReport): ApplyResult {
  const done = accountFor(plan, result.actions)
  const written = done.written
  if (result.aborted) {
    // A run that was stopped did not converge, whatever the rounds so far said; the report lists every
    // write of the plan, those it never reached as not written.
    return {
      report: {...report, converged: false, actions: [...result.actions, ...notReached(plan, result.actions)]},
      exitCode: ExitCode.Interrupted,
      notice: `interrupted: ${describeDone(done)}; the rest not issued; run pvctl sync again to complete the job`,
    }
  }
  if (result.refusals.length > 0) {
    return {
      report,
      exitCode: ExitCode.Cluster,
      notice: `the double-check stopped ${result.refusals.length} destructive step(s): the cluster is not as it was read (see the report's errors); ${written} writes made; run pvctl sync --dry-run to plan on the cluster as it is now`,
    }
  }
  if (result.failed) {
    return {
      report,
      exitCode: ExitCode.Cluster,
      notice: `${result.actions.filter((a) => a.outcome.startsWith('failed')).length} write(s) failed (see the report); ${written} made; a re-run completes the job`,
    }
  }
  return {report, exitCode: ExitCode.Ok, notice: describeDone(done)}
}

/**
 * kube-controller-manager's binder syncs the same claims and volumes as this run, and two writers race: each
 * binds a claim to the volume it picks, each releases and reclaims. Loop mode does not write beside it
 * (builtin-binder.ts); one run says so, and refuses a plan that releases, recycles or deletes a volume, unless
 * --controllers says the binder is disabled. A Lease that cannot be read is said too.
 */
async function checkBuiltinBinderBeside(plan: SyncReport, opts: ApplyOptions): Promise<void> {
  if (opts.leases === undefined) return
  const binder = await builtinBinderState(opts.leases, opts.controllers ?? ['*'], new Date())
  if (binder.kind === 'running') {
    const running = `kube-controller-manager is running (Lease ${KCM_LEASE_KEY} held by ${binder.holder}) and its ${BINDER_CONTROLLER} syncs the same claims and volumes`
    const destroyed = volumesDestroyedBy(plan.actions).size
    if (destroyed > 0) {
      throw new UsageError(
        `refusing to write: ${running}, and this plan releases, recycles or deletes ${destroyed} volume${destroyed === 1 ? '' : 's'}`,
        [
          'leave it to kube-controller-manager (pvctl sync --dry-run shows what it is about to do)',
          `if its binder is disabled, say so: --controllers=*,-${BINDER_CONTROLLER}`,
        ],
      )
    }
    opts.notice?.(`${running}: pvctl's writes race with it (a conflict re-reads and re-plans)`)
  } else if (binder.kind === 'unknown') {
    opts.notice?.(
      `cannot tell whether kube-controller-manager's ${BINDER_CONTROLLER} runs beside pvctl: the Lease ${KCM_LEASE_KEY} cannot be read (${binder.error})`,
    )
  } else {
    // Disabled by --controllers, or kube-controller-manager is not running: pvctl is the one binder.
  }
}

/** The plan's actions that the run reported nothing about (it was stopped before it reached them). */
function notReached(plan: SyncReport, reached: ReadonlyArray<{action: string; object: ObjectRef}>): ExecutedAction[] {
  const seen = new Map<string, number>()
  for (const a of reached)
    seen.set(`${a.action} ${refKey(a.object)}`, (seen.get(`${a.action} ${refKey(a.object)}`) ?? 0) + 1)
  return plan.actions.flatMap((a) => {
    const key = `${a.action} ${refKey(a.object)}`
    const left = seen.get(key) ?? 0
    if (left > 0) {
      seen.set(key, left - 1)
      return []
    } else {
      return [
        {
          ...a,
          outcome: OPERATIONS.has(a.action) ? 'not-executed: interrupted' : 'not-written: interrupted',
        } satisfies ExecutedAction,
      ]
    }
  })
}

interface Done {
  written: number
  /** Of them, writes of the plan shown (the rest followed the operations carried out). */
  planned: number
  /** The plan's own writes, made or not. */
  plannedTotal: number
  operations: string[]
}

/** What a run did, held against the plan the user consented to. */
function accountFor(
  plan: SyncReport,
  actions: ReadonlyArray<{action: string; object: ObjectRef; outcome: string}>,
): Done {
  const planned = new Map<string, number>()
  for (const a of plan.actions)
    if (!OPERATIONS.has(a.action))
      planned.set(`${a.action} ${refKey(a.object)}`, (planned.get(`${a.action} ${refKey(a.object)}`) ?? 0) + 1)
  const plannedTotal = [...planned.values()].reduce((n, k) => n + k, 0)
  let written = 0
  let fromPlan = 0
  const operations: string[] = []
  for (const a of actions) {
    if (a.outcome === 'executed') operations.push(`${a.action} ${refKey(a.object)}`)
    if (a.outcome !== 'written' && a.outcome !== 'conflict-replanned') continue
    written++
    const key = `${a.action} ${refKey(a.object)}`
    const left = planned.get(key) ?? 0
    if (left > 0) {
      fromPlan++
      planned.set(key, left - 1)
    } else {
      // A write the plan did not show: it followed an operation carried out (or a re-plan).
    }
  }
  return {written, planned: fromPlan, plannedTotal, operations}
}

function describeDone(d: Done): string {
  const after = d.written - d.planned
  const made = `${d.written} write${d.written === 1 ? '' : 's'} made`
  // A plan of operations alone (a re-run after one was interrupted) planned no write: every write made followed them.
  const writes =
    d.plannedTotal === 0
      ? d.written === 0
        ? made
        : `${made}, after the operations`
      : `${made} (${d.planned} of the ${d.plannedTotal} planned${after > 0 ? `, ${after} after the operations` : ''})`
  return d.operations.length === 0
    ? writes
    : `${writes}; ${d.operations.length} operation${d.operations.length === 1 ? '' : 's'} carried out: ${d.operations.join(', ')}`
}
