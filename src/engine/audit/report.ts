// The AuditReport document (docs/output-contract.md, "pvctl audit"), and the exit status it implies. PURE.
import type {DecidedVersion} from '../api/kube-version.js'
import type {AuditCapacity} from './capacity.js'
import type {PointerPicture} from './pointers.js'
import {
  FINDING_CODES,
  objectKey,
  SEVERITIES,
  type Finding,
  type FindingCode,
  type FindingObject,
  type Severity,
} from './findings.js'

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
  /** Findings left out, per code: by --ignore or by the objects' pvctl.io/audit-ignore annotation. */
  ignored: Partial<Record<FindingCode, number>>
  /** Of those, the ones the annotation silenced (a finding silenced both ways counts as --ignore's). */
  ignoredByAnnotation: Partial<Record<FindingCode, number>>
  /** The writes the controller's plan would make (plannedChanges.writes). */
  plannedWrites: number
}

export interface AuditReport {
  apiVersion: typeof AUDIT_API_VERSION
  kind: 'AuditReport'
  /** The kubeconfig context audited, in a fleet audit (--context a,b, --all-contexts): names its table section, junit suite and markdown section; absent otherwise. */
  context?: string
  /** The Kubernetes release the audit was decided as, and where pvctl learned it (absent: a cluster that could not be read). */
  kubernetesVersion?: DecidedVersion
  summary: AuditSummary
  /** The plan's summary, as SyncReport.summary: what the controller is about to change before the judging. */
  plannedChanges: {writes: number} & Record<string, number>
  findings: Finding[]
  /**
   * The objects judged, claims then volumes (not in the -o json document, whose summary counts them): the
   * junit renderer gives each a test case, a healthy one passes.
   */
  audited?: readonly FindingObject[]
  /** The findings left out and why (not in the -o json document, whose summary counts them). */
  silenced?: readonly SilencedFinding[]
  /** Storage per class and namespace (not in the -o json document): the html chart and the terminal's bars. */
  capacity?: AuditCapacity
  /** The pointers around each claim and volume with a finding, by objectKey (not in the -o json document): the html pictures. */
  pointers?: ReadonlyMap<string, PointerPicture>
}

export interface SilencedFinding {
  finding: Finding
  by: 'ignore' | 'annotation'
}

export interface AuditTotals {
  claims: number
  volumes: number
  plannedChanges: {writes: number} & Record<string, number>
  /** The objects judged, for AuditReport.audited. */
  audited?: readonly FindingObject[]
}

/**
 * Orders findings by severity (error first), then kind, namespace, name, code: a stable report. `ignore` is
 * --ignore; `annotated` the codes each object's pvctl.io/audit-ignore silences, by objectKey.
 */
export function buildAuditReport(
  all: readonly Finding[],
  totals: AuditTotals,
  ignore: ReadonlySet<string>,
  annotated: ReadonlyMap<string, ReadonlySet<string>> = new Map(),
): AuditReport {
  const ignored: Partial<Record<FindingCode, number>> = {}
  const ignoredByAnnotation: Partial<Record<FindingCode, number>> = {}
  const findings: Finding[] = []
  const silenced: SilencedFinding[] = []
  for (const f of all) {
    const by = silencedBy(f, ignore, annotated)
    if (by !== undefined) {
      ignored[f.code] = (ignored[f.code] ?? 0) + 1
      silenced.push({finding: f, by})
      if (by === 'annotation') ignoredByAnnotation[f.code] = (ignoredByAnnotation[f.code] ?? 0) + 1
      else {
        // Silenced by --ignore: counted in ignored only.
      }
    } else {
      findings.push(f)
    }
  }
  const sortedFindings = inReportOrder(findings, (f) => f)
  const sortedSilenced = inReportOrder(silenced, (x) => x.finding)
  // Healthy: no finding at all, silenced ones included (an ignored code is not a clean bill of health).
  const sick = new Set(all.map((f) => objectKey(f.object)))
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
      ignoredByAnnotation,
      plannedWrites: totals.plannedChanges.writes,
    },
    plannedChanges: totals.plannedChanges,
    findings: sortedFindings,
    ...(totals.audited !== undefined ? {audited: totals.audited} : {}),
    silenced: sortedSilenced,
  }
}

/**
 * By severity (error first), then kind, namespace, name, code. Each sort key is made once: a comparator that
 * built both keys on every comparison made them n log n times, and an audit at 100k objects has as many findings.
 */
function inReportOrder<T>(items: readonly T[], findingOf: (item: T) => Finding): T[] {
  return items
    .map((item) => {
      const f = findingOf(item)
      return {item, severity: SEVERITIES.indexOf(f.severity), key: key(f)}
    })
    .sort((a, b) => a.severity - b.severity || a.key.localeCompare(b.key))
    .map((k) => k.item)
}

/** What silences a finding: --ignore (`ignore`) first, then its object's annotation (`annotated`), or nothing. */
export function silencedBy(
  f: Pick<Finding, 'code' | 'object'>,
  ignore: ReadonlySet<string>,
  annotated: ReadonlyMap<string, ReadonlySet<string>>,
): SilencedFinding['by'] | undefined {
  return ignore.has(f.code)
    ? 'ignore'
    : annotated.get(objectKey(f.object))?.has(f.code) === true
      ? 'annotation'
      : undefined
}

function key(f: Finding): string {
  return `${f.object.kind}\u0000${f.object.namespace ?? ''}\u0000${f.object.name}\u0000${f.code}`
}

/**
 * 0: no finding at or above failOn and no planned change; 1 otherwise. `none` fails on nothing: the findings
 * and the planned changes are reported, and a CI job that only wants the report goes on.
 */
export function auditFails(report: AuditReport, failOn: FailOn): boolean {
  if (failOn === 'none') return false
  return report.summary.plannedWrites > 0 || report.findings.some((f) => failsAt(f.severity, failOn))
}

/** A finding of this severity fails an audit run with --fail-on failOn. */
export function failsAt(severity: Severity, failOn: FailOn): boolean {
  return failOn !== 'none' && SEVERITIES.indexOf(severity) <= SEVERITIES.indexOf(failOn)
}

/** The codes --ignore names, refused when one is not a finding code (a typo would silence nothing). */
export function unknownCodes(codes: readonly string[]): string[] {
  return codes.filter((c) => !(c in FINDING_CODES))
}
