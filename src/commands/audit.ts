import {Args, Flags, type Interfaces} from '@oclif/core'

import {runAudit} from '../app/audit.js'
import {FLEET_CONCURRENCY, runFleetAudit} from '../app/audit-fleet.js'
import {PvctlCommand} from '../cli/base-command.js'
import {defaultNamespace} from '../cli/default-namespace.js'
import {engineRequest} from '../cli/feature-gates-flag.js'
import {connectionOptions, engineFlags, outputFlags, scopeFlags, sourceArgs, sourceFlags} from '../cli/flags.js'
import {startSpinner, writeNotice} from '../cli/interaction.js'
import {parseLabelSelectorFlag} from '../cli/label-selector-flag.js'
import {parseObjectArgs} from '../cli/object-args.js'
import {AUDIT_RENDERERS, type AuditOutput, type AuditOutputContext, auditViews} from '../cli/report-renderers.js'
import {outputContext, showResult} from '../cli/show-result.js'
import type {AuditView} from '../engine/audit/audit-state.js'
import {FINDING_CODES} from '../engine/audit/findings.js'
import {closeNames} from '../engine/api/close-names.js'
import {AUDIT_IGNORE_ANNOTATION} from '../engine/audit/silence.js'
import {unknownCodes, type FailOn} from '../engine/audit/report.js'
import {UsageError} from '../errors.js'

type Targets = ReturnType<typeof parseObjectArgs>

/** audit's own exit codes (docs/output-contract.md: every command documents them in its help). */
const EXIT_STATUS = [
  '0  no finding at or above --fail-on, and the controller would change nothing; with --fail-on none, whatever was found or planned',
  '1  a finding at or above --fail-on, or changes the controller would make (pvctl sync --dry-run lists them); with several contexts, in any of their clusters: a cluster that cannot be read is a ClusterUnreachable or ClusterForbidden finding (error)',
  '2  usage or input error: bad flag, unknown --ignore code, malformed snapshot, no such object, a --context the kubeconfig does not have',
  '3  cluster error: unreachable or forbidden API; with several contexts, only when none of their clusters could be read',
  '130  interrupted (Ctrl-C, SIGTERM or SIGHUP)',
]

export default class Audit extends PvctlCommand {
  static override summary = 'Report what is unhealthy once the PV controller has done what it is about to do.'

  static override description = `Loads the state once, plans the controller's sync as pvctl sync --dry-run does, and judges the state after the plan: a problem the controller is about to fix is a planned change, not a finding. Each claim is judged by its pvctl explain verdict, so the two never disagree. -n, -l and the objects named choose what is reported, never what is said of it: the whole cluster is read (live, the claims and pods of every namespace), planned and judged, so each object is reported with the findings of the audit without a scope.

Each finding has a code, a severity, the object, a message, the evidence it rests on and a fix; FINDING CODES below says what each code means.

With -f the state comes from a snapshot; otherwise from the cluster of the kubeconfig, read-only.

A fleet: --context a,b,c or --all-contexts audit the cluster of each context (--concurrency at a time, each read once with its own rate limit and --request-timeout), one section per cluster in the table after a table of the clusters, an AuditReportList of one AuditReport per cluster (with its context) in json and yaml. A cluster that cannot be read is a finding of its own, and the others are still audited. pvc/NAME without -n is in each context's namespace.

-o junit prints JUnit XML for CI test-report views: a test case per claim and volume audited (and per class with a finding) and one for the controller's plan; a finding at or above --fail-on is a <failure> (message, code as type, evidence and fix as text), one below it the case's <system-out>, a case whose findings are all silenced is <skipped>. -o markdown prints the summary and a table per severity for a CI job summary or a pull-request comment. On a terminal the table's summary is followed by capacity per storage class (requested, bound, available, released, failed) with a bar of the volumes' storage; -o wide prints it, and the same per namespace, on a terminal or not. -o html prints one self-contained page (no network when it is viewed) to open in a browser or print: the summary, capacity by storage class as a chart, the findings by severity and code with their evidence, fix and a picture of the claim's and volume's pointers, filterable by namespace, code and severity, an anchor per object; with several contexts a table of the clusters first.

The annotation ${AUDIT_IGNORE_ANNOTATION}: CODE,... on a claim, volume or class silences those codes on that object, as --ignore does everywhere; the summary counts what was silenced (ignored, ignoredByAnnotation). A name that is no finding code silences nothing and is said on stderr.

FINDING CODES
${Object.entries(FINDING_CODES)
  .map(([code, c]) => `  ${code} (${c.severity}): ${c.meaning}`)
  .join('\n')}

EXIT STATUS
${EXIT_STATUS.map((l) => `  ${l}`).join('\n')}`

  static override examples = [
    {description: 'Audit a snapshot:', command: '<%= config.bin %> <%= command.id %> -f examples/cluster.yaml'},
    {
      description: 'Fail only on errors, as JSON:',
      command: '<%= config.bin %> <%= command.id %> -f examples/cluster.yaml --fail-on error -o json',
    },
    {
      description: 'One namespace of the live cluster, without the expected waits:',
      command: '<%= config.bin %> <%= command.id %> -n shop --ignore ClaimWaitingForConsumer,ClaimWaitingForScheduling',
    },
    {
      description: 'In CI: JUnit XML for the test report view, Markdown for the job summary:',
      command:
        '<%= config.bin %> <%= command.id %> -o junit > audit.xml; <%= config.bin %> <%= command.id %> -o markdown >> "$GITHUB_STEP_SUMMARY"',
    },
    {
      description: 'A page to open in a browser (self-contained, offline):',
      command: '<%= config.bin %> <%= command.id %> -f examples/cluster.yaml -o html > report.html',
    },
    {
      description: 'Three clusters of the kubeconfig, one report each:',
      command: '<%= config.bin %> <%= command.id %> --context prod-eu,prod-us,staging -o json',
    },
    {
      description: 'Every context of the kubeconfig, failing on errors only:',
      command: '<%= config.bin %> <%= command.id %> --all-contexts --fail-on error',
    },
  ]

  static override strict = false

  static override args = {
    objects: Args.string({
      description:
        "Objects to audit: pvc/NAME (namespace from -n, else the context's, else default) or pvc/NAMESPACE/NAME, pv/NAME. Default: all in scope.",
      required: false,
      ignoreStdin: true,
    }),
  }

  static override flags = {
    ...sourceFlags,
    context: Flags.string({
      summary: "The kubeconfig context to use (live clusters); several, comma-separated, audit each one's cluster.",
      helpValue: 'NAME[,NAME...]',
    }),
    'all-contexts': Flags.boolean({
      summary: 'Audit the cluster of every context of the kubeconfig.',
      default: false,
      exclusive: ['context', 'filename'],
    }),
    concurrency: Flags.integer({
      summary: 'Clusters audited at once with several contexts.',
      default: FLEET_CONCURRENCY,
      min: 1,
      helpValue: 'N',
    }),
    ...scopeFlags,
    // The shared scope flags, in audit's words: they choose what is reported, never what is judged.
    namespace: Flags.string({
      char: 'n',
      summary:
        'Namespace of pvc/NAME; with no object named, report only the claims of this namespace and the volumes unbound or bound into it (the whole cluster is planned and judged).',
      helpValue: 'NS',
    }),
    selector: Flags.string({
      char: 'l',
      summary:
        'With no object named: report only the claims and volumes whose labels match this selector (the whole cluster is planned and judged).',
      helpValue: 'SELECTOR',
    }),
    ...outputFlags('audit'),
    'fail-on': Flags.string({
      summary:
        'The lowest severity that makes audit exit 1, as do planned changes; none: nothing does (findings and planned changes are reported, the exit is 0).',
      options: ['error', 'warning', 'info', 'none'],
      default: 'warning',
      helpValue: 'SEVERITY',
    }),
    'fail-on-empty': Flags.boolean({
      summary:
        'Exit 2 when -n or -l matches no volume and no claim (an audit that would check nothing), instead of a notice.',
      default: false,
    }),
    ignore: Flags.string({
      summary: `Finding codes to leave out, comma-separated (the summary counts them); ${AUDIT_IGNORE_ANNOTATION} does it per object.`,
      helpValue: 'CODE,...',
    }),
    ...engineFlags,
  }

  public async run(): Promise<void> {
    const {argv, flags} = await this.parse(Audit)
    const objects = argv as string[]
    const fleet = fleetContexts(flags)
    const targets = parseObjectArgs(
      objects,
      objects.length > 0 && fleet === undefined ? defaultNamespace(flags) : 'default',
      flags['all-namespaces'],
      flags.namespace,
    )
    const ignore = ignoredCodes(flags.ignore)
    const context = auditOutputContext(flags)
    const options = auditOptions(flags, ignore, auditViews(flags.output, context.capacity))
    const {document, exitCode, after} =
      fleet === undefined
        ? await auditCluster(targets, flags, options)
        : await auditFleet(objects, targets, flags, options, fleet)
    await showResult({exitCode, after}, {renderers: AUDIT_RENDERERS, output: flags.output, document, context})
  }
}

type AuditFlags = Interfaces.InferredFlags<typeof Audit.flags>

/** The codes of --ignore, each a finding code (else a usage error, with the codes meant). */
function ignoredCodes(flag: string | undefined): string[] {
  const ignore = (flag ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '')
  const unknown = unknownCodes(ignore)
  if (unknown.length > 0) {
    const meant = unknown.flatMap((c) => closeNames(c, Object.keys(FINDING_CODES), 1))
    const hint = meant.length > 0 ? ` (did you mean ${meant.map((c) => `"${c}"`).join(', ')}?)` : ''
    throw new UsageError(
      `--ignore: unknown finding code${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}${hint}`,
      ['the codes are listed in pvctl audit --help'],
    )
  }
  return ignore
}

/**
 * How the report is printed: capacity bars with -o wide, and on a terminal for the table, as kubectl keeps
 * its extras off a pipe.
 */
function auditOutputContext(flags: AuditFlags): AuditOutputContext {
  const capacity =
    flags.output === 'wide' ? 'namespace' : flags.output === 'table' && process.stdout.isTTY ? 'class' : 'none'
  // The clock is read by the command: the renderers are pure.
  return {...outputContext(flags), capacity, failOn: flags['fail-on'] as FailOn, now: () => new Date()}
}

/** What the audit of one cluster and of a fleet take alike. */
function auditOptions(flags: AuditFlags, ignore: readonly string[], views: Set<AuditView>) {
  return {
    views,
    engine: engineRequest(flags),
    hostPathProvisioning: flags['enable-hostpath-provisioner'],
    namespace: flags['all-namespaces'] ? undefined : flags.namespace,
    labelSelector: flags.selector !== undefined ? parseLabelSelectorFlag(flags.selector) : undefined,
    labelSelectorText: flags.selector,
    failOn: flags['fail-on'] as FailOn,
    failOnEmpty: flags['fail-on-empty'],
    ignore: new Set(ignore),
    stdin: process.stdin,
    ...connectionOptions(flags),
  }
}

type AuditOptions = ReturnType<typeof auditOptions>

type AuditAnswer = {document: AuditOutput; exitCode: number; after: string[]}

const ui = {notice: writeNotice, spinner: startSpinner}

async function auditCluster(targets: Targets, flags: AuditFlags, options: AuditOptions): Promise<AuditAnswer> {
  const request = {
    ...options,
    targets: targets.length > 0 ? targets : undefined,
    sourceArgs: sourceArgs(flags),
    filename: flags.filename,
  }
  const {report, exitCode, after, origin} = await runAudit(request, ui)
  return {document: {reports: [report], fleet: false, origin}, exitCode, after}
}

/** Each context's cluster: pvc/NAME without -n is in the context's namespace. */
async function auditFleet(
  objects: string[],
  targets: Targets,
  flags: AuditFlags,
  options: AuditOptions,
  contexts: readonly string[] | 'all',
) {
  const targetsFor = (contextNamespace: string | undefined) =>
    targets.length > 0
      ? parseObjectArgs(
          objects,
          flags.namespace ?? contextNamespace ?? 'default',
          flags['all-namespaces'],
          flags.namespace,
        )
      : undefined
  const {reports, exitCode, after} = await runFleetAudit(
    {...options, contexts, concurrency: flags.concurrency, targetsFor},
    ui,
  )
  return {document: {reports, fleet: true}, exitCode, after} satisfies AuditAnswer
}

/**
 * The contexts of a fleet audit: every one (--all-contexts) or those of a comma list, in its order, each
 * once; undefined for the audit of one cluster (no --context, or one name without a comma).
 */
function fleetContexts(flags: {
  context?: string
  'all-contexts': boolean
  filename?: readonly string[]
}): readonly string[] | 'all' | undefined {
  if (flags['all-contexts']) return 'all'
  if (flags.context === undefined || !flags.context.includes(',')) return undefined
  const names = [
    ...new Set(
      flags.context
        .split(',')
        .map((c) => c.trim())
        .filter((c) => c !== ''),
    ),
  ]
  if (names.length === 0)
    throw new UsageError(`--context "${flags.context}" names no context`, ['kubectl config get-contexts'])
  if (flags.filename !== undefined)
    throw new UsageError('-f reads one snapshot: it cannot go with several contexts (--context a,b)', [
      'audit the snapshot without --context, or the clusters without -f',
    ])
  return names
}
