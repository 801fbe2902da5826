import {Args, Flags, type Interfaces} from '@oclif/core'

import type {ExplainSessionUi} from '../app/explain-session.js'
import {type ExplainAsked, type ExplainSource, runExplain} from '../app/run-explain.js'
import {LIST_CANDIDATES} from '../engine/repair/explain-state.js'
import {PvctlCommand} from '../cli/base-command.js'
import {terminalExplainUi} from '../cli/explain-picker.js'
import {defaultNamespace} from '../cli/default-namespace.js'
import {engineRequest} from '../cli/feature-gates-flag.js'
import {connectionOptions, engineFlags, outputFlags, scopeFlags, sourceArgs, sourceFlags} from '../cli/flags.js'
import {canPrompt, startSpinner, writeNotice} from '../cli/interaction.js'
import {parseLabelSelectorFlag} from '../cli/label-selector-flag.js'
import {explainTarget} from '../cli/object-args.js'
import {renderOutput} from '../cli/output-formats.js'
import {EXPLAIN_RENDERERS} from '../cli/report-renderers.js'
import {outputContext} from '../cli/show-result.js'
import {writeChunks} from '../cli/write-chunks.js'
import {ExitCode} from '../errors.js'

/** explain's own exit codes (docs/output-contract.md: every command documents them in its help). */
const EXIT_STATUS = [
  '0  the claim is Bound, or the next sync binds it (WillBind); for pv/NAME, the volume is Available, pre-bound, binding or Bound; with no object, every claim listed will bind',
  '1  the claim stays Pending, Lost or misbound (any other verdict); for pv/NAME, the volume is Released, Failed, being unbound or being deleted',
  '2  usage or input error: bad flag, malformed snapshot, no such claim or volume (close names are suggested)',
  '3  cluster error: unreachable or forbidden API',
  '130  interrupted (Ctrl-C, SIGTERM or SIGHUP), also at the picker',
]

export default class Explain extends PvctlCommand {
  static override summary = 'Explain why a claim is (not) bound, or what the controller will do with a volume.'

  static override description = `For pvc/NAME, follows the Kubernetes v1.31 PV controller's syncClaim for that claim and reports its verdict (Bound, WillBind, NoMatchingVolume, WillProvision, ExternalProvisioning, ProvisioningNotSupported, StorageClassNotFound, WaitForFirstConsumer, WaitForPodScheduled, RequestedVolumeNotFound, RequestedVolumeBoundElsewhere, RequestedVolumeMismatch, Lost, Misbound, SyncError), the volume it is or will be bound to, the storage class in play and how it was chosen, the pods that use the claim, every volume with all the reasons the controller refuses it (closest first), and what would fix it: where pvctl reclaim may give the claim a Released volume held back only by its stale claimRef, the pvctl reclaim pv/X --for NS/CLAIM command, with the -f or --context explain read. Beyond the controller, it says what the parties around it show where the state shows it (notes in -o json): a pod that names its node itself and so bypasses the scheduler, a pod the scheduler cannot place, a selected node that is gone, a default class written by admission while a volume without a class would bind, a volume provisioned for the claim that cannot serve it, a smaller claim holding the volume this one needed.

For pv/NAME, follows syncVolume: Available, pre-bound and waiting, Bound, Released and the reclaim that follows, Failed and why, and, for a volume being deleted, each finalizer and what it waits for.

With no object, explains every claim in scope (-n, or every namespace) whose verdict is not a healthy Bound (those not Bound, and those recorded Bound that their next sync makes Lost or Misbound): on a terminal, a picker lets you choose one (the claims that will never bind first, typed to filter by namespace/name or verdict) and follow up (a near-miss volume's YAML, the dry-run sync of the claim, the reclaim of a volume it would fit but for a stale claimRef, run as pvctl reclaim runs it); otherwise (or with -o json|yaml) all of them are printed, as a List. Each claim of a List carries its verdict, volume, summary, suggestions, class, pods, pointers and events in full, but only its ${LIST_CANDIDATES} nearest candidates, with candidatesTotal (every volume for every claim would be claims × volumes); --candidates N changes that, --candidates 0 lists every volume, and pvc/NAME explains one claim with all of them.

With -f the state comes from a snapshot; otherwise from the cluster of the kubeconfig, read-only: only the reclaim of the interactive flow writes, once confirmed with a typed "yes", as pvctl reclaim does (deploy/repair-rbac.yaml grants what it needs).

Beyond the controller's objects, explain reads what shows the controllers around the object at work: the claim's (or volume's) events, newest first; for a claim waiting for an external provisioner, a CSIDriver of that name, the Lease its leader election holds (external-provisioner's name rule: ebs.csi.aws.com → ebs-csi-aws-com, in any namespace) and its events, so that "waiting for X" becomes "X failed: ...", "X is working on it" or "no controller named X has acted on this claim in the 30m since it was created"; for a volume being deleted, its VolumeAttachments behind an external-attacher/<driver> finalizer and whether that attacher runs. These reads are best-effort: a list that is forbidden or not served is reported as not available, never an error. From a snapshot they come from the Event, CSIDriver, Lease and VolumeAttachment objects it holds (kubectl get pv,pvc,sc,pods,nodes,events,csidrivers,leases,volumeattachments -A -o yaml).

pvctl why is the same command.

EXIT STATUS
${EXIT_STATUS.map((l) => `  ${l}`).join('\n')}`

  static override aliases = ['why']

  static override examples = [
    {
      description: 'Why is a claim of the bundled snapshot Pending?',
      command: '<%= config.bin %> <%= command.id %> pvc/logs -n shop -f examples/cluster.yaml',
    },
    {
      description: 'The same as JSON (the ClaimExplanation of the contract):',
      command: '<%= config.bin %> <%= command.id %> pvc/logs -n shop -f examples/cluster.yaml -o json',
    },
    {
      description: 'What happens to a volume whose claim is gone:',
      command: '<%= config.bin %> <%= command.id %> pv/pv-0006 -f examples/cluster.yaml',
    },
    {
      description: 'Every claim that is not healthy, for a CI log:',
      command: '<%= config.bin %> <%= command.id %> -A -f snapshot.yaml -o yaml',
    },
  ]

  static override args = {
    object: Args.string({
      description:
        "What to explain: pvc/NAME (namespace from -n, else the context's, else default), pvc/NAMESPACE/NAME (as pvctl prints it) or pv/NAME. Default: every claim not healthy (a picker on a terminal).",
      required: false,
      ignoreStdin: true,
    }),
    name: Args.string({
      description: 'The name, when the object is given as TYPE NAME (pvc orders), as kubectl takes it.',
      required: false,
      ignoreStdin: true,
    }),
  }

  static override flags = {
    ...sourceFlags,
    ...scopeFlags,
    // The shared scope flags, in explain's words.
    namespace: Flags.string({
      char: 'n',
      summary: 'Namespace of pvc/NAME; with no object named, explain only the claims of this namespace.',
      helpValue: 'NS',
    }),
    selector: Flags.string({
      char: 'l',
      summary: 'With no object named: only claims whose labels match this selector (e.g. app=db).',
      helpValue: 'SELECTOR',
    }),
    ...outputFlags('explain'),
    'only-relevant': Flags.boolean({
      summary: 'Leave out volumes that cannot matter: in use by another claim, or not considered at all.',
      default: false,
    }),
    candidates: Flags.integer({
      summary: `How many candidate volumes each explanation lists, nearest first; 0 lists every volume. Default: every volume for pvc/NAME, the nearest ${LIST_CANDIDATES} for each claim of a List.`,
      description:
        'When bounded, each explanation also carries candidatesTotal, the number of volumes there were to list (an extra field, beyond the ClaimExplanation of the contract).',
      min: 0,
      helpValue: 'N',
    }),
    ...engineFlags,
  }

  public async run(): Promise<void> {
    const {args, flags} = await this.parse(Explain)
    const {asked, source} = explainOptions(
      [args.object, args.name].filter((a) => a !== undefined),
      flags,
    )
    const outcome = await runExplain(asked, source, {
      notice: writeNotice,
      spinner: startSpinner,
      session: picker(asked, flags),
    })
    if (outcome.kind === 'session') {
      if (outcome.outcome === 'interrupted') process.exitCode = ExitCode.Interrupted
      return
    }
    const context = {...outputContext(flags), sourceArgs: sourceArgs(flags)}
    await writeChunks(process.stdout, await renderOutput(EXPLAIN_RENDERERS, flags.output, outcome.document, context))
    outcome.answered()
    process.exitCode = outcome.exitCode
  }
}

type ExplainFlags = Interfaces.InferredFlags<typeof Explain.flags>

/** What is asked (the object, the scope, the candidates) and where the state is read from. */
function explainOptions(objectArgs: string[], flags: ExplainFlags): {asked: ExplainAsked; source: ExplainSource} {
  const engine = engineRequest(flags)
  const target = explainTarget(objectArgs, defaultNamespace(flags), flags['all-namespaces'], flags.namespace)
  const asked = {
    hostPathProvisioning: flags['enable-hostpath-provisioner'],
    onlyRelevant: flags['only-relevant'],
    candidates: flags.candidates,
    target,
    namespace: flags['all-namespaces'] ? undefined : flags.namespace,
    labelSelector: flags.selector !== undefined ? parseLabelSelectorFlag(flags.selector) : undefined,
    sourceArgs: sourceArgs(flags),
  }
  return {asked, source: {engine, filename: flags.filename, stdin: process.stdin, ...connectionOptions(flags)}}
}

/** The picker: with no object named, as a table, when someone at a terminal can choose. */
function picker(asked: ExplainAsked, flags: ExplainFlags): (() => ExplainSessionUi) | undefined {
  if (asked.target !== undefined || flags.output !== 'table' || !canPrompt() || !process.stdout.isTTY) return undefined
  return () => {
    const {palette, noHeaders, width} = outputContext(flags)
    return terminalExplainUi(palette, {args: sourceArgs(flags)}, {noHeaders, width})
  }
}
