// The human form of a fleet audit (`pvctl audit --context a,b`, `--all-contexts`): with several clusters a
// one-line total and a table of the clusters and their counts first; then one section per cluster, a
// heading naming its context and the usual audit (audit-table.ts). PURE.
import {isUnread} from '../engine/audit/fleet.js'
import type {AuditReport} from '../engine/audit/report.js'
import {
  auditFindingBlocks,
  auditSummaryLine,
  capacityBlocks,
  CODES_LINE,
  findingCounts,
  ignoredCount,
  type CapacityView,
} from './audit-table.js'
import type {Palette} from './color.js'
import {kubectlTable, type TableLayout} from './kubectl-table.js'

const UNKNOWN = '<unknown>'

/** `layout`: --no-headers, and the terminal the tables are fitted to; `capacity`: each section's bars, as for one cluster. */
export function renderAuditFleetTable(
  reports: readonly AuditReport[],
  palette: Palette,
  layout: TableLayout = {},
  capacity: CapacityView = 'none',
): string {
  const blocks: string[] = reports.length > 1 ? [fleetSummary(reports), clustersTable(reports, layout)] : []
  for (const r of reports) {
    // The section is the audit of one cluster but for where the codes are described, said once at the end.
    const summary = sectionSummaryLine(r)
    blocks.push(
      `${palette.bold(`=== context ${r.context ?? ''} ===`)}\n${summary}`,
      ...capacityBlocks(r, palette, layout, capacity),
      ...auditFindingBlocks(r, palette, layout),
    )
  }
  if (reports.some((r) => r.findings.length > 0)) blocks.push(CODES_LINE)
  return blocks.join('\n\n') + '\n'
}

/** A cluster's summary line: the audit's, or that it could not be read. */
export function sectionSummaryLine(r: AuditReport): string {
  return isUnread(r)
    ? `Audit: the cluster could not be read, nothing of it was audited; ${findingCounts(r.summary.findings, ignoredCount(r.summary))}.`
    : auditSummaryLine(r)
}

function fleetSummary(reports: readonly AuditReport[]): string {
  const total = (pick: (r: AuditReport) => number) => reports.reduce((n, r) => n + pick(r), 0)
  const unread = reports.filter(isUnread).length
  const found = {
    error: total((r) => r.summary.findings.error),
    warning: total((r) => r.summary.findings.warning),
    info: total((r) => r.summary.findings.info),
  }
  const counts = findingCounts(
    found,
    total((r) => ignoredCount(r.summary)),
  )
  const writes = total((r) => r.summary.plannedWrites)
  return (
    `Fleet: ${reports.length} clusters${unread > 0 ? ` (${unread} not read)` : ''}; ${counts}; ` +
    `${writes === 0 ? 'no changes planned' : `the controllers would make ${writes} write${writes === 1 ? '' : 's'} first`}.`
  )
}

function clustersTable(reports: readonly AuditReport[], layout: TableLayout): string {
  const rows = reports.map((r) => {
    const s = r.summary
    const read = !isUnread(r)
    return [
      r.context ?? '',
      read ? 'Read' : 'NotRead',
      read ? `${s.healthyClaims}/${s.claims}` : UNKNOWN,
      read ? `${s.healthyVolumes}/${s.volumes}` : UNKNOWN,
      String(s.findings.error),
      String(s.findings.warning),
      String(s.findings.info),
      read ? String(s.plannedWrites) : UNKNOWN,
    ]
  })
  return kubectlTable(
    ['CONTEXT', 'STATUS', 'HEALTHY CLAIMS', 'HEALTHY VOLUMES', 'ERRORS', 'WARNINGS', 'INFO', 'WRITES'],
    rows,
    {noHeaders: layout.noHeaders},
  )
}
