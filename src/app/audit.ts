// The audit use-case: load the state once, plan as `sync --dry-run` does, then judge the state *after* the
// plan with explain's verdicts. What the controller is about to fix is a planned change, not a finding.
import {judge} from '../engine/audit/judge.js'
import {auditFails, buildAuditReport, type AuditReport, type AuditTotals, type FailOn} from '../engine/audit/report.js'
import {Explainer} from '../engine/explain/explainer.js'
import {claimKey, type ClusterState, type PersistentVolume, type PersistentVolumeClaim} from '../engine/api/model.js'
import {scopePredicate} from '../engine/simulation/reconcile.js'
import {defaultVolumePluginMgr} from '../engine/controller/volume-plugins.js'
import {ExitCode} from '../errors.js'
import {loadClusterState, type LoadStateOptions, type LoadStateUi, noticeCaveats} from './load-cluster-state.js'
import {planSync, type SyncOptions} from './sync.js'

export interface AuditOptions extends Omit<SyncOptions, 'dryRun' | 'maxRounds' | 'operations'> {
  failOn: FailOn
  ignore: ReadonlySet<string>
  /** Where the state came from, as flags (sourceArgs in src/cli/flags.ts), for the commands a fix prints. */
  sourceArgs?: readonly string[]
}

export interface AuditResult {
  report: AuditReport
  exitCode: number
  /** Notices about the answer, to say after it (caveats of a partial snapshot). */
  after: string[]
}

export async function runAudit(opts: AuditOptions & LoadStateOptions, ui: LoadStateUi): Promise<AuditResult> {
  const loaded = await loadClusterState(opts, ui)
  const after: string[] = []
  noticeCaveats(loaded, {notice: (line) => void after.push(line)})
  const report = auditState(loaded.state, opts)
  return {report, exitCode: auditFails(report, opts.failOn) ? ExitCode.Changes : ExitCode.Ok, after}
}

/** The audit of one state: plan, apply the plan to a copy, explain and judge the result. */
export function auditState(state: ClusterState, opts: AuditOptions): AuditReport {
  const {afterState, plannedChanges} = planned(state, opts)
  const targets = opts.targets ?? []
  const inScope = scopePredicate(targets.length > 0 ? undefined : {namespace: opts.namespace, labelSelector: opts.labelSelector})
  const named = new Set(targets.map((t) => `${t.kind}/${t.kind === 'PersistentVolume' ? '' : (t.namespace ?? 'default')}/${t.name}`))
  const claims = afterState.claims.filter((c) => (targets.length > 0 ? named.has(`PersistentVolumeClaim/${claimKey(c)}`) : inScope.claim(c)))
  const volumes = afterState.volumes.filter((v) => (targets.length > 0 ? named.has(`PersistentVolume//${v.metadata.name ?? ''}`) : inScope.volume(v)))
  // The Explainer of `pvctl explain pvc/NAME`: the same verdict, by construction.
  const explainer = new Explainer(afterState, {gates: opts.gates, plugins: defaultVolumePluginMgr(opts)})
  const explained = claims.map((c) => explainer.claimBrief(c.metadata.namespace ?? '', c.metadata.name ?? '')!)
  const findings = judge({after: afterState, claims: explained, volumes, classes: targets.length === 0, sourceArgs: opts.sourceArgs})
  return buildAuditReport(findings, {claims: claims.length, volumes: volumes.length, plannedChanges}, opts.ignore)
}

/**
 * The state after the plan, and the plan's summary: the rest of the plan (its actions, events and the
 * objects before it, a few hundred MB at 100k + 100k) is garbage before the explaining starts.
 */
function planned(state: ClusterState, opts: AuditOptions): {afterState: ClusterState; plannedChanges: AuditTotals['plannedChanges']} {
  const plan = planSync(state, {...opts, dryRun: true})
  return {afterState: withPlanApplied(state, plan.objects), plannedChanges: {...plan.summary}}
}

/**
 * The state with the plan's objects in place of the ones they were (and the ones it creates added): the
 * classes, pods and nodes the plan does not write stay as read.
 */
export function withPlanApplied(state: ClusterState, planned: ReadonlyArray<PersistentVolume | PersistentVolumeClaim>): ClusterState {
  const volumes = new Map(state.volumes.map((v) => [v.metadata.name ?? '', v]))
  const claims = new Map(state.claims.map((c) => [claimKey(c), c]))
  for (const o of planned) {
    if (o.kind === 'PersistentVolume') volumes.set(o.metadata.name ?? '', o as PersistentVolume)
    else claims.set(claimKey(o), o as PersistentVolumeClaim)
  }
  return {...state, volumes: [...volumes.values()], claims: [...claims.values()]}
}
