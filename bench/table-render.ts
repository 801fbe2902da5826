// The sync plan's table of N rows (ACTION, OBJECT, REASON, as `pvctl sync` prints it) rendered both ways:
// pvctl's own linear layout (kubectlTable: a pipe, or a terminal wide enough) and cli-table3, which
// pvctl uses to wrap a table of at most FIT_MAX_ROWS rows on a narrow terminal: one cli-table3 table a row
// (what pvctl does) and one table of every row. docs/performance.md ("Tables") has the numbers.
//
//   npx tsx bench/table-render.ts [rows...]          default 1000 10000 100000; one table of every row only
//                                                    up to 10000 (at 100k it did not finish in 15 minutes)
import Table from 'cli-table3'

import {BORDERLESS, BORDERLESS_STYLE, FIT_MAX_ROWS, GAP, kubectlTable} from '../src/render/kubectl-table.js'

const HEAD = ['ACTION', 'OBJECT', 'REASON']
const WIDTH = 60
const chars = BORDERLESS
const style = BORDERLESS_STYLE

function rows(n: number): string[][] {
  return Array.from({length: n}, (_, i) => [
    'set-volume-phase',
    `pv/pv-${String(i).padStart(6, '0')}`,
    `Bound -> Released: claim ns-${i % 50}/claim-${i} is gone`,
  ])
}

function time(f: () => string): {ms: number; bytes: number} {
  const start = performance.now()
  const out = f()
  return {ms: performance.now() - start, bytes: out.length}
}

const sizes = process.argv.slice(2).map(Number)
for (const n of sizes.length > 0 ? sizes : [1000, 10_000, 100_000]) {
  const r = rows(n)
  const colWidths = [
    'set-volume-phase'.length,
    'pv/pv-000000'.length,
    WIDTH - 'set-volume-phase'.length - 'pv/pv-000000'.length - 2 * GAP,
  ]
  const results: Array<[string, {ms: number; bytes: number}]> = [
    ['pvctl layout (a pipe)', time(() => kubectlTable(HEAD, r))],
    [
      `kubectlTable at ${WIDTH} columns${n > FIT_MAX_ROWS ? ' (not wrapped: more rows than FIT_MAX_ROWS)' : ''}`,
      time(() => kubectlTable(HEAD, r, {width: WIDTH, wrap: 2})),
    ],
    [
      `cli-table3, wrapped to ${WIDTH} columns, a table a row`,
      time(() =>
        [HEAD, ...r]
          .map((row) => {
            const t = new Table({chars, style, colWidths, wordWrap: true})
            t.push(row)
            return t.toString()
          })
          .join('\n'),
      ),
    ],
  ]
  if (n <= 10_000) {
    results.push([
      `cli-table3, wrapped to ${WIDTH} columns, one table`,
      time(() => {
        const t = new Table({head: HEAD, chars, style, colWidths, wordWrap: true})
        for (const row of r) t.push(row)
        return t.toString()
      }),
    ])
  }
  for (const [name, {ms, bytes}] of results)
    console.log(`${n} rows  ${name}: ${(ms / 1000).toFixed(2)} s (${(bytes / 1e6).toFixed(1)} MB)`)
}
