// The terminal side of the interactive `pvctl explain`: inquirer's select for the choices (on stderr, so
// that stdout carries only what is shown), the renderers for what is shown. Used only when canPrompt().
import type {Choice, ExplainSessionUi} from '../app/explain-session.js'
import {ExitCode} from '../errors.js'
import type {Palette} from '../render/color.js'
import {writeNotice} from './interaction.js'
import {type ExplainSource, renderClaimExplanation} from '../render/explain-claim.js'
import type {TableLayout} from '../render/kubectl-table.js'
import {kubectlYaml} from '../render/kubectl-yaml.js'
import {renderSyncTable} from '../render/sync-table.js'

/** How many choices a menu shows at once. */
const PAGE_SIZE = 12

/** `layout`: --no-headers, and the terminal's width the tables are fitted to. */
export function terminalExplainUi(palette: Palette, source: ExplainSource | undefined, layout: TableLayout): ExplainSessionUi {
  const out = (text: string) => process.stdout.write(`\n${text}\n`)
  return {
    choose: chooseOnTerminal,
    showClaim: (e) => out(renderClaimExplanation(e, palette, source, layout)),
    showVolume: (volume) => out(kubectlYaml(volume)),
    showPlan: (report) => out(renderSyncTable(report, {wide: false, palette, ...layout})),
    notice: writeNotice,
  }
}

export async function chooseOnTerminal<T>(message: string, choices: ReadonlyArray<Choice<T>>): Promise<T | undefined> {
  const {select} = await import('@inquirer/prompts')
  try {
    return await select<T>(
      {message, pageSize: PAGE_SIZE, choices: choices.map((c) => ({value: c.value, name: c.name, description: c.description}))},
      {output: process.stderr},
    )
  } catch (err) {
    // Ctrl-C at the prompt (ExitPromptError): the user is done, and the exit status says it was an interrupt.
    if ((err as Error).name === 'ExitPromptError') {
      process.exitCode = ExitCode.Interrupted
      return undefined
    }
    throw err
  }
}
