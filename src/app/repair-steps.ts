// The steps `pvctl reclaim` and `pvctl relink` take alike once their decision allows the write: consent
// (a typed "yes", or --yes), and with --sync the controller's sync of what was written.
import type {VolumePluginOptions} from '../engine/controller/volume-plugins.js'
import type {RepairSync} from '../engine/repair/report.js'
import type {ObjectRef} from '../engine/simulation/plan.js'
import {UsageError} from '../errors.js'
import type {LoadStateOptions} from './load-cluster-state.js'
import type {SyncUi} from './run-sync.js'

/** What both repairs are run with besides their target. */
export interface RepairOptions extends LoadStateOptions, VolumePluginOptions {
  dryRun: boolean
  yes: boolean
  /** --sync: run the controller's sync of what was written, once it is. */
  sync: boolean
  /** For --sync. */
  concurrency: number
  events: boolean
  /** Where the state came from, as flags (sourceArgs in src/cli/flags.ts), for the commands a refusal names. */
  sourceArgs?: readonly string[]
}

export interface ConsentUi<P> {
  /** Asks for a typed "yes" to `question`, warned with `warning`; undefined when nobody can be asked. */
  confirm?: (question: string, warning: string) => Promise<boolean>
  /** Shows the repair before consent is asked. */
  showPlan: (plan: P) => void
}

/**
 * Whether the write may go ahead: --yes, or a typed "yes" to `question` once `plan` is shown. With neither
 * a terminal nor --yes it refuses (a usage error): nothing is handed to another claim without consent.
 */
export async function consented<P>(
  yes: boolean,
  ui: ConsentUi<P>,
  plan: P,
  question: string,
  warning: string,
): Promise<boolean> {
  if (yes) {
    // --yes: consent given in advance; the report says what was written.
    return true
  } else if (ui.confirm === undefined) {
    throw new UsageError(
      'refusing to write without confirmation: no terminal to ask on; pass --yes to write, or --dry-run to plan only',
    )
  } else {
    ui.showPlan(plan)
    return ui.confirm(question, warning)
  }
}

/** --sync: the controller's sync of `targets`, run once the repair was written; its result for the report. */
export async function syncAfterRepair(
  opts: RepairOptions,
  targets: ObjectRef[],
  ui: SyncUi,
): Promise<{sync: RepairSync; exitCode: number; after: string[]}> {
  const {runSync} = await import('./run-sync.js')
  const synced = await runSync({...opts, dryRun: false, targets}, ui)
  return {
    sync: {converged: synced.report.converged, writes: synced.report.summary.writes, actions: synced.report.actions},
    exitCode: synced.exitCode,
    after: synced.after,
  }
}
