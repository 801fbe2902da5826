// Where a field's value came from, as the object records it (origins.ts): a field manager of managedFields
// other than kube-controller-manager, else kubectl apply's last-applied-configuration; nothing guessed.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {lastApplied, writtenBy} from '../../src/engine/explain/origins.js'

const claimRefOwned = {'f:spec': {'f:claimRef': {'.': {}, 'f:name': {}}}}
const rows: Array<{name: string; metadata: Record<string, unknown>; by: string | undefined}> = [
  {
    name: 'a GitOps tool applied it (server-side apply)',
    metadata: {
      managedFields: [
        {manager: 'kube-controller-manager', operation: 'Update', fieldsV1: claimRefOwned},
        {manager: 'argocd-controller', operation: 'Apply', fieldsV1: claimRefOwned},
      ],
    },
    by: "field manager 'argocd-controller' (Apply)",
  },
  {
    name: 'only the controller wrote it',
    metadata: {managedFields: [{manager: 'kube-controller-manager', operation: 'Update', fieldsV1: claimRefOwned}]},
    by: undefined,
  },
  {
    name: 'a manager of other fields',
    metadata: {
      managedFields: [{manager: 'kubectl-label', operation: 'Update', fieldsV1: {'f:metadata': {'f:labels': {}}}}],
    },
    by: undefined,
  },
  {
    name: "kubectl apply's record",
    metadata: {
      annotations: {'kubectl.kubernetes.io/last-applied-configuration': '{"spec":{"claimRef":{"name":"db"}}}'},
    },
    by: 'kubectl apply',
  },
  {name: 'nothing recorded (kubectl get -o yaml)', metadata: {}, by: undefined},
]
for (const row of rows)
  test(`writtenBy: ${row.name}`, () => assert.equal(writtenBy(row.metadata, ['spec', 'claimRef']), row.by))

test('lastApplied: the value, null where the manifest left it out, undefined without a record or with one that is not JSON', () => {
  const applied = (text: string) => ({annotations: {'kubectl.kubernetes.io/last-applied-configuration': text}})
  assert.equal(lastApplied(applied('{"spec":{"storageClassName":"fast"}}'), ['spec', 'storageClassName']), 'fast')
  assert.equal(lastApplied(applied('{"spec":{}}'), ['spec', 'storageClassName']), null)
  assert.equal(lastApplied({}, ['spec', 'storageClassName']), undefined)
  assert.equal(lastApplied(applied('{'), ['spec', 'storageClassName']), undefined)
})
