// toApiError: what an answer of the server becomes. A Status says what went wrong; a web server that is
// not an API server (a wrong port, a proxy's page) answers without one, and is named as such.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {ConflictError, NotFoundError, UnreachableError} from '../../src/cluster/api-errors.js'
import {toApiError} from '../../src/cluster/api-errors.js'

const SERVER = 'https://10.0.0.1:6443'
const target = {verb: 'list', resource: 'persistentvolumes'} as const
const status = (code: number, reason: string, message: string) =>
  JSON.stringify({kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message})

const rows: Array<{
  id: string
  answer: {code: number; body: string}
  kind: new (...a: never[]) => Error
  message: string
}> = [
  {
    id: 'a 404 Status: the object is not found',
    answer: {code: 404, body: status(404, 'NotFound', 'persistentvolumes "pv1" not found')},
    kind: NotFoundError,
    message: 'list persistentvolumes: persistentvolumes "pv1" not found',
  },
  {
    id: 'a 409 Status: a conflict',
    answer: {code: 409, body: status(409, 'Conflict', 'the object has been modified')},
    kind: ConflictError,
    message: 'list persistentvolumes: the object has been modified',
  },
  {
    id: 'a 404 page from a web server: not a Kubernetes API server',
    answer: {code: 404, body: '<html><body>Not Found</body></html>'},
    kind: UnreachableError,
    message: `${SERVER} does not answer as a Kubernetes API server (HTTP 404 to list persistentvolumes)`,
  },
  {
    id: 'a 501 without a Status: not a Kubernetes API server',
    answer: {code: 501, body: '{"error": "unsupported method"}'},
    kind: UnreachableError,
    message: `${SERVER} does not answer as a Kubernetes API server (HTTP 501 to list persistentvolumes)`,
  },
]

for (const row of rows) {
  test(`toApiError: ${row.id}`, () => {
    const err = toApiError(row.answer, target, SERVER)
    assert.ok(err instanceof row.kind, `${err.constructor.name}: ${err.message}`)
    assert.equal(err.message, row.message)
  })
}
