// kubectlTable lays tables out in one linear pass of its own: the result must be what one cli-table3 table
// of every row prints (the oracle below, the layout pvctl used before), whatever the cells hold — colours,
// wide characters, several lines, empty cells, the widest cell anywhere.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import Table from 'cli-table3'
import stringWidth from 'string-width'

import {ansi, plain} from '../../src/render/color.js'
import {
  BORDERLESS,
  BORDERLESS_STYLE,
  FIT_MAX_ROWS,
  GAP,
  kubectlTable,
  MIN_TEXT_WIDTH,
  NONE,
} from '../../src/render/kubectl-table.js'

/** One cli-table3 table of all rows: quadratic in the rows, fine at test sizes. */
function wholeTable(head: string[], rows: string[][]): string {
  const t = new Table({
    head,
    chars: BORDERLESS,
    style: BORDERLESS_STYLE,
    wordWrap: false,
  })
  for (const row of rows) t.push(row.map((cell) => (cell === '' ? NONE : cell)))
  return t
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
}

/** Rows of every kind of cell, the widest of all in the last row. */
function rows(count: number, palette: typeof plain): string[][] {
  return Array.from({length: count}, (_, i) => [
    i % 3 === 0 ? palette.green('bind-volume') : palette.red('delete'),
    `pvc/ns-${i % 17}/claim-${'x'.repeat(i % 41)}${i === count - 1 ? '-the-longest-name-of-all'.repeat(4) : ''}`,
    i % 97 === 0
      ? ''
      : i % 89 === 0
        ? `first line ${i}\nsecond, longer line ${i}`
        : i % 53 === 0
          ? `ボリューム ${i}…`
          : `reason ${i}`,
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
      want: [
        'Normal    pvc/shop/logs   no persistent volumes available',
        '                          for this claim and no storage',
        '                          class is set',
      ],
    },
    {
      name: 'too narrow to read: nothing wraps, the lines run as in a pipe (the terminal folds them)',
      width: 30,
      want: [`Normal    pvc/shop/logs   ${message}`],
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
    const table = kubectlTable(['A', 'B'], [['a', `${long} y`]], {width: 30, wrap: 1, noHeaders: true})
    assert.equal(table, `a   ${'x'.repeat(26)}\n    ${'x'.repeat(4)} y`)
  })
})

describe('kubectlTable fitted to a terminal: through cli-table3, every line within the width', () => {
  const head = ['ACTION', 'OBJECT', 'REASON']
  /** What one cli-table3 table of every row prints with these column widths, wrapping column 2. */
  function cliTable3(rows: string[][], colWidths: number[]): string {
    const t = new Table({
      head,
      chars: BORDERLESS,
      style: BORDERLESS_STYLE,
      colWidths,
      wordWrap: true,
    })
    for (const row of rows) t.push(row)
    return t
      .toString()
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n')
  }
  const reasons = [
    'volumeName -> pv-0003: pre-bound to shop/carts',
    'Recycle policy, claim shop/old-media gone: scrub 50Gi (NFS nfs.example.internal:/exports/media) with kubernetes.io/nfs',
    'short',
    'Bound -> Released: claim shop/old-db is gone\nand a second line of the same cell',
  ]
  for (const palette of [plain, ansi]) {
    const rows = reasons.map((reason, i) => [palette.green('bind-claim'), `pvc/shop/claim-${i}`, palette.red(reason)])
    for (const width of [60, 56, 52]) {
      it(`${palette === plain ? 'plain' : 'coloured'}, ${width} columns: what cli-table3 prints, no visible line wider than ${width}`, () => {
        const table = kubectlTable(head, rows, {width, wrap: 2})
        for (const line of table.split('\n'))
          assert.ok(stringWidth(line) <= width, `${stringWidth(line)} columns: ${line}`)
        // Long words are what cli-table3 would cut: the oracle gets them split as kubectlTable splits them.
        const budget = width - 'bind-claim'.length - 'pvc/shop/claim-0'.length - 2 * GAP
        const split = rows.map((row) => [
          row[0],
          row[1],
          row[2].replace('nfs.example.internal:/exports/media', (w) =>
            w.match(new RegExp(`.{1,${budget}}`, 'g'))!.join(' '),
          ),
        ])
        assert.equal(table, cliTable3(split, ['bind-claim'.length, 'pvc/shop/claim-0'.length, budget]))
      })
    }
  }
  it('a coloured cell keeps its colour on every line it wraps to', () => {
    const table = kubectlTable(
      head,
      [['bind', 'pv/a', ansi.red('one two three four five six seven eight nine ten eleven')]],
      {width: 40, wrap: 2, noHeaders: true},
    )
    const lines = table.split('\n')
    assert.ok(lines.length > 1)
    for (const line of lines) assert.match(line, /\u001b\[31m[^\u001b]+\u001b\[39m$/, line)
  })
  it(`more than ${FIT_MAX_ROWS} rows: nothing wraps (cli-table3 would take seconds), the lines run as in a pipe`, () => {
    const many = Array.from({length: FIT_MAX_ROWS + 1}, (_, i) => ['bind', `pv/pv-${i}`, reasons[1]])
    assert.equal(kubectlTable(head, many, {width: 60, wrap: 2}), kubectlTable(head, many))
  })
  it(`a text column that would be narrower than ${MIN_TEXT_WIDTH}: nothing wraps`, () => {
    const rows = [['bind', 'pvc/a-namespace-of-some-length/a-claim-of-some-length', reasons[1]]]
    assert.equal(kubectlTable(head, rows, {width: 60, wrap: 2}), kubectlTable(head, rows))
  })
})
