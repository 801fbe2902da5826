// Capacity at a glance in the terminal (pvctl audit on a TTY, -o wide): per class, or per namespace, the
// claims' requests and the volumes' storage by phase as `kubectl get` columns, and a bar of the volumes'
// storage, one glyph per phase so that it reads without colour too. PURE.
import {formatBytes, type CapacityRow} from '../engine/audit/capacity.js'
import type {Palette} from './color.js'
import {kubectlTable, type TableLayout} from './kubectl-table.js'

type VolumeMeasure = 'bound' | 'available' | 'released' | 'failed'

/** The bar's segments, in order, each its glyph and its colour. */
const SEGMENTS: ReadonlyArray<{
  measure: VolumeMeasure
  glyph: string
  label: string
  colour: (p: Palette) => (s: string) => string
}> = [
  {measure: 'bound', glyph: '█', label: 'bound', colour: (p) => p.green},
  {measure: 'available', glyph: '▒', label: 'available', colour: (p) => p.cyan},
  {measure: 'released', glyph: '▓', label: 'released (data kept)', colour: (p) => p.yellow},
  {measure: 'failed', glyph: '░', label: 'failed', colour: (p) => p.red},
]

/** Cells of the longest bar: the row with the most volume storage. */
export const BAR_CELLS = 24

/** `by`: whose rows they are (the first column's header). Empty when there are no rows. */
export function renderCapacityBars(
  rows: readonly CapacityRow[],
  by: 'class' | 'namespace',
  palette: Palette,
  layout: TableLayout = {},
): string {
  if (rows.length === 0) return ''
  const total = (row: CapacityRow) => SEGMENTS.reduce((n, s) => n + row[s.measure], 0)
  const max = Math.max(1, ...rows.map(total))
  const legend = SEGMENTS.map((s) => `${s.colour(palette)(s.glyph)} ${s.label}`).join('  ')
  const body = rows.map((row) => [
    by === 'class' && row.name === '' ? '(no class)' : row.name,
    formatBytes(row.requested),
    ...SEGMENTS.map((s) => formatBytes(row[s.measure])),
    bar(row, max, palette),
  ])
  const head = [
    by === 'class' ? 'CLASS' : 'NAMESPACE',
    'REQUESTED',
    'BOUND',
    'AVAILABLE',
    'RELEASED',
    'FAILED',
    'VOLUMES',
  ]
  return `${palette.bold(`Capacity by ${by}:`)} ${legend}\n${kubectlTable(head, body, layout)}`
}

/**
 * The row's volume storage on the scale of `max`: each phase's share of BAR_CELLS cells, rounded, at least
 * one cell for a phase that holds any storage (a small Released remainder is what the bar is there to show).
 */
function bar(row: CapacityRow, max: number, palette: Palette): string {
  return SEGMENTS.map((s) => {
    const value = row[s.measure]
    const cells = value === 0 ? 0 : Math.max(1, Math.round((value / max) * BAR_CELLS))
    return cells === 0 ? '' : s.colour(palette)(s.glyph.repeat(cells))
  }).join('')
}
