// The live half of `pvctl sync`: plan on the loaded state, then (after consent and a permission
// check) write it with the executor, and report what became of every write.
import type {ClusterApi} from '../cluster/live-api.js'
import type {ClusterState} from '../engine/model.js'
import {ExitCode, ClusterError, UsageError} from '../errors.js'
import type {WorkloadApi} from '../cluster/workload-api.js'
import type {Pod} from '../engine/model.js'
import type {PlannedEvent} from '../engine/plan.js'
import {defaultVolumePluginMgr} from '../engine/volume-plugins.js'
import {countBoundVolumes, massReleaseOf, ReleaseBudget} from '../executor/destruction-guard.js'
import {executeSync} from '../executor/executor.js'
import {LiveVolumePlugins} from '../plugins/live-plugins.js'
import {describePermission, missingPermissions, permissionsFor} from '../executor/permissions.js'
import {type SyncOptions, planSync, hasChanges, summarize} from './sync.js'
import type {SyncReport} from './sync-report.js'

export interface ApplyOptions extends SyncOptions {
  concurrency: number
  events: boolean
  /** Pods and PV objects for the volume plugins; without it recycle/delete/provision stay planned. */
  workload?: WorkloadApi
  recyclerTemplate?: Pod
  /** Asks the user (typing a confirmation when `destructive`); undefined when no one can be asked. */
  confirm?: (plan: SyncReport, destructive: boolean) => Promise<boolean>
  yes: boolean
  /** --allow-mass-release: no bound on how many volumes one run releases, recycles or deletes. */
  allowMassRelease?: boolean
  signal?: AbortSignal
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

/** Whether the plan destroys data (a recycle scrubs a volume, a delete removes it). */
export function destroys(plan: SyncReport): boolean {
  return plan.actions.some((a) => a.action === 'recycle' || a.action === 'delete')
}

export async function applySync(api: ClusterApi, state: ClusterState, opts: ApplyOptions, showPlan: (plan: SyncReport) => void): Promise<ApplyResult> {
  const plan = planSync(state, {...opts, dryRun: true})
  if (!hasChanges(plan)) {
    return {report: {...plan, dryRun: false}, exitCode: ExitCode.Ok}
  }
  // Before anyone is asked: a plan that releases much of the cluster at once rests, likelier than not, on
  // a list that lost claims. The executor's budget holds the same bound as the plan grows while it runs.
  const mass = massReleaseOf(state, plan.actions)
  if (!opts.allowMassRelease && mass !== undefined) {
    throw new UsageError(`refusing to write: ${mass}`, [
      'check that the claims are all there (kubectl get pvc -A), and pvctl sync --dry-run',
      'if these volumes are to go, pass --allow-mass-release',
    ])
  }
  const budget = new ReleaseBudget({boundVolumes: () => countBoundVolumes(state.volumes), unlimited: opts.allowMassRelease})
  if (!opts.yes) {
    if (opts.confirm === undefined) {
      throw new UsageError('refusing to write without confirmation: no terminal to ask on; pass --yes to write, or --dry-run to plan only')
    }
    // The plan is shown only to the person asked to consent; with --yes the final report says it all.
    showPlan(plan)
    if (!(await opts.confirm(plan, destroys(plan)))) {
      return {report: plan, exitCode: ExitCode.Changes, notice: 'nothing written (not confirmed)', declined: true}
    }
  }
  const recyclerNamespace = opts.recyclerTemplate?.metadata.namespace ?? 'default'
  const missing = await missingPermissions(api, permissionsFor(plan.actions, opts.events, opts.workload === undefined ? undefined : {recyclerNamespace}))
  if (missing.length > 0) {
    throw new ClusterError(`missing permissions: ${missing.map(describePermission).join('; ')}`, ['ask a cluster admin for them, or run with --dry-run'])
  }

  const hasTargets = opts.targets !== undefined && opts.targets.length > 0
  // Pod events of recyclers, relayed on the volume as the controller's recycler event recorder does.
  const podEvents: PlannedEvent[] = []
  const plugins =
    opts.workload === undefined
      ? undefined
      : new LiveVolumePlugins(opts.workload, {
          recyclerTemplate: opts.recyclerTemplate,
          onPodEvent: (volume, e) =>
            podEvents.push({object: {kind: 'PersistentVolume', name: volume.metadata.name ?? ''}, type: e.type === 'Warning' ? 'Warning' : 'Normal', reason: 'RecyclerPod', message: `Recycler pod: ${e.message}`, count: 1, sync: `pv/${volume.metadata.name}`}),
        })
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
    signal: opts.signal,
    onProgress: opts.onProgress,
    budget,
  })
  // planSync's `before` of the final state is that state, scoped and sorted as the report wants it.
  const after = planSync(result.state, {...opts, dryRun: false, maxRounds: 1})
  const report: SyncReport = {
    ...after,
    dryRun: false,
    rounds: result.rounds,
    converged: result.converged,
    actions: result.actions,
    events: [...result.events, ...podEvents],
    errors: result.errors,
    // What was done: the writes made and the plugin operations carried out (a recycle, a delete).
    summary: summarize(result.actions.filter((a) => a.outcome === 'written' || a.outcome === 'conflict-replanned' || a.outcome === 'executed')),
    objects: after.before ?? after.objects,
    before: plan.before,
  }
  const written = result.actions.filter((a) => a.outcome === 'written' || a.outcome === 'conflict-replanned').length
  const planned = plan.actions.filter((a) => a.action !== 'recycle' && a.action !== 'delete' && a.action !== 'provision').length
  if (result.aborted) {
    return {report, exitCode: ExitCode.Cluster, notice: `interrupted: ${written} writes made, the rest not issued; run pvctl sync again to complete the job`}
  }
  if (result.refusals.length > 0) {
    return {
      report,
      exitCode: ExitCode.Cluster,
      notice: `the double-check stopped ${result.refusals.length} destructive step(s): the cluster is not as it was read (see the report's errors); ${written} writes made; run pvctl sync --dry-run to plan on the cluster as it is now`,
    }
  }
  if (result.failed) {
    return {report, exitCode: ExitCode.Cluster, notice: `${result.actions.filter((a) => a.outcome.startsWith('failed')).length} write(s) failed (see the report); ${written} made; a re-run completes the job`}
  }
  return {report, exitCode: ExitCode.Ok, notice: `${written} writes made (${planned} planned)`}
}
