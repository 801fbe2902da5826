import {Args, Flags, type Interfaces} from '@oclif/core'

import type {RunLoopOptions} from '../app/run-loop.js'
import {runSync} from '../app/run-sync.js'
import {PvctlCommand} from '../cli/base-command.js'
import {connectionOptions, engineFlags, outputFlags, scopeFlags, sourceArgs, sourceFlags} from '../cli/flags.js'
import {defaultNamespace} from '../cli/default-namespace.js'
import {engineRequest} from '../cli/feature-gates-flag.js'
import {parseLabelSelectorFlag} from '../cli/label-selector-flag.js'
import {exitWhenFinished, interruptibleWrites, whileInterruptible} from '../cli/interrupts.js'
import {loopFlags, loopLogger, loopOnlyFlagGiven, loopOptionsFromFlags} from '../cli/loop-flags.js'
import {parseObjectArgs} from '../cli/object-args.js'
import {SYNC_RENDERERS} from '../cli/report-renderers.js'
import {outputContext, showResult} from '../cli/show-result.js'
import {terminalSyncUi} from '../cli/sync-ui.js'
import {EXIT_STATUS_HELP, UsageError} from '../errors.js'

export default class Sync extends PvctlCommand {
  static override summary = 'Plan (and apply) what the PersistentVolume controller would do.'

  static override description = `Runs the Kubernetes PV controller's syncClaim and syncVolume, as the release the cluster runs (--kube-version), over every claim and volume in scope (or only the objects named), repeating until nothing changes, and reports every binding, release, recycle, deletion and phase change as a plan.

Claims are synced before volumes, each in name order (namespace, then name), as an informer lists them; rounds repeat until one makes no write (at most --rounds).

With -f the state comes from a snapshot and nothing is ever written: the plan is a simulation.

Without -f the state comes from the cluster of the kubeconfig (--kubeconfig, KUBECONFIG, ~/.kube/config, in-cluster, as kubectl finds it). Without --dry-run, pvctl shows the plan, asks for confirmation on a terminal (--yes skips it; with no terminal and no --yes it refuses), checks its permissions, and writes the plan in the controller's order, each write conditional on the resourceVersion read: a conflict re-reads and re-plans. While kube-controller-manager's Lease (kube-system/kube-controller-manager) is live, its binder syncs the same objects: pvctl says so, and refuses a plan that releases, recycles or deletes a volume, unless --controllers says the binder is disabled. On a terminal a spinner says how many writes are made of those planned, and which pod is waited for. Ctrl-C (SIGINT, SIGTERM, SIGHUP) before the writes begin ends pvctl with nothing written (exit 130); while writing, it stops issuing writes, lets the one in flight finish and reports what was written and what was not (exit 130; a second Ctrl-C does not wait); a re-run completes the job. The end of input at the question is a no.

In sync is not healthy: when a dry run has nothing to change but pvctl audit finds errors or warnings in the same state, the last line on stderr says how many, with the pvctl audit command to run (same objects, scope and source). The exit status stays 0.

With --watch pvctl runs as the controller does, until SIGTERM: informers list and watch volumes, claims, classes, pods and nodes; each change queues its object; one worker syncs claims and one volumes, each sync written as above, a volume plugin's operation (a recycler or cleanup pod) carried out in the background while the workers go on; every --resync every claim and volume of its caches is synced again (--relist-period: everything listed again too). --interval runs a full sync every interval instead. Writing needs --yes (--dry-run streams what would be written). Unless --controllers says kube-controller-manager's binder is disabled, pvctl does not write while the kube-system/kube-controller-manager Lease is live. --leader-elect lets several replicas run with one writer. Lines on stdout are actions, logs go to stderr; SIGTERM exits 0.

EXIT STATUS
${EXIT_STATUS_HELP.map((l) => `  ${l}`).join('\n')}`

  static override examples = [
    {
      description: 'Audit a snapshot (exit 1 when the cluster is not in sync):',
      command: '<%= config.bin %> <%= command.id %> --dry-run -f examples/cluster.yaml',
    },
    {
      description: 'The same as a coloured diff of every object that would change:',
      command: '<%= config.bin %> <%= command.id %> --dry-run -f examples/cluster.yaml -o diff',
    },
    {
      description: 'One sync of one claim, as JSON:',
      command: '<%= config.bin %> <%= command.id %> --dry-run -f snapshot.yaml pvc/data -n team-a --rounds 1 -o json',
    },
    {
      description: 'Audit a live cluster continuously, as JSON lines (writes nothing):',
      command: '<%= config.bin %> <%= command.id %> --watch --dry-run -o json',
    },
    {
      description: 'Run as the binder, one of several replicas:',
      command:
        '<%= config.bin %> <%= command.id %> --watch --yes --leader-elect --controllers=*,-persistentvolume-binder-controller --metrics-bind-address :8080',
    },
    {
      description: 'Read the snapshot from stdin:',
      command:
        'kubectl get pv,pvc,storageclasses,pods,nodes -A -o yaml | <%= config.bin %> <%= command.id %> --dry-run -f -',
    },
  ]

  static override strict = false

  static override args = {
    objects: Args.string({
      description:
        "Objects to sync: pvc/NAME (namespace from -n, else the context's, else default) or pvc/NAMESPACE/NAME, pv/NAME, or TYPE NAME... (pvc data, pv pv-0001 pv-0002). Default: all.",
      required: false,
      ignoreStdin: true,
    }),
  }

  static override flags = {
    ...sourceFlags,
    ...scopeFlags,
    ...outputFlags('sync'),
    'dry-run': Flags.boolean({summary: 'Plan only; write nothing.', default: false}),
    rounds: Flags.integer({
      summary: 'At most this many rounds of syncs (default: until stable, at most 100).',
      min: 1,
      helpValue: 'N',
    }),
    yes: Flags.boolean({char: 'y', summary: 'Write without asking for confirmation (live clusters).', default: false}),
    'fail-on-empty': Flags.boolean({
      summary:
        'Exit 2 when -n or -l matches no volume and no claim (an audit that would check nothing), instead of a notice.',
      default: false,
    }),
    'allow-mass-release': Flags.boolean({
      summary:
        'Release, recycle or delete more volumes at once than the guard allows (the larger of 20 and 10% of bound volumes).',
      default: false,
    }),
    'local-volume-deleter': Flags.boolean({
      summary:
        'Delete local volumes whose policy is Delete, through a cleanup pod on their node (not something kube-controller-manager does).',
      default: false,
    }),
    'recycler-pod-template': Flags.string({
      summary:
        "A Pod (YAML or JSON) whose spec replaces the default recycler pod's, as kube-controller-manager's --pv-recycler-pod-template-filepath-* do.",
      helpValue: 'FILE',
    }),
    concurrency: Flags.integer({
      summary: 'Independent volume/claim pairs written at once (live clusters).',
      default: 4,
      min: 1,
      helpValue: 'N',
    }),
    events: Flags.boolean({
      summary: "Record the controller's events as core/v1 Events on the objects written (live clusters).",
      default: true,
      allowNo: true,
    }),
    ...engineFlags,
    ...loopFlags,
  }

  public async run(): Promise<void> {
    const {argv, flags, raw} = await this.parse(Sync)
    const objects = argv as string[]
    const options = syncOptions(objects, flags)
    validateSync(flags, raw, options.targets)
    if (loopMode(flags)) process.exitCode = await syncLoop(flags, options.common)
    else await syncOnce(objects, flags, options)
  }
}

type SyncFlags = Interfaces.InferredFlags<typeof Sync.flags>

const loopMode = (flags: SyncFlags) => flags.watch || flags.interval !== undefined

/** The objects named, and what one-shot and loop mode take alike, from the flags. */
function syncOptions(objects: string[], flags: SyncFlags) {
  const engine = engineRequest(flags)
  const targets = parseObjectArgs(
    objects,
    objects.length > 0 ? defaultNamespace(flags) : 'default',
    flags['all-namespaces'],
    flags.namespace,
  )
  const labelSelector = flags.selector !== undefined ? parseLabelSelectorFlag(flags.selector) : undefined
  const common = {
    dryRun: flags['dry-run'],
    yes: flags.yes,
    allowMassRelease: flags['allow-mass-release'],
    failOnEmpty: flags['fail-on-empty'],
    engine,
    namespace: flags['all-namespaces'] ? undefined : flags.namespace,
    labelSelector,
    labelSelectorText: flags.selector,
    ...connectionOptions(flags),
    concurrency: flags.concurrency,
    events: flags.events,
    localVolumeDeleter: flags['local-volume-deleter'],
    hostPathProvisioning: flags['enable-hostpath-provisioner'],
    controllers: flags.controllers.split(','),
    recyclerPodTemplate: flags['recycler-pod-template'],
  }
  return {targets, common}
}

/** The flags that go with one mode only. */
function validateSync(
  flags: SyncFlags,
  raw: ReadonlyArray<{type: string; flag?: string}>,
  targets: readonly unknown[],
): void {
  if (loopMode(flags)) {
    if (flags.filename !== undefined)
      throw new UsageError('--watch and --interval run against a live cluster: -f reads a snapshot once')
    if (targets.length > 0)
      throw new UsageError(
        '--watch and --interval sync every claim and volume in scope: name none (use -n or -l to narrow)',
      )
    return
  }
  const loopOnly = loopOnlyFlagGiven(raw)
  if (loopOnly !== undefined) throw new UsageError(`--${loopOnly} applies to loop mode: add --watch or --interval`)
}

/** The one-shot run's own options: the plan's bounds, the source, and the audit command its hint prints. */
function oneShotOptions(objects: string[], flags: SyncFlags, targets: ReturnType<typeof syncOptions>['targets']) {
  return {
    maxRounds: flags.rounds,
    targets: targets.length > 0 ? targets : undefined,
    filename: flags.filename,
    stdin: process.stdin,
    auditArgs: [
      ...objects,
      ...(flags['all-namespaces'] ? ['-A'] : flags.namespace !== undefined ? ['-n', flags.namespace] : []),
      ...(flags.selector !== undefined ? ['-l', flags.selector] : []),
      ...(flags['kube-version'] !== undefined ? ['--kube-version', flags['kube-version']] : []),
      ...(flags['feature-gates'] !== undefined ? ['--feature-gates', flags['feature-gates']] : []),
      ...(flags['enable-hostpath-provisioner'] ? ['--enable-hostpath-provisioner'] : []),
      ...sourceArgs(flags),
    ],
  }
}

/**
 * One sync: live, without --dry-run, an interrupt before the writes begin ends pvctl (nothing written); once
 * they begin, it stops issuing writes and the report says what was and was not written (exit 130).
 */
async function syncOnce(
  objects: string[],
  flags: SyncFlags,
  {targets, common}: ReturnType<typeof syncOptions>,
): Promise<void> {
  const writes = interruptibleWrites(flags['dry-run'] || flags.filename !== undefined ? undefined : 'nothing written')
  try {
    const result = await runSync(
      {...common, ...oneShotOptions(objects, flags, targets)},
      terminalSyncUi(flags, writes.writing),
    )
    await showResult(result, {
      renderers: SYNC_RENDERERS,
      output: flags.output,
      document: result.report,
      context: outputContext(flags),
    })
  } finally {
    writes.end()
  }
}

/**
 * Loop mode until SIGTERM or SIGINT (client-node and the controller are loaded only now). An interrupt stops
 * the loop as the controller stops (its log says so); a second one does not wait.
 */
async function syncLoop(flags: SyncFlags, common: ReturnType<typeof syncOptions>['common']): Promise<number> {
  const log = loopLogger(flags, (line) => process.stderr.write(line))
  const options: RunLoopOptions = {...loopOptionsFromFlags(flags), ...common}
  const {runLoop} = await import('../app/run-loop.js')
  exitWhenFinished()
  const out = (text: string) => process.stdout.write(text)
  return whileInterruptible(undefined, 'not waiting for the syncs in flight', (signal) =>
    runLoop(options, {out, log, signal}),
  )
}
