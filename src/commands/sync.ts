import {Args, Flags} from '@oclif/core'

import {loadState} from '../app/load-state.js'
import {hasChanges, planSync} from '../app/sync.js'
import {PvctlCommand} from '../cli/base-command.js'
import {engineFlags, outputFlags, scopeFlags, sourceFlags} from '../cli/flags.js'
import {parseLabelSelectorFlag} from '../cli/label-selector-flag.js'
import {parseObjectArgs} from '../cli/object-args.js'
import {FeatureGateError, parseFeatureGates} from '../engine/feature-gates.js'
import {EXIT_STATUS_HELP, ExitCode, UsageError} from '../errors.js'
import {ansi, plain, shouldColor} from '../render/color.js'
import {renderReportJson, renderReportYaml} from '../render/report-doc.js'
import {renderSyncDiff} from '../render/sync-diff.js'
import {renderSyncTable} from '../render/sync-table.js'

export default class Sync extends PvctlCommand {
  static override summary = 'Plan (and apply) what the PersistentVolume controller would do.'

  static override description = `Runs the Kubernetes v1.31 PV controller's syncClaim and syncVolume over every claim and volume in scope (or only the objects named), repeating until nothing changes, and reports every binding, release, recycle, deletion and phase change as a plan.

Claims are synced before volumes, each in name order (namespace, then name), as an informer lists them; rounds repeat until one makes no write (at most --rounds).

With -f the state comes from a snapshot and nothing is ever written: the plan is a simulation.

EXIT STATUS
${EXIT_STATUS_HELP.map((l) => `  ${l}`).join('\n')}`

  static override examples = [
    {description: 'Audit a snapshot (exit 1 when the cluster is not in sync):', command: '<%= config.bin %> <%= command.id %> --dry-run -f examples/cluster.yaml'},
    {description: 'The same as a coloured diff of every object that would change:', command: '<%= config.bin %> <%= command.id %> --dry-run -f examples/cluster.yaml -o diff'},
    {description: 'One sync of one claim, as JSON:', command: '<%= config.bin %> <%= command.id %> --dry-run -f snapshot.yaml pvc/data -n team-a --rounds 1 -o json'},
    {description: 'Read the snapshot from stdin:', command: 'kubectl get pv,pvc,storageclasses,pods,nodes -A -o yaml | <%= config.bin %> <%= command.id %> --dry-run -f -'},
  ]

  static override strict = false

  static override args = {
    objects: Args.string({description: 'Objects to sync: pvc/NAME (namespace from -n), pv/NAME. Default: all.', required: false, ignoreStdin: true}),
  }

  static override flags = {
    ...sourceFlags,
    ...scopeFlags,
    ...outputFlags(['table', 'wide', 'diff', 'json', 'yaml'], 'table'),
    'dry-run': Flags.boolean({summary: 'Plan only; write nothing.', default: false}),
    rounds: Flags.integer({summary: 'At most this many rounds of syncs (default: until stable, at most 100).', min: 1, helpValue: 'N'}),
    yes: Flags.boolean({char: 'y', summary: 'Write without asking for confirmation (live clusters).', default: false}),
    ...engineFlags,
  }

  public async run(): Promise<void> {
    const {argv, flags} = await this.parse(Sync)

    let gates
    try {
      gates = parseFeatureGates(flags['feature-gates'])
    } catch (err) {
      if (err instanceof FeatureGateError) throw new UsageError(`--feature-gates: ${err.message}`)
      throw err
    }
    const namespace = flags.namespace ?? 'default'
    const targets = parseObjectArgs(argv as string[], namespace)
    const labelSelector = flags.selector !== undefined ? parseLabelSelectorFlag(flags.selector) : undefined
    const loaded = await loadState(flags, process.stdin)
    for (const [kind, count] of Object.entries(loaded.skipped)) {
      process.stderr.write(`pvctl: skipped ${count} ${kind} object${count === 1 ? '' : 's'} (not read by the PV controller)\n`)
    }

    const report = planSync(loaded.state, {
      dryRun: flags['dry-run'] || !loaded.live,
      gates,
      maxRounds: flags.rounds,
      targets: targets.length > 0 ? targets : undefined,
      namespace: flags['all-namespaces'] ? undefined : flags.namespace,
      labelSelector,
    })

    const palette = shouldColor(process.env, Boolean(process.stdout.isTTY), flags.color) ? ansi : plain
    switch (flags.output) {
      case 'json':
        process.stdout.write(renderReportJson(report))
        break
      case 'yaml':
        process.stdout.write(renderReportYaml(report))
        break
      case 'diff':
        process.stdout.write(renderSyncDiff(report, palette))
        break
      default:
        process.stdout.write(renderSyncTable(report, {wide: flags.output === 'wide', palette}))
    }
    if (!loaded.live && !flags['dry-run']) {
      process.stderr.write('pvctl: the state came from a snapshot (-f): nothing was written; the plan above is a simulation\n')
    }
    process.exitCode = hasChanges(report) ? ExitCode.Changes : ExitCode.Ok
  }
}
