// The emulator's wire semantics over real HTTP (fetch), one describe per concern. Expected bodies are
// the real apiserver's: messages are compared in full because clients print them.
import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {request as httpsRequest} from 'node:https'
import path from 'node:path'
import {after, before, describe, test} from 'node:test'

import {startEmulator, type Emulator, type FaultSpec} from './emulator.js'
import {call, event, node, openWatch, pod, pv, pvc, storageClass} from './fixtures.js'
import {tempDir} from '../temp-dir.js'

const ms = (n: number) => new Promise((r) => setTimeout(r, n))

/** A fresh emulator per describe block: tests in one block share state on purpose, in order. */
function withEmulator(options: Parameters<typeof startEmulator>[0] = {}): {api: () => Emulator} {
  let api: Emulator
  before(async () => {
    api = await startEmulator(options)
  })
  after(async () => {
    await api.stop()
  })
  return {api: () => api}
}

describe('discovery', () => {
  const {api} = withEmulator()

  test('/version, /api, /apis, health endpoints', async () => {
    const version = await call(api().url, 'GET', '/version')
    assert.equal(version.status, 200)
    assert.equal(version.body.major, '1')
    assert.equal((await call(api().url, 'GET', '/api')).body.versions[0], 'v1')
    const groups = (await call(api().url, 'GET', '/apis')).body
    assert.equal(groups.kind, 'APIGroupList')
    assert.deepEqual(
      groups.groups.map((g: any) => g.name),
      ['storage.k8s.io', 'coordination.k8s.io', 'authorization.k8s.io'],
    )
    for (const p of ['/healthz', '/readyz', '/livez'])
      assert.deepEqual([(await call(api().url, 'GET', p)).body], ['ok'])
  })

  test('/api/v1 lists names, scopes, verbs, short names and status subresources', async () => {
    const {body} = await call(api().url, 'GET', '/api/v1')
    const byName = new Map<string, any>(body.resources.map((r: any) => [r.name, r]))
    const rows: Array<[string, string | undefined, boolean]> = [
      ['persistentvolumes', 'pv', false],
      ['persistentvolumeclaims', 'pvc', true],
      ['pods', 'po', true],
      ['nodes', 'no', false],
      ['events', 'ev', true],
      ['namespaces', 'ns', false],
    ]
    for (const [name, short, namespaced] of rows) {
      const r = byName.get(name)
      assert.ok(r, name)
      assert.deepEqual(r.shortNames, short ? [short] : undefined, name)
      assert.equal(r.namespaced, namespaced, name)
      assert.ok(r.verbs.includes('watch'), name)
    }
    for (const name of ['persistentvolumes/status', 'persistentvolumeclaims/status', 'pods/status', 'nodes/status']) {
      assert.deepEqual(byName.get(name)?.verbs, ['get', 'patch', 'update'], name)
    }
    const storage = (await call(api().url, 'GET', '/apis/storage.k8s.io/v1')).body
    assert.deepEqual(storage.resources.find((r: any) => r.name === 'storageclasses').shortNames, ['sc'])
    const authz = (await call(api().url, 'GET', '/apis/authorization.k8s.io/v1')).body
    assert.deepEqual(authz.resources.find((r: any) => r.name === 'selfsubjectaccessreviews').verbs, ['create'])
  })

  test('unknown paths and /openapi/v2 are 404 Status bodies', async () => {
    for (const p of ['/openapi/v2', '/api/v1/foos', '/apis/nope.io/v1']) {
      const {status, body} = await call(api().url, 'GET', p)
      assert.equal(status, 404, p)
      assert.deepEqual(body, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'the server could not find the requested resource',
        reason: 'NotFound',
        details: {},
        code: 404,
      })
    }
  })
})

describe('create, get and errors', () => {
  const {api} = withEmulator()

  test('POST fills uid, creationTimestamp and resourceVersion, resets the status and defaults the spec', async () => {
    const before = Number(api().resourceVersion)
    const {status, body} = await call(api().url, 'POST', '/api/v1/persistentvolumes', {
      body: pv('pv1', {phase: 'Bound'}),
    })
    assert.equal(status, 201)
    assert.match(body.metadata.uid, /^[0-9a-f-]{36}$/)
    assert.match(body.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    assert.equal(body.metadata.resourceVersion, String(before + 1))
    assert.equal(body.status.phase, 'Pending', 'the PV controller owns the phase: a new PV starts Pending')
    assert.equal(body.spec.persistentVolumeReclaimPolicy, 'Retain')
    assert.equal(body.spec.volumeMode, 'Filesystem')
    const got = await call(api().url, 'GET', '/api/v1/persistentvolumes/pv1')
    assert.deepEqual(got.body, body)
  })

  const errorRows: Array<{
    name: string
    method: string
    path: string
    body?: unknown
    code: number
    reason: string
    message: string
    details?: unknown
  }> = [
    {
      name: 'GET missing',
      method: 'GET',
      path: '/api/v1/persistentvolumes/x',
      code: 404,
      reason: 'NotFound',
      message: 'persistentvolumes "x" not found',
      details: {name: 'x', kind: 'persistentvolumes'},
    },
    {
      name: 'GET missing in a group',
      method: 'GET',
      path: '/apis/storage.k8s.io/v1/storageclasses/gold',
      code: 404,
      reason: 'NotFound',
      message: 'storageclasses.storage.k8s.io "gold" not found',
      details: {name: 'gold', group: 'storage.k8s.io', kind: 'storageclasses'},
    },
    {
      name: 'POST duplicate',
      method: 'POST',
      path: '/api/v1/persistentvolumes',
      body: pv('pv1'),
      code: 409,
      reason: 'AlreadyExists',
      message: 'persistentvolumes "pv1" already exists',
      details: {name: 'pv1', kind: 'persistentvolumes'},
    },
    {
      name: 'POST with a resourceVersion',
      method: 'POST',
      path: '/api/v1/persistentvolumes',
      body: {...pv('pv9'), metadata: {name: 'pv9', resourceVersion: '3'}},
      code: 500,
      reason: 'Unknown',
      message: 'resourceVersion should not be set on objects to be created',
    },
    {
      name: 'POST invalid PV',
      method: 'POST',
      path: '/api/v1/persistentvolumes',
      body: {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: {name: 'bad'},
        spec: {accessModes: ['ReadWriteOnce'], hostPath: {path: '/x'}},
      },
      code: 422,
      reason: 'Invalid',
      message: 'PersistentVolume "bad" is invalid: spec.capacity: Required value',
      details: {
        name: 'bad',
        kind: 'PersistentVolume',
        causes: [{reason: 'FieldValueRequired', message: 'Required value', field: 'spec.capacity'}],
      },
    },
    {
      name: 'POST invalid name',
      method: 'POST',
      path: '/api/v1/namespaces/default/persistentvolumeclaims',
      body: pvc('default', 'Bad_Name'),
      code: 422,
      reason: 'Invalid',
      message:
        "PersistentVolumeClaim \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    },
    {
      name: 'POST into another namespace',
      method: 'POST',
      path: '/api/v1/namespaces/default/persistentvolumeclaims',
      body: pvc('other', 'c'),
      code: 400,
      reason: 'BadRequest',
      message: 'the namespace of the provided object does not match the namespace sent on the request',
    },
    {
      name: 'PUT with another name',
      method: 'PUT',
      path: '/api/v1/persistentvolumes/pv1',
      body: pv('pv2'),
      code: 400,
      reason: 'BadRequest',
      message: 'the name of the object (pv2) does not match the name on the URL (pv1)',
    },
    {
      name: 'GET on a create-only resource',
      method: 'GET',
      path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      code: 405,
      reason: 'MethodNotAllowed',
      message: 'the server does not allow this method on the requested resource',
      details: {},
    },
    {
      name: 'bad label selector',
      method: 'GET',
      path: '/api/v1/persistentvolumes?labelSelector=a%20in%20b',
      code: 400,
      reason: 'BadRequest',
      message:
        "unable to parse requirement: found 'a in b', expected: key, !key, key=value, key!=value, key in (...), key notin (...)",
    },
    {
      name: 'unsupported field selector',
      method: 'GET',
      path: '/api/v1/persistentvolumes?fieldSelector=spec.nodeName%3Dx',
      code: 400,
      reason: 'BadRequest',
      message: 'field label not supported: spec.nodeName',
    },
  ]
  for (const row of errorRows) {
    test(`error: ${row.name}`, async () => {
      const {status, body} = await call(api().url, row.method, row.path, {body: row.body})
      assert.equal(status, row.code)
      assert.equal(body.kind, 'Status')
      assert.equal(body.apiVersion, 'v1')
      assert.equal(body.status, 'Failure')
      assert.equal(body.code, row.code)
      assert.equal(body.reason, row.reason)
      assert.equal(body.message, row.message)
      if (row.details !== undefined) assert.deepEqual(body.details, row.details)
    })
  }

  test('generateName makes a unique name', async () => {
    const {status, body} = await call(api().url, 'POST', '/api/v1/namespaces/default/events', {
      body: {...event('default', '', {kind: 'PersistentVolume', name: 'pv1'}), metadata: {generateName: 'pv1.'}},
    })
    assert.equal(status, 201)
    assert.match(body.metadata.name, /^pv1\.[a-z0-9]{5}$/)
  })

  test('YAML out when asked for', async () => {
    const {status, body} = await call(api().url, 'GET', '/api/v1/persistentvolumes/pv1', {accept: 'application/yaml'})
    assert.equal(status, 200)
    assert.match(body, /^apiVersion: v1\nkind: PersistentVolume\n/)
  })
})

describe('update: optimistic concurrency, no-ops, immutability', () => {
  const {api} = withEmulator({objects: [pv('pv1'), pvc('default', 'claim1')]})

  test('PUT with the stored resourceVersion succeeds and bumps it; a stale one is a 409 Conflict', async () => {
    const current = (await call(api().url, 'GET', '/api/v1/persistentvolumes/pv1')).body
    const changed = structuredClone(current)
    changed.metadata.labels = {tier: 'gold'}
    const latest = Number(api().resourceVersion)
    const ok = await call(api().url, 'PUT', '/api/v1/persistentvolumes/pv1', {body: changed})
    assert.equal(ok.status, 200)
    assert.equal(Number(ok.body.metadata.resourceVersion), latest + 1, 'the next global revision')
    const stale = await call(api().url, 'PUT', '/api/v1/persistentvolumes/pv1', {body: changed})
    assert.equal(stale.status, 409)
    assert.deepEqual(stale.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      reason: 'Conflict',
      code: 409,
      message:
        'Operation cannot be fulfilled on persistentvolumes "pv1": the object has been modified; please apply your changes to the latest version and try again',
      details: {name: 'pv1', kind: 'persistentvolumes'},
    })
  })

  test('PUT without a resourceVersion is unconditional', async () => {
    const current = (await call(api().url, 'GET', '/api/v1/persistentvolumes/pv1')).body
    const body = structuredClone(current)
    delete body.metadata.resourceVersion
    body.metadata.labels = {tier: 'silver'}
    const res = await call(api().url, 'PUT', '/api/v1/persistentvolumes/pv1', {body})
    assert.equal(res.status, 200)
    assert.equal(res.body.metadata.labels.tier, 'silver')
  })

  test('an update that changes nothing is not a write: same resourceVersion', async () => {
    const current = (await call(api().url, 'GET', '/api/v1/persistentvolumes/pv1')).body
    const rv = api().resourceVersion
    const res = await call(api().url, 'PUT', '/api/v1/persistentvolumes/pv1', {body: current})
    assert.equal(res.status, 200)
    assert.equal(res.body.metadata.resourceVersion, current.metadata.resourceVersion)
    assert.equal(api().resourceVersion, rv)
  })

  test('a uid that is not the stored one is a precondition conflict', async () => {
    const current = (await call(api().url, 'GET', '/api/v1/persistentvolumes/pv1')).body
    const res = await call(api().url, 'PUT', '/api/v1/persistentvolumes/pv1', {
      body: {...current, metadata: {...current.metadata, uid: 'other'}},
    })
    assert.equal(res.status, 409)
    assert.equal(
      res.body.message,
      `Operation cannot be fulfilled on persistentvolumes "pv1": Precondition failed: UID in precondition: other, UID in object meta: ${current.metadata.uid}`,
    )
  })

  test('a claim may get its volumeName once; other spec changes are Forbidden (422)', async () => {
    const bind = await call(api().url, 'PATCH', '/api/v1/namespaces/default/persistentvolumeclaims/claim1', {
      body: {spec: {volumeName: 'pv1'}},
      contentType: 'application/merge-patch+json',
    })
    assert.equal(bind.status, 200)
    for (const spec of [{volumeName: 'pv2'}, {accessModes: ['ReadWriteMany']}]) {
      const res = await call(api().url, 'PATCH', '/api/v1/namespaces/default/persistentvolumeclaims/claim1', {
        body: {spec},
        contentType: 'application/merge-patch+json',
      })
      assert.equal(res.status, 422, JSON.stringify(spec))
      assert.equal(
        res.body.message,
        'PersistentVolumeClaim "claim1" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
      )
    }
  })
})

describe("a claim's storage request: only a Bound claim's may change, and never shrink (ValidatePersistentVolumeClaimUpdate)", () => {
  const {api} = withEmulator({
    objects: [
      pvc('default', 'pending', {storage: '2Gi'}),
      pvc('default', 'bound', {storage: '2Gi', volumeName: 'pv1', phase: 'Bound'}),
    ],
  })
  const immutable =
    'spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'
  const shrink = 'spec.resources.requests.storage: Forbidden: field can not be less than previous value'
  const rows: Array<{claim: string; spec: object; status: number; errors?: string[]}> = [
    {claim: 'bound', spec: {resources: {requests: {storage: '3Gi'}}}, status: 200},
    {claim: 'bound', spec: {resources: {requests: {storage: '3072Mi'}}}, status: 200},
    {claim: 'bound', spec: {resources: {requests: {storage: '1Gi'}}}, status: 422, errors: [shrink]},
    {claim: 'bound', spec: {resources: {requests: {cpu: '1'}}}, status: 422, errors: [immutable]},
    {claim: 'bound', spec: {volumeAttributesClassName: 'gold'}, status: 200},
    {claim: 'pending', spec: {resources: {requests: {storage: '3Gi'}}}, status: 422, errors: [immutable]},
    {claim: 'pending', spec: {resources: {requests: {storage: '1Gi'}}}, status: 422, errors: [immutable, shrink]},
    {claim: 'pending', spec: {volumeAttributesClassName: 'gold'}, status: 422, errors: [immutable]},
  ]
  for (const row of rows) {
    test(`${row.claim}: ${JSON.stringify(row.spec)} → ${row.status}`, async () => {
      const res = await call(api().url, 'PATCH', `/api/v1/namespaces/default/persistentvolumeclaims/${row.claim}`, {
        body: {spec: row.spec},
        contentType: 'application/merge-patch+json',
      })
      assert.equal(res.status, row.status, JSON.stringify(res.body))
      if (row.errors !== undefined) {
        assert.equal(
          res.body.message,
          `PersistentVolumeClaim "${row.claim}" is invalid: ${row.errors.length > 1 ? `[${row.errors.join(', ')}]` : row.errors[0]}`,
        )
      }
    })
  }
})

describe('status subresource', () => {
  const {api} = withEmulator({objects: [pv('pv1'), pvc('default', 'claim1')]})

  test('PUT /status changes only status (and metadata); spec changes are ignored', async () => {
    const current = (await call(api().url, 'GET', '/api/v1/persistentvolumes/pv1')).body
    const body = structuredClone(current)
    body.status = {phase: 'Bound'}
    body.spec.capacity.storage = '99Gi'
    body.metadata.annotations = {'pv.kubernetes.io/bound-by-controller': 'yes'}
    const res = await call(api().url, 'PUT', '/api/v1/persistentvolumes/pv1/status', {body})
    assert.equal(res.status, 200)
    assert.equal(res.body.status.phase, 'Bound')
    assert.match(res.body.status.lastPhaseTransitionTime, /Z$/, 'a phase change stamps lastPhaseTransitionTime')
    assert.equal(res.body.spec.capacity.storage, '10Gi')
    assert.deepEqual(
      res.body.metadata.annotations,
      body.metadata.annotations,
      'the built-in status strategies keep metadata changes',
    )
  })

  test('PUT /status with a stale resourceVersion is a Conflict', async () => {
    const current = (await call(api().url, 'GET', '/api/v1/persistentvolumes/pv1')).body
    const res = await call(api().url, 'PUT', '/api/v1/persistentvolumes/pv1/status', {
      body: {...current, metadata: {...current.metadata, resourceVersion: '1'}, status: {phase: 'Released'}},
    })
    assert.equal(res.status, 409)
    assert.equal(res.body.reason, 'Conflict')
  })

  test('the main resource ignores status changes', async () => {
    const current = (await call(api().url, 'GET', '/api/v1/persistentvolumes/pv1')).body
    const body = structuredClone(current)
    body.status = {phase: 'Failed'}
    body.spec.persistentVolumeReclaimPolicy = 'Delete'
    const res = await call(api().url, 'PUT', '/api/v1/persistentvolumes/pv1', {body})
    assert.equal(res.body.status.phase, 'Bound')
    assert.equal(res.body.spec.persistentVolumeReclaimPolicy, 'Delete')
    const patched = await call(api().url, 'PATCH', '/api/v1/persistentvolumes/pv1', {
      body: {status: {phase: 'Failed'}},
      contentType: 'application/merge-patch+json',
    })
    assert.equal(patched.body.status.phase, 'Bound')
    assert.equal(
      patched.body.metadata.resourceVersion,
      res.body.metadata.resourceVersion,
      'a patch that only touches status is a no-op',
    )
  })

  test('PATCH /status with merge patch, as kubectl patch --subresource=status sends it', async () => {
    const res = await call(api().url, 'PATCH', '/api/v1/namespaces/default/persistentvolumeclaims/claim1/status', {
      body: {status: {phase: 'Bound'}, spec: {volumeName: 'ignored'}},
      contentType: 'application/merge-patch+json',
    })
    assert.equal(res.status, 200)
    assert.equal(res.body.status.phase, 'Bound')
    assert.equal(res.body.spec.volumeName, undefined)
  })
})

describe('patch types', () => {
  const {api} = withEmulator({objects: [pv('pv1', {labels: {a: '1', b: '2'}, finalizers: ['x', 'y']}), node('n1')]})
  const patch = (p: string, body: unknown, contentType: string) => call(api().url, 'PATCH', p, {body, contentType})

  test('merge patch: maps merge, null deletes, lists replace', async () => {
    const res = await patch(
      '/api/v1/persistentvolumes/pv1',
      {metadata: {labels: {a: null, c: '3'}}, spec: {accessModes: ['ReadWriteMany']}},
      'application/merge-patch+json',
    )
    assert.equal(res.status, 200)
    assert.deepEqual(res.body.metadata.labels, {b: '2', c: '3'})
    assert.deepEqual(res.body.spec.accessModes, ['ReadWriteMany'])
  })

  test('JSON patch: add, replace, remove; a failed test op is 422 and writes nothing', async () => {
    const res = await patch(
      '/api/v1/persistentvolumes/pv1',
      [
        {op: 'add', path: '/metadata/labels/d', value: '4'},
        {op: 'replace', path: '/spec/capacity/storage', value: '20Gi'},
        {op: 'remove', path: '/metadata/finalizers/0'},
      ],
      'application/json-patch+json',
    )
    assert.equal(res.status, 200)
    assert.equal(res.body.metadata.labels.d, '4')
    assert.equal(res.body.spec.capacity.storage, '20Gi')
    assert.deepEqual(res.body.metadata.finalizers, ['y'])
    const rv = api().resourceVersion
    const failed = await patch(
      '/api/v1/persistentvolumes/pv1',
      [
        {op: 'test', path: '/spec/capacity/storage', value: '1Gi'},
        {op: 'remove', path: '/metadata/labels'},
      ],
      'application/json-patch+json',
    )
    assert.equal(failed.status, 422)
    assert.equal(failed.body.reason, 'Invalid')
    assert.equal(failed.body.message, 'testing value /spec/capacity/storage failed: test failed')
    assert.equal(api().resourceVersion, rv)
  })

  test('strategic merge patch: directives and merge keys of the served kinds', async () => {
    const res = await patch(
      '/api/v1/persistentvolumes/pv1',
      {
        metadata: {
          '$deleteFromPrimitiveList/finalizers': ['y'],
          finalizers: ['z'],
          '$setElementOrder/finalizers': ['z'],
        },
      },
      'application/strategic-merge-patch+json',
    )
    assert.deepEqual(res.body.metadata.finalizers, ['z'])
    const cond = await patch(
      '/api/v1/nodes/n1/status',
      {status: {conditions: [{type: 'DiskPressure', status: 'False'}]}},
      'application/strategic-merge-patch+json',
    )
    assert.deepEqual(
      cond.body.status.conditions,
      [
        {type: 'Ready', status: 'True'},
        {type: 'DiskPressure', status: 'False'},
      ],
      'conditions merge by type',
    )
  })

  test('a patch carrying a stale resourceVersion is a Conflict', async () => {
    const res = await patch(
      '/api/v1/persistentvolumes/pv1',
      {metadata: {resourceVersion: '2', labels: {e: '5'}}},
      'application/merge-patch+json',
    )
    assert.equal(res.status, 409)
  })

  test('an unknown patch type is 415', async () => {
    const res = await patch('/api/v1/persistentvolumes/pv1', {}, 'application/json')
    assert.equal(res.status, 415)
    assert.equal(res.body.reason, 'UnsupportedMediaType')
  })

  test('PATCH of a missing object is 404', async () => {
    const res = await patch(
      '/api/v1/persistentvolumes/nope',
      {metadata: {labels: {a: 'b'}}},
      'application/merge-patch+json',
    )
    assert.equal(res.status, 404)
  })
})

describe('delete and finalizers', () => {
  const {api} = withEmulator({
    objects: [
      pv('plain'),
      pv('guarded', {finalizers: ['example.com/hold']}),
      node('n1'),
      pod('default', 'p1', 'n1'),
      pod('default', 'p2'),
    ],
  })

  test('without finalizers the object goes; a PV DELETE answers with the object, a node DELETE with a Status', async () => {
    const res = await call(api().url, 'DELETE', '/api/v1/persistentvolumes/plain')
    assert.equal(res.status, 200)
    assert.equal(res.body.kind, 'PersistentVolume')
    assert.equal((await call(api().url, 'GET', '/api/v1/persistentvolumes/plain')).status, 404)
    const uid = api().get('node', null, 'n1')!.metadata.uid
    const nodeRes = await call(api().url, 'DELETE', '/api/v1/nodes/n1')
    assert.deepEqual(nodeRes.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: {name: 'n1', kind: 'nodes', uid},
      code: 200,
    })
  })

  test('with finalizers DELETE marks the object (deletionTimestamp, grace 0) and keeps it', async () => {
    const watch = await openWatch(
      api().url,
      `/api/v1/persistentvolumes?watch=1&resourceVersion=${api().resourceVersion}`,
    )
    const res = await call(api().url, 'DELETE', '/api/v1/persistentvolumes/guarded', {
      body: {kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background'},
    })
    assert.equal(res.status, 200)
    assert.match(res.body.metadata.deletionTimestamp, /Z$/)
    assert.equal(res.body.metadata.deletionGracePeriodSeconds, 0)
    const again = await call(api().url, 'GET', '/api/v1/persistentvolumes/guarded')
    assert.equal(again.status, 200)
    assert.equal(again.body.metadata.deletionTimestamp, res.body.metadata.deletionTimestamp)
    const [modified] = await watch.until(1)
    assert.equal(modified.type, 'MODIFIED')

    const added = await call(api().url, 'PATCH', '/api/v1/persistentvolumes/guarded', {
      body: {metadata: {finalizers: ['example.com/hold', 'new']}},
      contentType: 'application/merge-patch+json',
    })
    assert.equal(added.status, 422)
    assert.match(added.body.message, /no new finalizers can be added if the object is being deleted/)

    const removed = await call(api().url, 'PATCH', '/api/v1/persistentvolumes/guarded', {
      body: {metadata: {finalizers: null}},
      contentType: 'application/merge-patch+json',
    })
    assert.equal(removed.status, 200)
    assert.equal((await call(api().url, 'GET', '/api/v1/persistentvolumes/guarded')).status, 404)
    const events = await watch.until(3)
    assert.deepEqual(
      events.map((e) => e.type),
      ['MODIFIED', 'MODIFIED', 'DELETED'],
    )
    assert.equal(
      events[2].object.metadata.resourceVersion,
      api().resourceVersion,
      'DELETED carries the deletion revision',
    )
    watch.close()
  })

  test('a DELETE precondition that does not hold is a Conflict', async () => {
    api().create(pv('pre'))
    const res = await call(api().url, 'DELETE', '/api/v1/persistentvolumes/pre', {
      body: {preconditions: {resourceVersion: '1'}},
    })
    assert.equal(res.status, 409)
    assert.match(
      res.body.message,
      /^Operation cannot be fulfilled on persistentvolumes "pre": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in meta: \d+$/,
    )
  })

  test('dryRun=All deletes nothing', async () => {
    const res = await call(api().url, 'DELETE', '/api/v1/persistentvolumes/pre?dryRun=All')
    assert.equal(res.status, 200)
    assert.ok(api().get('pv', null, 'pre'))
  })

  test('a scheduled pod is deleted gracefully; an unscheduled one at once', async () => {
    const graceful = await call(api().url, 'DELETE', '/api/v1/namespaces/default/pods/p1', {
      body: {gracePeriodSeconds: 30},
    })
    assert.equal(graceful.body.metadata.deletionGracePeriodSeconds, 30)
    assert.ok(api().get('pod', 'default', 'p1'))
    await call(api().url, 'DELETE', '/api/v1/namespaces/default/pods/p1', {body: {gracePeriodSeconds: 0}})
    assert.equal(api().get('pod', 'default', 'p1'), undefined)
    await call(api().url, 'DELETE', '/api/v1/namespaces/default/pods/p2', {body: {gracePeriodSeconds: 30}})
    assert.equal(api().get('pod', 'default', 'p2'), undefined)
  })
})

describe('list: selectors, scope, type meta', () => {
  const {api} = withEmulator({
    objects: [
      pv('a', {labels: {tier: 'gold', zone: 'z1'}}),
      pv('b', {labels: {tier: 'silver'}}),
      pv('c'),
      pvc('ns1', 'c1', {labels: {app: 'db'}}),
      pvc('ns2', 'c2'),
      pod('ns1', 'p1', 'node-1'),
      pod('ns1', 'p2', 'node-2'),
      event('ns1', 'e1', {kind: 'PersistentVolumeClaim', name: 'c1'}),
      event('ns1', 'e2', {kind: 'Pod', name: 'p1'}),
      storageClass('standard', true),
    ],
  })
  const names = async (p: string) => {
    const res = await call(api().url, 'GET', p)
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body.items.map((i: any) =>
      i.metadata.namespace ? `${i.metadata.namespace}/${i.metadata.name}` : i.metadata.name,
    )
  }
  const rows: Array<[string, string, string[]]> = [
    ['label =', '/api/v1/persistentvolumes?labelSelector=tier%3Dgold', ['a']],
    ['label ==', '/api/v1/persistentvolumes?labelSelector=tier%3D%3Dsilver', ['b']],
    ['label != (absent matches)', '/api/v1/persistentvolumes?labelSelector=tier!%3Dgold', ['b', 'c']],
    ['label in', '/api/v1/persistentvolumes?labelSelector=tier%20in%20(gold,silver)', ['a', 'b']],
    ['label notin', '/api/v1/persistentvolumes?labelSelector=tier%20notin%20(gold)', ['b', 'c']],
    ['label exists', '/api/v1/persistentvolumes?labelSelector=tier', ['a', 'b']],
    ['label !key', '/api/v1/persistentvolumes?labelSelector=!tier', ['c']],
    ['labels ANDed', '/api/v1/persistentvolumes?labelSelector=tier%3Dgold,zone%3Dz1', ['a']],
    ['field metadata.name', '/api/v1/persistentvolumes?fieldSelector=metadata.name%3Db', ['b']],
    ['field metadata.name !=', '/api/v1/persistentvolumes?fieldSelector=metadata.name!%3Db', ['a', 'c']],
    ['claims across namespaces', '/api/v1/persistentvolumeclaims', ['ns1/c1', 'ns2/c2']],
    ['claims in one namespace', '/api/v1/namespaces/ns2/persistentvolumeclaims', ['ns2/c2']],
    ['field metadata.namespace', '/api/v1/persistentvolumeclaims?fieldSelector=metadata.namespace%3Dns1', ['ns1/c1']],
    ['pods by spec.nodeName', '/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-2', ['ns1/p2']],
    [
      'events by involvedObject',
      '/api/v1/namespaces/ns1/events?fieldSelector=involvedObject.kind%3DPod,involvedObject.name%3Dp1',
      ['ns1/e2'],
    ],
    [
      'events by reason and source',
      '/api/v1/events?fieldSelector=reason%3DProvisioningFailed,source%3Dpersistentvolume-controller',
      ['ns1/e1', 'ns1/e2'],
    ],
    ['storage classes', '/apis/storage.k8s.io/v1/storageclasses', ['standard']],
  ]
  for (const [name, p, want] of rows) test(name, async () => assert.deepEqual(await names(p), want))

  test('the List has kind, apiVersion and resourceVersion; items have apiVersion/kind', async () => {
    const {body} = await call(api().url, 'GET', '/api/v1/persistentvolumes')
    assert.equal(body.kind, 'PersistentVolumeList')
    assert.equal(body.apiVersion, 'v1')
    assert.equal(body.metadata.resourceVersion, api().resourceVersion)
    assert.ok(body.items.every((i: any) => i.apiVersion === 'v1' && i.kind === 'PersistentVolume'))
  })

  test('listItemTypeMeta: false gives items without apiVersion/kind, as the real server', async () => {
    const bare = await startEmulator({objects: [pv('a')], listItemTypeMeta: false})
    try {
      const {body} = await call(bare.url, 'GET', '/api/v1/persistentvolumes')
      assert.equal(body.items[0].kind, undefined)
      assert.equal(body.items[0].apiVersion, undefined)
    } finally {
      await bare.stop()
    }
  })

  test('Table output for kubectl: columns, cells, row objects', async () => {
    const {body} = await call(api().url, 'GET', '/api/v1/persistentvolumes?limit=2', {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    })
    assert.equal(body.kind, 'Table')
    assert.equal(body.apiVersion, 'meta.k8s.io/v1')
    assert.deepEqual(
      body.columnDefinitions.map((c: any) => c.name),
      [
        'Name',
        'Capacity',
        'Access Modes',
        'Reclaim Policy',
        'Status',
        'Claim',
        'StorageClass',
        'VolumeAttributesClass',
        'Reason',
        'Age',
        'VolumeMode',
      ],
    )
    assert.deepEqual(body.rows[0].cells.slice(0, 9), [
      'a',
      '10Gi',
      'RWO',
      'Retain',
      'Available',
      '',
      'standard',
      '<unset>',
      '',
    ])
    assert.equal(body.rows[0].object.kind, 'PartialObjectMetadata')
    assert.ok(body.metadata.continue, 'tables page like lists')
    const sc = (
      await call(api().url, 'GET', '/apis/storage.k8s.io/v1/storageclasses', {
        accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
      })
    ).body
    assert.equal(sc.rows[0].cells[0], 'standard (default)')
  })
})

describe('pagination: limit, continue, consistent snapshots', () => {
  const {api} = withEmulator({objects: ['pv-a', 'pv-b', 'pv-c', 'pv-d', 'pv-e'].map((n) => pv(n)), watchHistory: 50})
  const page = (q: string) => call(api().url, 'GET', `/api/v1/persistentvolumes?${q}`)

  test("pages continue at the first page's resourceVersion across concurrent writes", async () => {
    const first = await page('limit=2')
    assert.deepEqual(
      first.body.items.map((i: any) => i.metadata.name),
      ['pv-a', 'pv-b'],
    )
    assert.equal(first.body.metadata.remainingItemCount, 3)
    const snapshotRv = first.body.metadata.resourceVersion
    // Writes between the pages: none of them may show up in the rest of this list.
    await call(api().url, 'POST', '/api/v1/persistentvolumes', {body: {...pv('pv-bb'), status: undefined}})
    await call(api().url, 'DELETE', '/api/v1/persistentvolumes/pv-d')
    await call(api().url, 'PATCH', '/api/v1/persistentvolumes/pv-c', {
      body: {metadata: {labels: {changed: 'yes'}}},
      contentType: 'application/merge-patch+json',
    })
    const second = await page(`limit=2&continue=${encodeURIComponent(first.body.metadata.continue)}`)
    assert.deepEqual(
      second.body.items.map((i: any) => i.metadata.name),
      ['pv-c', 'pv-d'],
    )
    assert.equal(second.body.items[0].metadata.labels, undefined, 'pv-c as it was at the snapshot')
    assert.equal(second.body.metadata.resourceVersion, snapshotRv)
    const third = await page(`limit=2&continue=${encodeURIComponent(second.body.metadata.continue)}`)
    assert.deepEqual(
      third.body.items.map((i: any) => i.metadata.name),
      ['pv-e'],
    )
    assert.equal(third.body.metadata.continue, undefined)
    const fresh = await page('')
    assert.deepEqual(
      fresh.body.items.map((i: any) => i.metadata.name),
      ['pv-a', 'pv-b', 'pv-bb', 'pv-c', 'pv-e'],
    )
  })

  test('resourceVersionMatch=Exact reads an old snapshot', async () => {
    const before = api().resourceVersion
    api().create(pv('pv-z'))
    const old = await page(`resourceVersion=${before}&resourceVersionMatch=Exact`)
    assert.ok(!old.body.items.some((i: any) => i.metadata.name === 'pv-z'))
    assert.equal(old.body.metadata.resourceVersion, before)
    const future = await page(`resourceVersion=${Number(api().resourceVersion) + 10}`)
    assert.equal(future.status, 504)
    assert.equal(future.body.reason, 'Timeout')
  })

  test('a continue token from before a compaction is 410 Expired, with a token to go on inconsistently', async () => {
    const first = await page('limit=2')
    api().create(pv('pv-aa'))
    api().compact()
    const res = await page(`limit=2&continue=${encodeURIComponent(first.body.metadata.continue)}`)
    assert.equal(res.status, 410)
    assert.equal(res.body.reason, 'Expired')
    assert.match(res.body.message, /^The provided continue parameter is too old to display a consistent list result\./)
    const resumed = await page(`limit=10&continue=${encodeURIComponent(res.body.metadata.continue)}`)
    assert.equal(resumed.status, 200)
    assert.equal(resumed.body.items[0].metadata.name, 'pv-bb', 'the remainder, read at the latest revision')
  })

  test('a malformed continue token is a 400 BadRequest', async () => {
    const res = await page('limit=2&continue=not-a-token')
    assert.equal(res.status, 400)
    assert.match(res.body.message, /^invalid continue token: continue key is not valid/)
  })

  test('old history falls out of the window', async () => {
    const rv = api().resourceVersion
    for (let i = 0; i < 60; i++)
      api().update({
        ...api().get('pv', null, 'pv-a')!,
        metadata: {...api().get('pv', null, 'pv-a')!.metadata, labels: {i: String(i)}},
      })
    const res = await page(`resourceVersion=${rv}&resourceVersionMatch=Exact`)
    assert.equal(res.status, 410)
    assert.equal(res.body.message, 'The resourceVersion for the provided list is too old.')
  })
})

describe('watch', () => {
  const {api} = withEmulator({
    objects: [pv('pv1', {labels: {tier: 'gold'}}), pvc('default', 'c1')],
    watchHistory: 20,
    bookmarkIntervalMs: 100,
  })

  test('from a resourceVersion: ADDED, MODIFIED, DELETED in order, filtered by kind', async () => {
    const w = await openWatch(api().url, `/api/v1/persistentvolumes?watch=1&resourceVersion=${api().resourceVersion}`)
    await call(api().url, 'POST', '/api/v1/persistentvolumes', {body: pv('pv2')})
    await call(api().url, 'POST', '/api/v1/namespaces/default/persistentvolumeclaims', {body: pvc('default', 'c2')})
    await call(api().url, 'PATCH', '/api/v1/persistentvolumes/pv2', {
      body: {metadata: {labels: {x: 'y'}}},
      contentType: 'application/merge-patch+json',
    })
    await call(api().url, 'DELETE', '/api/v1/persistentvolumes/pv2')
    const events = await w.until(4)
    // The DELETE marks pv2 (its pv-protection finalizer, admission's); the protection controller's update deletes it.
    assert.deepEqual(
      events.map((e) => [e.type, e.object.metadata.name]),
      [
        ['ADDED', 'pv2'],
        ['MODIFIED', 'pv2'],
        ['MODIFIED', 'pv2'],
        ['DELETED', 'pv2'],
      ],
    )
    assert.equal(events[0].object.kind, 'PersistentVolume')
    w.close()
  })

  test('replays history after an old resourceVersion', async () => {
    const rv = api().resourceVersion
    api().create(pv('pv3'))
    const w = await openWatch(api().url, `/api/v1/persistentvolumes?watch=true&resourceVersion=${rv}`)
    const [e] = await w.until(1)
    assert.deepEqual([e.type, e.object.metadata.name], ['ADDED', 'pv3'])
    w.close()
  })

  test('without a resourceVersion: synthetic ADDED for what exists, then changes', async () => {
    const w = await openWatch(api().url, '/api/v1/namespaces/default/persistentvolumeclaims?watch=1')
    await w.until(2)
    assert.deepEqual(
      w.events.map((e) => [e.type, e.object.metadata.name]),
      [
        ['ADDED', 'c1'],
        ['ADDED', 'c2'],
      ],
    )
    api().create(pvc('default', 'c3'))
    await w.until(3)
    assert.deepEqual(w.events[2].object.metadata.name, 'c3')
    w.close()
  })

  test('a label selector turns a match into ADDED and a mismatch into DELETED', async () => {
    const w = await openWatch(
      api().url,
      `/api/v1/persistentvolumes?watch=1&labelSelector=tier%3Dgold&resourceVersion=${api().resourceVersion}`,
    )
    api().create(pv('pv4'))
    await call(api().url, 'PATCH', '/api/v1/persistentvolumes/pv4', {
      body: {metadata: {labels: {tier: 'gold'}}},
      contentType: 'application/merge-patch+json',
    })
    await call(api().url, 'PATCH', '/api/v1/persistentvolumes/pv4', {
      body: {metadata: {labels: {tier: 'silver'}}},
      contentType: 'application/merge-patch+json',
    })
    const events = await w.until(2)
    assert.deepEqual(
      events.map((e) => e.type),
      ['ADDED', 'DELETED'],
    )
    assert.deepEqual(events[1].object.metadata.labels, {tier: 'gold'}, 'DELETED shows the last matching state')
    w.close()
  })

  test('a resourceVersion older than the history is one ERROR event with a 410 Expired Status', async () => {
    const old = api().resourceVersion
    for (let i = 0; i < 25; i++) api().create(pv(`bulk-${i}`))
    const w = await openWatch(api().url, `/api/v1/persistentvolumes?watch=1&resourceVersion=${old}`)
    await w.ended
    assert.equal(w.events.length, 1)
    assert.equal(w.events[0].type, 'ERROR')
    assert.deepEqual(
      {...w.events[0].object, message: undefined},
      {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: undefined,
        reason: 'Expired',
        code: 410,
      },
    )
    assert.match(w.events[0].object.message, new RegExp(`^too old resource version: ${old} \\(\\d+\\)$`))
  })

  test('bookmarks, and timeoutSeconds ends the stream', async () => {
    const w = await openWatch(
      api().url,
      `/api/v1/persistentvolumes?watch=1&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion=${api().resourceVersion}`,
    )
    const started = Date.now()
    await w.ended
    assert.ok(Date.now() - started >= 900)
    assert.ok(w.events.length >= 3, `bookmarks every 100 ms, got ${w.events.length}`)
    assert.deepEqual(w.events[0], {
      type: 'BOOKMARK',
      object: {kind: 'PersistentVolume', apiVersion: 'v1', metadata: {resourceVersion: api().resourceVersion}},
    })
  })

  test('sendInitialEvents ends the initial list with an annotated bookmark', async () => {
    const w = await openWatch(
      api().url,
      '/api/v1/namespaces/default/persistentvolumeclaims?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan',
    )
    const events = await w.until(4)
    assert.deepEqual(
      events.map((e) => e.type),
      ['ADDED', 'ADDED', 'ADDED', 'BOOKMARK'],
    )
    assert.equal(events[3].object.metadata.annotations['k8s.io/initial-events-end'], 'true')
    w.close()
  })

  test('watch as Table, as kubectl get -w asks', async () => {
    const w = await openWatch(api().url, `/api/v1/persistentvolumes?watch=1&resourceVersion=${api().resourceVersion}`, {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    })
    api().create(pv('pv5'))
    const [e] = await w.until(1)
    assert.equal(e.object.kind, 'Table')
    assert.equal(e.object.rows[0].cells[0], 'pv5')
    w.close()
  })
})

describe('authentication and authorization', () => {
  const {api} = withEmulator({
    objects: [pv('pv1'), pvc('default', 'c1')],
    tokens: {
      'admin-token': {user: 'admin'},
      'alice-token': {
        user: 'alice',
        deny: [
          {verb: 'update', resource: 'persistentvolumes'},
          {verb: 'patch', resource: 'persistentvolumeclaims', subresource: 'status'},
          {verb: 'list', resource: 'pods'},
        ],
      },
    },
  })

  test('no token or an unknown one is 401; health checks need none', async () => {
    for (const token of [undefined, 'nope']) {
      const res = await call(api().url, 'GET', '/api/v1/persistentvolumes', {token})
      assert.equal(res.status, 401)
      assert.deepEqual(res.body, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      })
    }
    assert.equal((await call(api().url, 'GET', '/readyz')).status, 200)
  })

  const rows: Array<{
    name: string
    method: string
    path: string
    body?: unknown
    contentType?: string
    code: number
    message?: string
    details?: unknown
  }> = [
    {
      name: 'update of a cluster-scoped resource',
      method: 'PUT',
      path: '/api/v1/persistentvolumes/pv1',
      body: pv('pv1'),
      code: 403,
      message:
        'persistentvolumes "pv1" is forbidden: User "alice" cannot update resource "persistentvolumes" in API group "" at the cluster scope',
      details: {name: 'pv1', kind: 'persistentvolumes'},
    },
    {
      name: 'patch of a namespaced status subresource',
      method: 'PATCH',
      path: '/api/v1/namespaces/default/persistentvolumeclaims/c1/status',
      body: {status: {phase: 'Bound'}},
      contentType: 'application/merge-patch+json',
      code: 403,
      message:
        'persistentvolumeclaims "c1" is forbidden: User "alice" cannot patch resource "persistentvolumeclaims/status" in API group "" in the namespace "default"',
    },
    {
      name: 'list without a name',
      method: 'GET',
      path: '/api/v1/pods',
      code: 403,
      message: 'pods is forbidden: User "alice" cannot list resource "pods" in API group "" at the cluster scope',
      details: {kind: 'pods'},
    },
    {
      name: 'patch of the main claim is allowed',
      method: 'PATCH',
      path: '/api/v1/namespaces/default/persistentvolumeclaims/c1',
      body: {metadata: {labels: {a: 'b'}}},
      contentType: 'application/merge-patch+json',
      code: 200,
    },
    {name: 'get is allowed', method: 'GET', path: '/api/v1/persistentvolumes/pv1', code: 200},
  ]
  for (const row of rows) {
    test(`alice: ${row.name}`, async () => {
      const res = await call(api().url, row.method, row.path, {
        body: row.body,
        contentType: row.contentType,
        token: 'alice-token',
      })
      assert.equal(res.status, row.code, JSON.stringify(res.body))
      if (row.message) {
        assert.equal(res.body.reason, 'Forbidden')
        assert.equal(res.body.message, row.message)
      }
      if (row.details) assert.deepEqual(res.body.details, row.details)
    })
  }

  test('SelfSubjectAccessReview answers from the same rules', async () => {
    const review = async (token: string, verb: string) =>
      (
        await call(api().url, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
          token,
          body: {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SelfSubjectAccessReview',
            spec: {resourceAttributes: {verb, resource: 'persistentvolumes', name: 'pv1'}},
          },
        })
      ).body
    assert.deepEqual((await review('alice-token', 'update')).status, {allowed: false})
    assert.deepEqual((await review('alice-token', 'get')).status, {allowed: true})
    assert.deepEqual((await review('admin-token', 'update')).status, {allowed: true})
    assert.equal(api().list('pv').length, 1, 'nothing stored')
  })
})

describe('faults and request counters', () => {
  const {api} = withEmulator({objects: [pv('pv1'), pv('pv2')]})
  const get = () => call(api().url, 'GET', '/api/v1/persistentvolumes/pv1')

  const rows: Array<{name: string; spec: FaultSpec; check: (res: Awaited<ReturnType<typeof get>>) => void}> = [
    {
      name: '500',
      spec: {verb: 'get', resource: 'pv', effect: {type: 'status', code: 500}},
      check: (r) => {
        assert.equal(r.status, 500)
        assert.deepEqual([r.body.reason, r.body.message], ['InternalError', 'Internal error occurred: injected fault'])
      },
    },
    {
      name: '503',
      spec: {verb: 'get', resource: 'persistentvolumes', effect: {type: 'status', code: 503}},
      check: (r) => {
        assert.equal(r.status, 503)
        assert.equal(r.body.reason, 'ServiceUnavailable')
      },
    },
    {
      name: '429 with Retry-After',
      spec: {resource: 'PersistentVolume', effect: {type: 'throttle', retryAfterSeconds: 7}},
      check: (r) => {
        assert.equal(r.status, 429)
        assert.equal(r.headers.get('retry-after'), '7')
        assert.deepEqual([r.body.reason, r.body.details], ['TooManyRequests', {retryAfterSeconds: 7}])
      },
    },
    {
      name: 'forced conflict',
      spec: {name: 'pv1', effect: {type: 'conflict'}},
      check: (r) => {
        assert.equal(r.status, 409)
        assert.equal(
          r.body.message,
          'Operation cannot be fulfilled on persistentvolumes "pv1": the object has been modified; please apply your changes to the latest version and try again',
        )
      },
    },
  ]
  for (const row of rows) {
    test(`fault: ${row.name}, once`, async () => {
      const fault = api().faults.add({...row.spec, count: 1})
      row.check(await get())
      assert.equal((await get()).status, 200, 'count: 1 fires once')
      assert.equal(fault.fired, 1)
      fault.remove()
    })
  }

  test('fault: latency delays and lets the request through', async () => {
    api().faults.add({verb: 'get', effect: {type: 'latency', ms: 300}, count: 1})
    const started = Date.now()
    assert.equal((await get()).status, 200)
    assert.ok(Date.now() - started >= 280)
  })

  test('fault: a dropped connection gets no answer', async () => {
    api().faults.add({verb: 'get', name: 'pv1', effect: {type: 'drop'}, count: 1})
    await assert.rejects(get(), /fetch failed/)
    assert.equal(api().requests.at(-1)!.fault, 'drop')
    assert.equal(api().requests.at(-1)!.status, 0)
  })

  test('fault: body answers any status, headers and raw body, sent as given', async () => {
    api().faults.add({verb: 'get', name: 'pv1', effect: {type: 'body', code: 200, body: '[]'}, count: 1})
    const plain = await get()
    assert.deepEqual([plain.status, plain.headers.get('content-type'), plain.body], [200, 'application/json', []])
    api().faults.add({
      verb: 'get',
      name: 'pv1',
      effect: {
        type: 'body',
        code: 429,
        body: 'slow down',
        headers: {'Retry-After': '3600', 'Content-Type': 'text/plain'},
      },
      count: 1,
    })
    const res = await fetch(`${api().url}/api/v1/persistentvolumes/pv1`)
    assert.deepEqual(
      [res.status, res.headers.get('retry-after'), res.headers.get('content-type'), await res.text()],
      [429, '3600', 'text/plain', 'slow down'],
    )
    assert.equal(api().requests.at(-1)!.fault, 'body')
    assert.equal(api().requests.at(-1)!.status, 429)
  })

  test('fault: beforeAnswer runs once the write is applied, before its answer; afterAnswer once the answer is sent', async () => {
    const label = () =>
      (api().get('pv', null, 'pv1') as {metadata: {labels?: Record<string, string>}}).metadata.labels?.n ?? 'none'
    let before = ''
    api().faults.add({
      verb: 'patch',
      name: 'pv1',
      count: 1,
      effect: {type: 'beforeAnswer', run: () => void (before = `applied ${label()}`)},
    })
    const after = new Promise<string>((resolve) =>
      api().faults.add({
        verb: 'patch',
        name: 'pv1',
        count: 1,
        effect: {type: 'afterAnswer', run: () => resolve(`answered ${api().requests.at(-1)!.status}`)},
      }),
    )
    const res = await call(api().url, 'PATCH', '/api/v1/persistentvolumes/pv1', {
      body: {metadata: {labels: {n: 'x'}}},
      contentType: 'application/merge-patch+json',
    })
    assert.deepEqual([res.status, before, await after], [200, 'applied x', 'answered 200'])
  })

  test('fault: skip lets the first matches through; other verbs and names do not match', async () => {
    api().faults.clear()
    const fault = api().faults.add({
      verb: 'patch',
      resource: 'pv',
      name: 'pv2',
      skip: 1,
      count: 1,
      effect: {type: 'status', code: 503},
    })
    const patch = (name: string) =>
      call(api().url, 'PATCH', `/api/v1/persistentvolumes/${name}`, {
        body: {metadata: {labels: {n: String(Math.random())}}},
        contentType: 'application/merge-patch+json',
      })
    assert.equal((await patch('pv1')).status, 200)
    assert.equal((await get()).status, 200)
    assert.equal((await patch('pv2')).status, 200, 'skipped')
    assert.equal((await patch('pv2')).status, 503)
    assert.equal((await patch('pv2')).status, 200, 'spent')
    assert.deepEqual([fault.matched, fault.fired], [3, 1])
  })

  test('counters: reads and writes by verb and resource', async () => {
    api().clearRequests()
    await call(api().url, 'GET', '/api/v1/persistentvolumes')
    await get()
    await call(
      api().url,
      'GET',
      '/api/v1/persistentvolumes?watch=1&timeoutSeconds=1&resourceVersion=' + api().resourceVersion,
    ).catch(() => undefined)
    assert.equal(api().countWrites(), 0, 'a read-only run writes nothing')
    await call(api().url, 'POST', '/api/v1/persistentvolumes', {body: pv('pv3')})
    await call(api().url, 'PATCH', '/api/v1/persistentvolumes/pv3/status', {
      body: {status: {phase: 'Available'}},
      contentType: 'application/merge-patch+json',
    })
    await call(api().url, 'DELETE', '/api/v1/persistentvolumes/pv3?dryRun=All')
    assert.equal(api().countRequests({verb: 'list', resource: 'pv'}), 1)
    assert.equal(api().countRequests({verb: 'get'}), 1)
    assert.equal(api().countRequests({verb: 'watch'}), 1)
    assert.equal(api().countWrites(), 3)
    assert.equal(api().countWrites({subresource: 'status'}), 1)
    assert.equal(api().requests.filter((r) => r.dryRun).length, 1)
    assert.deepEqual(
      api().requests.map((r) => r.status),
      [200, 200, 200, 201, 200, 200],
    )
  })
})

describe('more verbs and encodings', () => {
  const {api} = withEmulator({
    objects: [pvc('ns1', 'a', {labels: {app: 'x'}}), pvc('ns1', 'b', {labels: {app: 'x'}}), pvc('ns1', 'c')],
  })

  test('deletecollection deletes what the selector matches', async () => {
    const res = await call(api().url, 'DELETE', '/api/v1/namespaces/ns1/persistentvolumeclaims?labelSelector=app%3Dx')
    assert.equal(res.status, 200)
    assert.equal(res.body.kind, 'PersistentVolumeClaimList')
    assert.deepEqual(
      api()
        .list('pvc')
        .map((o) => o.metadata.name),
      ['c'],
    )
  })

  test('PUT creates a lease (AllowCreateOnUpdate), not a PV', async () => {
    const lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {name: 'pvctl', namespace: 'kube-system'},
      spec: {holderIdentity: 'me', leaseDurationSeconds: 15},
    }
    const created = await call(api().url, 'PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/pvctl', {
      body: lease,
    })
    assert.equal(created.status, 201)
    const renewed = await call(api().url, 'PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/pvctl', {
      body: {...created.body, spec: {...created.body.spec, holderIdentity: 'other'}},
    })
    assert.equal(renewed.status, 200)
    assert.equal((await call(api().url, 'PUT', '/api/v1/persistentvolumes/nope', {body: pv('nope')})).status, 404)
  })

  test('list option validation', async () => {
    const res = await call(api().url, 'GET', '/api/v1/persistentvolumes?resourceVersionMatch=Exact')
    assert.equal(res.status, 400)
    assert.equal(
      res.body.message,
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    )
  })

  test('a protobuf SelfSubjectAccessReview (as client-go clientsets send it) is understood', async () => {
    // Hand-encoded: "k8s\0" + runtime.Unknown{typeMeta{apiVersion, kind}, raw: SSAR{spec{resourceAttributes{verb, resource}}}}.
    const str = (field: number, text: string) =>
      Buffer.concat([Buffer.from([field * 8 + 2, Buffer.byteLength(text)]), Buffer.from(text)])
    const msg = (field: number, body: Buffer) => Buffer.concat([Buffer.from([field * 8 + 2, body.length]), body])
    const raw = msg(2, msg(1, Buffer.concat([str(2, 'delete'), str(5, 'persistentvolumes')])))
    const typeMeta = msg(1, Buffer.concat([str(1, 'authorization.k8s.io/v1'), str(2, 'SelfSubjectAccessReview')]))
    const body = Buffer.concat([Buffer.from('k8s\0', 'latin1'), typeMeta, msg(2, raw)])
    const res = await fetch(`${api().url}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, {
      method: 'POST',
      body,
      headers: {
        'Content-Type': 'application/vnd.kubernetes.protobuf',
        Accept: 'application/vnd.kubernetes.protobuf, application/json',
      },
    })
    assert.equal(res.status, 201)
    const review = await res.json()
    assert.deepEqual(review.spec, {resourceAttributes: {verb: 'delete', resource: 'persistentvolumes'}})
    assert.deepEqual(review.status, {allowed: true})
  })
})

describe('programmatic store access', () => {
  const {api} = withEmulator()

  test('create, update and delete bypass HTTP but bump the resourceVersion and feed watches', async () => {
    const w = await openWatch(api().url, `/api/v1/persistentvolumes?watch=1&resourceVersion=${api().resourceVersion}`)
    const created = api().create(pv('pv1', {finalizers: ['f']}))
    assert.equal(created.status && (created.status as any).phase, 'Available', 'stored as given')
    const updated = api().update({
      ...created,
      metadata: {...created.metadata, deletionTimestamp: '2024-01-01T00:00:00Z', deletionGracePeriodSeconds: 0},
    })
    assert.equal(Number(updated.metadata.resourceVersion), Number(created.metadata.resourceVersion) + 1)
    api().update({...updated, metadata: {...updated.metadata, finalizers: []}})
    assert.equal(api().get('pv', null, 'pv1'), undefined, 'the last finalizer gone, the object goes')
    api().create(pv('pv2'))
    api().delete('pv', null, 'pv2')
    const events = await w.until(5)
    assert.deepEqual(
      events.map((e) => e.type),
      ['ADDED', 'MODIFIED', 'MODIFIED', 'DELETED', 'ADDED'],
    )
    w.close()
    assert.deepEqual(
      api()
        .list('namespaces')
        .map((n) => n.metadata.name),
      ['default', 'kube-node-lease', 'kube-public', 'kube-system'],
    )
    assert.throws(() => api().get('widgets', null, 'x'), /unknown kind "widgets"/)
  })

  test('kubeconfig names the server and the token', () => {
    const text = api().kubeconfig({token: 't0k', namespace: 'ns1'})
    assert.match(text, new RegExp(`server: ${api().url}`))
    assert.match(text, /insecure-skip-tls-verify: true/)
    assert.match(text, /token: t0k/)
    assert.match(text, /namespace: ns1/)
  })
})

describe('https', () => {
  const {api} = withEmulator({tls: true, objects: [pv('pv1')]})

  test('serves TLS with its own CA, which the kubeconfig carries', async () => {
    assert.match(api().url, /^https:\/\/127\.0\.0\.1:\d+$/)
    const body = await new Promise<string>((resolve, reject) => {
      httpsRequest(`${api().url}/api/v1/persistentvolumes/pv1`, {ca: api().ca}, (res) => {
        let text = ''
        res.on('data', (c) => (text += c))
        res.on('end', () => resolve(text))
      })
        .on('error', reject)
        .end()
    })
    assert.equal(JSON.parse(body).metadata.name, 'pv1')
    assert.match(api().kubeconfig(), /certificate-authority-data: /)
  })
})

test('CLI: main.ts serves objects from a YAML file', async () => {
  const dir = path.dirname(new URL(import.meta.url).pathname)
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(dir, 'main.ts'),
      '--port',
      '0',
      '-f',
      path.join(dir, 'testdata', 'objects.yaml'),
      '--kubeconfig-out',
      path.join(tempDir('emulator-main'), 'kubeconfig'),
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = ''
      child.stdout.on('data', (c) => {
        out += c
        const m = /serving at (\S+)/.exec(out)
        if (m) resolve(m[1])
      })
      child.on('exit', (code) => reject(new Error(`main.ts exited ${code}`)))
    })
    const {body} = await call(url, 'GET', '/api/v1/persistentvolumeclaims')
    assert.deepEqual(
      body.items.map((i: any) => i.metadata.name),
      ['data-0'],
    )
    assert.equal((await call(url, 'GET', '/api/v1/persistentvolumes/pv-file')).body.spec.capacity.storage, '5Gi')
  } finally {
    child.kill('SIGTERM')
    await ms(50)
  }
})
