// The building blocks of explain's human output: `kubectl get`-style tables (borderless, columns three
// spaces apart, upper-case headers, `<none>` for empty) and `kubectl describe`-style "Label:  value" lines.
// PURE.

import {NONE} from './kubectl-table.js'
import {wrapProse} from './prose.js'

export {GAP, kubectlTable, NONE, type TableLayout} from './kubectl-table.js'
export {wrapProse} from './prose.js'

/**
 * "Label:" padded to a common width, then the value, as `kubectl describe` aligns its fields; the lines
 * of a multi-line value line up under its first. On a terminal (`width`) each value wraps within what the
 * labels leave.
 */
export function fields(rows: ReadonlyArray<readonly [string, string]>, width?: number): string {
  const labels = Math.max(...rows.map(([label]) => label.length + 1)) + 2
  const room = width === undefined ? undefined : Math.max(width - labels, 1)
  return rows
    .map(
      ([label, value]) =>
        `${label}:`.padEnd(labels) +
        wrapProse(value === '' ? NONE : value, room)
          .split('\n')
          .join('\n' + ' '.repeat(labels)),
    )
    .join('\n')
}

/** A titled list of lines, each as "  - line", wrapped on a terminal (`width`) under its first word. */
export function bullets(title: string, lines: readonly string[], width?: number): string {
  return `${wrapProse(title, width)}\n${lines.map((l) => wrapProse(`  - ${l}`, width, '    ')).join('\n')}`
}
