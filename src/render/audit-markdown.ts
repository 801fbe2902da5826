// `pvctl audit -o markdown`: GitHub-flavoured Markdown for a CI job summary or a pull-request comment. PURE.
// One section per report (one per cluster): the summary line, then a table per severity (code, object,
// message, fix), then what was silenced. Cells are escaped so that no message breaks its table.
import {objectName, SEVERITIES, type FindingCode, type Severity} from '../engine/audit/findings.js'
import type {AuditReport} from '../engine/audit/report.js'
import {AUDIT_IGNORE_ANNOTATION} from '../engine/audit/silence.js'
import {auditSummaryLine} from './audit-table.js'
import {decidedAsLine} from '../engine/api/kube-version.js'

const HEADINGS: Record<Severity, string> = {error: 'Errors', warning: 'Warnings', info: 'Info'}

export function renderAuditMarkdown(reports: readonly AuditReport[]): string {
  return reports.map(section).join('\n')
}

function section(report: AuditReport): string {
  const blocks = [
    `## pvctl audit${report.context !== undefined ? `: ${inline(report.context)}` : ''}`,
    ...(report.kubernetesVersion !== undefined ? [inline(`${decidedAsLine(report.kubernetesVersion)}.`)] : []),
    inline(auditSummaryLine(report)),
  ]
  for (const severity of SEVERITIES) {
    const found = report.findings.filter((f) => f.severity === severity)
    if (found.length > 0) {
      const rows = found.map(
        (f) => `| ${code(f.code)} | ${code(objectName(f.object))} | ${inline(f.message)} | ${code(f.fix)} |`,
      )
      blocks.push(
        `### ${HEADINGS[severity]} (${found.length})`,
        ['| Code | Object | Message | Fix |', '| --- | --- | --- | --- |', ...rows].join('\n'),
      )
    } else {
      // No finding of this severity: no heading for it.
    }
  }
  const silenced = silencedLine(report)
  if (silenced !== undefined) blocks.push(silenced)
  else {
    // Nothing silenced.
  }
  if (report.findings.length > 0)
    blocks.push('Every code is described in `pvctl audit --help` (FINDING CODES) and `man pvctl-audit`.')
  else {
    // A clean audit: the summary line says it all.
  }
  return blocks.join('\n\n') + '\n'
}

/** "Silenced: 2 `ClaimLost` (1 by pvctl.io/audit-ignore), ...": the counts of the summary, per code. */
function silencedLine(report: AuditReport): string | undefined {
  const {ignored, ignoredByAnnotation} = report.summary
  const codes = Object.keys(ignored).sort() as FindingCode[]
  if (codes.length === 0) return undefined
  const parts = codes.map((c) => {
    const byAnnotation = ignoredByAnnotation[c] ?? 0
    const how =
      byAnnotation === 0
        ? 'by --ignore'
        : byAnnotation === ignored[c]
          ? `by ${AUDIT_IGNORE_ANNOTATION}`
          : `${byAnnotation} by ${AUDIT_IGNORE_ANNOTATION}`
    return `${ignored[c]} ${code(c)} (${how})`
  })
  return `Silenced: ${parts.join(', ')}.`
}

/** Text in a cell or a line: Markdown's punctuation backslash-escaped, a line break as <br>, controls as U+FFFD. */
function inline(s: string): string {
  return s
    .replace(/[\\`*_[\]<>|~&#!]/g, (c) => `\\${c}`)
    .replace(/\r?\n/g, '<br>')
    .replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, '\uFFFD')
}

/**
 * A code span: fenced by more backticks than it holds in a row, `|` escaped (a table splits its rows on
 * every unescaped `|`, code spans included), line breaks as spaces (a code span cannot hold <br>).
 */
function code(s: string): string {
  const longest = Math.max(0, ...(s.match(/`+/g) ?? []).map((run) => run.length))
  const fence = '`'.repeat(longest + 1)
  const body = s.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|')
  const pad = body.startsWith('`') || body.endsWith('`') ? ' ' : ''
  return `${fence}${pad}${body}${pad}${fence}`
}
