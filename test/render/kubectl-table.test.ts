// kubectlTable lays tables out in one linear pass of its own: the result must be what one cli-table3 table
// of every row prints (the oracle below, the layout pvctl used before), whatever the cells hold — colours,
// wide characters, several lines, empty cells, the widest cell anywhere.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import Table from 'cli-table3'

import {ansi, plain} from '../../src/render/color.js'
import {GAP, kubectlTable, NONE} from '../../src/render/kubectl-table.js'

/** One cli-table3 table of all rows: quadratic in the rows, fine at test sizes. */
function wholeTable(head: string[], rows: string[][]): string {
  const t = new Table({
    head,
    chars: {top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
      left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: ' '.repeat(GAP)},
    style: {head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true},
    wordWrap: false,
  })
  for (const row of rows) t.push(row.map((cell) => (cell === '' ? NONE : cell)))
  return t.toString().split('\n').map((line) => line.trimEnd()).join('\n')
}

/** Rows of every kind of cell, the widest of all in the last row. */
function rows(count: number, palette: typeof plain): string[][] {
  return Array.from({length: count}, (_, i) => [
    i % 3 === 0 ? palette.green('bind-volume') : palette.red('delete'),
    `pvc/ns-${i % 17}/claim-${'x'.repeat(i % 41)}${i === count - 1 ? '-the-longest-name-of-all'.repeat(4) : ''}`,
    i % 97 === 0 ? '' : i % 89 === 0 ? `first line ${i}\nsecond, longer line ${i}` : i % 53 === 0 ? `ボリューム ${i}…` : `reason ${i}`,
  ])
}

describe('kubectlTable', () => {
  const head = ['ACTION', 'OBJECT', 'REASON']
  const cases = [
    {name: 'no rows', rows: [] as string[][]},
    {name: 'one row', rows: rows(1, plain)},
    {name: '500 rows', rows: rows(500, plain)},
    {name: '1234 rows, the widest cell in the last', rows: rows(1234, plain)},
    {name: '1234 rows, coloured', rows: rows(1234, ansi)},
    {name: 'a header wider than every cell, a row shorter than the header', rows: [['a'], ['b', 'c']]},
  ]
  for (const c of cases) {
    it(`${c.name}: what one table of every row prints`, () => {
      assert.equal(kubectlTable(head, c.rows), wholeTable(head, c.rows))
    })
  }
})
