// What a 2xx answer must be before pvctl takes it for the cluster: a LIST a List of the kind asked for,
// a GET or a write the object asked for. Anything else — `[]`, `{}`, null, a Status sent with 200, a List
// whose items are not an array, an object of another kind or name — is a MalformedAnswerError naming
// the request and what came back. Read as an empty list it would be a cluster without claims, in which
// every bound volume looks released; read as an object it would fail later, far from the request, as a
// bug in pvctl.
//
// The checks are what kube-apiserver always sends: `kind` <Kind>List and `apiVersion` on a List
// (`items` is `[]` when empty, never null: the etcd3 store and the watch cache set an empty slice "so
// that we never return a nil Items pointer"), and `metadata.name` on every object. A List's items are
// checked with one typeof each, so that a 100k-object list costs nothing measurable.
import {type ApiTarget, describeTarget, MalformedAnswerError} from './api-errors.js'

/** The kind and apiVersion an answer must carry (the List's kind is `${kind}List`). */
export interface ExpectedKind {
  kind: string
  apiVersion: string
}

export interface ListAnswer<T> {
  items: T[]
  continueToken?: string
  resourceVersion?: string
}

type Json = Record<string, unknown>

/** "a PersistentVolume", "an Event". */
const aKind = (kind: string) => `${/^[AEIOU]/.test(kind) ? 'an' : 'a'} ${kind}`

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** A JSON value's type as a sentence ends: "a string", "null", "an array", "missing". */
function typeName(v: unknown): string {
  if (v === undefined) return 'missing'
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`
}

/** What came back instead of the kind asked for. */
function gotInstead(body: unknown, status: number): string {
  if (body === undefined) return 'got an empty body'
  if (!isObject(body)) return `got ${body === null ? 'null' : `a JSON ${Array.isArray(body) ? 'array' : typeof body}`}`
  if (body.kind === 'Status') {
    const text = [body.message, body.reason, body.status].find((t) => typeof t === 'string' && t !== '') as
      string | undefined
    return `got a Status with HTTP ${status}${text !== undefined ? `: ${text.split('\n')[0].slice(0, 200)}` : ''}`
  }
  if (typeof body.kind === 'string') return `got ${aKind(body.kind)}`
  return Object.keys(body).length === 0 ? 'got an empty object' : 'got an object without a kind'
}

function malformed(target: ApiTarget, status: number, what: string, why: string): MalformedAnswerError {
  return new MalformedAnswerError(
    `${describeTarget(target)}: the answer is not ${what} (${why})`,
    target,
    status,
    'MalformedAnswer',
    [
      'the API server (or a proxy in front of it) sent an answer Kubernetes never sends: check the server address of the kubeconfig cluster',
    ],
  )
}

/** The page of a LIST answer, or a MalformedAnswerError saying why the answer is not a List of `expected`. */
export function listAnswer<T>(target: ApiTarget, expected: ExpectedKind, status: number, body: unknown): ListAnswer<T> {
  const kind = `${expected.kind}List`
  const fail = (why: string) => malformed(target, status, aKind(kind), why)
  if (!isObject(body) || body.kind !== kind) throw fail(gotInstead(body, status))
  if (body.apiVersion !== expected.apiVersion) {
    throw fail(
      `apiVersion is ${typeof body.apiVersion === 'string' ? `"${body.apiVersion}", not "${expected.apiVersion}"` : typeName(body.apiVersion)}`,
    )
  }
  const items = body.items
  if (!Array.isArray(items)) throw fail(`items is ${typeName(items)}`)
  const meta = body.metadata
  if (meta !== undefined && !isObject(meta)) throw fail(`metadata is ${typeName(meta)}`)
  const continueToken = meta?.continue
  const resourceVersion = meta?.resourceVersion
  if (continueToken !== undefined && typeof continueToken !== 'string')
    throw fail(`metadata.continue is ${typeName(continueToken)}`)
  if (resourceVersion !== undefined && typeof resourceVersion !== 'string')
    throw fail(`metadata.resourceVersion is ${typeName(resourceVersion)}`)
  for (let i = 0; i < items.length; i++) {
    // One typeof per item: `?.` makes null, a string or a number fail it too, without a branch of their own.
    if (typeof (items[i] as {metadata?: {name?: unknown}} | null | undefined)?.metadata?.name !== 'string') {
      throw fail(isObject(items[i]) ? `items[${i}] has no metadata.name` : `items[${i}] is ${typeName(items[i])}`)
    }
  }
  return {items: items as T[], continueToken: continueToken || undefined, resourceVersion}
}

/**
 * The object of a GET, PUT, POST or PATCH answer: of the kind asked for (when the answer names one) and
 * the name asked for (when the request names one). A DELETE may answer a Status of success instead
 * (nodes, events and leases do; the kinds that ReturnDeletedObject answer the object).
 */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the kind it asked for, which the answer was checked to be
export function objectAnswer<T>(
  target: ApiTarget,
  expected: ExpectedKind,
  method: string,
  status: number,
  body: unknown,
): T {
  const deleting = method === 'DELETE'
  if (deleting && isObject(body) && body.kind === 'Status' && body.status === 'Success') return body as T
  const fail = (why: string) =>
    malformed(target, status, deleting ? `${aKind(expected.kind)} or a Status of success` : aKind(expected.kind), why)
  if (!isObject(body) || (body.kind !== undefined && body.kind !== expected.kind)) throw fail(gotInstead(body, status))
  const name = isObject(body.metadata) ? body.metadata.name : undefined
  if (typeof name !== 'string')
    throw fail(body.kind === undefined ? gotInstead(body, status) : `it has no metadata.name`)
  if (target.name !== undefined && name !== target.name) throw fail(`got ${expected.kind} "${name}"`)
  return body as T
}
