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

/**
 * A table as kubectl lays it out. A cell may hold several lines (one reason per line): the other cells
 * of its row stay on the first.
 */
export function kubectlTable(head: string[], rows: string[][]): string {
  // Each cell as its lines, with each line's width: measured once, used for the widths and the padding.
  const table = [head, ...rows.map((row) => row.map((cell) => (cell === '' ? NONE : cell)))].map((row) =>
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
