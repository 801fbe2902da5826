// `pvctl help [COMMAND]`: what `pvctl --help` and `pvctl COMMAND --help` print. oclif's help plugin
// answered an unknown command with a " ›   Error:" banner; here it is the one `error:` line of every
// other mistake (src/cli/unknown-command.ts).
import {Args, loadHelpClass} from '@oclif/core'

import {PvctlCommand} from '../cli/base-command.js'
import {unknownCommand} from '../cli/unknown-command.js'

export default class Help extends PvctlCommand {
  static override summary = 'Show the help of pvctl, or of one of its commands.'
  static override description = `The same text as \`pvctl --help\` and \`pvctl COMMAND --help\`.

EXIT STATUS
  0  the help was shown
  2  usage error: a command pvctl does not have`
  static override examples = ['<%= config.bin %> help', '<%= config.bin %> help sync']
  static override args = {
    command: Args.string({description: 'The command to show the help of.', required: false}),
  }

  async run(): Promise<void> {
    const {args} = await this.parse(Help)
    const help = new (await loadHelpClass(this.config))(this.config)
    if (args.command === undefined) return help.showHelp([])
    const command = this.config.findCommand(args.command)
    if (command === undefined) throw unknownCommand(this.config, args.command)
    // Not showHelp([id]): it skips the word "help", and `pvctl help help` would print the root help.
    await help.showCommandHelp(command, this.config.topics)
  }
}
