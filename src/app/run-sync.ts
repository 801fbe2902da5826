// `pvctl sync` as one use-case: where the state comes from (snapshot or live), planning, and — live,
// without --dry-run — consent and writing. The command passes options and a UI port in, and renders
// the report that comes back.
import {loadSnapshot} from '../cluster/snapshot.js'
import type {Pod} from '../engine/model.js'
import {ExitCode, UsageError} from '../errors.js'
import type {SyncReport} from './sync-report.js'
import {hasChanges, planSync, type SyncOptions} from './sync.js'

export interface RunSyncOptions extends SyncOptions {
  /** -f: a snapshot path, or undefined for the live cluster. */
  filename?: string
  stdin: NodeJS.ReadableStream
  kubeconfig?: string
  context?: string
  /** -l as given, for the live LIST calls. */
  labelSelectorText?: string
  qps: number
  burst: number
  requestTimeoutMs?: number
  /** --chunk-size: objects per LIST page (0: no paging). */
  chunkSize?: number
  concurrency: number
  events: boolean
  yes: boolean
  /** --recycler-pod-template: a file holding one Pod. */
  recyclerPodTemplate?: string
}

export interface SyncUi {
  /** Tells the user something on stderr (skipped kinds, notices). */
  notice(line: string): void
  spinner(text: string): Promise<{text(t: string): void; stop(): void}>
  /** Asks for consent (a typed one when the plan destroys data); undefined when nobody can be asked. */
  confirm?: (plan: SyncReport, context: string, destructive: boolean) => Promise<boolean>
  /** Shows the plan before consent is asked. */
  showPlan(plan: SyncReport): void
  signal?: AbortSignal
}

export interface RunSyncResult {
  report: SyncReport
  exitCode: number
}

/** The one Pod of a --recycler-pod-template file. */
async function loadPodTemplate(path: string): Promise<Pod> {
  const {state} = await loadSnapshot(path)
  if (state.pods.length !== 1) {
    throw new UsageError(`--recycler-pod-template "${path}": expected exactly one Pod, found ${state.pods.length}`)
  }
  return state.pods[0]
}

export async function runSync(opts: RunSyncOptions, ui: SyncUi): Promise<RunSyncResult> {
  if (opts.filename !== undefined) {
    const snapshot = await loadSnapshot(opts.filename, {stdin: opts.stdin})
    for (const [kind, count] of Object.entries(snapshot.skipped)) {
      ui.notice(`skipped ${count} ${kind} object${count === 1 ? '' : 's'} (not read by the PV controller)`)
    }
    const report = planSync(snapshot.state, {...opts, dryRun: true})
    if (!opts.dryRun) ui.notice('the state came from a snapshot (-f): nothing was written; the plan is a simulation')
    return {report, exitCode: hasChanges(report) ? ExitCode.Changes : ExitCode.Ok}
  }

  // A live cluster: client-node and the executor are loaded only now (they cost ~0.4 s).
  const {openLiveSession} = await import('./live-session.js')
  const {loadLiveState} = await import('../cluster/live-loader.js')
  const session = openLiveSession({kubeconfig: opts.kubeconfig, context: opts.context, qps: opts.qps, burst: opts.burst, requestTimeoutMs: opts.requestTimeoutMs})
  const spinner = await ui.spinner(`loading from ${session.server}`)
  let state
  try {
    state = await loadLiveState(session.api, {namespace: opts.namespace, labelSelector: opts.labelSelectorText, chunkSize: opts.chunkSize}, (kind, n) => spinner.text(`loading ${kind}: ${n}`))
  } finally {
    spinner.stop()
  }
  if (opts.dryRun) {
    const report = planSync(state, opts)
    return {report, exitCode: hasChanges(report) ? ExitCode.Changes : ExitCode.Ok}
  }

  const {applySync} = await import('./sync-live.js')
  const recyclerTemplate = opts.recyclerPodTemplate === undefined ? undefined : await loadPodTemplate(opts.recyclerPodTemplate)
  const progress = await ui.spinner('writing')
  try {
    const result = await applySync(
      session.api,
      state,
      {
        ...opts,
        signal: ui.signal,
        workload: session.workload,
        recyclerTemplate,
        confirm: ui.confirm === undefined ? undefined : (plan, destructive) => ui.confirm!(plan, session.contextName, destructive),
        onProgress: (done, known) => progress.text(`writes: ${done}/${known}`),
      },
      (plan) => {
        progress.stop()
        ui.showPlan(plan)
      },
    )
    if (result.notice !== undefined) ui.notice(result.notice)
    return {report: result.report, exitCode: result.exitCode}
  } finally {
    progress.stop()
  }
}
