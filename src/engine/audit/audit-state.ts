// The audit of a state: plan as `sync --dry-run` does, then judge the state *after* the plan with explain's
// verdicts. What the controller is about to fix is a planned change, not a finding.
import {present} from '../api/invariant.js'
import {claimKey, type ClusterState, type PersistentVolume} from '../api/model.js'
import {defaultVolumePluginMgr} from '../controller/volume-plugins.js'
import type {ExplainEvidence} from '../explain/evidence.js'
import {Explainer} from '../explain/explainer.js'
import type {ClaimExplanationFacts, Verdict} from '../explain/model.js'
import {relinkPort} from '../repair/explain-state.js'
import {withPlanApplied} from '../simulation/plan-applied.js'
import {
  checkTargetsExist,
  defaultDecided,
  planSyncKeepingCache,
  summarize,
  type SyncOptions,
} from '../simulation/plan-sync.js'
import {scopePredicate} from '../simulation/reconcile.js'
import type {SimulatedCluster} from '../simulation/simulated-cluster.js'
import type {SyncReport} from '../simulation/sync-report.js'
import {auditCapacity} from './capacity.js'
import {FINDING_CODES, objectKey, objectName, type FindingObject} from './findings.js'
import {claimCode, judge} from './judge.js'
import {pointerPictures} from './pointers.js'
import {buildAuditReport, silencedBy, type AuditReport, type FailOn} from './report.js'
import {annotationIgnores, AUDIT_IGNORE_ANNOTATION} from './silence.js'

export interface AuditOptions extends Omit<SyncOptions, 'dryRun' | 'maxRounds' | 'operations'> {
  failOn: FailOn
  ignore: ReadonlySet<string>
  /** Where the state came from, as flags (sourceArgs in src/cli/flags.ts), for the commands a fix prints. */
  sourceArgs?: readonly string[]
  /** --fail-on-empty: a scope (-n, -l) that matches nothing is an error, not a notice. */
  failOnEmpty?: boolean
  /** Events, CSIDrivers, Leases, VolumeAttachments and the clock, for explain's liveness; none: not read. */
  evidence?: ExplainEvidence
  /**
   * What the report carries for its views beyond the findings: capacity (the terminal's bars, -o wide and
   * html), the pointer pictures (html) and the objects audited, sorted (junit's test cases). None is in
   * the JSON document; each costs a pass over the cluster, so -o json makes none. Default: all three.
   */
  views?: ReadonlySet<AuditView>
}

export type AuditView = 'capacity' | 'pointers' | 'audited'

export interface AuditStateExtras {
  /** The plan of this state with these options, when the caller has it already (sync's pointer to audit). */
  plan?: SyncReport
  /** Told what the audit's input leaves unsaid: an annotation naming a code that does not exist. */
  notice?: (line: string) => void
}

/** The audit of one state: plan, apply the plan to a copy, explain and judge the result. */
export function auditState(state: ClusterState, opts: AuditOptions, extras: AuditStateExtras = {}): AuditReport {
  const s = auditScope(state, opts, extras)
  // The evidence (each claim's events) only where a finding reads it: a claim handed to an external
  // provisioner, and the volumes judge() asks about; the rest stays one pass over the claims.
  const withEvidence = s.explainer.with({evidence: opts.evidence})
  const explained = <T extends {verdict: Verdict}>(ask: (explainer: Explainer) => T): T => {
    const e = ask(s.explainer)
    return e.verdict === 'ExternalProvisioning' && opts.evidence !== undefined ? ask(withEvidence) : e
  }
  // claimFacts of every claim, judged one at a time as they come (those out of the scope shown too: what they
  // tell about the others is read as the unscoped audit reads it, judge's `reported`); claimBrief (explain's
  // answer without its candidates, which no finding reads: every claim weighed against every volume would
  // make the audit claims × volumes) of those whose finding words what blocks them.
  function* claimFacts(): Generator<ClaimExplanationFacts> {
    for (const c of s.after.claims)
      yield explained((e) =>
        present(
          e.claimFacts(c.metadata.namespace ?? '', c.metadata.name ?? ''),
          'the explainer explains every claim of its state',
        ),
      )
  }
  const explainClaim = ({namespace, name}: ClaimExplanationFacts['claim']) =>
    explained((e) => present(e.claimBrief(namespace, name), 'the explainer explains every claim of its state'))
  const explainVolume = (name: string) => withEvidence.volume(name, {wantedBy: false})
  const phaseAsRead = phasesOf(state.volumes)
  const findings = judge({
    after: s.after,
    lookup: s.explainer.lookup,
    claims: claimFacts(),
    reported: s.reported,
    explainClaim,
    volumes: s.volumes,
    explainVolume,
    phaseAsRead,
    classes: s.classes,
    sourceArgs: opts.sourceArgs,
    gates: opts.gates,
    releasedSince: releasedSinceAsRead(state),
  })
  const views = opts.views ?? new Set<AuditView>(['capacity', 'pointers', 'audited'])
  const audited = views.has('audited') ? [...sortedByKey(s.claimObjects), ...sortedByKey(s.volumeObjects)] : undefined
  const report = buildAuditReport(
    findings,
    {claims: s.claims.length, volumes: s.volumes.length, plannedChanges: s.plannedChanges, audited},
    opts.ignore,
    s.annotated,
  )
  return {
    ...report,
    kubernetesVersion: opts.kubernetesVersion ?? defaultDecided(opts.gates),
    capacity: views.has('capacity') ? auditCapacity(s.claims, s.volumes) : undefined,
    pointers: views.has('pointers') ? pointerPictures(s.after, report.findings) : undefined,
  }
}

/**
 * How many errors and warnings the audit of the state reports (sync's pointer to audit), counted on the
 * same codes as auditState but each claim by its explain verdict alone: without the candidates its
 * message weighs, linear in the cluster rather than claims × volumes.
 */
export function auditProblemCount(state: ClusterState, opts: AuditOptions, plan: SyncReport): number {
  const s = auditScope(state, opts, {plan})
  const claimCodes = s.claims.flatMap((c, i) => {
    const code = claimCode(
      present(
        s.explainer.claimFacts(c.metadata.namespace ?? '', c.metadata.name ?? ''),
        'the explainer explains every claim of its state',
      ),
    )
    return code === undefined ? [] : [{code, object: s.claimObjects[i]}]
  })
  // Every claim's facts, none judged again: the class findings count claims of any namespace.
  const facts = s.after.claims.map((c) =>
    present(
      s.explainer.claimFacts(c.metadata.namespace ?? '', c.metadata.name ?? ''),
      'the explainer explains every claim of its state',
    ),
  )
  const rest = judge({
    after: s.after,
    lookup: s.explainer.lookup,
    claims: facts,
    reported: () => false,
    explainClaim: ({namespace, name}) =>
      present(s.explainer.claimBrief(namespace, name), 'the explainer explains every claim of its state'),
    volumes: s.volumes,
    classes: s.classes,
    gates: opts.gates,
  })
  return [...claimCodes, ...rest].filter(
    (f) => FINDING_CODES[f.code].severity !== 'info' && silencedBy(f, opts.ignore, s.annotated) === undefined,
  ).length
}

/** Since when each volume Released as read has been Released (its lastPhaseTransitionTime, where it has one). */
function releasedSinceAsRead(state: ClusterState): Map<string, string> {
  const since = new Map<string, string>()
  for (const v of state.volumes) {
    const at = v.status?.lastPhaseTransitionTime
    if (v.status?.phase === 'Released' && typeof at === 'string') since.set(v.metadata.name ?? '', at)
  }
  return since
}

/**
 * What both audits start from: the state after the controller's plan of the whole state, the objects
 * reported, the Explainer, the annotations. -n, -l and the objects named choose what is reported; the plan
 * and every verdict are those of the unscoped audit, so that a scope never changes what is said of an object.
 */
function auditScope(state: ClusterState, opts: AuditOptions, extras: AuditStateExtras) {
  const targets = opts.targets ?? []
  checkTargetsExist(state, targets)
  const inScope = scopePredicate(
    targets.length > 0 ? undefined : {namespace: opts.namespace, labelSelector: opts.labelSelector},
  )
  const named = new Set(
    targets.map((t) => `${t.kind}/${t.kind === 'PersistentVolume' ? '' : (t.namespace ?? 'default')}/${t.name}`),
  )
  // A plan made with a scope (sync's pointer to audit under -n) is not the controller's over the whole state.
  const whole = targets.length === 0 && inScope.everything
  const {after, report, cache} = planned(state, opts, whole ? extras.plan : undefined)
  const claims = after.claims.filter((c) =>
    targets.length > 0 ? named.has(`PersistentVolumeClaim/${claimKey(c)}`) : inScope.claim(c),
  )
  const volumes = after.volumes.filter((v) =>
    targets.length > 0 ? named.has(`PersistentVolume//${v.metadata.name ?? ''}`) : inScope.volume(v),
  )
  const shownKeys = new Set([
    ...claims.map((c) => `PersistentVolumeClaim/${claimKey(c)}`),
    ...volumes.map((v) => `PersistentVolume//${v.metadata.name ?? ''}`),
  ])
  const reported = whole
    ? undefined
    : ({namespace, name}: {namespace: string; name: string}) =>
        shownKeys.has(`PersistentVolumeClaim/${namespace}/${name}`)
  // The writes of the plan to the objects reported: another namespace's pending bind fails no audit of this one.
  const plannedChanges = whole
    ? {...report.summary}
    : {
        ...summarize(
          report.actions.filter((a) => shownKeys.has(`${a.object.kind}/${a.object.namespace ?? ''}/${a.object.name}`)),
        ),
      }
  // Classes are judged unless objects are named (the audit is then about those objects).
  const classes = targets.length === 0
  // The Explainer of `pvctl explain pvc/NAME`: the same verdict, by construction; over the plan's own
  // informer caches when they hold `after`, not cached and indexed again.
  const plugins = defaultVolumePluginMgr(opts)
  const explainer = new Explainer(after, {
    gates: opts.gates,
    plugins,
    relink: relinkPort(after, opts.gates, plugins, opts.sourceArgs),
    ...(cache === undefined ? {} : {cache}),
  })
  const claimObjects = claims.map((c): FindingObject => ({
    kind: 'PersistentVolumeClaim',
    namespace: c.metadata.namespace ?? '',
    name: c.metadata.name ?? '',
  }))
  const volumeObjects = volumes.map((v): FindingObject => ({kind: 'PersistentVolume', name: v.metadata.name ?? ''}))
  const annotated = annotationIgnores([
    ...claims.map((c, i) => ({object: claimObjects[i], metadata: c.metadata})),
    ...volumes.map((v, i) => ({object: volumeObjects[i], metadata: v.metadata})),
    ...(classes
      ? after.classes.map((c) => ({
          object: {kind: 'StorageClass' as const, name: c.metadata.name ?? ''},
          metadata: c.metadata,
        }))
      : []),
  ])
  for (const {object, names} of annotated.unknown) {
    extras.notice?.(
      `${objectName(object)}: ${AUDIT_IGNORE_ANNOTATION} names ${names.join(', ')}, not a finding code: ${names.length === 1 ? 'it silences' : 'they silence'} nothing (the codes: pvctl audit --help)`,
    )
  }
  return {
    plannedChanges,
    after,
    claims,
    volumes,
    reported,
    classes,
    explainer,
    claimObjects,
    volumeObjects,
    annotated: annotated.codes,
  }
}

/**
 * The state after the plan of the whole state, and the plan's actions and summary: the rest of the plan (its
 * events and the objects before it, a few hundred MB at 100k + 100k) is garbage before the explaining
 * starts. A plan made here leaves its informer caches too, when they hold that state (planSyncKeepingCache).
 */
function planned(
  state: ClusterState,
  opts: AuditOptions,
  made?: SyncReport,
): {after: ClusterState; report: Pick<SyncReport, 'actions' | 'summary'>; cache: SimulatedCluster | undefined} {
  const whole = {...opts, dryRun: true, targets: undefined, namespace: undefined, labelSelector: undefined}
  const {report, cache} = made !== undefined ? {report: made, cache: undefined} : planSyncKeepingCache(state, whole)
  return {
    after: withPlanApplied(state, report.objects),
    report: {actions: report.actions, summary: report.summary},
    cache,
  }
}

/** The volumes' phases as read (null: none written), looked up by name. */
function phasesOf(volumes: readonly PersistentVolume[]): (name: string) => string | null | undefined {
  const phases = new Map(volumes.map((v) => [v.metadata.name ?? '', v.status?.phase ?? null]))
  return (name) => phases.get(name)
}

function sortedByKey(objects: readonly FindingObject[]): FindingObject[] {
  const keyed = objects.map((o) => ({o, key: objectKey(o)}))
  return keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map((k) => k.o)
}
