// `kubectl get`'s table layout, shared by every renderer: no borders, no padding, columns three spaces apart,
// upper-case headers, `<none>` for an empty cell, lines not padded past their last cell. PURE.
//
// Laid out here in one linear pass, as kubectl's tabwriter does, rather than through cli-table3: cli-table3
// spends ~100 µs a cell (it merges options per cell and rebuilds its ANSI regex on every measure) and checks
// every cell against the rows above it, so the plan of a 10k-volume cluster took 5.6 s to print and 100k
// several minutes. The layout is cli-table3's borderless one, byte for byte (test/render/kubectl-table.test.ts
// holds it to cli-table3 itself), and cells are measured as cli-table3 measures them (string-width: ANSI
// colours take no room, wide characters two columns).
import stringWidth from 'string-width'

export const NONE = '<none>'
export const GAP = 3

const SEPARATOR = ' '.repeat(GAP)

/** Printable ASCII, the common case: its width is its length. */
const PLAIN = /^[\x20-\x7e]*$/

const widthOf = (line: string): number => (PLAIN.test(line) ? line.length : stringWidth(line))

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

/** Below this a wrapped free-text column stops being readable: the line runs long instead. */
export const MIN_TEXT_WIDTH = 24

/**
 * A table as kubectl lays it out. A cell may hold several lines (one reason per line): the other cells
 * of its row stay on the first.
 */
export function kubectlTable(head: string[], rows: string[][], opts: TableOptions = {}): string {
  const filled = rows.map((row) => row.map((cell) => (cell === '' ? NONE : cell)))
  const body = opts.wrap !== undefined && opts.width !== undefined ? wrapColumn(opts.noHeaders === true ? filled : [head, ...filled], filled, opts.wrap, opts.width) : filled
  // Each cell as its lines, with each line's width: measured once, used for the widths and the padding.
  const table = [...(opts.noHeaders === true ? [] : [head]), ...body].map((row) =>
    row.map((cell) => {
      const lines = cell.split('\n')
      return {lines, widths: lines.map(widthOf)}
    }),
  )
  const columns: number[] = []
  for (const row of table) {
    row.forEach((cell, i) => {
      for (const w of cell.widths) if (w > (columns[i] ?? 0)) columns[i] = w
    })
  }
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

/** The rows with column `wrap` wrapped to what the other columns (as wide as their widest cell of `measured`) leave of `width`. */
function wrapColumn(measured: readonly string[][], rows: readonly string[][], wrap: number, width: number): string[][] {
  const others: number[] = []
  for (const row of measured) {
    row.forEach((cell, i) => {
      if (i === wrap) return
      for (const line of cell.split('\n')) others[i] = Math.max(others[i] ?? 0, widthOf(line))
    })
  }
  // A loop, not Math.max(...cells) above: a hundred thousand arguments overflow the stack.
  const used = others.reduce((sum, w) => sum + (w ?? 0) + GAP, 0)
  const budget = Math.max(width - used, MIN_TEXT_WIDTH)
  return rows.map((row) => row.map((cell, i) => (i === wrap ? cell.split('\n').map((line) => wrapText(line, budget)).join('\n') : cell)))
}

/** The text in lines of at most max columns, broken at spaces (a longer word on lines of its own): a cell of several lines. */
export function wrapText(s: string, max: number): string {
  if (widthOf(s) <= max) return s
  const lines: string[] = []
  let line = ''
  for (const word of s.split(' ')) {
    const candidate = line === '' ? word : `${line} ${word}`
    if (widthOf(candidate) <= max) {
      line = candidate
      continue
    }
    if (line !== '') lines.push(line)
    let rest = Array.from(word)
    while (rest.length > max) {
      lines.push(rest.slice(0, max).join(''))
      rest = rest.slice(max)
    }
    line = rest.join('')
  }
  if (line !== '') lines.push(line)
  return lines.join('\n')
}
