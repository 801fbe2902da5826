// The terminal side of the repairs (reclaim, relink): their common flags, where the plan goes before
// consent, the typed "yes" and the UI of the sync that --sync runs after the write.
import type {SyncUi} from '../app/run-sync.js'
import {renderSyncTable} from '../render/sync-table.js'
import {plain, type Palette} from '../render/color.js'
import {engineRequest} from './feature-gates-flag.js'
import {connectionOptions, sourceArgs} from './flags.js'
import {canPrompt, canSpin, confirmOnTerminal, startSpinner, writeNotice} from './interaction.js'
import {interruptibleWrites} from './interrupts.js'
import {planStream} from './show-result.js'
import {terminalWidth} from './write-chunks.js'

/**
 * The UI a repair's use-case asks through: notices, the spinner, the plan shown before the typed "yes", and
 * --sync's UI, whose writes an interrupt stops as it stops pvctl sync's (to the end of the run).
 */
export function repairUi<P>(output: string, palette: Palette, render: (plan: P, palette: Palette) => string) {
  const writes = interruptibleWrites()
  return {
    notice: writeNotice,
    spinner: startSpinner,
    confirm: canPrompt()
      ? (question: string, warning: string) => confirmOnTerminal(question, true, warning)
      : undefined,
    showPlan: (plan: P) =>
      planStream(output).write(render(plan, planStream(output) === process.stdout ? palette : plain)),
    syncUi: {
      notice: writeNotice,
      spinner: startSpinner,
      confirm: canPrompt()
        ? (question: string, destructive: boolean) => confirmOnTerminal(question, destructive)
        : undefined,
      logWaits: !canSpin(),
      showPlan: (plan) =>
        planStream(output).write(
          renderSyncTable(plan, {wide: false, palette: plain, width: terminalWidth(planStream(output))}),
        ),
      writing: writes.writing,
    } satisfies SyncUi,
  }
}

/** The flags both repairs take alike, as the options of their use-cases (sync's for --sync). */
export function repairOptions(
  flags: Parameters<typeof connectionOptions>[0] & {
    'dry-run': boolean
    yes: boolean
    sync: boolean
    'kube-version'?: string
    'feature-gates'?: string
    'enable-hostpath-provisioner': boolean
    filename?: readonly string[]
  },
) {
  return {
    dryRun: flags['dry-run'],
    yes: flags.yes,
    sync: flags.sync,
    engine: engineRequest(flags),
    hostPathProvisioning: flags['enable-hostpath-provisioner'],
    filename: flags.filename,
    stdin: process.stdin,
    ...connectionOptions(flags),
    concurrency: 1,
    events: true,
    sourceArgs: sourceArgs(flags),
  }
}
