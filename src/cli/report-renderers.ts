// One registry per report: its -o formats, each mapped to the function that prints it. A command's -o flag
// (its options, its help, the check of its value, the hint that names another command's format) and its
// completion are made from these keys, in this order; the commands print through them (renderOutput).
// Every renderer is loaded when its format is asked for: a registry costs a command nothing at start, and
// `pvctl sync` never loads the HTML page's renderer, nor the diff library unless -o diff.
import type {AuditView} from '../engine/audit/audit-state.js'
import type {AuditReport, FailOn} from '../engine/audit/report.js'
import type {PersistentVolume, PersistentVolumeClaim} from '../engine/api/model.js'
import type {ExplainDocument} from '../engine/explain/model.js'
import type {RelinkReport} from '../engine/repair/relink-report.js'
import type {ReclaimReport} from '../engine/repair/report.js'
import type {SyncReport} from '../engine/simulation/sync-report.js'
import type {Palette} from '../render/color.js'

/** What every renderer is given besides its document: the colours, --no-headers, the terminal's width. */
export interface OutputContext {
  palette: Palette
  noHeaders: boolean
  /** The columns of the terminal stdout is; undefined off a terminal (nothing is cut or wrapped). */
  width: number | undefined
}

/** Prints a document in one format, as chunks (a large cluster's report does not fit in one string). */
export type Renderer<D, C> = (document: D, context: C) => Iterable<string> | Promise<Iterable<string>>

/**
 * A report's formats: every registry has table (the default) and json, the document kubectl's templates
 * (jsonpath=, custom-columns=) read.
 */
export type Renderers<D, C = OutputContext> = {readonly table: Renderer<D, C>; readonly json: Renderer<D, C>} & {
  readonly [format: string]: Renderer<D, C>
}

const syncTable = async (report: SyncReport, c: OutputContext, wide: boolean) => {
  const {renderSyncTable} = await import('../render/sync-table.js')
  return [renderSyncTable(report, {wide, palette: c.palette, width: c.width, noHeaders: c.noHeaders})]
}

export const SYNC_RENDERERS = {
  table: (report, c) => syncTable(report, c, false),
  wide: (report, c) => syncTable(report, c, true),
  diff: async (report, c) => (await import('../render/sync-diff.js')).syncDiffChunks(report, c.palette),
  json: async (report) => (await import('../render/report-doc.js')).reportJsonChunks(report),
  yaml: async (report) => (await import('../render/report-doc.js')).reportYamlChunks(report),
  name: async (report) => [(await import('../render/object-names.js')).syncNames(report)],
} satisfies Renderers<SyncReport>

/** explain's document, and the source its hints name (`-f FILE`, `--context NAME`) in the text. */
export interface ExplainOutputContext extends OutputContext {
  sourceArgs: readonly string[]
}

export const EXPLAIN_RENDERERS = {
  table: async (doc, c) => {
    const {explainTextChunks} = await import('../render/explain-doc.js')
    return explainTextChunks(doc, c.palette, {args: [...c.sourceArgs]}, {noHeaders: c.noHeaders, width: c.width})
  },
  json: async (doc) => (await import('../render/explain-doc.js')).explainJsonChunks(doc),
  yaml: async (doc) => (await import('../render/explain-doc.js')).explainYamlChunks(doc),
  name: async (doc) => [(await import('../render/object-names.js')).explainNames(doc)],
} satisfies Renderers<ExplainDocument, ExplainOutputContext>

/**
 * What audit prints: the report of one cluster, or a fleet's (one report per context). junit, markdown, html
 * and name take every report alike; table, json and yaml have a form of their own for a fleet.
 */
export interface AuditOutput {
  reports: readonly AuditReport[]
  fleet: boolean
  /** Where one cluster's state came from, named by the HTML page. */
  origin?: string
}

export interface AuditOutputContext extends OutputContext {
  /** The capacity bars of the table: none, per class (a terminal), or per class and namespace (-o wide). */
  capacity: 'none' | 'class' | 'namespace'
  failOn: FailOn
  /** The HTML page's time of making: read by the command, the renderer is pure. */
  now: () => Date
}

const auditTable = async (out: AuditOutput, c: AuditOutputContext): Promise<Iterable<string>> => {
  const layout = {noHeaders: c.noHeaders, width: c.width}
  if (out.fleet)
    return [
      (await import('../render/audit-fleet-table.js')).renderAuditFleetTable(
        out.reports,
        c.palette,
        layout,
        c.capacity,
      ),
    ]
  return [(await import('../render/audit-table.js')).renderAuditTable(out.reports[0], c.palette, layout, c.capacity)]
}

export const AUDIT_RENDERERS = {
  table: auditTable,
  wide: auditTable,
  json: async (out) => {
    if (out.fleet) return (await import('../render/audit-fleet-doc.js')).auditFleetJsonChunks(out.reports)
    return (await import('../render/audit-doc.js')).auditJsonChunks(out.reports[0])
  },
  yaml: async (out) => {
    if (out.fleet) return (await import('../render/audit-fleet-doc.js')).auditFleetYamlChunks(out.reports)
    return (await import('../render/audit-doc.js')).auditYamlChunks(out.reports[0])
  },
  junit: async (out, c) => (await import('../render/audit-junit.js')).auditJunitChunks(out.reports, {failOn: c.failOn}),
  markdown: async (out) => [(await import('../render/audit-markdown.js')).renderAuditMarkdown(out.reports)],
  html: async (out, c) => {
    const {auditHtmlChunks} = await import('../render/audit-html.js')
    return auditHtmlChunks(out.reports, {generatedAt: c.now().toISOString(), origin: out.origin})
  },
  name: async (out) => {
    const {auditNames} = await import('../render/object-names.js')
    return out.reports.map(auditNames)
  },
} satisfies Renderers<AuditOutput, AuditOutputContext>

/** The report views an audit must compute for a format: the HTML page's pointers, junit's test cases. */
export function auditViews(output: string, capacity: AuditOutputContext['capacity']): Set<AuditView> {
  return new Set<AuditView>([
    ...(capacity !== 'none' || output === 'html' ? ['capacity' as const] : []),
    ...(output === 'html' ? ['pointers' as const] : []),
    // A test case per object: sorting 200k of them is for junit only.
    ...(output === 'junit' ? ['audited' as const] : []),
  ])
}

/** A repair's report, and the objects as read and as written (-o diff shows those). */
export interface RepairOutput<R> {
  report: R
  edits: ReadonlyArray<{
    before: PersistentVolume | PersistentVolumeClaim
    after: PersistentVolume | PersistentVolumeClaim
  }>
}

const editsDiff = async (out: RepairOutput<unknown>, c: OutputContext) => {
  const {objectDiff} = await import('../render/sync-diff.js')
  return out.edits.map((e) => objectDiff(e.before as never, e.after as never, c.palette))
}

export const RECLAIM_RENDERERS = {
  table: async (out, c) => [(await import('../render/reclaim-table.js')).renderReclaimTable(out.report, c.palette)],
  diff: editsDiff,
  json: async (out) => (await import('../render/reclaim-table.js')).reclaimJsonChunks(out.report),
  yaml: async (out) => (await import('../render/reclaim-table.js')).reclaimYamlChunks(out.report),
} satisfies Renderers<RepairOutput<ReclaimReport>>

export const RELINK_RENDERERS = {
  table: async (out, c) => [(await import('../render/relink-table.js')).renderRelinkTable(out.report, c.palette)],
  diff: editsDiff,
  json: async (out) => (await import('../render/relink-table.js')).relinkJsonChunks(out.report),
  yaml: async (out) => (await import('../render/relink-table.js')).relinkYamlChunks(out.report),
} satisfies Renderers<RepairOutput<RelinkReport>>

/** Every command's registry, by command; a format's hint names the commands that have it in this order. */
export const REPORT_RENDERERS = {
  sync: SYNC_RENDERERS,
  explain: EXPLAIN_RENDERERS,
  audit: AUDIT_RENDERERS,
  reclaim: RECLAIM_RENDERERS,
  relink: RELINK_RENDERERS,
}
