// The RelinkReport document (`pvctl relink -o json|yaml`, schema/relink-report.schema.json): for each pair,
// the checks, the writes (the volume first), and what the controller does next. PURE.
import type {DecidedVersion} from '../api/kube-version.js'
import {claimRefKey} from '../api/model.js'
import type {Action, JsonPatchOp, ObjectRef} from '../simulation/plan.js'
import {relinkCommand, type RelinkCheck, type RelinkDecision} from './relink.js'
import {RECLAIM_API_VERSION, type RepairOutcome, type RepairSync} from './report.js'

export interface RelinkPair {
  /** The command that relinks this pair alone (`pvctl relink pv/NAME`, `pvctl relink pvc/NAME -n NS`). */
  command: string
  volume: {
    name: string
    exists: boolean
    phase: string | null
    claimRef: string | null
    claimRefUid: string | null
    reclaimPolicy: string | null
  } | null
  claim: {
    namespace: string
    name: string
    exists: boolean
    uid: string | null
    phase: string | null
    volumeName: string | null
  } | null
  /** Every check holds, the proof included. */
  allowed: boolean
  checks: RelinkCheck[]
  /** In the order written: the volume, then the claim. */
  writes: Array<{object: ObjectRef; patch: JsonPatchOp[]; resourceVersion: string | null; outcome: RepairOutcome}>
  /** What the controller does next with the pair, from its plan on the edited state; null when refused before the proof. */
  next: string | null
  nextActions: Action[]
  /** The pair was found relinked already (nothing to write): "already relinked: …". */
  already?: string
}

export interface RelinkReport {
  apiVersion: typeof RECLAIM_API_VERSION
  kind: 'RelinkReport'
  /** The Kubernetes release the relink's proof was decided as, and where pvctl learned it. */
  kubernetesVersion?: DecidedVersion
  /** Nothing is written: --dry-run, or a snapshot (then `simulation` too). */
  dryRun: boolean
  simulation: boolean
  /** --all: every relinkable pair (the refused candidates too, with their checks); else the one pair named. */
  all: boolean
  pairs: RelinkPair[]
  /** What happens to the data. */
  dataSafety: string
  /** --sync: the controller's sync of the pairs, run once they were written. */
  sync?: RepairSync
}

export const RELINK_DATA_SAFETY =
  "No data is moved or wiped: the volume's data becomes reachable again through the claim that names it."

export function relinkPair(d: RelinkDecision, outcome: RepairOutcome): RelinkPair {
  const v = d.volume?.object ?? null
  const c = d.claim?.object ?? null
  const ref = v?.spec.claimRef
  return {
    command: relinkCommand(d.target),
    volume:
      d.volume === null
        ? null
        : {
            name: d.volume.name,
            exists: v !== null,
            phase: v?.status?.phase ?? null,
            claimRef: ref == null ? null : claimRefKey(ref),
            claimRefUid: ref?.uid ?? null,
            reclaimPolicy: v?.spec.persistentVolumeReclaimPolicy ?? null,
          },
    claim:
      d.claim === null
        ? null
        : {
            namespace: d.claim.namespace,
            name: d.claim.name,
            exists: c !== null,
            uid: c?.metadata.uid ?? null,
            phase: c?.status?.phase ?? null,
            volumeName: c?.spec.volumeName ?? null,
          },
    allowed: d.allowed,
    checks: d.checks,
    writes: d.writes.map((w) => ({
      object: w.object,
      patch: w.patch,
      resourceVersion: w.before.metadata.resourceVersion ?? null,
      outcome: d.allowed ? outcome : 'refused',
    })),
    next: d.next,
    nextActions: d.nextActions ?? [],
    ...(d.already === null ? {} : {already: d.already}),
  }
}

export function buildRelinkReport(
  pairs: RelinkPair[],
  opts: {dryRun: boolean; simulation: boolean; all: boolean; kubernetesVersion?: DecidedVersion},
): RelinkReport {
  return {
    apiVersion: RECLAIM_API_VERSION,
    kind: 'RelinkReport',
    ...(opts.kubernetesVersion !== undefined ? {kubernetesVersion: opts.kubernetesVersion} : {}),
    dryRun: opts.dryRun || opts.simulation,
    simulation: opts.simulation,
    all: opts.all,
    pairs,
    dataSafety: RELINK_DATA_SAFETY,
  }
}
