// `pvctl audit -o junit`: JUnit XML for CI systems' test report views (GitLab, Jenkins, the JUnit report
// actions of GitHub), valid against the Jenkins xunit plugin's junit-10.xsd (test/fixtures/junit/). PURE.
// One <testsuite> per report (one per cluster), one <testcase> per object audited and one for the
// controller's plan: a finding at or above --fail-on is a <failure>, a finding below it the case's
// <system-out>, a case whose findings are all silenced <skipped>. The cases that fail are the reasons the
// audit exits 1.
import {failsAt, type AuditReport, type FailOn, type SilencedFinding} from '../engine/audit/report.js'
import {objectKey, objectName, type Finding, type FindingObject} from '../engine/audit/findings.js'
import {AUDIT_IGNORE_ANNOTATION} from '../engine/audit/silence.js'
import {auditSummaryLine} from './audit-table.js'
import {decidedAsLine, type DecidedVersion} from '../engine/api/kube-version.js'

export interface AuditJunitOptions {
  /** --fail-on: a finding at or above it fails its test case. */
  failOn: FailOn
}

/** The suite of a report without a context (one cluster, the kubeconfig's current one or a snapshot). */
const DEFAULT_SUITE = 'pvctl audit'

export function renderAuditJunit(reports: readonly AuditReport[], opts: AuditJunitOptions): string {
  return [...auditJunitChunks(reports, opts)].join('')
}

/** In chunks (a test case each), as the other documents: a large cluster's XML does not fit in one string. */
export function* auditJunitChunks(reports: readonly AuditReport[], opts: AuditJunitOptions): Generator<string> {
  const suites = reports.map((r) => suiteOf(r, opts.failOn))
  const total = (k: 'tests' | 'failures') => suites.reduce((n, s) => n + s[k], 0)
  yield `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${attrs({name: DEFAULT_SUITE, tests: total('tests'), failures: total('failures'), errors: 0})}>\n`
  for (const s of suites) {
    yield `  <testsuite${attrs({name: s.name, tests: s.tests, failures: s.failures, errors: 0, skipped: s.skipped})}>\n`
    if (s.version !== undefined) {
      yield `    <properties>\n      <property${attrs({name: 'kubernetesVersion', value: s.version.version})}/>\n      <property${attrs({name: 'kubernetesVersionSource', value: s.version.source})}/>\n    </properties>\n`
    } else {
      // A cluster that could not be read was decided as no release.
    }
    yield `    <system-out>${text(s.summary)}</system-out>\n`
    for (const c of s.cases) yield renderCase(c)
    yield '  </testsuite>\n'
  }
  yield '</testsuites>\n'
}

interface Case {
  classname: string
  name: string
  failures: Array<{message: string; type: string; body: string}>
  skipped?: string
  out: string[]
}

interface Suite {
  name: string
  /** The release the audit was decided as: the suite's properties. */
  version?: DecidedVersion
  summary: string
  cases: Case[]
  tests: number
  failures: number
  skipped: number
}

function suiteOf(report: AuditReport, failOn: FailOn): Suite {
  const prefix = report.context !== undefined ? `${report.context}.` : ''
  const cases = [
    planCase(report, prefix, failOn),
    ...objectsOf(report).map(({object, findings, silenced}) => objectCase(object, findings, silenced, failOn, prefix)),
  ]
  return {
    name: report.context ?? DEFAULT_SUITE,
    version: report.kubernetesVersion,
    summary: [
      auditSummaryLine(report),
      ...(report.kubernetesVersion !== undefined ? [`${decidedAsLine(report.kubernetesVersion)}.`] : []),
    ].join('\n'),
    cases,
    tests: cases.length,
    failures: cases.filter((c) => c.failures.length > 0).length,
    skipped: cases.filter((c) => c.skipped !== undefined).length,
  }
}

/** The controller's plan is a case of its own: a change to make fails the audit whatever the findings, but with --fail-on none. */
function planCase(report: AuditReport, prefix: string, failOn: FailOn): Case {
  const writes = report.summary.plannedWrites
  const body = Object.entries(report.plannedChanges)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n')
  const failure = {
    message: `the controller would make ${writes} write${writes === 1 ? '' : 's'} first`,
    type: 'PlannedChanges',
    body: `${body}\nfix: pvctl sync --dry-run shows them, pvctl sync makes them`,
  }
  const planned = writes > 0 ? [failure] : []
  // --fail-on none: the plan is told, as a finding below the bar is, not failed.
  const fails = failOn !== 'none'
  return {
    classname: `${prefix}pvctl`,
    name: 'the controller has nothing to change',
    failures: fails ? planned : [],
    out: fails ? [] : planned.map((f) => `${f.message}\n${f.body}`),
  }
}

/** Every object audited, in the report's order, then the ones only a finding names (classes), by key. */
function objectsOf(
  report: AuditReport,
): Array<{object: FindingObject; findings: Finding[]; silenced: SilencedFinding[]}> {
  const byKey = new Map<string, {object: FindingObject; findings: Finding[]; silenced: SilencedFinding[]}>()
  const entry = (object: FindingObject) => {
    const key = objectKey(object)
    const found = byKey.get(key) ?? {object, findings: [], silenced: []}
    byKey.set(key, found)
    return found
  }
  for (const o of report.audited ?? []) entry(o)
  const rest = [...report.findings.map((f) => f.object), ...(report.silenced ?? []).map((s) => s.finding.object)]
    .filter((o) => !byKey.has(objectKey(o)))
    .sort((a, b) => objectKey(a).localeCompare(objectKey(b)))
  for (const o of rest) entry(o)
  for (const f of report.findings) entry(f.object).findings.push(f)
  for (const s of report.silenced ?? []) entry(s.finding.object).silenced.push(s)
  return [...byKey.values()]
}

function objectCase(
  object: FindingObject,
  findings: readonly Finding[],
  silenced: readonly SilencedFinding[],
  failOn: FailOn,
  prefix: string,
): Case {
  const failing = findings.filter((f) => failsAt(f.severity, failOn))
  const below = findings.filter((f) => !failsAt(f.severity, failOn))
  const silencedText = silenced.map(
    (s) => `${s.finding.code} (${s.by === 'ignore' ? '--ignore' : AUDIT_IGNORE_ANNOTATION})`,
  )
  return {
    classname: `${prefix}${object.kind}`,
    name: objectName(object),
    failures: failing.map((f) => ({message: f.message, type: f.code, body: details(f)})),
    // Skipped: every finding of the object was silenced on purpose, none is left to pass or fail on.
    skipped: silenced.length > 0 && findings.length === 0 ? `silenced: ${silencedText.join(', ')}` : undefined,
    out: [
      ...below.map((f) => `${f.message}\n${details(f)}`),
      ...(silenced.length > 0 && findings.length > 0 ? [`silenced: ${silencedText.join(', ')}`] : []),
    ],
  }
}

/** A finding's code, severity, evidence and fix, one per line. */
function details(f: Finding): string {
  const evidence = Object.entries(f.evidence).map(
    ([k, v]) =>
      `  ${k}: ${v === null ? '<none>' : v === '' ? '""' : Array.isArray(v) ? v.join(', ') || '<none>' : String(v)}`,
  )
  return [`${f.code} (${f.severity})`, 'evidence:', ...evidence, `fix: ${f.fix}`].join('\n')
}

function renderCase(c: Case): string {
  const inner = [
    ...c.failures.map((f) => `      <failure${attrs({message: f.message, type: f.type})}>${text(f.body)}</failure>\n`),
    ...(c.skipped !== undefined ? [`      <skipped${attrs({message: c.skipped})}/>\n`] : []),
    ...(c.out.length > 0 ? [`      <system-out>${text(c.out.join('\n\n'))}</system-out>\n`] : []),
  ]
  const open = `    <testcase${attrs({classname: c.classname, name: c.name})}`
  return inner.length === 0 ? `${open}/>\n` : `${open}>\n${inner.join('')}    </testcase>\n`
}

function attrs(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([k, v]) => ` ${k}="${attr(String(v))}"`)
    .join('')
}

/** Characters XML 1.0 cannot hold at all (C0 controls but tab and newlines, lone surrogates, U+FFFE/F). */
const NOT_XML =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/** Element text: markup characters escaped, characters XML cannot hold replaced by U+FFFD. */
function text(s: string): string {
  return s.replace(NOT_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** An attribute value in double quotes: as text, and quotes and whitespace kept as character references. */
function attr(s: string): string {
  return text(s).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;')
}
