// A sync planned on a state: reconcile it with the options `pvctl sync` takes, and build the SyncReport.
import {present} from '../api/invariant.js'
import type {FeatureGates} from '../api/feature-gates.js'
import {type DecidedVersion, DEFAULT_MINOR, kubeVersionText} from '../api/kube-version.js'
import type {ClusterState, LabelSelector, PersistentVolume, PersistentVolumeClaim} from '../api/model.js'
import {claimKey} from '../api/model.js'
import {claimNotFound, volumeNotFound} from '../api/not-found.js'
import type {VolumeOperations} from '../controller/volume-operations.js'
import {defaultVolumePluginMgr, type VolumePluginOptions} from '../controller/volume-plugins.js'
import type {Action, ObjectRef} from './plan.js'
import {
  reconcile,
  reconcileKeepingCache,
  type ReconcileOptions,
  type ReconcileResult,
  type ReconcileScope,
  scopePredicate,
} from './reconcile.js'
import type {SimulatedCluster} from './simulated-cluster.js'
import {API_VERSION, type SyncReport, type SyncSummary} from './sync-report.js'

/** The plugin options (--local-volume-deleter, --enable-hostpath-provisioner) are the engine's own. */
export interface SyncOptions extends VolumePluginOptions {
  dryRun: boolean
  gates: FeatureGates
  /** The release the gates are those of, and where it came from, for the report; unset: the gates' version, by default. */
  kubernetesVersion?: DecidedVersion
  maxRounds?: number
  targets?: ObjectRef[]
  /** Only with no targets: restrict to a namespace (-n without -A). */
  namespace?: string
  labelSelector?: LabelSelector
  /** The volume plugins' outcomes to plan with (a prediction); none: their operations stay planned. */
  operations?: VolumeOperations
  /** The API server's clock (apiServerTime), stamped on the volumes whose phase the plan changes; unset: none. */
  now?: string
}

/** A time as the API server writes it into objects (metav1.Time): RFC 3339, to the second. */
export function apiServerTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/** Plans a sync of the state. A named object that does not exist is refused (RequestError, NotFound). */
export function planSync(state: ClusterState, opts: SyncOptions): SyncReport {
  return planWith(state, opts, reconcile)
}

/**
 * planSync, and the informer caches after the plan (reconcileKeepingCache) when they hold what the report's
 * objects put in place of the state's (withPlanApplied, plan-applied.ts): every object the plan wrote is in
 * the report (no -n, -l leaves one out), and no volume came or went (a deleted one stays in that state as
 * read). Otherwise undefined.
 */
export function planSyncKeepingCache(
  state: ClusterState,
  opts: SyncOptions,
): {report: SyncReport; cache: SimulatedCluster | undefined} {
  let cache: SimulatedCluster | undefined
  const report = planWith(state, opts, (s, options) => {
    const kept = reconcileKeepingCache(s, options)
    cache = kept.cache
    return kept.result
  })
  const whole =
    scopePredicate(planScope(opts)).everything &&
    present(cache, 'reconcileKeepingCache gave its cache').volumeNamesGeneration === 0
  return {report, cache: whole ? cache : undefined}
}

/** What a plan syncs: the objects named, else those of -n and -l (undefined: every object). */
function planScope(opts: SyncOptions): ReconcileScope | undefined {
  return opts.targets !== undefined && opts.targets.length > 0
    ? undefined
    : {namespace: opts.namespace, labelSelector: opts.labelSelector}
}

/** Named objects that do not exist are refused: the first one is thrown (RequestError, NotFound). */
export function checkTargetsExist(state: ClusterState, targets: readonly ObjectRef[] | undefined): void {
  if (targets === undefined || targets.length === 0) return
  // Names looked up once, not one scan of the state per named object.
  const volumeNames = new Set(state.volumes.map((v) => v.metadata.name))
  const claimKeys = new Set(state.claims.map(claimKey))
  for (const target of targets) {
    const exists =
      target.kind === 'PersistentVolume'
        ? volumeNames.has(target.name)
        : claimKeys.has(`${target.namespace ?? ''}/${target.name}`)
    if (!exists) {
      throw target.kind === 'PersistentVolume'
        ? volumeNotFound(state, target.name)
        : claimNotFound(state, target.namespace ?? 'default', target.name)
    }
  }
}

function planWith(
  state: ClusterState,
  opts: SyncOptions,
  run: (state: ClusterState, options: ReconcileOptions) => ReconcileResult,
): SyncReport {
  checkTargetsExist(state, opts.targets)
  const hasTargets = opts.targets !== undefined && opts.targets.length > 0
  const scope = planScope(opts)
  const result = run(state, {
    gates: opts.gates,
    plugins: defaultVolumePluginMgr(opts),
    maxRounds: opts.maxRounds,
    targets: hasTargets ? opts.targets : undefined,
    scope,
    now: opts.now,
    ...(opts.operations !== undefined ? {operations: opts.operations} : {}),
  })

  // The report shows the objects in scope: everything when objects are named (their syncs may touch
  // any volume), else what -n / -l select, judged on each object as it was before the plan.
  const inScope = scopePredicate(scope)
  const volumes = inScopeWithBefore(
    result.volumes,
    result.before.volumes,
    inScope.everything ? undefined : inScope.volume,
  )
  const claims = inScopeWithBefore(result.claims, result.before.claims, inScope.everything ? undefined : inScope.claim)
  const objects: Array<PersistentVolume | PersistentVolumeClaim> = [
    ...volumes.after.map(withKind('PersistentVolume')),
    ...claims.after.map(withKind('PersistentVolumeClaim')),
  ]
  const before: Array<PersistentVolume | PersistentVolumeClaim> = [
    ...volumes.before.map(withKind('PersistentVolume')),
    ...claims.before.map(withKind('PersistentVolumeClaim')),
  ]

  return {
    apiVersion: API_VERSION,
    kind: 'SyncReport',
    kubernetesVersion: opts.kubernetesVersion ?? defaultDecided(opts.gates),
    dryRun: opts.dryRun,
    rounds: result.rounds,
    converged: result.converged,
    actions: result.actions,
    events: result.events,
    errors: result.errors,
    summary: summarize(result.actions),
    objects,
    before,
  }
}

/** The version of gates given without one (a caller that decided no release): theirs, by default. */
export function defaultDecided(gates: FeatureGates): DecidedVersion {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- gates built by hand may lack it
  return {version: kubeVersionText(gates.version ?? DEFAULT_MINOR), source: 'default'}
}

/**
 * The objects (and their before sides, index for index) whose before side is in scope; with no
 * predicate (no scope) the lists themselves, with no filter per object.
 */
function inScopeWithBefore<T>(
  after: T[],
  before: T[],
  pred: ((o: T) => boolean) | undefined,
): {after: T[]; before: T[]} {
  if (pred === undefined) return {after, before}
  const kept = {after: [] as T[], before: [] as T[]}
  for (let i = 0; i < after.length; i++) {
    if (pred(before[i])) {
      kept.after.push(after[i])
      kept.before.push(before[i])
    } else {
      // Out of scope.
    }
  }
  return kept
}

/** Objects in a snapshot may lack apiVersion/kind (typed lists); the report always has them. */
function withKind<T extends PersistentVolume | PersistentVolumeClaim>(
  kind: 'PersistentVolume' | 'PersistentVolumeClaim',
) {
  return (obj: T): T => (obj.kind === kind && obj.apiVersion !== undefined ? obj : {apiVersion: 'v1', kind, ...obj})
}

/** The phase a status write sets, whether the patch replaces /status/phase or adds /status whole. */
function phaseSet(a: Action): string | undefined {
  for (let i = 0; i < a.patch.length; i++) {
    const p = a.patch[i]
    if (p.path === '/status/phase' && p.op !== 'remove') return String(p.value)
    if (p.path === '/status' && p.op !== 'remove') {
      const phase = (p.value as {phase?: unknown} | null)?.phase
      if (typeof phase === 'string') return phase
    }
  }
  return undefined
}

export function summarize(actions: readonly Action[]): SyncSummary {
  // One pass over the actions: a plan of a large cluster has hundreds of thousands. Indexed: see
  // docs/design.md, "Loops that run once".
  const summary: SyncSummary = {
    binds: 0,
    releases: 0,
    recycles: 0,
    deletions: 0,
    provisions: 0,
    lostClaims: 0,
    phaseChanges: 0,
    writes: 0,
  }
  for (let i = 0; i < actions.length; i++) {
    const a = actions[i]
    if (a.action === 'bind-claim') summary.binds++
    else if (a.action === 'recycle') summary.recycles++
    else if (a.action === 'delete') summary.deletions++
    else if (a.action === 'provision') summary.provisions++
    else if (a.action === 'set-volume-phase' || a.action === 'set-claim-phase') {
      const phase = phaseSet(a)
      if (phase !== undefined) {
        summary.phaseChanges++
        if (a.action === 'set-volume-phase' && phase === 'Released') summary.releases++
        if (a.action === 'set-claim-phase' && phase === 'Lost') summary.lostClaims++
      } else {
        // A status write that sets no phase.
      }
    } else {
      // Other writes count only as writes.
    }
    if (a.action !== 'recycle' && a.action !== 'delete' && a.action !== 'provision') summary.writes++
  }
  return summary
}

/** Whether the controller would change anything (a dry run then exits 1). */
export function hasChanges(report: SyncReport): boolean {
  return report.actions.length > 0
}
