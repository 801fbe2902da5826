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

describe('kubectlTable options: --no-headers and fitting a terminal', () => {
  const head = ['TYPE', 'OBJECT', 'MESSAGE']
  const message = 'no persistent volumes available for this claim and no storage class is set'
  const rows = [
    ['Normal', 'pvc/shop/logs', message],
    ['Warning', 'pv/pv-0001', 'short'],
  ]
  it('--no-headers: the rows alone, laid out as without the option', () => {
    assert.equal(kubectlTable(head, rows, {noHeaders: true}), kubectlTable(head, rows).split('\n').slice(1).join('\n'))
  })
  it('--no-headers: columns as wide as the rows need, not the header', () => {
    assert.equal(kubectlTable(['A-LONG-HEADER', 'B'], [['x', 'y']], {noHeaders: true}), 'x   y')
  })
  const fits: Array<{name: string; width: number | undefined; noHeaders?: boolean; want: string[]}> = [
    {name: 'a pipe: nothing wraps', width: undefined, want: [`Normal    pvc/shop/logs   ${message}`]},
    {name: 'wide enough: nothing wraps', width: 200, want: [`Normal    pvc/shop/logs   ${message}`]},
    {
      name: '60 columns: the message wraps at spaces within what TYPE and OBJECT leave',
      width: 60,
      want: ['Normal    pvc/shop/logs   no persistent volumes available', '                          for this claim and no storage', '                          class is set'],
    },
    {
      name: 'too narrow to read: the message keeps its floor of 24 columns',
      width: 30,
      want: ['Normal    pvc/shop/logs   no persistent volumes', '                          available for this claim', '                          and no storage class is', '                          set'],
    },
  ]
  for (const f of fits) {
    it(f.name, () => {
      const lines = kubectlTable(head, rows, {width: f.width, wrap: 2}).split('\n')
      assert.deepEqual(lines.slice(1, 1 + f.want.length), f.want)
      assert.equal(lines.at(-1), 'Warning   pv/pv-0001      short')
    })
  }
  it('a word longer than the column is split over lines, never cut', () => {
    const long = 'x'.repeat(30)
    const table = kubectlTable(['A', 'B'], [['a', long]], {width: 10, wrap: 1, noHeaders: true})
    assert.equal(table, `a   ${'x'.repeat(24)}\n    ${'x'.repeat(6)}`)
  })
})
