// The AuditReport document (docs/output-contract.md, "pvctl audit"), and the exit status it implies. PURE.
import {FINDING_CODES, SEVERITIES, type Finding, type FindingCode, type Severity} from './findings.js'

export const AUDIT_API_VERSION = 'pvctl/v1alpha1'

/** --fail-on: the lowest severity that fails the audit, or none. */
export type FailOn = Severity | 'none'

export interface AuditSummary {
  claims: number
  volumes: number
  healthyClaims: number
  healthyVolumes: number
  /** Findings reported, per severity (the silenced ones not among them). */
  findings: Record<Severity, number>
  /** Findings left out by --ignore, per code. */
  ignored: Partial<Record<FindingCode, number>>
  /** The writes the controller's plan would make (plannedChanges.writes). */
  plannedWrites: number
}

export interface AuditReport {
  apiVersion: typeof AUDIT_API_VERSION
  kind: 'AuditReport'
  /** The kubeconfig context audited, in a fleet audit (--context a,b, --all-contexts); absent otherwise. */
  context?: string
  summary: AuditSummary
  /** The plan's summary, as SyncReport.summary: what the controller is about to change before the judging. */
  plannedChanges: {writes: number} & Record<string, number>
  findings: Finding[]
}

export interface AuditTotals {
  claims: number
  volumes: number
  plannedChanges: {writes: number} & Record<string, number>
}

/** Orders findings by severity (error first), then kind, namespace, name, code: a stable report. */
export function buildAuditReport(all: readonly Finding[], totals: AuditTotals, ignore: ReadonlySet<string>): AuditReport {
  const ignored: Partial<Record<FindingCode, number>> = {}
  const findings: Finding[] = []
  for (const f of all) {
    if (ignore.has(f.code)) ignored[f.code] = (ignored[f.code] ?? 0) + 1
    else findings.push(f)
  }
  findings.sort((a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) || key(a).localeCompare(key(b)))
  // Healthy: no finding at all, silenced ones included (an ignored code is not a clean bill of health).
  const sick = new Set(all.map((f) => `${f.object.kind}/${f.object.namespace ?? ''}/${f.object.name}`))
  const sickOf = (kind: string) => [...sick].filter((k) => k.startsWith(`${kind}/`)).length
  const count = (s: Severity) => findings.filter((f) => f.severity === s).length
  return {
    apiVersion: AUDIT_API_VERSION,
    kind: 'AuditReport',
    summary: {
      claims: totals.claims,
      volumes: totals.volumes,
      healthyClaims: totals.claims - sickOf('PersistentVolumeClaim'),
      healthyVolumes: totals.volumes - sickOf('PersistentVolume'),
      findings: {error: count('error'), warning: count('warning'), info: count('info')},
      ignored,
      plannedWrites: totals.plannedChanges.writes,
    },
    plannedChanges: totals.plannedChanges,
    findings,
  }
}

function key(f: Finding): string {
  return `${f.object.kind}\u0000${f.object.namespace ?? ''}\u0000${f.object.name}\u0000${f.code}`
}

/** 0: no finding at or above failOn and no planned change; 1 otherwise. */
export function auditFails(report: AuditReport, failOn: FailOn): boolean {
  if (report.summary.plannedWrites > 0) return true
  if (failOn === 'none') return false
  const bar = SEVERITIES.indexOf(failOn)
  return report.findings.some((f) => SEVERITIES.indexOf(f.severity) <= bar)
}

/** The codes --ignore names, refused when one is not a finding code (a typo would silence nothing). */
export function unknownCodes(codes: readonly string[]): string[] {
  return codes.filter((c) => !(c in FINDING_CODES))
}
