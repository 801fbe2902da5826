// The ReclaimReport document (`pvctl reclaim -o json|yaml`, schema/reclaim-report.schema.json): the checks,
// the one write, and what the controller does next. PURE.
import type {DecidedVersion} from '../api/kube-version.js'
import {claimRefKey} from '../api/model.js'
import type {Action, JsonPatchOp, ObjectRef} from '../simulation/plan.js'
import type {ReclaimCheck, ReclaimDecision} from './reclaim.js'

export const RECLAIM_API_VERSION = 'pvctl/v1alpha1'

/**
 * What became of the write: `refused` (a check blocks it), `planned` (--dry-run), `simulated` (a snapshot),
 * `declined` (not confirmed), `written`, `already-done` (found done: a re-run, or a run after a crash that
 * followed the write; nothing to write), or `not-written: WHY` (the guard's re-read stopped it).
 */
export type RepairOutcome =
  'refused' | 'planned' | 'simulated' | 'declined' | 'written' | 'already-done' | `not-written: ${string}`
export type ReclaimOutcome = RepairOutcome

export interface ReclaimReport {
  apiVersion: typeof RECLAIM_API_VERSION
  kind: 'ReclaimReport'
  /** The Kubernetes release the reclaim's proof was decided as, and where pvctl learned it. */
  kubernetesVersion?: DecidedVersion
  /** Nothing is written: --dry-run, or a snapshot (then `simulation` too). */
  dryRun: boolean
  simulation: boolean
  volume: {
    name: string
    phase: string | null
    /** status.lastPhaseTransitionTime as read: since when it is Released (stamped by the API server, GA from v1.31); absent when unset. */
    phaseSince?: string
    claimRef: string | null
    reclaimPolicy: string | null
  }
  /** --for NS/CLAIM, and whether that claim exists; null without --for. */
  for: {namespace: string; name: string; exists: boolean} | null
  /** Every check holds or was forced, the proof included. */
  allowed: boolean
  checks: ReclaimCheck[]
  write: {object: ObjectRef; patch: JsonPatchOp[]; resourceVersion: string | null; outcome: ReclaimOutcome}
  /** What the controller does next, from its plan on the edited state; null when refused before the proof. */
  next: string | null
  /** That plan's writes to the volume and the claim it binds. */
  nextActions: Action[]
  /** What happens to the data. */
  dataSafety: string
  /** The volume was found reclaimed already (outcome `already-done`): "already reclaimed: …". */
  already?: string
  /** --sync: the controller's sync of the pair, run once the reclaim was written. */
  sync?: RepairSync
}

/** --sync: the controller's sync of what a repair wrote, run once it was written. */
export interface RepairSync {
  converged: boolean
  writes: number
  actions: Action[]
}

export function buildReclaimReport(
  d: ReclaimDecision,
  opts: {dryRun: boolean; simulation: boolean; outcome: ReclaimOutcome; kubernetesVersion?: DecidedVersion},
): ReclaimReport {
  const v = d.volume
  const ref = v.spec.claimRef
  return {
    apiVersion: RECLAIM_API_VERSION,
    kind: 'ReclaimReport',
    ...(opts.kubernetesVersion !== undefined ? {kubernetesVersion: opts.kubernetesVersion} : {}),
    dryRun: opts.dryRun || opts.simulation,
    simulation: opts.simulation,
    volume: {
      name: v.metadata.name ?? '',
      phase: v.status?.phase ?? null,
      ...(v.status?.lastPhaseTransitionTime != null ? {phaseSince: v.status.lastPhaseTransitionTime} : {}),
      claimRef: ref == null ? null : claimRefKey(ref),
      reclaimPolicy: v.spec.persistentVolumeReclaimPolicy ?? null,
    },
    for: d.target,
    allowed: d.allowed,
    checks: d.checks,
    write: {
      object: {kind: 'PersistentVolume', name: v.metadata.name ?? ''},
      patch: d.patch,
      resourceVersion: v.metadata.resourceVersion ?? null,
      outcome: opts.outcome,
    },
    next: d.next,
    nextActions: d.nextActions ?? [],
    dataSafety: dataSafety(d),
    ...(d.already === null ? {} : {already: d.already}),
  }
}

/** The sentence the operator consents to: the data is not wiped, and who will see it. */
export function dataSafety(d: Pick<ReclaimDecision, 'target'>): string {
  const who = d.target === null ? 'whichever claim binds it next' : `pvc/${d.target.namespace}/${d.target.name}`
  return `Its data stays on the volume and becomes visible to the pods of ${who}.`
}

/** The checks that block the reclaim (neither holding nor forced). */
export function blockingChecks<C extends {ok: boolean; forced: boolean}>(r: {checks: readonly C[]}): C[] {
  return r.checks.filter((c) => !c.ok && !c.forced)
}
