// `kubectl get`'s table layout, shared by every renderer: no borders, no padding, columns three spaces apart,
// upper-case headers, `<none>` for an empty cell, lines not padded past their last cell. PURE.
//
// In a pipe (and on a terminal wide enough) laid out here in one linear pass, as kubectl's tabwriter does,
// rather than through cli-table3: cli-table3 merges options per cell and rebuilds its ANSI regex on every
// measure, and checks every cell against the rows above it, so a large plan's table takes it seconds to
// minutes (docs/performance.md, "Tables").
// The layout is cli-table3's borderless one, byte for byte (test/render/kubectl-table.test.ts holds it to
// cli-table3 itself), and cells are measured as cli-table3 measures them (string-width: ANSI colours take
// no room, wide characters two columns).
//
// On a terminal too narrow for a table, its free-text column wraps to fit the width, through cli-table3's
// wordWrap (which carries colours over the lines it makes), one row at a time, in linear time. A
// table of more than FIT_MAX_ROWS rows, or one whose other columns leave the text less than MIN_TEXT_WIDTH,
// is not wrapped at all: its lines run as in a pipe, for the terminal to fold, as kubectl's do.
import Table from 'cli-table3'
import stringWidth from 'string-width'

export const NONE = '<none>'
export const GAP = 3

const SEPARATOR = ' '.repeat(GAP)

/** Printable ASCII, the common case: its width is its length. */
const PLAIN = /^[\x20-\x7e]*$/

export const widthOf = (line: string): number => (PLAIN.test(line) ? line.length : stringWidth(line))

/** How a command's tables are laid out: kubectl's --no-headers, and the terminal they are fitted to. */
export interface TableLayout {
  /** --no-headers: the rows alone, as kubectl prints them. */
  noHeaders?: boolean
  /** The terminal's width; undefined (a pipe, a file): nothing is wrapped, a line runs as long as its cells. */
  width?: number
}

export interface TableOptions extends TableLayout {
  /** The free-text column (a reason, a message) that wraps at spaces to what the others leave of `width`; never cut. */
  wrap?: number
}

/** Below this a wrapped free-text column stops being readable: the table is not wrapped. */
export const MIN_TEXT_WIDTH = 20

/**
 * Tables longer than this are not wrapped on a terminal: cli-table3's wrapping grows faster than the rows
 * (docs/performance.md, "Tables"), and a table that long is paged or searched rather than read.
 */
export const FIT_MAX_ROWS = 500

/**
 * A table as kubectl lays it out. A cell may hold several lines (one reason per line): the other cells
 * of its row stay on the first.
 */
export function kubectlTable(head: string[], rows: string[][], opts: TableOptions = {}): string {
  const filled = rows.map((row) => row.map((cell) => (cell === '' ? NONE : cell)))
  const table = [...(opts.noHeaders === true ? [] : [head]), ...filled]
  const measured = table.map((row) =>
    row.map((cell) => {
      const lines = cell.split('\n')
      return {lines, widths: lines.map(widthOf)}
    }),
  )
  const columns: number[] = []
  for (const row of measured) {
    row.forEach((cell, i) => {
      for (const w of cell.widths) if (w > (columns[i] ?? 0)) columns[i] = w
    })
  }
  const {wrap, width} = opts
  if (wrap === undefined || width === undefined) return laidOut(measured, columns)
  const fitted = fitColumns(columns, wrap, width, rows.length)
  return fitted !== undefined ? wrappedTable(table, fitted, wrap) : laidOut(measured, columns)
}

/** Each cell's lines padded to its column's width, GAP apart, each line cut of its trailing blanks. */
function laidOut(
  table: ReadonlyArray<ReadonlyArray<{lines: string[]; widths: number[]}>>,
  columns: readonly number[],
): string {
  const out: string[] = []
  for (const row of table) {
    const height = Math.max(1, ...row.map((cell) => cell.lines.length))
    for (let n = 0; n < height; n++) {
      const parts = row.map((cell, i) => {
        const text = cell.lines[n] ?? ''
        return text + ' '.repeat((columns[i] ?? 0) - (cell.widths[n] ?? 0))
      })
      out.push(parts.join(SEPARATOR).trimEnd())
    }
  }
  return out.join('\n')
}

/**
 * The column widths that fit the table in `width` columns by narrowing column `wrap` alone, or undefined
 * when it fits already, when it would leave that column less than MIN_TEXT_WIDTH, or when the table has
 * more than FIT_MAX_ROWS rows: then nothing is wrapped.
 */
function fitColumns(columns: readonly number[], wrap: number, width: number, rows: number): number[] | undefined {
  const total = columns.reduce((sum, w) => sum + w, 0) + GAP * (columns.length - 1)
  if (total <= width || rows > FIT_MAX_ROWS) return undefined
  const budget = width - (total - (columns[wrap] ?? 0))
  if (budget < MIN_TEXT_WIDTH) return undefined
  return columns.map((w, i) => (i === wrap ? budget : w))
}

/** cli-table3's characters and style for kubectl's table: no borders, columns GAP spaces apart. */
export const BORDERLESS = {
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
  middle: SEPARATOR,
}

export const BORDERLESS_STYLE = {head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true}

/**
 * The rows through cli-table3 with these column widths, column `wrap`'s cells wrapped at spaces. One table a
 * row: cli-table3 compares each cell with the rows above it, quadratic in one table of every row, and rows
 * without spans lay out alike either way. A word wider than its column is first split over lines of that
 * width: cli-table3 would cut it with an ellipsis.
 */
function wrappedTable(table: readonly string[][], columns: number[], wrap: number): string {
  const out: string[] = []
  for (const row of table) {
    const t = new Table({
      chars: BORDERLESS,
      style: BORDERLESS_STYLE,
      colWidths: columns,
      wordWrap: true,
    })
    t.push(row.map((cell, i) => (i === wrap ? splitLongWords(cell, columns[i]) : cell)))
    for (const line of t.toString().split('\n')) out.push(line.trimEnd())
  }
  return out.join('\n')
}

// An SGR escape (a colour): no width, never split.
const ESCAPE = /\u001b\[[0-9;]*m/y

/** The text with every word wider than max (colours take no room) split into pieces of max columns, a space apart. */
function splitLongWords(text: string, max: number): string {
  return text
    .split('\n')
    .map((line) =>
      line
        .split(' ')
        .map((word) => (widthOf(word) <= max ? word : pieces(word, max).join(' ')))
        .join(' '),
    )
    .join('\n')
}

function pieces(word: string, max: number): string[] {
  const out: string[] = []
  let piece = ''
  let width = 0
  for (let i = 0; i < word.length;) {
    ESCAPE.lastIndex = i
    const escape = ESCAPE.exec(word)
    if (escape !== null) {
      piece += escape[0]
      i += escape[0].length
      continue
    }
    const char = String.fromCodePoint(word.codePointAt(i) ?? 0)
    const w = stringWidth(char)
    if (width + w > max) {
      out.push(piece)
      piece = ''
      width = 0
    }
    piece += char
    width += w
    i += char.length
  }
  return [...out, piece]
}
