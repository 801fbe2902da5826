// Answers pvctl cannot trust (issue 18): a 2xx that is not the List or the object asked for, or that nests
// past any object's depth, is a MalformedAnswerError (a cluster error, exit 3) naming the request and what
// came back; never an empty list, never an internal error. Each row makes the emulator answer one request
// with a raw body (its `body` fault) and calls the port pvctl calls it through.
import assert from 'node:assert/strict'
import {after, before, test} from 'node:test'

import {parse} from 'yaml'

import {MalformedAnswerError} from '../../src/cluster/api-errors.js'
import {KubernetesEvidenceApi} from '../../src/cluster/explain-evidence-api.js'
import {resolveContext} from '../../src/cluster/kubeconfig.js'
import {type CoreEvent, KubernetesClusterApi, makeKubeConfig} from '../../src/cluster/live-api.js'
import {KubernetesWorkloadApi} from '../../src/cluster/workload-api.js'
import {MAX_ANSWER_DEPTH} from '../../src/cluster/json-depth.js'
import type {PersistentVolume, PersistentVolumeClaim} from '../../src/engine/api/model.js'
import {type Emulator, type FaultSpec, startEmulator} from '../emulator/emulator.js'
import {pv, pvc} from '../emulator/fixtures.js'

let api: Emulator
let ports: {cluster: KubernetesClusterApi; workload: KubernetesWorkloadApi; evidence: KubernetesEvidenceApi}

before(async () => {
  api = await startEmulator({listItemTypeMeta: false, objects: [pv('pv1'), pvc('default', 'c1')]})
  const kc = makeKubeConfig(resolveContext(parse(api.kubeconfig()), 'test'))
  ports = {
    cluster: new KubernetesClusterApi(kc),
    workload: new KubernetesWorkloadApi(kc),
    evidence: new KubernetesEvidenceApi(kc),
  }
})
after(() => api.stop())

const list = (kind: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({kind, apiVersion: 'v1', metadata: {resourceVersion: '5'}, items: [], ...extra})
const status200 = JSON.stringify({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'etcdserver: request timed out',
  reason: 'InternalError',
  code: 500,
})
const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`
const volume = (name: string) => pv(name) as unknown as PersistentVolume
const claim = pvc('default', 'c1') as unknown as PersistentVolumeClaim
const event: CoreEvent = {
  metadata: {name: 'e1', namespace: 'default'},
  involvedObject: {kind: 'PersistentVolume', name: 'pv1', apiVersion: 'v1'},
  reason: 'r',
  message: 'm',
  type: 'Normal',
  source: {component: 'pvctl'},
  count: 1,
  firstTimestamp: '2026-01-01T00:00:00Z',
  lastTimestamp: '2026-01-01T00:00:00Z',
}

const listClaims = () => ports.cluster.listClaims(undefined, {limit: 500})

interface Row {
  id: string
  /** Which request the emulator answers with `body`. */
  match: Omit<FaultSpec, 'effect'>
  body: string
  code?: number
  headers?: Record<string, string>
  call: () => Promise<unknown>
  message: string
}

const LIST = {verb: 'list', resource: 'pvc'} as const
const rows: Row[] = [
  // LIST answers that were taken for an empty list.
  {
    id: 'list: []',
    match: LIST,
    body: '[]',
    call: listClaims,
    message: 'list persistentvolumeclaims: the answer is not a PersistentVolumeClaimList (got a JSON array)',
  },
  {
    id: 'list: {}',
    match: LIST,
    body: '{}',
    call: listClaims,
    message: 'list persistentvolumeclaims: the answer is not a PersistentVolumeClaimList (got an empty object)',
  },
  {
    id: 'list: a Status with HTTP 200',
    match: LIST,
    body: status200,
    call: listClaims,
    message:
      'list persistentvolumeclaims: the answer is not a PersistentVolumeClaimList (got a Status with HTTP 200: etcdserver: request timed out)',
  },
  // LIST answers that were internal errors.
  {
    id: 'list: items is a string',
    match: LIST,
    body: list('PersistentVolumeClaimList', {items: 'pvc-1'}),
    call: listClaims,
    message: 'list persistentvolumeclaims: the answer is not a PersistentVolumeClaimList (items is a string)',
  },
  {
    id: 'list: the body is null',
    match: LIST,
    body: 'null',
    call: listClaims,
    message: 'list persistentvolumeclaims: the answer is not a PersistentVolumeClaimList (got null)',
  },
  // kube-apiserver sends `"items": []` for an empty list, never null (its stores set an empty slice).
  {
    id: 'list: items is null',
    match: LIST,
    body: list('PersistentVolumeClaimList', {items: null}),
    call: listClaims,
    message: 'list persistentvolumeclaims: the answer is not a PersistentVolumeClaimList (items is null)',
  },
  {
    id: 'list: no items',
    match: LIST,
    body: JSON.stringify({kind: 'PersistentVolumeClaimList', apiVersion: 'v1'}),
    call: listClaims,
    message: 'list persistentvolumeclaims: the answer is not a PersistentVolumeClaimList (items is missing)',
  },
  {
    id: 'list: a List of another kind',
    match: LIST,
    body: list('PersistentVolumeList'),
    call: listClaims,
    message: 'list persistentvolumeclaims: the answer is not a PersistentVolumeClaimList (got a PersistentVolumeList)',
  },
  {
    id: 'list: no apiVersion',
    match: LIST,
    body: JSON.stringify({kind: 'PersistentVolumeClaimList', items: []}),
    call: listClaims,
    message: 'list persistentvolumeclaims: the answer is not a PersistentVolumeClaimList (apiVersion is missing)',
  },
  {
    id: 'list: another apiVersion',
    match: {verb: 'list', resource: 'sc'},
    body: list('StorageClassList'),
    call: () => ports.cluster.listClasses({limit: 500}),
    message: 'list storageclasses: the answer is not a StorageClassList (apiVersion is "v1", not "storage.k8s.io/v1")',
  },
  {
    id: 'list: an item without a name',
    match: LIST,
    body: list('PersistentVolumeClaimList', {items: [{metadata: {name: 'a'}}, {metadata: {}}]}),
    call: listClaims,
    message:
      'list persistentvolumeclaims: the answer is not a PersistentVolumeClaimList (items[1] has no metadata.name)',
  },
  {
    id: 'list: an item that is a string',
    match: LIST,
    body: list('PersistentVolumeClaimList', {items: ['a']}),
    call: listClaims,
    message: 'list persistentvolumeclaims: the answer is not a PersistentVolumeClaimList (items[0] is a string)',
  },
  {
    id: 'list: a null item',
    match: LIST,
    body: list('PersistentVolumeClaimList', {items: [null]}),
    call: listClaims,
    message: 'list persistentvolumeclaims: the answer is not a PersistentVolumeClaimList (items[0] is null)',
  },
  {
    id: 'list: a continue token that is not a string',
    match: LIST,
    body: list('PersistentVolumeClaimList', {metadata: {continue: 7}}),
    call: listClaims,
    message:
      'list persistentvolumeclaims: the answer is not a PersistentVolumeClaimList (metadata.continue is a number)',
  },
  {
    id: 'list: an empty body',
    match: LIST,
    body: '',
    call: listClaims,
    message: 'list persistentvolumeclaims: the answer is not a PersistentVolumeClaimList (got an empty body)',
  },
  {
    id: 'list: a proxy page',
    match: LIST,
    body: '<html>login</html>',
    headers: {'Content-Type': 'text/html; charset=utf-8'},
    call: listClaims,
    message: 'list persistentvolumeclaims: the answer is not JSON (got text/html)',
  },
  {
    id: 'list: JSON nested 200,000 deep',
    match: LIST,
    body: `{"kind":"PersistentVolumeClaimList","apiVersion":"v1","items":[{"metadata":{"name":"a"},"spec":${deep(200_000)}}]}`,
    call: listClaims,
    message: `list persistentvolumeclaims: the answer nests deeper than ${MAX_ANSWER_DEPTH} levels, deeper than any object of the cluster`,
  },
  {
    id: 'list: an error status nested 200,000 deep',
    match: LIST,
    code: 500,
    body: deep(200_000),
    call: listClaims,
    message: `list persistentvolumeclaims: the answer nests deeper than ${MAX_ANSWER_DEPTH} levels, deeper than any object of the cluster`,
  },
  {
    id: 'list of pods',
    match: {verb: 'list', resource: 'pods'},
    body: '[]',
    call: () => ports.cluster.listPods('default', {limit: 500}),
    message: 'list pods in namespace "default": the answer is not a PodList (got a JSON array)',
  },
  {
    id: 'list of nodes',
    match: {verb: 'list', resource: 'nodes'},
    body: '{}',
    call: () => ports.cluster.listNodes({limit: 500}),
    message: 'list nodes: the answer is not a NodeList (got an empty object)',
  },
  {
    id: 'list of leases',
    match: {verb: 'list', resource: 'leases'},
    body: list('LeaseList'),
    call: () => ports.cluster.listLeases('kube-system', {limit: 500}),
    message:
      'list leases in namespace "kube-system": the answer is not a LeaseList (apiVersion is "v1", not "coordination.k8s.io/v1")',
  },
  {
    id: 'list of events (a plugin pod)',
    match: {verb: 'list', resource: 'events'},
    body: list('EventList', {items: 'x'}),
    call: () => ports.workload.podEvents('default', 'recycler'),
    message: 'list events in namespace "default": the answer is not an EventList (items is a string)',
  },
  {
    id: 'list of CSIDrivers (explain)',
    match: {verb: 'list', resource: 'csidrivers'},
    body: 'null',
    call: () => ports.evidence.listCSIDrivers({limit: 500}),
    message: 'list csidrivers: the answer is not a CSIDriverList (got null)',
  },
  {
    id: 'list of VolumeAttachments (explain)',
    match: {verb: 'list', resource: 'volumeattachments'},
    body: status200,
    call: () => ports.evidence.listVolumeAttachments({limit: 500}),
    message:
      'list volumeattachments: the answer is not a VolumeAttachmentList (got a Status with HTTP 200: etcdserver: request timed out)',
  },

  // Single objects.
  {
    id: 'get: null',
    match: {verb: 'get', resource: 'pv'},
    body: 'null',
    call: () => ports.cluster.readVolume('pv1'),
    message: 'get persistentvolumes "pv1": the answer is not a PersistentVolume (got null)',
  },
  {
    id: 'get: an object of another kind',
    match: {verb: 'get', resource: 'pvc'},
    body: JSON.stringify(pv('pv1')),
    call: () => ports.cluster.readClaim('default', 'c1'),
    message:
      'get persistentvolumeclaims "default/c1": the answer is not a PersistentVolumeClaim (got a PersistentVolume)',
  },
  {
    id: 'get: an object of another name',
    match: {verb: 'get', resource: 'pv'},
    body: JSON.stringify(pv('pv2')),
    call: () => ports.cluster.readVolume('pv1'),
    message: 'get persistentvolumes "pv1": the answer is not a PersistentVolume (got PersistentVolume "pv2")',
  },
  {
    id: 'get: a Status with HTTP 200',
    match: {verb: 'get', resource: 'leases'},
    body: status200,
    call: () => ports.cluster.readLease('kube-system', 'l1'),
    message:
      'get leases "kube-system/l1": the answer is not a Lease (got a Status with HTTP 200: etcdserver: request timed out)',
  },
  {
    id: 'put: null',
    match: {verb: 'update', resource: 'pv'},
    body: 'null',
    call: () => ports.cluster.replaceVolume(volume('pv1')),
    message: 'update persistentvolumes "pv1": the answer is not a PersistentVolume (got null)',
  },
  {
    id: 'put: an object of the wrong shape',
    match: {verb: 'update', resource: 'pvc', subresource: 'status'},
    body: '{"metadata": "c1"}',
    call: () => ports.cluster.replaceClaimStatus(claim),
    message:
      'update persistentvolumeclaims/status "default/c1": the answer is not a PersistentVolumeClaim (got an object without a kind)',
  },
  {
    id: 'put: the object without a name',
    match: {verb: 'update', resource: 'pv', subresource: 'status'},
    body: '{"kind": "PersistentVolume", "metadata": {}}',
    call: () => ports.cluster.replaceVolumeStatus(volume('pv1')),
    message: 'update persistentvolumes/status "pv1": the answer is not a PersistentVolume (it has no metadata.name)',
  },
  {
    id: 'post: an array',
    match: {verb: 'create', resource: 'events'},
    body: '[]',
    call: () => ports.cluster.createEvent(event),
    message: 'create events in namespace "default": the answer is not an Event (got a JSON array)',
  },
  {
    id: 'patch: an empty body',
    match: {verb: 'patch', resource: 'events'},
    body: '',
    call: () => ports.cluster.patchEventCount('default', 'e1', 2, event.lastTimestamp),
    message: 'patch events "default/e1": the answer is not an Event (got an empty body)',
  },
  {
    id: 'delete: neither the object nor a Status of success',
    match: {verb: 'delete', resource: 'pv'},
    body: '[]',
    call: () => ports.workload.deleteVolume('pv1'),
    message:
      'delete persistentvolumes "pv1": the answer is not a PersistentVolume or a Status of success (got a JSON array)',
  },
  {
    id: 'delete: a Status of failure with HTTP 200',
    match: {verb: 'delete', resource: 'pods'},
    body: status200,
    call: () => ports.workload.deletePod('default', 'recycler'),
    message:
      'delete pods "default/recycler": the answer is not a Pod or a Status of success (got a Status with HTTP 200: etcdserver: request timed out)',
  },
  {
    id: 'get: JSON nested 200,000 deep inside a string-heavy object',
    match: {verb: 'get', resource: 'pods'},
    body: `{"kind":"Pod","metadata":{"name":"p","annotations":{"a":"[[[\\"{{"}},"spec":${deep(200_000)}}`,
    call: () => ports.workload.readPod('default', 'p'),
    message: `get pods "default/p": the answer nests deeper than ${MAX_ANSWER_DEPTH} levels, deeper than any object of the cluster`,
  },
]

for (const row of rows) {
  test(`untrusted answer, ${row.id}: a MalformedAnswerError naming the request`, async () => {
    const fault = api.faults.add({
      ...row.match,
      count: 1,
      effect: {type: 'body', code: row.code ?? 200, body: row.body, headers: row.headers},
    })
    try {
      await assert.rejects(row.call(), (err: unknown) => {
        assert.ok(err instanceof MalformedAnswerError, `${String(err)}`)
        assert.equal(err.message, row.message)
        assert.equal(err.exitCode, 3)
        return true
      })
      assert.equal(fault.fired, 1, 'answered once: a malformed answer is not retried')
    } finally {
      fault.remove()
    }
  })
}

const accepted: Array<{
  id: string
  match: Omit<FaultSpec, 'effect'>
  body: string
  call: () => Promise<unknown>
  want: unknown
}> = [
  {
    id: 'a List of the kind asked for, items without kind (as the real server sends them)',
    match: LIST,
    body: list('PersistentVolumeClaimList', {
      items: [{metadata: {name: 'c1', namespace: 'default'}}],
      metadata: {continue: '', resourceVersion: '9'},
    }),
    call: listClaims,
    want: {items: [{metadata: {name: 'c1', namespace: 'default'}}], continueToken: undefined, resourceVersion: '9'},
  },
  {
    id: 'an object without kind, of the name asked for',
    match: {verb: 'get', resource: 'pv'},
    body: '{"metadata": {"name": "pv1"}}',
    call: () => ports.cluster.readVolume('pv1'),
    want: {metadata: {name: 'pv1'}},
  },
  {
    id: 'a DELETE answered by a Status of success',
    match: {verb: 'delete', resource: 'pv'},
    body: '{"kind": "Status", "apiVersion": "v1", "status": "Success"}',
    call: () => ports.workload.deleteVolume('pv1'),
    want: undefined,
  },
  {
    id: `JSON nested exactly ${MAX_ANSWER_DEPTH} deep, brackets inside strings not counted`,
    match: LIST,
    body: `{"kind":"PersistentVolumeClaimList","apiVersion":"v1","items":[{"metadata":{"name":"[[\\"[{"},"spec":${deep(MAX_ANSWER_DEPTH - 3)}}]}`,
    call: async () => (await listClaims()).items.length,
    want: 1,
  },
]

for (const row of accepted) {
  test(`trusted answer, ${row.id}`, async () => {
    const fault = api.faults.add({...row.match, count: 1, effect: {type: 'body', code: 200, body: row.body}})
    try {
      assert.deepEqual(await row.call(), row.want)
    } finally {
      fault.remove()
    }
  })
}
