// `pvctl __complete WORD... CURRENT`, hidden: what the scripts of `pvctl completion SHELL` call at every TAB,
// as cobra's `__complete` (kubectl's, and kubectl_complete-pvctl's for `kubectl pvctl`). Prints one candidate
// a line (a tab, then its description), then cobra's directive line (`:4`). Never an error: a line it cannot
// complete gets no candidates.
import type {Command} from '@oclif/core'

import {readCompletionNames} from '../app/completion-names.js'
import {PvctlCommand} from '../cli/base-command.js'
import {complete, type CompletionCommand, Directive, formatAnswer, withNames} from '../cli/completion/candidates.js'
import {defaultNamespace} from '../cli/default-namespace.js'
import {parseDuration} from '../cli/duration.js'
import {exitWhenFinished} from '../cli/interrupts.js'
import {OUTPUT_FORMATS} from '../cli/output-formats.js'

export default class Complete extends PvctlCommand {
  static override hidden = true
  static override summary = 'Shell completion candidates for the words given (called by the completion scripts).'
  static override description = `Called by the scripts of pvctl completion with the words of the line being completed, the last the one under the cursor; prints one candidate a line (a tab, then its description), then cobra's directive line (:0 complete files when there is no candidate, :4 do not, :2 no space after the candidate, :1 something failed).

EXIT STATUS
  0  always: a line that cannot be completed gets no candidates`
  static override strict = false

  public async run(): Promise<void> {
    // bin/run.js puts `--` first, so that a `-h` being completed is not taken for a request for help.
    const words = this.argv[0] === '--' ? this.argv.slice(1) : this.argv
    const commands = this.config.commands
    // An alias (`why`) is listed as a command of its own: its formats are those of the command it names.
    const canonical = (c: Command.Loadable) =>
      c.aliases.includes(c.id) ? (commands.find((o) => o.id !== c.id && o.aliases.includes(c.id))?.id ?? c.id) : c.id
    const answer = complete(
      words,
      commands.map((c) => completionCommand(c, canonical(c))),
    )
    if (!('names' in answer)) {
      process.stdout.write(formatAnswer(answer))
      return
    }
    const want = answer.names
    const namespace = want.kind === 'claims' ? defaultNamespace({namespace: want.namespace, ...want.source}) : 'default'
    let requestTimeoutMs: number | undefined
    try {
      requestTimeoutMs =
        want.source.requestTimeout !== undefined
          ? parseDuration(want.source.requestTimeout, '--request-timeout', {bareSeconds: true})
          : undefined
    } catch {
      // A --request-timeout being typed (`3`, then `30s`) that does not parse yet: the default deadline.
    }
    exitWhenFinished()
    const found = await readCompletionNames({kind: want.kind, source: want.source, requestTimeoutMs})
    process.stdout.write(formatAnswer(withNames(want, found, namespace)))
  }

  protected override catch(): Promise<void> {
    process.stdout.write(`:${Directive.Error}\n`)
    return Promise.resolve()
  }
}

/** The parts of an oclif command completion reads; -o's values are its row of OUTPUT_FORMATS (the flag checks them itself). */
function completionCommand(c: Command.Loadable, id: string): CompletionCommand {
  const formats = (OUTPUT_FORMATS as Partial<Record<string, readonly string[]>>)[id]
  return {
    id: c.id,
    // A plugin's manifest may leave these out, whatever oclif's types say.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
    aliases: c.aliases ?? [],
    summary: c.summary,
    hidden: c.hidden,
    strict: c.strict !== false,
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
    args: Object.values(c.args ?? {}).map((a) => ({name: a.name, options: a.options})),
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
    flags: Object.values(c.flags ?? {})
      .filter((f) => f.hidden !== true)
      .map((f) => ({
        name: f.name,
        char: f.char,
        takesValue: f.type === 'option',
        options: f.type === 'option' ? (f.name === 'output' && formats !== undefined ? formats : f.options) : undefined,
        multiple: f.type === 'option' ? f.multiple : undefined,
        allowNo: f.type === 'boolean' ? f.allowNo : undefined,
        summary: f.summary,
      })),
  }
}
