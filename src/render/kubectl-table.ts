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
