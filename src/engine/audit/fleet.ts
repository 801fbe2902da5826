// A fleet audit (`pvctl audit --context a,b`, `--all-contexts`): one AuditReport per kubeconfig context, in
// an AuditReportList (docs/output-contract.md). A cluster that cannot be read is a finding of its own
// (ClusterUnreachable, ClusterForbidden), so one cluster down does not end the audit of the others. PURE.
import type {Finding, FindingCode} from './findings.js'
import {summarize} from '../simulation/plan-sync.js'
import {AUDIT_API_VERSION, auditFails, buildAuditReport, type AuditReport, type FailOn} from './report.js'

export interface AuditReportList {
  apiVersion: typeof AUDIT_API_VERSION
  kind: 'AuditReportList'
  /** One report per context, in the order the contexts were given (the kubeconfig's, with --all-contexts). */
  items: AuditReport[]
}

/** The codes a fleet audit raises about a cluster it could not read, rather than about its objects. */
export const CLUSTER_CODES: readonly FindingCode[] = ['ClusterUnreachable', 'ClusterForbidden']

/** Why a context's cluster could not be read, as the app classifies the error it met. */
export type UnreadCause =
  /** The kubeconfig does not resolve the context (its cluster or user entry is missing, a bad server URL). */
  | 'kubeconfig'
  /** No answer, or none pvctl can trust (refused, TLS, timeout, not an API server, a malformed list). */
  | 'unreachable'
  /** 401: the credentials were refused. */
  | 'unauthorized'
  /** 403: a list the audit needs is not allowed. */
  | 'forbidden'

export interface UnreadCluster {
  context: string
  /** The server URL, credentials redacted; empty when the kubeconfig does not resolve one. */
  server: string
  cause: UnreadCause
  /** The HTTP status of the answer, 0 without one. */
  status: number
  /** The error, one line, credentials redacted. */
  error: string
  /** The request refused (403): what `kubectl auth can-i` is asked. */
  request?: {verb: string; resource: string; namespace?: string}
  /** --kubeconfig PATH when given, for the kubectl command of the fix. */
  kubeconfigArgs: readonly string[]
}

// Resources of cluster scope among those the audit lists: `kubectl auth can-i` needs no namespace for them.
const CLUSTER_SCOPED = new Set(['persistentvolumes', 'storageclasses', 'nodes', 'csidrivers', 'volumeattachments'])

/** The finding that stands for a cluster not read. */
export function unreadClusterFinding(c: UnreadCluster): Finding {
  const code: FindingCode =
    c.cause === 'unauthorized' || c.cause === 'forbidden' ? 'ClusterForbidden' : 'ClusterUnreachable'
  const flags = [...c.kubeconfigArgs, '--context', c.context].join(' ')
  const fixes: Record<UnreadCause, () => string> = {
    kubeconfig: () => `kubectl config view --minify ${flags}`,
    unreachable: () => `kubectl cluster-info ${flags}`,
    unauthorized: () => `kubectl auth whoami ${flags}`,
    forbidden: () => `kubectl auth can-i ${canIArgs(c.request)} ${flags}`,
  }
  return {
    code,
    severity: 'error',
    object: {kind: 'Cluster', name: c.context},
    message: `The cluster of context ${c.context} could not be audited: ${c.error.replace(/\.$/, '')}.`,
    evidence: {
      context: c.context,
      server: c.server === '' ? null : c.server,
      cause: c.cause,
      status: c.status,
      error: c.error,
    },
    fix: fixes[c.cause](),
  }
}

function canIArgs(request: UnreadCluster['request']): string {
  const r = request ?? {verb: 'list', resource: 'persistentvolumeclaims'}
  const where =
    r.namespace !== undefined ? ` -n ${r.namespace}` : CLUSTER_SCOPED.has(r.resource) ? '' : ' --all-namespaces'
  return `${r.verb} ${r.resource}${where}`
}

/** The report of a cluster not read: nothing counted, the one finding (which --ignore may silence). */
export function unreadClusterReport(c: UnreadCluster, ignore: ReadonlySet<string>): AuditReport {
  return {
    ...buildAuditReport([unreadClusterFinding(c)], {claims: 0, volumes: 0, plannedChanges: {...summarize([])}}, ignore),
    context: c.context,
  }
}

/**
 * The report with every kubectl command of its fixes aimed at its cluster (`--context NAME`, and the
 * `--kubeconfig` given): in a fleet, a fix without them would run against the current context, another
 * cluster. Commands that already name a context (pvctl's carry the source they read) are left as they are.
 */
export function aimFixes(report: AuditReport, flags: readonly string[]): AuditReport {
  const aim = (fix: string) =>
    fix
      .split(' && ')
      .map((command) =>
        command.startsWith('kubectl ') && !/ --context /.test(command) ? `${command} ${flags.join(' ')}` : command,
      )
      .join(' && ')
  return {...report, findings: report.findings.map((f) => ({...f, fix: aim(f.fix)}))}
}

export function auditReportList(items: readonly AuditReport[]): AuditReportList {
  return {apiVersion: AUDIT_API_VERSION, kind: 'AuditReportList', items: [...items]}
}

/** Whether a report is of a cluster not read (its finding kept or silenced). */
export function isUnread(r: AuditReport): boolean {
  return (
    r.findings.some((f) => CLUSTER_CODES.includes(f.code)) ||
    CLUSTER_CODES.some((code) => (r.summary.ignored[code] ?? 0) > 0)
  )
}

/**
 * The fleet's exit status: 3 when no cluster could be read at all (an audit of nothing is no pass), else 1
 * when any report fails the bar (a cluster not read is an error finding and fails it, unless silenced or
 * --fail-on none), else 0.
 */
export function fleetOutcome(reports: readonly AuditReport[], failOn: FailOn): 'unread' | 'fails' | 'passes' {
  return reports.length > 0 && reports.every(isUnread)
    ? 'unread'
    : reports.some((r) => auditFails(r, failOn))
      ? 'fails'
      : 'passes'
}
