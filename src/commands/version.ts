// `pvctl version` (and `pvctl --version`, which bin/run.js turns into it): kubectl version's output.
import {Flags} from '@oclif/core'

import {clientVersion, decidedFor, serverVersion, type VersionDoc} from '../app/version.js'
import {PvctlCommand} from '../cli/base-command.js'
import {engineRequest} from '../cli/feature-gates-flag.js'
import {engineFlags, sourceFlags} from '../cli/flags.js'
import {decidedAsLine} from '../engine/api/kube-version.js'
import {parseDuration} from '../cli/duration.js'
import {kubectlYaml} from '../render/kubectl-yaml.js'

export default class Version extends PvctlCommand {
  static override summary = "Print pvctl's version and, when a cluster is reachable, the API server's."
  static override description = `As kubectl version: the client's version, then the server's, read from the cluster of the kubeconfig (GET /version). --client prints the client's only and contacts nothing. Then the Kubernetes release pvctl's deciding commands take against that cluster, and where it comes from: --kube-version, else the server's version, else (no server read) 1.31.

EXIT STATUS
  0  the version was printed
  2  usage error
  3  cluster error: the server's version could not be read (the client's is printed first)`
  static override examples = [
    '<%= config.bin %> <%= command.id %> --client',
    '<%= config.bin %> <%= command.id %> --client -o json',
  ]
  static override flags = {
    client: Flags.boolean({summary: "The client's version only; contact no server.", default: false}),
    output: Flags.string({
      char: 'o',
      summary: 'Output format: json|yaml (default: text).',
      options: ['json', 'yaml'],
      helpValue: 'FORMAT',
    }),
    kubeconfig: sourceFlags.kubeconfig,
    context: sourceFlags.context,
    'request-timeout': sourceFlags['request-timeout'],
    'kube-version': engineFlags['kube-version'],
  }

  public async run(): Promise<void> {
    const {flags} = await this.parse(Version)
    const {kubeVersion} = engineRequest(flags)
    const client = clientVersion(this.config.version, process)
    let server: VersionDoc['serverVersion']
    let failure: unknown
    if (!flags.client) {
      try {
        server = await serverVersion({
          kubeconfig: flags.kubeconfig,
          context: flags.context,
          requestTimeoutMs: parseDuration(flags['request-timeout'], '--request-timeout', {bareSeconds: true}),
        })
      } catch (err) {
        failure = err
      }
    }
    const doc: VersionDoc = {
      clientVersion: client,
      ...(server !== undefined ? {serverVersion: server} : {}),
      kubernetesVersion: decidedFor(kubeVersion, server),
    }
    if (flags.output === 'json') process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`)
    else if (flags.output === 'yaml') process.stdout.write(kubectlYaml(doc))
    else {
      process.stdout.write(`Client Version: ${doc.clientVersion.gitVersion}\n`)
      if (doc.serverVersion !== undefined) process.stdout.write(`Server Version: ${doc.serverVersion.gitVersion}\n`)
      process.stdout.write(`${decidedAsLine(doc.kubernetesVersion)}\n`)
    }
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- what the server's /version call threw, rethrown as it was
    if (failure !== undefined) throw failure
  }
}
