// `kubectl get`'s table layout through cli-table3, shared by every renderer: no borders, no padding,
// columns three spaces apart, upper-case headers, `<none>` for an empty cell. PURE.
import Table from 'cli-table3'

export const NONE = '<none>'
export const GAP = 3

const BORDERLESS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: ' '.repeat(GAP),
}

/**
 * cli-table3 lays a table out in time quadratic in its rows (each cell is checked against every row above
 * it for spans), and pushes the rows through one call's arguments: 150k rows take minutes, or overflow the
 * stack. So rows go through it this many at a time, every block with the column widths of the whole.
 */
const ROWS_PER_BLOCK = 500

/**
 * A table as kubectl lays it out. A cell may hold several lines (one reason per line): the other cells
 * of its row stay on the first. The style is emptied or cli-table3 colours the header even with colour off.
 */
export function kubectlTable(head: string[], rows: string[][]): string {
  const cells = rows.map((row) => row.map((cell) => (cell === '' ? NONE : cell)))
  const blocks: string[][][] = []
  for (let start = 0; start < cells.length; start += ROWS_PER_BLOCK) blocks.push(cells.slice(start, start + ROWS_PER_BLOCK))
  if (blocks.length === 0) blocks.push([])
  // cli-table3's own measure of every column (ANSI codes, wide characters, the longest line of a cell):
  // each block with the header, the widest of all blocks.
  const widths: number[] = []
  for (const block of blocks) {
    const measured = layout(head, block, undefined)
    measured.toString()
    measured.options.colWidths.forEach((w, i) => (widths[i] = Math.max(widths[i] ?? 0, w ?? 0)))
  }
  // The header on the first block only; the same widths for all, so that the blocks line up as one table.
  const text = blocks.map((block, i) => layout(i === 0 ? head : [], block, widths).toString()).join('\n')
  // cli-table3 pads the last column to its width; kubectl's tabwriter does not.
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
}

function layout(head: string[], rows: string[][], colWidths: number[] | undefined): Table.Table {
  const t = new Table({
    head,
    chars: BORDERLESS,
    style: {head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true},
    wordWrap: false,
    ...(colWidths === undefined ? {} : {colWidths}),
  })
  for (const row of rows) t.push(row)
  return t
}
