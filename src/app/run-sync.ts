// `pvctl sync` as one use-case: where the state comes from (snapshot or live), planning, and — live,
// without --dry-run — consent and writing. The command passes options and a UI port in, and renders
// the report that comes back.
import type {ClusterState} from '../engine/api/model.js'
import {ExitCode} from '../errors.js'
import {massReleaseOf} from '../executor/destruction-guard.js'
import {
  checkScope,
  STDIN_SNAPSHOT,
  loadClusterState,
  type LoadStateOptions,
  type LoadStateUi,
  noticeCaveats,
} from './load-cluster-state.js'
import type {PodWait} from '../volume-plugins/pod-runner.js'
import {loadRecyclerPodTemplate} from './recycler-template.js'
import {asked} from './request-errors.js'
import {shellArgs} from '../render/explain-claim.js'
import type {SyncReport} from '../engine/simulation/sync-report.js'
import {apiServerTime, hasChanges, planSync, type SyncOptions} from '../engine/simulation/plan-sync.js'

/** Where the state comes from (as for `explain`), how to plan, and how to write; the gates come with the state. */
export interface RunSyncOptions extends Omit<SyncOptions, 'gates' | 'kubernetesVersion'>, LoadStateOptions {
  concurrency: number
  events: boolean
  yes: boolean
  /** --allow-mass-release: no bound on how many volumes one run releases, recycles or deletes. */
  allowMassRelease?: boolean
  /** --fail-on-empty: a scope (-n, -l) that matches nothing is an error, not a notice. */
  failOnEmpty?: boolean
  /** kube-controller-manager's --controllers: whether its binder, which a live run would race, is disabled. */
  controllers?: readonly string[]
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
  showPlan: (plan: SyncReport) => void
  /**
   * The writes begin: from now on an interrupt aborts the signal returned (the run stops issuing writes
   * and reports what was and was not written). Without it, nothing interrupts the writes.
   */
  writing?: () => AbortSignal
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
  const recyclerTemplate =
    request.recyclerPodTemplate === undefined ? undefined : await loadRecyclerPodTemplate(request.recyclerPodTemplate)
  // The same reading of objects as `explain`'s: one loader for snapshots and live clusters.
  const loaded = await loadClusterState(request, ui)
  // Planned as the release the cluster runs, with its gates.
  const opts = {...request, gates: loaded.gates, kubernetesVersion: loaded.version, now: apiServerTime(new Date())}
  checkScope(loaded.state, opts, ui)
  const after: string[] = []
  const later = {notice: (line: string) => void after.push(line)}
  if (loaded.source === 'snapshot') {
    const report = asked(() => planSync(loaded.state, {...opts, dryRun: true}))
    if (!opts.dryRun) later.notice('the state came from a snapshot (-f): nothing was written; the plan is a simulation')
    noticeMassRelease(loaded.state, report, opts, later)
    noticeCaveats(loaded, later)
    await noticeAudit(loaded.state, report, opts, later)
    return {report, exitCode: hasChanges(report) ? ExitCode.Changes : ExitCode.Ok, after}
  }
  const {state, session} = loaded
  if (opts.dryRun) {
    const report = asked(() => planSync(state, opts))
    noticeMassRelease(state, report, opts, later)
    await noticeAudit(state, report, opts, later)
    return {report, exitCode: hasChanges(report) ? ExitCode.Changes : ExitCode.Ok, after}
  }

  const {applySync} = await import('./sync-live.js')
  const progress = await writeProgress(ui)
  try {
    const result = await applySync(
      session.api,
      state,
      {
        ...opts,
        leases: session.leases,
        notice: ui.notice,
        writing: progress.writing,
        workload: session.workload,
        recyclerTemplate,
        confirm: ui.confirm,
        target: `context ${session.contextName}`,
        onProgress: progress.onProgress,
        onWaiting: progress.onWaiting,
      },
      progress.showPlan,
    )
    if (result.notice !== undefined) later.notice(result.notice)
    return {
      report: result.report,
      exitCode: result.exitCode,
      after,
      ...(result.declined === true ? {declined: true} : {}),
    }
  } finally {
    progress.stop()
  }
}

/**
 * The spinner of a live sync: "planning", then, once the plan is shown (and confirmed), how far the writes
 * are and which pod is waited for.
 */
async function writeProgress(ui: SyncUi) {
  let progress = await ui.spinner('planning')
  let shown = false
  let writes = ''
  const lastWaitLine = new Map<string, number>()
  return {
    writing: async () => {
      // The plan and the question took the terminal's last lines: the spinner starts again below them.
      if (shown) progress = await ui.spinner('writing')
      else progress.text('writing')
      return ui.writing?.()
    },
    onProgress: (done: number, known: number) => {
      writes = `${done} of ${known} writes made`
      progress.text(`writing: ${writes}`)
    },
    onWaiting: (w: PodWait) => {
      const line = `waiting for pod ${w.pod} (${w.phase}, ${seconds(w.elapsedMs)} of at most ${seconds(w.timeoutMs)})`
      progress.text(writes === '' ? line : `${line}; ${writes}`)
      // Each pod when first read, then every WAIT_LOG_EVERY_MS while it is still waited for.
      const last = lastWaitLine.get(w.pod)
      if (ui.logWaits && (last === undefined || w.elapsedMs - last >= WAIT_LOG_EVERY_MS)) {
        lastWaitLine.set(w.pod, w.elapsedMs)
        ui.notice(line)
      }
    },
    showPlan: (plan: SyncReport) => {
      progress.stop()
      shown = true
      ui.showPlan(plan)
    },
    stop: () => progress.stop(),
  }
}

/**
 * In sync is not healthy: when the plan is empty, the audit of the same state (judged with that plan, not a
 * second one) says whether the controller leaves errors or warnings to a person, and the last line points to
 * `pvctl audit`. The exit status stays the plan's. The audit is loaded only then, and only counts.
 */
async function noticeAudit(
  state: ClusterState,
  report: SyncReport,
  opts: RunSyncOptions & Pick<SyncOptions, 'gates'>,
  ui: Pick<SyncUi, 'notice'>,
): Promise<void> {
  if (hasChanges(report) || opts.auditArgs === undefined) return
  const {auditProblemCount} = await import('../engine/audit/audit-state.js')
  const problems = auditProblemCount(state, {...opts, failOn: 'warning', ignore: new Set()}, report)
  // A snapshot read from stdin is spent: the command names a file to save it to (sourceArgs in src/cli/flags.ts).
  const fromStdin =
    opts.filename?.includes('-') === true ? ` (${STDIN_SNAPSHOT}: the snapshot read from stdin, saved to a file)` : ''
  if (problems > 0)
    ui.notice(
      `in sync with the controller; ${problems} problem${problems === 1 ? '' : 's'} the controller leaves to you: pvctl audit${shellArgs({args: opts.auditArgs})}${fromStdin}`,
    )
}

/** How often, off a terminal, a line says which plugin pod is still waited for. */
const WAIT_LOG_EVERY_MS = 10_000

const seconds = (ms: number) => `${Math.round(ms / 1000)}s`

/** A plan that `pvctl sync` would refuse to write (destruction-guard.ts), said with the plan that shows it. */
function noticeMassRelease(
  state: ClusterState,
  report: SyncReport,
  opts: Pick<RunSyncOptions, 'allowMassRelease'>,
  ui: Pick<SyncUi, 'notice'>,
): void {
  const mass = massReleaseOf(state, report.actions)
  if (mass !== undefined && !opts.allowMassRelease)
    ui.notice(`writing this plan would be refused without --allow-mass-release: ${mass}`)
}
