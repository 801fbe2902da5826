// The audit use-case: load the state once, plan as `sync --dry-run` does, then judge the state *after* the
// plan with explain's verdicts. What the controller is about to fix is a planned change, not a finding.
import {FINDING_CODES, objectKey, objectName, type FindingObject} from '../engine/audit/findings.js'
import {auditCapacity} from '../engine/audit/capacity.js'
import {pointerPictures} from '../engine/audit/pointers.js'
import {claimCode, judge} from '../engine/audit/judge.js'
import {auditFails, buildAuditReport, silencedBy, type AuditReport, type AuditTotals, type FailOn} from '../engine/audit/report.js'
import {annotationIgnores, AUDIT_IGNORE_ANNOTATION} from '../engine/audit/silence.js'
import type {ExplainEvidence} from '../engine/explain/evidence.js'
import {Explainer} from '../engine/explain/explainer.js'
import type {ClaimExplanationFacts, Verdict} from '../engine/explain/model.js'
import {claimKey, type ClusterState, type PersistentVolume, type PersistentVolumeClaim} from '../engine/api/model.js'
import {scopePredicate} from '../engine/simulation/reconcile.js'
import {ClaimKeyIndex} from '../engine/api/claim-keyed-map.js'
import {defaultVolumePluginMgr} from '../engine/controller/volume-plugins.js'
import {ExitCode} from '../errors.js'
import {auditEvidence} from './audit-evidence.js'
import {loadClusterState, type LoadStateOptions, type LoadStateUi, noticeCaveats} from './load-cluster-state.js'
import {planSyncKeepingCache, type SyncOptions} from './sync.js'
import type {SimulatedCluster} from '../engine/simulation/simulated-cluster.js'
import type {SyncReport} from './sync-report.js'

export interface AuditOptions extends Omit<SyncOptions, 'dryRun' | 'maxRounds' | 'operations'> {
  failOn: FailOn
  ignore: ReadonlySet<string>
  /** Where the state came from, as flags (sourceArgs in src/cli/flags.ts), for the commands a fix prints. */
  sourceArgs?: readonly string[]
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

export interface AuditResult {
  report: AuditReport
  exitCode: number
  /** Notices about the answer, to say after it (caveats of a partial snapshot). */
  after: string[]
  /** Where the state came from, for a report that names it: "snapshot FILE", "context NAME (SERVER)". */
  origin: string
}

export async function runAudit(opts: AuditOptions & LoadStateOptions, ui: LoadStateUi): Promise<AuditResult> {
  const loaded = await loadClusterState(opts, ui)
  const after: string[] = []
  noticeCaveats(loaded, {notice: (line) => void after.push(line)})
  const evidence = await auditEvidence(loaded, opts.namespace)
  const report = auditState(loaded.state, {...opts, evidence}, {notice: (line) => void after.push(line)})
  const origin = loaded.source === 'snapshot' ? `snapshot ${(opts.filename ?? []).join(', ')}` : `context ${loaded.session.contextName} (${loaded.session.server})`
  return {report, exitCode: auditFails(report, opts.failOn) ? ExitCode.Changes : ExitCode.Ok, after, origin}
}

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
  // claimFacts of every claim, judged one at a time as they come; claimBrief (explain's answer without its
  // candidates, which no finding reads: every claim weighed against every volume would make the audit
  // claims × volumes) of those whose finding words what blocks them.
  function* claimFacts(): Generator<ClaimExplanationFacts> {
    for (const c of s.claims) yield explained((e) => e.claimFacts(c.metadata.namespace ?? '', c.metadata.name ?? '')!)
  }
  const explainClaim = ({namespace, name}: ClaimExplanationFacts['claim']) => explained((e) => e.claimBrief(namespace, name)!)
  const explainVolume = (name: string) => withEvidence.volume(name, {wantedBy: false})
  const phaseAsRead = phasesOf(state.volumes)
  const findings = judge({after: s.after, lookup: s.explainer.lookup, claims: claimFacts(), explainClaim, volumes: s.volumes, explainVolume, phaseAsRead, classes: s.classes, sourceArgs: opts.sourceArgs, gates: opts.gates})
  const views = opts.views ?? new Set<AuditView>(['capacity', 'pointers', 'audited'])
  const audited = views.has('audited') ? [...sortedByKey(s.claimObjects), ...sortedByKey(s.volumeObjects)] : undefined
  const report = buildAuditReport(findings, {claims: s.claims.length, volumes: s.volumes.length, plannedChanges: s.plannedChanges, audited}, opts.ignore, s.annotated)
  return {
    ...report,
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
    const code = claimCode(s.explainer.claimFacts(c.metadata.namespace ?? '', c.metadata.name ?? '')!)
    return code === undefined ? [] : [{code, object: s.claimObjects[i]}]
  })
  const rest = judge({after: s.after, lookup: s.explainer.lookup, claims: [], explainClaim: ({namespace, name}) => s.explainer.claimBrief(namespace, name)!, volumes: s.volumes, classes: s.classes, gates: opts.gates})
  return [...claimCodes, ...rest].filter((f) => FINDING_CODES[f.code].severity !== 'info' && silencedBy(f, opts.ignore, s.annotated) === undefined).length
}

/** What both audits start from: the state after the plan, the objects in scope, the Explainer, the annotations. */
function auditScope(state: ClusterState, opts: AuditOptions, extras: AuditStateExtras) {
  const {after, plannedChanges, cache} = planned(state, opts, extras.plan)
  const targets = opts.targets ?? []
  const inScope = scopePredicate(targets.length > 0 ? undefined : {namespace: opts.namespace, labelSelector: opts.labelSelector})
  const named = new Set(targets.map((t) => `${t.kind}/${t.kind === 'PersistentVolume' ? '' : (t.namespace ?? 'default')}/${t.name}`))
  const claims = after.claims.filter((c) => (targets.length > 0 ? named.has(`PersistentVolumeClaim/${claimKey(c)}`) : inScope.claim(c)))
  const volumes = after.volumes.filter((v) => (targets.length > 0 ? named.has(`PersistentVolume//${v.metadata.name ?? ''}`) : inScope.volume(v)))
  // Classes are judged unless objects are named (the audit is then about those objects).
  const classes = targets.length === 0
  // The Explainer of `pvctl explain pvc/NAME`: the same verdict, by construction; over the plan's own
  // informer caches when they hold `after`, not cached and indexed again.
  const explainer = new Explainer(after, {gates: opts.gates, plugins: defaultVolumePluginMgr(opts), ...(cache === undefined ? {} : {cache})})
  const claimObjects = claims.map((c): FindingObject => ({kind: 'PersistentVolumeClaim', namespace: c.metadata.namespace ?? '', name: c.metadata.name ?? ''}))
  const volumeObjects = volumes.map((v): FindingObject => ({kind: 'PersistentVolume', name: v.metadata.name ?? ''}))
  const annotated = annotationIgnores([
    ...claims.map((c, i) => ({object: claimObjects[i], metadata: c.metadata})),
    ...volumes.map((v, i) => ({object: volumeObjects[i], metadata: v.metadata})),
    ...(classes ? after.classes.map((c) => ({object: {kind: 'StorageClass' as const, name: c.metadata.name ?? ''}, metadata: c.metadata})) : []),
  ])
  for (const {object, names} of annotated.unknown) {
    extras.notice?.(`${objectName(object)}: ${AUDIT_IGNORE_ANNOTATION} names ${names.join(', ')}, not a finding code: ${names.length === 1 ? 'it silences' : 'they silence'} nothing (the codes: docs/codes.md)`)
  }
  return {plannedChanges, after, claims, volumes, classes, explainer, claimObjects, volumeObjects, annotated: annotated.codes}
}

/**
 * The state after the plan, and the plan's summary: the rest of the plan (its actions, events and the
 * objects before it, a few hundred MB at 100k + 100k) is garbage before the explaining starts. A plan made
 * here leaves its informer caches too, when they hold that state (planSyncKeepingCache).
 */
function planned(state: ClusterState, opts: AuditOptions, made?: SyncReport): {after: ClusterState; plannedChanges: AuditTotals['plannedChanges']; cache: SimulatedCluster | undefined} {
  const {report, cache} = made !== undefined ? {report: made, cache: undefined} : planSyncKeepingCache(state, {...opts, dryRun: true})
  return {after: withPlanApplied(state, report.objects), plannedChanges: {...report.summary}, cache}
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

/**
 * The state with the plan's objects in place of the ones they were (and the ones it creates added): the
 * classes, pods and nodes the plan does not write stay as read.
 */
export function withPlanApplied(state: ClusterState, planned: ReadonlyArray<PersistentVolume | PersistentVolumeClaim>): ClusterState {
  const volumes = new Map<string, PersistentVolume>()
  const claims = new PlacedClaims()
  // Indexed loops: each runs once over 100k objects, and a for-of makes an iterator result per step until optimized.
  for (let i = 0; i < state.volumes.length; i++) volumes.set(state.volumes[i].metadata.name ?? '', state.volumes[i])
  for (let i = 0; i < state.claims.length; i++) claims.put(state.claims[i])
  for (let i = 0; i < planned.length; i++) {
    const o = planned[i]
    if (o.kind === 'PersistentVolume') volumes.set(o.metadata.name ?? '', o as PersistentVolume)
    else claims.put(o as PersistentVolumeClaim)
  }
  return {...state, volumes: [...volumes.values()], claims: claims.list}
}

/**
 * Claims by claimKey in the order a Map of the keys keeps them (where a key first came, its last claim),
 * found by namespace and name: no key string is built for each of 100k claims, twice.
 */
class PlacedClaims {
  readonly list: PersistentVolumeClaim[] = []
  private readonly places = new ClaimKeyIndex<number>()

  put(claim: PersistentVolumeClaim): void {
    const namespace = claim.metadata.namespace ?? ''
    const name = claim.metadata.name ?? ''
    const place = this.places.get(namespace, name)
    if (place === undefined) {
      this.places.set(namespace, name, this.list.length)
      this.list.push(claim)
    } else {
      this.list[place] = claim
    }
  }
}
