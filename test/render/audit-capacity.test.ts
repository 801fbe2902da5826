// The terminal's capacity bars (pvctl audit on a TTY, -o wide) of the bundled example, as golden files, and
// where they are left out. Regenerate after a deliberate change with
//   UPDATE_GOLDEN=1 node --import tsx --test test/render/audit-capacity.test.ts
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {auditState} from '../../src/engine/audit/audit-state.js'
import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {CapacityRow} from '../../src/engine/audit/capacity.js'
import {BAR_CELLS, renderCapacityBars} from '../../src/render/audit-capacity.js'
import {renderAuditTable} from '../../src/render/audit-table.js'
import {ansi, plain} from '../../src/render/color.js'
import {golden} from './golden.js'

const {state} = await loadSnapshot(['examples/cluster.yaml'])
const example = auditState(state, {
  gates: defaultFeatureGates,
  failOn: 'warning',
  ignore: new Set(),
  sourceArgs: ['-f', 'examples/cluster.yaml'],
})
const GI = 1024 ** 3
const row = (name: string, o: Partial<CapacityRow>): CapacityRow => ({
  name,
  claims: 0,
  volumes: 0,
  requested: 0,
  bound: 0,
  available: 0,
  released: 0,
  failed: 0,
  ...o,
})

describe('audit capacity bars', () => {
  it('-o wide: per class and per namespace', () =>
    golden('audit-capacity-wide', renderAuditTable(example, plain, {}, 'namespace')))
  it('a terminal: per class, coloured', () =>
    golden('audit-capacity-tty-ansi', renderAuditTable(example, ansi, {}, 'class')))

  it('none: the table as it is without them', () => {
    const without = renderAuditTable(example, plain)
    assert.doesNotMatch(without, /Capacity by/)
    assert.equal(
      renderAuditTable(example, plain, {}, 'class').replace(/\n\nCapacity by class:[^]*?\n\n/, '\n\n'),
      without,
    )
  })

  it('an audit of nothing has no rows, so no block', () => {
    const empty = auditState(
      {...state, volumes: [], claims: [], pods: []},
      {gates: defaultFeatureGates, failOn: 'warning', ignore: new Set()},
    )
    assert.doesNotMatch(renderAuditTable(empty, plain, {}, 'namespace'), /Capacity by/)
  })

  for (const c of [
    {name: 'the fullest row fills the bar', rows: [row('a', {bound: 10 * GI})], bar: '█'.repeat(BAR_CELLS)},
    {
      name: 'each phase its glyph, in order, on one scale',
      rows: [
        row('a', {bound: 12 * GI, available: 6 * GI, released: 3 * GI, failed: 3 * GI}),
        row('b', {bound: 12 * GI}),
      ],
      bar: `${'█'.repeat(12)}${'▒'.repeat(6)}${'▓'.repeat(3)}${'░'.repeat(3)}`,
    },
    {
      name: 'a sliver of released storage still shows',
      rows: [row('a', {bound: 1000 * GI, released: GI})],
      bar: `${'█'.repeat(BAR_CELLS)}▓`,
    },
  ]) {
    it(`the bar: ${c.name}`, () => {
      const first = renderCapacityBars(c.rows, 'class', plain).split('\n')[2]
      assert.ok(first.endsWith(`   ${c.bar}`), first)
    })
  }
})
