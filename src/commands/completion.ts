// `pvctl completion bash|zsh|fish|powershell`: the shell's completion script, as `kubectl completion`.
import {Args} from '@oclif/core'

import {PvctlCommand} from '../cli/base-command.js'
import {completionScript, type Shell, SHELLS} from '../cli/completion/scripts.js'

/** The program the scripts complete: `kubectl pvctl` is completed by kubectl, through kubectl_complete-pvctl. */
const PROGRAM = 'pvctl'

export default class Completion extends PvctlCommand {
  static override summary = 'Print the shell completion script for bash, zsh, fish or PowerShell.'

  static override description = `The script completes commands, flags, the values of flags with fixed ones (-o, --fail-on), and object arguments (pvc/NAME, pv/NAME, pvc NAME, -n NAMESPACE, --context NAME) with the names of the claims, volumes and namespaces of the snapshot named by -f on the line being completed, else of the cluster of the kubeconfig and context on the line (read-only, given up after the line's --request-timeout, else 5 seconds; a cluster that cannot be read offers no names).

To load it in bash: source <(pvctl completion bash), a line to add to ~/.bashrc for every new shell. In zsh, the same with zsh, after compinit (in ~/.zshrc). In fish: pvctl completion fish | source, or save it as ~/.config/fish/completions/pvctl.fish. In PowerShell: pvctl completion powershell | Out-String | Invoke-Expression, in $PROFILE.

As a kubectl plugin, kubectl (1.26 or newer) completes kubectl pvctl itself, through the kubectl_complete-pvctl executable that a global install puts beside kubectl-pvctl: nothing to load.

EXIT STATUS
  0  the script was printed
  2  usage error: a shell pvctl has no script for`

  static override examples = [
    {
      description: 'The bash script (source <(pvctl completion bash) loads it into this shell):',
      command: '<%= config.bin %> <%= command.id %> bash',
    },
    {
      description:
        'The zsh script (source <(pvctl completion zsh) in ~/.zshrc, after compinit, loads it into every new zsh):',
      command: '<%= config.bin %> <%= command.id %> zsh',
    },
  ]

  static override args = {
    shell: Args.string({description: 'The shell to print the script for.', required: true, options: [...SHELLS]}),
  }

  public async run(): Promise<void> {
    const {args} = await this.parse(Completion)
    process.stdout.write(completionScript(args.shell as Shell, PROGRAM))
  }
}
