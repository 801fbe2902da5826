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
    const answer = complete(words, this.config.commands.map(completionCommand))
    if (!('names' in answer)) {
      process.stdout.write(formatAnswer(answer))
      return
    }
    const want = answer.names
    const namespace = want.kind === 'claims' ? defaultNamespace({namespace: want.namespace, ...want.source}) : 'default'
    let requestTimeoutMs: number | undefined
    try {
      requestTimeoutMs = want.source.requestTimeout !== undefined ? parseDuration(want.source.requestTimeout, '--request-timeout', {bareSeconds: true}) : undefined
    } catch {
      // A --request-timeout being typed (`3`, then `30s`) that does not parse yet: the default deadline.
    }
    const found = await readCompletionNames({kind: want.kind, source: want.source, requestTimeoutMs})
    process.stdout.write(formatAnswer(withNames(want, found, namespace)))
    // A kept-alive connection to the cluster must not hold the shell's prompt.
    setTimeout(() => process.exit(), 50).unref()
  }

  protected override async catch(): Promise<void> {
    process.stdout.write(`:${Directive.Error}\n`)
  }
}

/** The parts of an oclif command completion reads. */
function completionCommand(c: Command.Loadable): CompletionCommand {
  return {
    id: c.id,
    aliases: c.aliases ?? [],
    summary: c.summary,
    hidden: c.hidden === true,
    strict: c.strict !== false,
    args: Object.values(c.args ?? {}).map((a) => ({name: a.name, options: a.options})),
    flags: Object.values(c.flags ?? {})
      .filter((f) => f.hidden !== true)
      .map((f) => ({
        name: f.name,
        char: f.char,
        takesValue: f.type === 'option',
        options: f.type === 'option' ? f.options : undefined,
        multiple: f.type === 'option' ? f.multiple : undefined,
        allowNo: f.type === 'boolean' ? f.allowNo : undefined,
        summary: f.summary,
      })),
  }
}
