// `pvctl sync` as one use-case: where the state comes from (snapshot or live), planning, and — live,
// without --dry-run — consent and writing. The command passes options and a UI port in, and renders
// the report that comes back.
import type {ClusterState, PersistentVolume} from '../engine/api/model.js'
import {scopePredicate} from '../engine/simulation/reconcile.js'
import {ExitCode, UsageError} from '../errors.js'
import {massReleaseOf} from '../executor/destruction-guard.js'
import {loadClusterState, type LoadStateOptions, type LoadStateUi, noticeEmptyNamespace, noticeCaveats} from './load-cluster-state.js'
import {loadRecyclerPodTemplate} from './recycler-template.js'
import {shellArgs} from '../render/explain-claim.js'
import type {SyncReport} from './sync-report.js'
import {apiServerTime, hasChanges, planSync, type SyncOptions} from './sync.js'

/** Where the state comes from (as for `explain`), how to plan, and how to write; the gates come with the state. */
export interface RunSyncOptions extends Omit<SyncOptions, 'gates' | 'kubernetesVersion'>, LoadStateOptions {
  concurrency: number
  events: boolean
  yes: boolean
  /** --allow-mass-release: no bound on how many volumes one run releases, recycles or deletes. */
  allowMassRelease?: boolean
  /** --fail-on-empty: a scope (-n, -l) that matches nothing is an error, not a notice. */
  failOnEmpty?: boolean
  /** --recycler-pod-template: a file holding one Pod. */
  recyclerPodTemplate?: string
  /**
   * The arguments of the `pvctl audit` that reads what this sync reads (objects, scope, source): a dry run
   * in sync points to it when the audit finds errors or warnings. Without them it says nothing.
   */
  auditArgs?: readonly string[]
}

export interface SyncUi extends LoadStateUi {
  /** Asks for consent (a typed one when the plan destroys data); undefined when nobody can be asked. */
  confirm?: (question: string, destructive: boolean) => Promise<boolean>
  /**
   * Off a terminal no spinner shows what is waited for: a line on stderr every so often says it instead
   * (a recycler pod may run for half an hour).
   */
  logWaits?: boolean
  /** Shows the plan before consent is asked. */
  showPlan(plan: SyncReport): void
  signal?: AbortSignal
}

export interface RunSyncResult {
  report: SyncReport
  exitCode: number
  /** The report is the plan the user was shown and did not confirm. */
  declined?: boolean
  /** Notices about the report, to say after it (a long table would scroll them away): caveats, the count of writes. */
  after: string[]
}

export async function runSync(request: RunSyncOptions, ui: SyncUi): Promise<RunSyncResult> {
  // Checked in every mode, a dry run too: a bad flag is found before the run that would use it.
  const recyclerTemplate = request.recyclerPodTemplate === undefined ? undefined : await loadRecyclerPodTemplate(request.recyclerPodTemplate)
  // The same reading of objects as `explain`'s: one loader for snapshots and live clusters.
  const loaded = await loadClusterState(request, ui)
  // Planned as the release the cluster runs, with its gates.
  const opts = {...request, gates: loaded.gates, kubernetesVersion: loaded.version, now: apiServerTime(new Date())}
  checkScope(loaded.state, opts, ui)
  const after: string[] = []
  const later = {notice: (line: string) => void after.push(line)}
  if (loaded.source === 'snapshot') {
    const report = planSync(loaded.state, {...opts, dryRun: true})
    if (!opts.dryRun) later.notice('the state came from a snapshot (-f): nothing was written; the plan is a simulation')
    noticeMassRelease(loaded.state, report, opts, later)
    noticeCaveats(loaded, later)
    await noticeAudit(loaded.state, report, opts, later)
    return {report, exitCode: hasChanges(report) ? ExitCode.Changes : ExitCode.Ok, after}
  }
  const {state, session} = loaded
  if (opts.dryRun) {
    const report = planSync(state, opts)
    noticeMassRelease(state, report, opts, later)
    await noticeAudit(state, report, opts, later)
    return {report, exitCode: hasChanges(report) ? ExitCode.Changes : ExitCode.Ok, after}
  }

  const {applySync} = await import('./sync-live.js')
  const progress = await ui.spinner('writing')
  const lastWaitLine = new Map<string, number>()
  try {
    const result = await applySync(
      session.api,
      state,
      {
        ...opts,
        signal: ui.signal,
        workload: session.workload,
        recyclerTemplate,
        confirm: ui.confirm,
        target: `context ${session.contextName}`,
        onProgress: (done, known) => progress.text(`writes: ${done}/${known}`),
        onWaiting: (w) => {
          const line = `waiting for pod ${w.pod} (${w.phase}, ${seconds(w.elapsedMs)} of at most ${seconds(w.timeoutMs)})`
          progress.text(line)
          // Each pod when first read, then every WAIT_LOG_EVERY_MS while it is still waited for.
          const last = lastWaitLine.get(w.pod)
          if (ui.logWaits && (last === undefined || w.elapsedMs - last >= WAIT_LOG_EVERY_MS)) {
            lastWaitLine.set(w.pod, w.elapsedMs)
            ui.notice(line)
          }
        },
      },
      (plan) => {
        progress.stop()
        ui.showPlan(plan)
      },
    )
    if (result.notice !== undefined) later.notice(result.notice)
    return {report: result.report, exitCode: result.exitCode, after, ...(result.declined === true ? {declined: true} : {})}
  } finally {
    progress.stop()
  }
}

/**
 * A scope (-n, -l) that matches no volume and no claim: a typo, most likely, whose plan would be empty and
 * "in sync" (a CI job that audits with it audits nothing). Said on stderr, as kubectl's "No resources
 * found"; with --fail-on-empty an error (exit 2). Else a -n with volumes but no claim in it is said too.
 */
function checkScope(state: ClusterState, opts: RunSyncOptions, ui: Pick<SyncUi, 'notice'>): void {
  if (opts.targets !== undefined && opts.targets.length > 0) return
  if (opts.namespace === undefined && opts.labelSelector === undefined) return
  const inScope = scopePredicate({namespace: opts.namespace, labelSelector: opts.labelSelector})
  // Under -n, every unbound volume is in scope (any claim of the namespace may take it): they do not make a
  // namespace without claims, or with no volume bound into it, any less empty.
  const counts = (v: PersistentVolume) => inScope.volume(v) && (opts.namespace === undefined || v.spec.claimRef != null)
  if (!state.volumes.some(counts) && !state.claims.some(inScope.claim)) {
    const scope = [opts.namespace !== undefined ? `in namespace "${opts.namespace}"` : '', opts.labelSelectorText !== undefined ? `matching -l ${opts.labelSelectorText}` : '']
    const what = opts.namespace !== undefined ? 'no PersistentVolumeClaims, and no PersistentVolumes bound to one,' : 'no PersistentVolumes or PersistentVolumeClaims'
    const message = `${what} ${scope.filter((s) => s !== '').join(' ')}`
    if (opts.failOnEmpty) throw new UsageError(message, ['check -n and -l (kubectl get pv,pvc -A --show-labels)'])
    ui.notice(message)
  } else {
    noticeEmptyNamespace(state, opts.namespace, ui)
  }
}

/**
 * In sync is not healthy: when the plan is empty, the audit of the same state (judged with that plan, not a
 * second one) says whether the controller leaves errors or warnings to a person, and the last line points to
 * `pvctl audit`. The exit status stays the plan's. The audit is loaded only then, and only counts.
 */
async function noticeAudit(state: ClusterState, report: SyncReport, opts: RunSyncOptions & Pick<SyncOptions, 'gates'>, ui: Pick<SyncUi, 'notice'>): Promise<void> {
  if (hasChanges(report) || opts.auditArgs === undefined) return
  const {auditProblemCount} = await import('./audit.js')
  const problems = auditProblemCount(state, {...opts, failOn: 'warning', ignore: new Set()}, report)
  if (problems > 0) ui.notice(`in sync with the controller; ${problems} problem${problems === 1 ? '' : 's'} the controller leaves to you: pvctl audit${shellArgs({args: opts.auditArgs})}`)
}

/** How often, off a terminal, a line says which plugin pod is still waited for. */
const WAIT_LOG_EVERY_MS = 10_000

const seconds = (ms: number) => `${Math.round(ms / 1000)}s`

/** A plan that `pvctl sync` would refuse to write (destruction-guard.ts), said with the plan that shows it. */
function noticeMassRelease(state: ClusterState, report: SyncReport, opts: Pick<RunSyncOptions, 'allowMassRelease'>, ui: Pick<SyncUi, 'notice'>): void {
  const mass = massReleaseOf(state, report.actions)
  if (mass !== undefined && !opts.allowMassRelease) ui.notice(`writing this plan would be refused without --allow-mass-release: ${mass}`)
}
