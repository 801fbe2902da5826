import {Args, Flags} from '@oclif/core'

import {runAudit} from '../app/audit.js'
import {PvctlCommand} from '../cli/base-command.js'
import {defaultNamespace} from '../cli/default-namespace.js'
import {parseFeatureGatesFlag} from '../cli/feature-gates-flag.js'
import {connectionOptions, engineFlags, outputFlags, scopeFlags, sourceArgs, sourceFlags} from '../cli/flags.js'
import {startSpinner, writeNotice} from '../cli/interaction.js'
import {parseLabelSelectorFlag} from '../cli/label-selector-flag.js'
import {parseObjectArgs} from '../cli/object-args.js'
import {terminalWidth, writeChunks} from '../cli/write-chunks.js'
import {FINDING_CODES} from '../engine/audit/findings.js'
import {unknownCodes, type FailOn} from '../engine/audit/report.js'
import {UsageError} from '../errors.js'
import {auditJsonChunks, auditYamlChunks} from '../render/audit-doc.js'
import {renderAuditTable} from '../render/audit-table.js'
import {auditNames} from '../render/object-names.js'
import {ansi, plain, shouldColor} from '../render/color.js'

/** audit's own exit codes (docs/output-contract.md: every command documents them in its help). */
const EXIT_STATUS = [
  '0  no finding at or above --fail-on, and the controller would change nothing',
  '1  a finding at or above --fail-on, or changes the controller would make (pvctl sync --dry-run lists them)',
  '2  usage or input error: bad flag, unknown --ignore code, malformed snapshot, no such object',
  '3  cluster error: unreachable or forbidden API',
]

export default class Audit extends PvctlCommand {
  static override summary = 'Report what is unhealthy once the PV controller has done what it is about to do.'

  static override description = `Loads the state once, plans the controller's sync as pvctl sync --dry-run does, and judges the state after the plan: a problem the controller is about to fix is a planned change, not a finding. Each claim is judged by its pvctl explain verdict, so the two never disagree.

Each finding has a code, a severity, the object, a message, the evidence it rests on and a fix (docs/codes.md):
${Object.entries(FINDING_CODES)
  .map(([code, c]) => `  ${code} (${c.severity})`)
  .join('\n')}

With -f the state comes from a snapshot; otherwise from the cluster of the kubeconfig, read-only.

EXIT STATUS
${EXIT_STATUS.map((l) => `  ${l}`).join('\n')}`

  static override examples = [
    {description: 'Audit a snapshot:', command: '<%= config.bin %> <%= command.id %> -f examples/cluster.yaml'},
    {description: 'Fail only on errors, as JSON:', command: '<%= config.bin %> <%= command.id %> -f examples/cluster.yaml --fail-on error -o json'},
    {description: 'One namespace of the live cluster, without the expected waits:', command: '<%= config.bin %> <%= command.id %> -n shop --ignore ClaimWaitingForConsumer,ClaimWaitingForScheduling'},
  ]

  static override strict = false

  static override args = {
    objects: Args.string({description: 'Objects to audit: pvc/NAME (namespace from -n, else the context\'s, else default), pv/NAME. Default: all in scope.', required: false, ignoreStdin: true}),
  }

  static override flags = {
    ...sourceFlags,
    ...scopeFlags,
    ...outputFlags(['table', 'json', 'yaml', 'name'], 'table'),
    'fail-on': Flags.string({summary: 'The lowest severity that makes audit exit 1 (none: only planned changes do).', options: ['error', 'warning', 'info', 'none'], default: 'warning', helpValue: 'SEVERITY'}),
    ignore: Flags.string({summary: 'Finding codes to leave out, comma-separated (the summary counts them).', helpValue: 'CODE,...'}),
    ...engineFlags,
  }

  public async run(): Promise<void> {
    const {argv, flags} = await this.parse(Audit)
    const objects = argv as string[]
    const targets = parseObjectArgs(objects, objects.length > 0 ? defaultNamespace(flags) : 'default', flags['all-namespaces'])
    const ignore = (flags.ignore ?? '').split(',').map((c) => c.trim()).filter((c) => c !== '')
    const unknown = unknownCodes(ignore)
    if (unknown.length > 0) throw new UsageError(`--ignore: unknown finding code${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}`, ['the codes are listed in pvctl audit --help and docs/codes.md'])
    const {report, exitCode, after} = await runAudit(
      {
        gates: parseFeatureGatesFlag(flags['feature-gates']),
        hostPathProvisioning: flags['enable-hostpath-provisioner'],
        targets: targets.length > 0 ? targets : undefined,
        namespace: flags['all-namespaces'] ? undefined : flags.namespace,
        labelSelector: flags.selector !== undefined ? parseLabelSelectorFlag(flags.selector) : undefined,
        labelSelectorText: flags.selector,
        failOn: flags['fail-on'] as FailOn,
        ignore: new Set(ignore),
        sourceArgs: sourceArgs(flags),
        filename: flags.filename,
        stdin: process.stdin,
        ...connectionOptions(flags),
      },
      {notice: writeNotice, spinner: startSpinner},
    )
    const palette = shouldColor(process.env, Boolean(process.stdout.isTTY), flags.color) ? ansi : plain
    const table = () => renderAuditTable(report, palette, {noHeaders: flags['no-headers'], width: terminalWidth(process.stdout)})
    const chunks = flags.output === 'json' ? auditJsonChunks(report) : flags.output === 'yaml' ? auditYamlChunks(report) : flags.output === 'name' ? [auditNames(report)] : [table()]
    await writeChunks(process.stdout, chunks)
    for (const line of after) writeNotice(line)
    process.exitCode = exitCode
  }
}
