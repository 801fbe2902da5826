// The human form of `pvctl audit`: a one-line summary, then the findings grouped by severity as
// `kubectl get`-style tables (CODE, OBJECT, MESSAGE), each followed by its fix. PURE.
import {SEVERITIES, type Severity} from '../engine/audit/findings.js'
import type {AuditReport} from '../engine/audit/report.js'
import type {Palette} from './color.js'
import {kubectlTable, type TableLayout} from './kubectl-table.js'

const HEADINGS: Record<Severity, string> = {error: 'Errors:', warning: 'Warnings:', info: 'Info:'}

/** `layout`: --no-headers, and the terminal the tables are fitted to (the message wraps, never cut). */
export function renderAuditTable(report: AuditReport, palette: Palette, layout: TableLayout = {}): string {
  const blocks = [summaryLine(report)]
  for (const severity of SEVERITIES) {
    const found = report.findings.filter((f) => f.severity === severity)
    if (found.length === 0) continue
    const colour = severity === 'error' ? palette.red : severity === 'warning' ? palette.yellow : (t: string) => t
    const rows = found.map((f) => [colour(f.code), objectName(f.object), f.message])
    const fixes = found.map((f) => `  ${objectName(f.object)}: ${f.fix}`)
    blocks.push(`${palette.bold(HEADINGS[severity])}\n${kubectlTable(['CODE', 'OBJECT', 'MESSAGE'], rows, {...layout, wrap: 2})}\nFix:\n${fixes.join('\n')}`)
  }
  if (report.findings.length > 0) blocks.push('Every code is described in docs/codes.md.')
  return blocks.join('\n\n') + '\n'
}

function objectName(o: {kind: string; namespace?: string; name: string}): string {
  const short = o.kind === 'PersistentVolumeClaim' ? 'pvc' : o.kind === 'PersistentVolume' ? 'pv' : 'storageclass'
  return o.namespace !== undefined ? `${short}/${o.namespace}/${o.name}` : `${short}/${o.name}`
}

function summaryLine(r: AuditReport): string {
  const s = r.summary
  const ignored = Object.values(s.ignored).reduce((a, b) => a + (b ?? 0), 0)
  const writes = s.plannedWrites === 0 ? 'no changes planned' : `the controller would make ${s.plannedWrites} write${s.plannedWrites === 1 ? '' : 's'} first (pvctl sync --dry-run shows them)`
  return (
    `Audit: ${s.healthyClaims}/${s.claims} claims and ${s.healthyVolumes}/${s.volumes} volumes healthy; ` +
    `${s.findings.error} error${s.findings.error === 1 ? '' : 's'}, ${s.findings.warning} warning${s.findings.warning === 1 ? '' : 's'}, ${s.findings.info} info` +
    `${ignored > 0 ? ` (${ignored} ignored)` : ''}; ${writes}.`
  )
}
