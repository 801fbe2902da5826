// The terminal side of the interactive `pvctl explain`: inquirer's select for the choices (on stderr, so
// that stdout carries only what is shown), the renderers for what is shown. Used only when canPrompt().
import {type Choice, type ExplainSessionUi, type FilterableChoice, filterChoices} from '../app/explain-session.js'
import {ExitCode} from '../errors.js'
import type {Palette} from '../render/color.js'
import {confirmOnTerminal, ENDED, INTERRUPTED, startSpinner, untilInputEnds, writeNotice} from './interaction.js'
import {interruptibleWrites} from './interrupts.js'
import {type ExplainSource, renderClaimExplanation} from '../render/explain-claim.js'
import type {TableLayout} from '../render/kubectl-table.js'
import {kubectlYaml} from '../render/kubectl-yaml.js'
import {renderReclaimTable} from '../render/reclaim-table.js'
import {renderSyncTable} from '../render/sync-table.js'

/** How many choices a menu shows at once. */
const PAGE_SIZE = 12

/** `layout`: --no-headers, and the terminal's width the tables are fitted to. */
export function terminalExplainUi(
  palette: Palette,
  source: ExplainSource | undefined,
  layout: TableLayout,
): ExplainSessionUi {
  const out = (text: string) => process.stdout.write(`\n${text}\n`)
  return {
    choose: chooseOnTerminal,
    search: searchOnTerminal,
    showClaim: (e) => out(renderClaimExplanation(e, palette, source, layout)),
    showVolume: (volume) => out(kubectlYaml(volume)),
    showPlan: (report) => out(renderSyncTable(report, {wide: false, palette, ...layout})),
    showReclaim: (report) => out(renderReclaimTable(report, palette)),
    // The typed "yes" of `pvctl reclaim`: the volume's data goes to another claim.
    confirm: (question, warning) => confirmOnTerminal(question, true, warning),
    // The claim's sync: asked as `pvctl sync` asks, its writes stopped by an interrupt as sync's are.
    confirmSync: (question, destructive) => confirmOnTerminal(question, destructive),
    interruptibleWrites: () => interruptibleWrites(),
    notice: writeNotice,
    spinner: startSpinner,
  }
}

export async function chooseOnTerminal<T>(message: string, choices: ReadonlyArray<Choice<T>>): Promise<T | undefined> {
  const {select} = await import('@inquirer/prompts')
  return answered((context) => select<T>({message, pageSize: PAGE_SIZE, choices: choices.map(inquirerChoice)}, context))
}

/** inquirer's search: what is typed narrows the list (filterChoices) on every key, the page redrawn. */
export async function searchOnTerminal<T>(
  message: string,
  choices: ReadonlyArray<FilterableChoice<T>>,
): Promise<T | undefined> {
  const {search} = await import('@inquirer/prompts')
  // Made once: a keystroke filters the list, it does not build its choices again.
  const all = choices.map((c) => ({choice: inquirerChoice(c), filterText: c.filterText, always: c.always}))
  return answered((context) =>
    search<T>({message, pageSize: PAGE_SIZE, source: (term) => filterChoices(all, term).map((c) => c.choice)}, context),
  )
}

function inquirerChoice<T>(c: Choice<T>) {
  return {value: c.value, name: c.name, description: c.description, short: c.short}
}

/** The prompt's answer; undefined when the user gives up (Ctrl-C) or the input ends (Ctrl-D): the picker ends. */
async function answered<T>(
  ask: (context: {output: NodeJS.WritableStream; signal: AbortSignal}) => Promise<T>,
): Promise<T | undefined> {
  const answer = await untilInputEnds(ask)
  // Ctrl-C: the user is done, and the exit status says it was an interrupt.
  if (answer === INTERRUPTED) process.exitCode = ExitCode.Interrupted
  return answer === INTERRUPTED || answer === ENDED ? undefined : answer
}
