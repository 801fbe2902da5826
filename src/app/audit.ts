// The audit use-case: load the state once, audit it (engine/audit/audit-state.ts), and say how the command
// should exit.
import {auditState, type AuditOptions} from '../engine/audit/audit-state.js'
import {auditFails, type AuditReport} from '../engine/audit/report.js'
import {apiServerTime} from '../engine/simulation/plan-sync.js'
import {ExitCode} from '../errors.js'
import {ForbiddenError} from '../cluster/api-errors.js'
import {auditEvidence} from './audit-evidence.js'
import {
  checkScope,
  loadClusterState,
  type LoadStateOptions,
  type LoadStateUi,
  noticeCaveats,
} from './load-cluster-state.js'
import {asked} from './request-errors.js'

export interface AuditResult {
  report: AuditReport
  exitCode: number
  /** Notices about the answer, to say after it (caveats of a partial snapshot). */
  after: string[]
  /** Where the state came from, for a report that names it: "snapshot FILE", "context NAME (SERVER)". */
  origin: string
}

export async function runAudit(
  request: Omit<AuditOptions, 'gates' | 'kubernetesVersion'> & LoadStateOptions,
  ui: LoadStateUi,
): Promise<AuditResult> {
  // The whole cluster, whatever -n and -l say: a claim of another namespace may take a volume first, a
  // volume's claimRef may name a claim of any namespace, a provisioner's last event may be on any claim.
  // The scope chooses what the report shows (auditScope, engine/audit/audit-state.ts), never what it is judged on.
  const loaded = await loadClusterState({...request, namespace: undefined, labelSelectorText: undefined}, ui).catch(
    (err: unknown) => {
      throw scopedReadRefused(err, request)
    },
  )
  // Judged as the release the cluster runs, with its gates.
  const opts = {...request, gates: loaded.gates, kubernetesVersion: loaded.version, now: apiServerTime(new Date())}
  // As sync's: a scope that matches nothing audits nothing, and "0/0 healthy" would pass a CI job.
  checkScope(loaded.state, opts, ui)
  const after: string[] = []
  noticeCaveats(loaded, {notice: (line) => void after.push(line)})
  const evidence = await auditEvidence(loaded)
  const report = asked(() => auditState(loaded.state, {...opts, evidence}, {notice: (line) => void after.push(line)}))
  const origin =
    loaded.source === 'snapshot'
      ? `snapshot ${(opts.filename ?? []).join(', ')}`
      : `context ${loaded.session.contextName} (${loaded.session.server})`
  return {report, exitCode: auditFails(report, opts.failOn) ? ExitCode.Changes : ExitCode.Ok, after, origin}
}

/**
 * A scoped audit whose cluster-wide list of claims or pods is refused: said as what it lacks, not judged on
 * the namespace alone (whose verdicts could differ from the whole cluster's). Any other error as it is.
 */
function scopedReadRefused(err: unknown, opts: Pick<AuditOptions, 'namespace' | 'labelSelector' | 'targets'>): unknown {
  const scoped = opts.namespace !== undefined || opts.labelSelector !== undefined || (opts.targets ?? []).length > 0
  if (
    !(err instanceof ForbiddenError) ||
    !scoped ||
    err.target.namespace !== undefined ||
    !['persistentvolumeclaims', 'pods'].includes(err.target.resource)
  )
    return err
  return new ForbiddenError(
    `a scoped audit is judged on the whole cluster (a claim of another namespace may take a volume first, a volume's claimRef may name one), and listing ${err.target.resource} in every namespace was refused (kubectl auth can-i list ${err.target.resource} --all-namespaces): ${err.message}`,
    err.target,
    err.status,
    err.reason,
    [
      'ask for list on persistentvolumeclaims and pods cluster-wide, or audit a snapshot (-f) taken by someone who has it',
    ],
  )
}
