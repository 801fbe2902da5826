// kubectl's object arguments: TYPE/NAME and TYPE NAME..., not both at once; kubectl's duration forms.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {parseDuration} from '../../src/cli/duration.js'
import {parseObjectArgs} from '../../src/cli/object-args.js'

const valid: Array<{args: string[]; want: unknown}> = [
  {args: ['pvc/orders'], want: [{kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'orders'}]},
  {args: ['pvc', 'orders'], want: [{kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'orders'}]},
  {
    args: ['PersistentVolumeClaims', 'a', 'b'],
    want: [
      {kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'a'},
      {kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'b'},
    ],
  },
  {args: ['pv', 'pv-0001'], want: [{kind: 'PersistentVolume', name: 'pv-0001'}]},
  {
    args: ['pv/pv-0001', 'pvc/data'],
    want: [
      {kind: 'PersistentVolume', name: 'pv-0001'},
      {kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'data'},
    ],
  },
  // The form of every OBJECT column pvctl prints: the namespace in the name.
  {args: ['pvc/team-a/orders'], want: [{kind: 'PersistentVolumeClaim', namespace: 'team-a', name: 'orders'}]},
  {
    args: ['persistentvolumeclaim/team-a/orders', 'pvc/data'],
    want: [
      {kind: 'PersistentVolumeClaim', namespace: 'team-a', name: 'orders'},
      {kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'data'},
    ],
  },
]
for (const row of valid) {
  test(`object args ${row.args.join(' ')}`, () => assert.deepEqual(parseObjectArgs(row.args, 'shop'), row.want))
}

const invalid: Array<{args: string[]; message: RegExp}> = [
  {args: ['pvc'], message: /names a type but no object/},
  {args: ['pvc', 'pv/x'], message: /no need to specify a resource type as a separate argument/},
  {args: ['orders'], message: /expected TYPE\/NAME or TYPE NAME/},
  {args: ['pod', 'x'], message: /expected TYPE\/NAME or TYPE NAME/},
]
for (const row of invalid) {
  test(`object args ${row.args.join(' ')} is refused`, () =>
    assert.throws(() => parseObjectArgs(row.args, 'shop'), row.message))
}

test('pvc/NAMESPACE/NAME: with -n of the same namespace, or -A, it stands; with another -n, one error saying what to type', () => {
  assert.deepEqual(parseObjectArgs(['pvc/shop/orders'], 'shop', false, 'shop'), [
    {kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'orders'},
  ])
  assert.deepEqual(parseObjectArgs(['pvc/shop/orders'], 'default', true), [
    {kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'orders'},
  ])
  assert.throws(() => parseObjectArgs(['pvc/shop/orders'], 'web', false, 'web'), {
    message:
      'object "pvc/shop/orders": its namespace "shop" is not the -n given ("web"): name it pvc/orders -n web, or pvc/shop/orders without -n',
  })
  assert.throws(
    () => parseObjectArgs(['pv/shop/pv-1'], 'shop'),
    /a PersistentVolume has no namespace: pv\/NAME, e\.g\. pv\/pv-1/,
  )
  assert.throws(() => parseObjectArgs(['pvc/a/b/c'], 'shop'), /expected pvc\/NAME or pvc\/NAMESPACE\/NAME/)
  assert.throws(() => parseObjectArgs(['pvc//b'], 'shop'), /expected pvc\/NAME or pvc\/NAMESPACE\/NAME/)
})

test('-A with a claim given as TYPE NAME is refused as with TYPE/NAME', () => {
  assert.throws(() => parseObjectArgs(['pvc', 'data'], 'default', true), /across all namespaces/)
})

test("kubectl's --request-timeout forms: a bare number is seconds, 0 no timeout, Go durations", () => {
  const rt = (s: string) => parseDuration(s, '--request-timeout', {bareSeconds: true})
  assert.equal(rt('30'), 30_000)
  assert.equal(rt('0'), 0)
  assert.equal(rt('30s'), 30_000)
  assert.equal(rt('1m'), 60_000)
  assert.equal(rt('1m30s'), 90_000)
  assert.throws(() => rt('30x'), /invalid duration/)
  // Other duration flags are Go durations, as kube-controller-manager's: a bare number other than 0 is not one.
  assert.throws(() => parseDuration('30', '--resync'), /invalid duration/)
  assert.equal(parseDuration('0', '--resync'), 0)
})
