// The terminal side of the repairs (reclaim, relink): where the plan goes before consent, the typed "yes",
// and the UI of the sync that --sync runs after the write.
import type {SyncUi} from '../app/run-sync.js'
import {renderSyncTable} from '../render/sync-table.js'
import {plain, type Palette} from '../render/color.js'
import {canPrompt, canSpin, confirmOnTerminal, startSpinner, writeNotice} from './interaction.js'
import {terminalWidth} from './write-chunks.js'

/**
 * The plan goes to stdout on a terminal; with -o json|yaml, or off a terminal, to stderr, so that the
 * document on stdout stays the one report.
 */
export function planStream(output: string): NodeJS.WriteStream {
  return output === 'json' || output === 'yaml' || !process.stdout.isTTY ? process.stderr : process.stdout
}

/** The UI a repair's use-case asks through: notices, the spinner, the plan shown before the typed "yes", and --sync's UI. */
export function repairUi<P>(output: string, palette: Palette, render: (plan: P, palette: Palette) => string) {
  return {
    notice: writeNotice,
    spinner: startSpinner,
    confirm: canPrompt() ? (question: string, warning: string) => confirmOnTerminal(question, true, warning) : undefined,
    showPlan: (plan: P) => planStream(output).write(render(plan, planStream(output) === process.stdout ? palette : plain)),
    syncUi: {
      notice: writeNotice,
      spinner: startSpinner,
      confirm: canPrompt() ? (question: string, destructive: boolean) => confirmOnTerminal(question, destructive) : undefined,
      logWaits: !canSpin(),
      showPlan: (plan) => planStream(output).write(renderSyncTable(plan, {wide: false, palette: plain, width: terminalWidth(planStream(output))})),
    } satisfies SyncUi,
  }
}
