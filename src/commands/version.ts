// `pvctl version` (and `pvctl --version`, which bin/run.js turns into it): kubectl version's output.
import {Flags} from '@oclif/core'

import {clientVersion, serverVersion, type VersionDoc} from '../app/version.js'
import {PvctlCommand} from '../cli/base-command.js'
import {sourceFlags} from '../cli/flags.js'
import {parseDuration} from '../cli/duration.js'
import {kubectlYaml} from '../render/kubectl-yaml.js'

export default class Version extends PvctlCommand {
  static override summary = "Print pvctl's version and, when a cluster is reachable, the API server's."
  static override description = `As kubectl version: the client's version, then the server's, read from the cluster of the kubeconfig (GET /version). --client prints the client's only and contacts nothing.

EXIT STATUS
  0  the version was printed
  2  usage error
  3  cluster error: the server's version could not be read (the client's is printed first)`
  static override examples = ['<%= config.bin %> <%= command.id %> --client', '<%= config.bin %> <%= command.id %> --client -o json']
  static override flags = {
    client: Flags.boolean({summary: "The client's version only; contact no server.", default: false}),
    output: Flags.string({char: 'o', summary: 'Output format: json|yaml (default: text).', options: ['json', 'yaml'], helpValue: 'FORMAT'}),
    kubeconfig: sourceFlags.kubeconfig,
    context: sourceFlags.context,
    'request-timeout': sourceFlags['request-timeout'],
  }

  public async run(): Promise<void> {
    const {flags} = await this.parse(Version)
    const doc: VersionDoc = {clientVersion: clientVersion(this.config.version, process)}
    let failure: unknown
    if (!flags.client) {
      try {
        doc.serverVersion = await serverVersion({
          kubeconfig: flags.kubeconfig,
          context: flags.context,
          requestTimeoutMs: parseDuration(flags['request-timeout'], '--request-timeout', {bareSeconds: true}),
        })
      } catch (err) {
        failure = err
      }
    }
    if (flags.output === 'json') process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`)
    else if (flags.output === 'yaml') process.stdout.write(kubectlYaml(doc))
    else {
      process.stdout.write(`Client Version: ${doc.clientVersion.gitVersion}\n`)
      if (doc.serverVersion !== undefined) process.stdout.write(`Server Version: ${doc.serverVersion.gitVersion}\n`)
    }
    if (failure !== undefined) throw failure
  }
}
