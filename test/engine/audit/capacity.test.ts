// Capacity per class and namespace: what each phase adds to which measure, and where a volume counts.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {auditCapacity, formatBytes, type CapacityRow} from '../../../src/engine/audit/capacity.js'
import {pv, pvc} from '../builders.js'

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

const cases: Array<{
  name: string
  claims: ReturnType<typeof pvc>[]
  volumes: ReturnType<typeof pv>[]
  byClass: CapacityRow[]
  byNamespace: CapacityRow[]
}> = [
  {name: 'nothing: no rows', claims: [], volumes: [], byClass: [], byNamespace: []},
  {
    name: 'a claim adds its request to its class and its namespace',
    claims: [pvc('a', 'u1', {namespace: 'shop', className: 'fast', request: '10Gi'})],
    volumes: [],
    byClass: [row('fast', {claims: 1, requested: 10 * GI})],
    byNamespace: [row('shop', {claims: 1, requested: 10 * GI})],
  },
  {
    name: 'each volume phase has its measure; Pending, and Released to delete or recycle, add to none; a volume without claimRef is in no namespace',
    claims: [],
    volumes: [
      pv('b', {phase: 'Bound', capacity: '1Gi', className: 'std', claim: {namespace: 'shop', name: 'x'}}),
      pv('a', {phase: 'Available', capacity: '2Gi', className: 'std'}),
      pv('r', {phase: 'Released', capacity: '4Gi', className: 'std', claim: {namespace: 'old', name: 'gone'}}),
      pv('f', {phase: 'Failed', capacity: '8Gi', className: 'std'}),
      pv('p', {phase: 'Pending', capacity: '16Gi', className: 'std'}),
      pv('d', {phase: 'Released', capacity: '32Gi', className: 'std', policy: 'Delete'}),
      pv('c', {phase: 'Released', capacity: '64Gi', className: 'std', policy: 'Recycle'}),
    ],
    byClass: [row('std', {volumes: 7, bound: GI, available: 2 * GI, released: 4 * GI, failed: 8 * GI})],
    byNamespace: [row('old', {volumes: 1, released: 4 * GI}), row('shop', {volumes: 1, bound: GI})],
  },
  {
    name: 'no class is the class "", rows sorted by name; a malformed size counts as 0',
    claims: [
      pvc('a', 'u1', {namespace: 'b', request: 'lots'}),
      pvc('c', 'u2', {namespace: 'a', className: 'z', request: '500M'}),
    ],
    volumes: [],
    byClass: [row('', {claims: 1}), row('z', {claims: 1, requested: 500_000_000})],
    byNamespace: [row('a', {claims: 1, requested: 500_000_000}), row('b', {claims: 1})],
  },
]

for (const c of cases) {
  test(`auditCapacity: ${c.name}`, () => {
    const {byClass, byNamespace} = auditCapacity(c.claims, c.volumes)
    assert.deepEqual({byClass, byNamespace}, {byClass: c.byClass, byNamespace: c.byNamespace})
  })
}

test('auditCapacity: claims and volumes counted per phase, phases in order of name', () => {
  const {claimPhases, volumePhases} = auditCapacity(
    [pvc('a', 'u1', {phase: 'Pending'}), pvc('b', 'u2', {phase: 'Bound'}), pvc('c', 'u3', {phase: 'Pending'})],
    [pv('x', {phase: 'Released'}), pv('y', {phase: 'Available'})],
  )
  assert.deepEqual(Object.entries(claimPhases), [
    ['Bound', 1],
    ['Pending', 2],
  ])
  assert.deepEqual(Object.entries(volumePhases), [
    ['Available', 1],
    ['Released', 1],
  ])
})

for (const [bytes, text] of [
  [0, '0B'],
  [1023, '1023B'],
  [1024, '1Ki'],
  [1536, '1.5Ki'],
  [10 * GI, '10Gi'],
  [2 * 1024 * GI, '2Ti'],
  [500_000_000, '476.8Mi'],
] as const) {
  test(`formatBytes(${bytes}) is ${text}`, () => assert.equal(formatBytes(bytes), text))
}
