// The building blocks of explain's human output: `kubectl get`-style tables (borderless, columns three
// spaces apart, upper-case headers, `<none>` for empty) and `kubectl describe`-style "Label:  value" lines.
// PURE.
import Table from 'cli-table3'

export const NONE = '<none>'
const GAP = 3

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
 * A table as kubectl lays it out. A cell may hold several lines (one reason per line): the other cells
 * of its row stay on the first. The style is emptied or cli-table3 colours the header even with colour off.
 */
export function kubectlTable(head: string[], rows: string[][]): string {
  const t = new Table({
    head,
    chars: BORDERLESS,
    style: {head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true},
    wordWrap: false,
  })
  t.push(...rows.map((row) => row.map((cell) => (cell === '' ? NONE : cell))))
  // cli-table3 pads the last column to its width; kubectl's tabwriter does not.
  return t
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
}

/**
 * "Label:" padded to a common width, then the value, as `kubectl describe` aligns its fields; the lines
 * of a multi-line value line up under its first.
 */
export function fields(rows: ReadonlyArray<readonly [string, string]>): string {
  const width = Math.max(...rows.map(([label]) => label.length + 1)) + 2
  return rows
    .map(([label, value]) => `${label}:`.padEnd(width) + (value === '' ? NONE : value).split('\n').join('\n' + ' '.repeat(width)))
    .join('\n')
}

/** A titled list of lines, each as "  - line". */
export function bullets(title: string, lines: readonly string[]): string {
  return `${title}\n${lines.map((l) => `  - ${l}`).join('\n')}`
}
