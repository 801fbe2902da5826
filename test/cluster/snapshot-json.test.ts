// JSON snapshots are normalized where JSON.parse left them (no second copy of a large dump): the same
// result as the copying walk YAML documents get. Numbers and booleans in string fields become their
// text, everything else stays as parsed, and a "__proto__" key stays a plain key.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {parseSnapshotText} from '../../src/cluster/snapshot.js'

const text = JSON.stringify({
  apiVersion: 'v1',
  kind: 'List',
  items: [
    {
      kind: 'PersistentVolumeList',
      items: [
        {
          metadata: {name: 'pv1', resourceVersion: 42, uid: 7, labels: {tier: 1, ok: true}, annotations: {n: 0.5}},
          spec: {capacity: {storage: 5}, replicas: 3, accessModes: ['ReadWriteOnce'], flag: false},
        },
      ],
    },
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {name: 'c1'},
      spec: {
        resources: {requests: {storage: 1}, limits: {storage: 2}},
        selector: {matchLabels: {zone: 3}, matchExpressions: [{key: 'tier', operator: 'In', values: [1, 'gold']}]},
      },
      status: {capacity: {storage: 4}, phase: 'Bound'},
    },
  ],
}).replace('"tier":1,', '"tier":1,"__proto__":"x",')

test('a JSON snapshot: string fields get their text, the rest is as parsed, "__proto__" stays a key', () => {
  const {state} = parseSnapshotText(text, 'snap.json')
  const pv = state.volumes[0]!
  assert.equal(Object.getPrototypeOf(pv.metadata.labels), Object.prototype)
  assert.deepEqual(Object.entries(pv.metadata.labels!), [
    ['tier', '1'],
    ['__proto__', 'x'],
    ['ok', 'true'],
  ])
  assert.deepEqual(pv, {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {name: 'pv1', resourceVersion: '42', uid: '7', labels: pv.metadata.labels, annotations: {n: '0.5'}},
    spec: {capacity: {storage: '5'}, replicas: 3, accessModes: ['ReadWriteOnce'], flag: false},
  })
  assert.deepEqual(state.claims[0], {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {name: 'c1', namespace: 'default'},
    spec: {
      resources: {requests: {storage: '1'}, limits: {storage: '2'}},
      selector: {matchLabels: {zone: '3'}, matchExpressions: [{key: 'tier', operator: 'In', values: ['1', 'gold']}]},
    },
    status: {capacity: {storage: '4'}, phase: 'Bound'},
  })
})
