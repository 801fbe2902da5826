// The terminal side of the repairs (reclaim, relink): their common flags, where the plan goes before
// consent, the typed "yes", the UI of the sync that --sync runs after the write, and the report by -o.
import type {SyncUi} from '../app/run-sync.js'
import {renderSyncTable} from '../render/sync-table.js'
import {plain, type Palette} from '../render/color.js'
import {engineRequest} from './feature-gates-flag.js'
import {connectionOptions, sourceArgs} from './flags.js'
import {canPrompt, canSpin, confirmOnTerminal, startSpinner, writeNotice} from './interaction.js'
import {loadTemplate, machineReadable} from './output-formats.js'
import {interruptibleWrites} from './interrupts.js'
import {terminalWidth, writeChunks} from './write-chunks.js'

/**
 * The plan goes to stdout on a terminal; with -o json|yaml|jsonpath|custom-columns, or off a terminal, to
 * stderr, so that the document on stdout stays the one report.
 */
export function planStream(output: string): NodeJS.WriteStream {
  return machineReadable(output) || !process.stdout.isTTY ? process.stderr : process.stdout
}

/**
 * The UI a repair's use-case asks through: notices, the spinner, the plan shown before the typed "yes", and
 * --sync's UI, whose writes an interrupt stops as it stops pvctl sync's (to the end of the run).
 */
export function repairUi<P>(output: string, palette: Palette, render: (plan: P, palette: Palette) => string) {
  const writes = interruptibleWrites()
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

/** How a repair's report is printed, by -o. */
export interface RepairRenderers<R> {
  json(report: R): Iterable<string>
  yaml(report: R): Iterable<string>
  table(report: R, palette: Palette): string
  /** The objects as read and as written, for `-o diff`. */
  edits: ReadonlyArray<{before: object; after: object}>
}

/**
 * Prints a repair's result: the report (unless it is the plan shown already at a prompt declined on stdout),
 * the notices after it, then the refusal as the one error line, or the exit code.
 */
export async function showRepair<R>(
  result: {report: R; exitCode: number; declined?: boolean; refusal?: Error; after: string[]},
  output: string,
  palette: Palette,
  render: RepairRenderers<R>,
  noHeaders = false,
): Promise<void> {
  const shownAlready = result.declined === true && planStream(output) === process.stdout
  if (!shownAlready) await writeChunks(process.stdout, await rendered(result.report, output, palette, render, noHeaders))
  for (const line of result.after) writeNotice(line)
  if (result.refusal !== undefined) throw result.refusal
  process.exitCode = result.exitCode
}

async function rendered<R>(report: R, output: string, palette: Palette, render: RepairRenderers<R>, noHeaders: boolean): Promise<Iterable<string>> {
  const template = await loadTemplate(output)
  if (template !== undefined) return template(render.json(report), noHeaders)
  switch (output) {
    case 'json':
      return render.json(report)
    case 'yaml':
      return render.yaml(report)
    case 'diff': {
      // The diff renderer (and the diff library, slow to load: docs/performance.md) only when asked for.
      const {objectDiff} = await import('../render/sync-diff.js')
      return render.edits.map((e) => objectDiff(e.before as never, e.after as never, palette))
    }
    default:
      return [render.table(report, palette)]
  }
}
