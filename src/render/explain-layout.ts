// The building blocks of explain's human output: `kubectl get`-style tables (borderless, columns three
// spaces apart, upper-case headers, `<none>` for empty) and `kubectl describe`-style "Label:  value" lines.
// PURE.

import {NONE} from './kubectl-table.js'

export {GAP, kubectlTable, NONE, type TableLayout} from './kubectl-table.js'

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
