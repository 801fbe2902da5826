// The human form of `pvctl audit`: a one-line summary, then the findings grouped by severity as
// `kubectl get`-style tables (CODE, OBJECT, MESSAGE), each followed by its fix. PURE.
import {objectName, SEVERITIES, type Severity} from '../engine/audit/findings.js'
import type {AuditReport, AuditSummary} from '../engine/audit/report.js'
import {renderCapacityBars} from './audit-capacity.js'
import type {Palette} from './color.js'
import {kubectlTable, type TableLayout} from './kubectl-table.js'
import {wrapProse} from './prose.js'

const HEADINGS: Record<Severity, string> = {error: 'Errors:', warning: 'Warnings:', info: 'Info:'}

/**
 * Capacity bars after the summary line: none, per class (the table on a terminal), per class and per
 * namespace (-o wide).
 */
export type CapacityView = 'none' | 'class' | 'namespace'

/**
 * `layout`: --no-headers, and the terminal the tables are fitted to (the message wraps, never cut);
 * `capacity`: the bars after the summary, when the report has its capacity.
 */
export function renderAuditTable(
  report: AuditReport,
  palette: Palette,
  layout: TableLayout = {},
  capacity: CapacityView = 'none',
): string {
  const blocks = [
    wrapProse(auditSummaryLine(report), layout.width),
    ...capacityBlocks(report, palette, layout, capacity),
    ...auditFindingBlocks(report, palette, layout),
  ]
  if (report.findings.length > 0) blocks.push(CODES_LINE)
  return blocks.join('\n\n') + '\n'
}

/** The capacity bars of `view` (audit-fleet-table.ts puts them in each cluster's section too). */
export function capacityBlocks(
  report: AuditReport,
  palette: Palette,
  layout: TableLayout,
  view: CapacityView,
): string[] {
  if (view === 'none' || report.capacity === undefined) return []
  const byClass = renderCapacityBars(report.capacity.byClass, 'class', palette, layout)
  const byNamespace =
    view === 'namespace' ? renderCapacityBars(report.capacity.byNamespace, 'namespace', palette, layout) : ''
  // An empty audit has no rows: no block for it.
  return [byClass, byNamespace].filter((b) => b !== '')
}

/** Where the codes are described: in what the package installs (the help and the man page), not in a file of the source. */
export const CODES_LINE = 'Every code is described in pvctl audit --help (FINDING CODES) and man pvctl-audit.'

/** Per severity, its heading, its table of findings and their fixes. */
export function auditFindingBlocks(report: AuditReport, palette: Palette, layout: TableLayout = {}): string[] {
  const blocks: string[] = []
  for (const severity of SEVERITIES) {
    const found = report.findings.filter((f) => f.severity === severity)
    if (found.length === 0) continue
    const colour = severity === 'error' ? palette.red : severity === 'warning' ? palette.yellow : (t: string) => t
    const rows = found.map((f) => [colour(f.code), objectName(f.object), f.message])
    // Not wrapped: a fix is a command, to be copied whole.
    const fixes = found.map((f) => `  ${objectName(f.object)}: ${f.fix}`)
    blocks.push(
      `${palette.bold(HEADINGS[severity])}\n${kubectlTable(['CODE', 'OBJECT', 'MESSAGE'], rows, {...layout, wrap: 2})}\nFix:\n${fixes.join('\n')}`,
    )
  }
  return blocks
}

/** "2 errors, 1 warning, 0 info (3 ignored)": findings per severity, and how many were silenced. */
export function findingCounts(found: Readonly<Record<Severity, number>>, ignored: number): string {
  return `${found.error} error${found.error === 1 ? '' : 's'}, ${found.warning} warning${found.warning === 1 ? '' : 's'}, ${found.info} info${ignored > 0 ? ` (${ignored} ignored)` : ''}`
}

export function ignoredCount(s: AuditSummary): number {
  return Object.values(s.ignored).reduce((a, b) => a + b, 0)
}

/** The one line every audit output opens with: health, findings per severity, silenced, planned writes. */
export function auditSummaryLine(r: AuditReport): string {
  const s = r.summary
  const writes =
    s.plannedWrites === 0
      ? 'no changes planned'
      : `the controller would make ${s.plannedWrites} write${s.plannedWrites === 1 ? '' : 's'} first (pvctl sync --dry-run shows them)`
  return `Audit: ${s.healthyClaims}/${s.claims} claims and ${s.healthyVolumes}/${s.volumes} volumes healthy; ${findingCounts(s.findings, ignoredCount(s))}; ${writes}.`
}
