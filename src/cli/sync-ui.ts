// The terminal side of pvctl sync's one-shot run: notices, the spinner, the question and the plan shown
// before it, and the signal an interrupt aborts once the writes begin.
import type {SyncUi} from '../app/run-sync.js'
import {ansi, plain, shouldColor} from '../render/color.js'
import {renderSyncTable} from '../render/sync-table.js'
import {canPrompt, canSpin, confirmOnTerminal, startSpinner, writeNotice} from './interaction.js'
import {planStream} from './show-result.js'
import {terminalWidth} from './write-chunks.js'

/** `writing`: called as the writes begin, it returns the signal an interrupt aborts (interruptibleWrites). */
export function terminalSyncUi(flags: {output: string; color?: boolean}, writing: () => AbortSignal): SyncUi {
  const paletteOf = (stream: NodeJS.WriteStream) =>
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-conversion -- isTTY is undefined, not false, on a stream that is no terminal
    shouldColor(process.env, Boolean(stream.isTTY), flags.color) ? ansi : plain
  return {
    notice: writeNotice,
    spinner: startSpinner,
    confirm: canPrompt() ? (question, destructive) => confirmOnTerminal(question, destructive) : undefined,
    logWaits: !canSpin(),
    // The plan is shown where the question is asked: on stderr when stdout is a file, a pipe or a
    // machine-readable report, so that nobody consents to a plan they cannot see.
    showPlan: (plan) => {
      const out = planStream(flags.output)
      out.write(renderSyncTable(plan, {wide: false, palette: paletteOf(out), width: terminalWidth(out)}))
    },
    writing,
  }
}
