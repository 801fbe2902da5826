// `pvctl audit -o html`: one self-contained page (no request at view time: the styles and the script are
// inline, a Content-Security-Policy forbids anything else) to read on a phone and to print. PURE: the time
// it was made is passed in. Per cluster: the summary, capacity by class as a chart, the findings grouped by
// severity and code with their evidence, fix and pointer picture, filterable; a fleet's table of clusters
// first. Every string from the cluster goes through escapeHtml.
import {present} from '../engine/api/invariant.js'
import {
  formatBytes,
  CAPACITY_MEASURES,
  type AuditCapacity,
  type CapacityMeasure,
  type CapacityRow,
} from '../engine/audit/capacity.js'
import {
  FINDING_CODES,
  objectKey,
  objectName,
  SEVERITIES,
  type Finding,
  type FindingCode,
  type FindingObject,
  type Severity,
} from '../engine/audit/findings.js'
import type {PointerArrow, PointerNode, PointerPicture} from '../engine/audit/pointers.js'
import type {AuditReport} from '../engine/audit/report.js'
import {isUnread} from '../engine/audit/fleet.js'
import {describeSource} from '../engine/api/kube-version.js'
import {sectionSummaryLine} from './audit-fleet-table.js'

export interface AuditHtmlOptions {
  /** When the audit ran, RFC 3339: the command reads the clock, the renderer never does. */
  generatedAt: string
  /** Findings shown at first per cluster and added by "Show more" (the script's paging); the first page without the script. */
  pageSize?: number
  /** Where the state of a report without a context came from ("snapshot FILE", "context NAME (SERVER)"). */
  origin?: string
}

const DEFAULT_PAGE_SIZE = 100

const HEADINGS: Record<Severity, string> = {error: 'Errors', warning: 'Warnings', info: 'Info'}

const MEASURE_LABELS: Record<CapacityMeasure, string> = {
  requested: 'requested',
  bound: 'bound',
  available: 'available',
  released: 'released (data kept)',
  failed: 'failed',
}

/** The page, in chunks (one per cluster section): a fleet's page is as large as its clusters' together. */
export function auditHtmlChunks(reports: readonly AuditReport[], opts: AuditHtmlOptions): string[] {
  const fleet = reports.length > 1 || reports.some((r) => r.context !== undefined)
  const title = fleet
    ? `pvctl audit: ${reports.length} cluster${reports.length === 1 ? '' : 's'}`
    : `pvctl audit${reports[0]?.context !== undefined ? `: ${reports[0].context}` : ''}`
  const head = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // Nothing may be fetched: the page is read offline, and a name from the cluster cannot load anything.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`,
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    `<body data-page-size="${opts.pageSize ?? DEFAULT_PAGE_SIZE}">`,
    MARKERS,
    `<header><h1>${escapeHtml(title)}</h1><p>Generated <time datetime="${escapeHtml(opts.generatedAt)}">${escapeHtml(opts.generatedAt)}</time> by pvctl. Each finding code's meaning is under its heading (and in pvctl audit --help).</p></header>`,
    '<main>',
  ].join('\n')
  const chunks = [head + '\n']
  if (fleet) chunks.push(clusterTable(reports))
  else {
    // One cluster: its section is the page.
  }
  const pageSize = opts.pageSize ?? DEFAULT_PAGE_SIZE
  for (const r of reports) chunks.push(clusterSection(r, fleet, pageSize, opts.origin))
  chunks.push(`</main>\n<script>${SCRIPT}</script>\n</body>\n</html>\n`)
  return chunks
}

export function renderAuditHtml(reports: readonly AuditReport[], opts: AuditHtmlOptions): string {
  return auditHtmlChunks(reports, opts).join('')
}

/** &, <, >, " and ' as character references: safe in text and in a quoted attribute alike. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c])
}

const ESCAPES: Record<string, string> = {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}

/**
 * An id for an object, stable across runs of the same state: `pvc.NS.NAME`, `pv.NAME`, `sc.NAME`,
 * `cluster.NAME` (a namespace has no dot, so the first dot after it ends it), prefixed by `CONTEXT/` in a
 * fleet. A character outside [A-Za-z0-9.-] is written `_HH` (its code, hex), `_` too: a fragment to type.
 */
export function objectAnchor(o: FindingObject, context?: string): string {
  const short = {PersistentVolumeClaim: 'pvc', PersistentVolume: 'pv', StorageClass: 'sc', Cluster: 'cluster'}[o.kind]
  const local = [short, ...(o.namespace !== undefined ? [o.namespace] : []), o.name].map(anchorPart).join('.')
  return context !== undefined ? `${anchorPart(context)}/${local}` : local
}

function anchorPart(s: string): string {
  return s.replace(/[^A-Za-z0-9.-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`)
}

function clusterId(context: string | undefined): string {
  return context !== undefined ? `cluster-${anchorPart(context)}` : 'cluster'
}

function clusterTable(reports: readonly AuditReport[]): string {
  const rows = reports.map((r) => {
    const s = r.summary
    const unread = isUnread(r) ? r.findings.find((f) => f.object.kind === 'Cluster') : undefined
    const state = !isUnread(r) ? 'read' : `<span class="sev-error">${escapeHtml(unread?.code ?? 'not read')}</span>`
    const context = r.context ?? ''
    return `<tr><td><a href="#${clusterId(r.context)}">${escapeHtml(context)}</a></td><td data-label="State">${state}</td><td class="n" data-label="Claims">${s.claims}</td><td class="n" data-label="Volumes">${s.volumes}</td><td class="n" data-label="Errors">${s.findings.error}</td><td class="n" data-label="Warnings">${s.findings.warning}</td><td class="n" data-label="Info">${s.findings.info}</td><td class="n" data-label="Planned writes">${s.plannedWrites}</td></tr>`
  })
  return `<section id="clusters"><h2>Clusters</h2><div class="scroll"><table class="clusters cards"><thead><tr><th>Context</th><th>State</th><th>Claims</th><th>Volumes</th><th>Errors</th><th>Warnings</th><th>Info</th><th>Planned writes</th></tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table></div></section>\n`
}

function clusterSection(r: AuditReport, fleet: boolean, pageSize: number, origin: string | undefined): string {
  const id = clusterId(r.context)
  const heading = fleet ? `<h2>${escapeHtml(r.context ?? '')}</h2>` : ''
  return [
    `<section class="cluster" id="${id}"${r.context !== undefined ? ` data-context="${escapeHtml(r.context)}"` : ''}>`,
    heading,
    // A cluster not read has no summary to give beyond its line, nor any capacity.
    isUnread(r)
      ? `<section class="summary"><p class="line">${escapeHtml(sectionSummaryLine(r))}</p></section>`
      : summary(r, origin),
    r.capacity !== undefined && !isUnread(r) ? capacityChart(r.capacity) : '',
    findings(r, pageSize),
    '</section>',
    '',
  ].join('\n')
}

function summary(r: AuditReport, origin: string | undefined): string {
  const s = r.summary
  const phases = (counts: Record<string, number> | undefined) =>
    counts === undefined || Object.keys(counts).length === 0
      ? 'none'
      : Object.entries(counts)
          .map(([phase, n]) => `${n} ${escapeHtml(phase === '' ? '(no phase)' : phase)}`)
          .join(', ')
  const planned = Object.entries(r.plannedChanges).filter(([k, n]) => k !== 'writes' && n > 0)
  const items = [
    r.context !== undefined
      ? ['Context', escapeHtml(r.context)]
      : ['Read from', escapeHtml(origin ?? 'the snapshot or the current context')],
    ...(r.kubernetesVersion !== undefined
      ? [
          [
            'Decided as',
            `<span data-kubernetes-version="${escapeHtml(r.kubernetesVersion.version)}">Kubernetes ${escapeHtml(r.kubernetesVersion.version)}</span> (${escapeHtml(describeSource(r.kubernetesVersion))})`,
          ],
        ]
      : []),
    [
      'Claims',
      `<span data-count="claims">${s.claims}</span> (${s.healthyClaims} healthy): ${phases(r.capacity?.claimPhases)}`,
    ],
    [
      'Volumes',
      `<span data-count="volumes">${s.volumes}</span> (${s.healthyVolumes} healthy): ${phases(r.capacity?.volumePhases)}`,
    ],
    [
      'Findings',
      SEVERITIES.map(
        (sev) =>
          `<span class="sev-${sev}"><span data-count="${sev}">${s.findings[sev]}</span> ${sev}${sev !== 'info' && s.findings[sev] !== 1 ? 's' : ''}</span>`,
      ).join(', ') +
        (Object.keys(s.ignored).length > 0
          ? `; silenced: ${Object.entries(s.ignored)
              .map(([c, n]) => `${n} ${escapeHtml(c)}`)
              .join(', ')}`
          : ''),
    ],
    [
      'Planned changes',
      s.plannedWrites === 0
        ? 'none: the controller would change nothing'
        : `<span data-count="writes">${s.plannedWrites}</span> writes (pvctl sync --dry-run shows them): ${planned.map(([k, n]) => `${escapeHtml(k)} ${n}`).join(', ')}`,
    ],
  ]
  return `<section class="summary"><h2 class="sr">Summary</h2><p class="line">${escapeHtml(sectionSummaryLine(r))}</p><dl>${items.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl></section>`
}

const BAR_HEIGHT = 12
const LABEL_WIDTH = 150
const CHART_WIDTH = 640

/**
 * A bar per measure per class, on one scale (the largest value of all), then the same numbers as a table. A
 * measure a class has none of gets no bar (the table says 0B): the classes stay close.
 */
function capacityChart(capacity: AuditCapacity): string {
  const rows = capacity.byClass
  if (rows.length === 0)
    return '<section class="capacity"><h2>Capacity by storage class</h2><p>No claims or volumes.</p></section>'
  const max = Math.max(1, ...rows.flatMap((row) => CAPACITY_MEASURES.map((m) => row[m])))
  const barSpace = CHART_WIDTH - LABEL_WIDTH - 70
  const step = BAR_HEIGHT + 2
  let y = 4
  const groups = rows.map((row) => {
    const measures = CAPACITY_MEASURES.filter((m) => row[m] > 0)
    const y0 = y
    y += Math.max(1, measures.length) * step + 12
    const bars = measures.map((m, j) => {
      const top = y0 + j * step
      const w = Math.max(1, Math.round((row[m] / max) * barSpace))
      return `<rect class="m-${m}" x="${LABEL_WIDTH}" y="${top}" width="${w}" height="${BAR_HEIGHT}"><title>${escapeHtml(className(row.name))}: ${MEASURE_LABELS[m]} ${formatBytes(row[m])}</title></rect><text class="v" x="${LABEL_WIDTH + w + 4}" y="${top + BAR_HEIGHT - 2}">${formatBytes(row[m])}</text>`
    })
    const middle = y0 + (Math.max(1, measures.length) * step) / 2 + 4
    return `<g class="class-row" data-class="${escapeHtml(row.name)}"><text class="k" x="0" y="${middle}">${escapeHtml(truncate(className(row.name), 22))}</text>${bars.join('')}</g>`
  })
  const height = y
  const legend = CAPACITY_MEASURES.map(
    (m) => `<span class="key"><i class="m-${m}"></i>${MEASURE_LABELS[m]}</span>`,
  ).join(' ')
  const table = capacityTable(rows, 'Class', className)
  return `<section class="capacity"><h2>Capacity by storage class</h2><p class="legend">${legend}</p><svg class="chart" role="img" aria-label="Capacity by storage class" viewBox="0 0 ${CHART_WIDTH} ${height}" width="${CHART_WIDTH}" height="${height}">${groups.join('')}</svg>${table}</section>`
}

function capacityTable(rows: readonly CapacityRow[], first: string, nameOf: (name: string) => string): string {
  const head = `<tr><th>${first}</th><th>Claims</th><th>Volumes</th>${CAPACITY_MEASURES.map((m) => `<th>${MEASURE_LABELS[m]}</th>`).join('')}</tr>`
  const body = rows.map(
    (row) =>
      `<tr><td>${escapeHtml(nameOf(row.name))}</td><td class="n" data-label="Claims">${row.claims}</td><td class="n" data-label="Volumes">${row.volumes}</td>${CAPACITY_MEASURES.map((m) => `<td class="n" data-label="${MEASURE_LABELS[m]}">${formatBytes(row[m])}</td>`).join('')}</tr>`,
  )
  return `<div class="scroll"><table class="capacity-table cards"><thead>${head}</thead><tbody>${body.join('')}</tbody></table></div>`
}

function className(name: string): string {
  return name === '' ? '(no class)' : name
}

/**
 * The findings past the first `pageSize` of the cluster are in the page but `later` (not displayed, so not
 * laid out: a 10k cluster's page opens as fast as its first page); the script pages through them, print
 * shows them all, and without the script the first page is what there is to see on screen.
 */
function findings(r: AuditReport, pageSize: number): string {
  if (r.findings.length === 0)
    return '<section class="findings"><h2>Findings</h2><p class="clean">No findings.</p></section>'
  const namespaces = [...new Set(r.findings.map((f) => f.object.namespace ?? ''))].sort()
  const codes = [...new Set(r.findings.map((f) => f.code))].sort()
  const option = (value: string, label: string) => `<option value="${escapeHtml(value)}">${escapeHtml(label)}</option>`
  // The filters do nothing without the script: it shows them.
  const filters = [
    '<form class="filters" hidden>',
    `<label>Namespace <select name="namespace">${option('', 'all')}${namespaces.map((n) => option(n, n === '' ? '(cluster-scoped)' : n)).join('')}</select></label>`,
    `<label>Code <select name="code">${option('', 'all')}${codes.map((c) => option(c, c)).join('')}</select></label>`,
    `<fieldset><legend>Severity</legend>${SEVERITIES.map((s) => `<label><input type="checkbox" name="severity" value="${s}" checked> ${s}</label>`).join(' ')}</fieldset>`,
    '<output class="shown"></output>',
    '</form>',
  ].join('')
  const anchors = new Map<string, number>()
  const blocks: string[] = []
  let shown = 0
  const later = () => ++shown > pageSize
  for (const severity of SEVERITIES) {
    const found = r.findings.filter((f) => f.severity === severity)
    if (found.length === 0) continue
    const byCode = new Map<string, Finding[]>()
    for (const f of found) {
      const list = byCode.get(f.code)
      if (list === undefined) byCode.set(f.code, [f])
      else list.push(f)
    }
    const firstOfSeverity = shown
    const groups = [...byCode].map(([code, list]) => {
      const firstOfGroup = shown
      const articles = list.map((f) => findingArticle(f, r, anchors, later())).join('\n')
      return `<section class="group${firstOfGroup >= pageSize ? ' later' : ''}" data-code="${code}"><h4>${code} <span class="count" data-total="${list.length}">(${list.length})</span></h4><p class="meaning">${escapeHtml(FINDING_CODES[code as FindingCode].meaning)}</p>\n${articles}\n</section>`
    })
    blocks.push(
      `<section class="severity sev-block-${severity}${firstOfSeverity >= pageSize ? ' later' : ''}" data-severity="${severity}"><h3 class="sev-${severity}">${HEADINGS[severity]} <span class="count" data-total="${found.length}">(${found.length})</span></h3>\n${groups.join('\n')}\n</section>`,
    )
  }
  const rest = r.findings.length - pageSize
  const noscript =
    rest > 0
      ? `<noscript><p>${rest} more finding${rest === 1 ? '' : 's'}: the page shows them with its script, and prints them all.</p></noscript>`
      : ''
  return `<section class="findings"><h2>Findings</h2>${filters}\n${blocks.join('\n')}\n${noscript}<p class="pager"><button type="button" class="more" hidden>Show more</button></p></section>`
}

function findingArticle(f: Finding, r: AuditReport, anchors: Map<string, number>, later: boolean): string {
  // The first finding of an object holds its anchor; the object's further findings number theirs.
  const base = objectAnchor(f.object, r.context)
  const seen = (anchors.get(base) ?? 0) + 1
  anchors.set(base, seen)
  const id = seen === 1 ? base : `${base}-${seen}`
  const evidence = Object.entries(f.evidence)
    .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(evidenceText(v))}</dd>`)
    .join('')
  const picture = r.pointers?.get(objectKey(f.object))
  return [
    `<article class="finding${later ? ' later' : ''}" id="${id}" data-severity="${f.severity}" data-code="${f.code}" data-namespace="${escapeHtml(f.object.namespace ?? '')}">`,
    `<h5><a class="self" href="#${id}">${escapeHtml(objectName(f.object))}</a> <span class="sev-${f.severity}">${f.code}</span></h5>`,
    `<p>${escapeHtml(f.message)}</p>`,
    evidence !== '' ? `<details><summary>Evidence</summary><dl class="evidence">${evidence}</dl></details>` : '',
    `<div class="fix">Fix: <code>${escapeHtml(f.fix)}</code></div>`,
    picture !== undefined ? pointerSvg(picture) : '',
    '</article>',
  ].join('')
}

function evidenceText(v: Finding['evidence'][string]): string {
  return Array.isArray(v) ? (v.length === 0 ? '(none)' : v.join(', ')) : String(v)
}

const NODE_W = 190
const NODE_H = 44
/** Between two nodes of a row. */
const H_GAP = 40
/** Between two rows: the arrows, and their labels on two lines. */
const V_GAP = 58
/** Where an arrow leaves and reaches a node, from its left edge: a pair's two arrows side by side. */
const ATTACH: Record<PointerArrow['field'], number> = {'spec.volumeName': 28, 'spec.claimRef': 52, 'spec.volumes': 28}
/** The width of a label's character at 11px, bold (a broken arrow's): a little more than a sans-serif's widest average. */
const LABEL_CHAR = 7.5
const LABEL_MAX = 30

/**
 * The picture: pods, claims, volumes in three rows, so that it stays narrow enough for a phone's screen
 * (one claim and its volume are 270 px wide); claim.spec.volumeName runs down, volume.spec.claimRef up,
 * each arrow's field and value written beside it, over everything (a white halo keeps it readable across
 * lines), never under a box; a broken arrow red, dashed and crossed, its reason in its title.
 */
export function pointerSvg(p: PointerPicture): string {
  const rowOf = (n: PointerNode) => (n.kind === 'Pod' ? 0 : n.kind === 'PersistentVolumeClaim' ? 1 : 2)
  const rowsShown = [0, 1, 2].filter((r) => p.nodes.some((n) => rowOf(n) === r))
  const place = new Map<string, {x: number; y: number}>()
  const inRow = new Map<number, number>()
  for (const n of p.nodes) {
    const row = rowOf(n)
    const i = inRow.get(row) ?? 0
    inRow.set(row, i + 1)
    place.set(n.id, {x: i * (NODE_W + H_GAP) + 2, y: rowsShown.indexOf(row) * (NODE_H + V_GAP) + 4})
  }
  const at = (id: string) => present(place.get(id), 'every arrow joins two nodes of the picture')
  const arrows = p.arrows.map((a) => arrowSvg(a, at(a.from), at(a.to)))
  const width = Math.ceil(
    Math.max(...[...inRow.values()].map((n) => n * (NODE_W + H_GAP) - H_GAP + 4), ...arrows.map((a) => a.right + 4)),
  )
  const height = rowsShown.length * (NODE_H + V_GAP) - V_GAP + 8
  const nodes = p.nodes.map((n) => nodeSvg(n, at(n.id)))
  const broken = p.arrows.filter((a) => a.state !== 'ok').length
  const label = `Pointers of ${objectName(p.object)}: ${p.arrows.length} arrow${p.arrows.length === 1 ? '' : 's'}, ${broken} not closing`
  // Arrows first, boxes over them, the arrows' labels over both.
  return `<figure class="pointers"><svg role="img" aria-label="${escapeHtml(label)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">${arrows.map((a) => a.line).join('')}${nodes.join('')}${arrows.map((a) => a.label).join('')}</svg></figure>`
}

function nodeSvg(n: PointerNode, at: {x: number; y: number}): string {
  const short = n.kind === 'Pod' ? 'pod' : n.kind === 'PersistentVolumeClaim' ? 'pvc' : 'pv'
  const title = n.name === '' ? 'no volume' : `${short}/${n.namespace !== undefined ? `${n.namespace}/` : ''}${n.name}`
  const detail =
    n.kind === 'Pod'
      ? n.nodeName !== undefined
        ? `on ${n.nodeName}`
        : 'not scheduled'
      : n.uid !== undefined
        ? `uid ${shortUid(n.uid)}`
        : undefined
  const second = !n.exists
    ? n.name === ''
      ? '(none)'
      : 'does not exist'
    : [n.phase, detail].filter((x) => x !== undefined).join(' · ')
  // The end of an empty spec.volumeName is no volume at all, not a missing one: grey, not red.
  const cls = `node k-${short}${n.exists ? '' : n.name === '' ? ' none' : ' missing'}`
  return `<g class="${cls}" data-node="${escapeHtml(n.id)}"><title>${escapeHtml(title)}${n.uid !== undefined ? ` uid ${escapeHtml(n.uid)}` : ''}</title><rect x="${at.x}" y="${at.y}" width="${NODE_W}" height="${NODE_H}" rx="6"/><text x="${at.x + 8}" y="${at.y + 18}">${escapeHtml(truncate(title, 26))}</text><text class="sub" x="${at.x + 8}" y="${at.y + 35}">${escapeHtml(second)}</text></g>`
}

/** An arrow between two rows: its line (and cross), its label, and how far right the label reaches. */
function arrowSvg(
  a: PointerArrow,
  from: {x: number; y: number},
  to: {x: number; y: number},
): {line: string; label: string; right: number} {
  const down = to.y > from.y
  const x1 = from.x + ATTACH[a.field]
  const x2 = to.x + ATTACH[a.field]
  const y1 = down ? from.y + NODE_H : from.y
  const y2 = down ? to.y : to.y + NODE_H
  const mx = (x1 + x2) / 2
  const my = (y1 + y2) / 2
  // The target's name is on its node: the label says the field and, for a claimRef, the uid it holds.
  const text = truncate(
    a.field === 'spec.claimRef'
      ? `claimRef ${claimRefUid(a.label)}`
      : a.field === 'spec.volumeName'
        ? `volumeName ${a.label === '' ? '""' : a.label}`
        : 'volumes',
    LABEL_MAX,
  )
  const why = a.why !== undefined ? `: ${a.why}` : ''
  const cross = a.state === 'broken' ? `<text class="cross" x="${mx}" y="${my + 5}" text-anchor="middle">✕</text>` : ''
  // Right of the arrow's middle: a pair's two labels on two lines (volumeName above, claimRef below).
  const lx = mx + 14
  const ly = a.field === 'spec.claimRef' ? my + 16 : my - 4
  return {
    line: `<g class="arrow ${a.state}" data-field="${a.field}" data-state="${a.state}"><title>${escapeHtml(`${a.field}: ${a.label}${why}`)}</title><path d="M${x1} ${y1} L${x2} ${y2}" marker-end="url(#head-${a.state})"/>${cross}</g>`,
    label: `<text class="lbl ${a.state}" x="${lx}" y="${ly}">${escapeHtml(text)}</text>`,
    right: lx + text.length * LABEL_CHAR,
  }
}

/** `uid 7c2d4e00…` of a claimRef's label `ns/name uid 7c2d4e00-3333-...` (the title has it whole), or `(no uid)`. */
function claimRefUid(label: string): string {
  const uid = / uid (\S+)$/.exec(label)?.[1]
  return uid === undefined ? '(no uid)' : `uid ${shortUid(uid)}`
}

/** A uid by its first and last characters, where two uids of one cluster differ most often. */
function shortUid(uid: string): string {
  return uid.length <= 14 ? uid : `${uid.slice(0, 8)}…${uid.slice(-4)}`
}

function truncate(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`
}

// One set of arrow heads for every picture of the page.
const MARKERS =
  '<svg class="defs" width="0" height="0" aria-hidden="true"><defs>' +
  ['ok', 'broken', 'unset']
    .map(
      (s) =>
        `<marker id="head-${s}" class="head-${s}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z"/></marker>`,
    )
    .join('') +
  '</defs></svg>'

const STYLE = `
:root{--fg:#1d232b;--muted:#5b6573;--line:#d5dae1;--bg:#fff;--panel:#f5f7fa;--err:#b42318;--warn:#9a6700;--info:#1f5fae;--ok:#2d7d46}
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header,main{max-width:1100px;margin:0 auto;padding:0 16px}
h1{font-size:1.5em;margin:16px 0 4px}h2{font-size:1.25em;border-bottom:1px solid var(--line);padding-bottom:4px;margin-top:28px}
h3{font-size:1.1em;margin:20px 0 8px}h4{font-size:1em;margin:16px 0 6px}h5{font-size:1em;margin:0 0 4px}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.line{font-weight:600}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:8px 0}dt{color:var(--muted)}dd{margin:0}
.sev-error{color:var(--err);font-weight:600}.sev-warning{color:var(--warn);font-weight:600}.sev-info{color:var(--info);font-weight:600}
.scroll{overflow-x:auto}
table{border-collapse:collapse;margin:8px 0;font-size:.92em}th,td{border-bottom:1px solid var(--line);padding:3px 10px;text-align:left;white-space:nowrap}td.n{text-align:right;font-variant-numeric:tabular-nums}
.chart{max-width:100%;height:auto;display:block}
.chart text{font-size:11px;fill:var(--fg)}.chart .k{font-weight:600;font-size:12px}
.m-requested{fill:#7b8794;background:#7b8794}.m-bound{fill:#2d7d46;background:#2d7d46}.m-available{fill:#3b82c4;background:#3b82c4}.m-released{fill:#e09b12;background:#e09b12}.m-failed{fill:#c0392b;background:#c0392b}
.legend .key{margin-right:12px;white-space:nowrap}.legend i{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:-1px}
.filters{display:flex;flex-wrap:wrap;gap:8px 18px;align-items:center;background:var(--panel);padding:8px 12px;border-radius:6px;position:sticky;top:0;z-index:1}
.filters fieldset{border:0;margin:0;padding:0}.filters legend{float:left;margin-right:6px;color:var(--muted)}
.finding{border:1px solid var(--line);border-left:4px solid var(--line);border-radius:6px;padding:8px 12px;margin:8px 0}
.finding[data-severity=error]{border-left-color:var(--err)}.finding[data-severity=warning]{border-left-color:var(--warn)}.finding[data-severity=info]{border-left-color:var(--info)}
.finding:target{outline:3px solid var(--info)}
.finding p{margin:4px 0}.finding .self{color:inherit}.meaning{color:var(--muted);margin:0 0 6px}
.fix code{display:block;background:var(--panel);padding:4px 8px;border-radius:4px;white-space:pre-wrap;word-break:break-all;font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
.evidence{font-size:.9em}.evidence dd{word-break:break-all}
.pointers{margin:8px 0 0}.pointers svg{max-width:100%;height:auto}
.node rect{fill:var(--panel);stroke:#8a94a3}.node text{font-size:12px;fill:var(--fg)}.node .sub{fill:var(--muted);font-size:11px}
.node.missing rect{fill:#fff;stroke:var(--err);stroke-dasharray:5 3}.node.missing .sub{fill:var(--err)}.node.none rect{fill:#fff;stroke:#8a94a3;stroke-dasharray:2 3}
.arrow path{stroke-width:1.6;fill:none}.pointers .lbl{font-size:11px;paint-order:stroke;stroke:var(--bg);stroke-width:4px;stroke-linejoin:round}
.arrow.ok path{stroke:var(--ok)}.arrow.broken path{stroke:var(--err);stroke-dasharray:6 4}.arrow.unset path{stroke:#8a94a3;stroke-dasharray:2 3}
.lbl.broken,.arrow.broken .cross{fill:var(--err);font-weight:600}.lbl.unset{fill:var(--muted)}
.head-ok path{fill:var(--ok)}.head-broken path{fill:var(--err)}.head-unset path{fill:#8a94a3}
.defs{position:absolute}
.later{display:none}
@media (max-width:640px){body{font-size:14px}header,main{padding:0 10px}dl{grid-template-columns:1fr}dt{font-weight:600;margin-top:4px}.filters{position:static}
table.cards{width:100%}table.cards thead{display:none}table.cards tr{display:block;border-bottom:1px solid var(--line);padding:4px 0}table.cards td{display:flex;justify-content:space-between;gap:12px;border:0;padding:1px 4px;white-space:normal}table.cards td::before{content:attr(data-label);color:var(--muted)}table.cards td:first-child{display:block;font-weight:600}table.cards td:first-child::before{content:none}}
@media print{.filters,.pager,.defs{display:none}.later{display:block}.finding{break-inside:avoid}a{color:inherit;text-decoration:none}}
`
  .trim()
  .replace(/\n/g, '')

// Filters and paging, per cluster section: a filter hides (the hidden attribute), paging defers (the later
// class, which print shows); an anchor in the address shows its finding whatever the filters.
const SCRIPT = `
(function(){
var page=+document.body.dataset.pageSize||100;
function each(l,f){Array.prototype.forEach.call(l,f)}
each(document.querySelectorAll('section.cluster'),function(sec){
var form=sec.querySelector('form.filters');if(!form)return;
var items=sec.querySelectorAll('article.finding'),more=sec.querySelector('button.more'),out=form.querySelector('output'),limit=page;
function apply(){
var ns=form.elements.namespace.value,code=form.elements.code.value,sev={},n=0;
each(form.querySelectorAll('input[name=severity]'),function(c){sev[c.value]=c.checked});
each(items,function(a){var ok=(ns===''||a.dataset.namespace===ns)&&(code===''||a.dataset.code===code)&&sev[a.dataset.severity];a.hidden=!ok;if(ok)n++;a.classList.toggle('later',ok&&n>limit)});
each(sec.querySelectorAll('section.group,section.severity'),function(g){var k=g.querySelectorAll('article.finding:not([hidden])').length,c=g.querySelector('.count'),t=c.dataset.total;g.hidden=!k;g.classList.toggle('later',!g.hidden&&!g.querySelector('article.finding:not([hidden]):not(.later)'));c.textContent='('+(k==t?t:k+' of '+t)+')'});
out.textContent=n+' of '+items.length+' findings'+(n>limit?', '+limit+' shown':'');
more.hidden=n<=limit}
form.hidden=false;
form.addEventListener('change',function(){limit=page;apply()});
more.addEventListener('click',function(){limit+=page;apply()});
apply()});
function reveal(){var id=decodeURIComponent(location.hash.slice(1)),el=id&&document.getElementById(id);
if(!el||!el.classList.contains('finding'))return;
el.hidden=false;el.classList.remove('later');for(var g=el.parentElement;g;g=g.parentElement){g.hidden=false;g.classList.remove('later')}el.scrollIntoView()}
window.addEventListener('hashchange',reveal);reveal()})();
`.trim()
