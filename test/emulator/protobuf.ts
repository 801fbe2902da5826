// Just enough Kubernetes protobuf to read the request bodies that clients send only in protobuf: client-go
// clientsets (kubectl auth can-i, kubectl create namespace) POST as `application/vnd.kubernetes.protobuf`,
// while accepting JSON answers. The wire form is the magic
// "k8s\0" followed by a runtime.Unknown {typeMeta, raw, ...} whose `raw` is the object's own message.
// Only the messages listed in SCHEMAS are decoded; any other protobuf body is a 415, as for a server
// without that serializer.
import {badRequest, unsupportedMediaType} from './status-errors.js'
import type {JsonObject} from './types.js'

export const PROTOBUF = 'application/vnd.kubernetes.protobuf'

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00])

/** Field number → [json name, scalar type or nested schema, repeated?]. `map` is map<string, string>. */
type FieldType = 'string' | 'bool' | 'int' | 'bytes' | 'map' | Schema
type Schema = {[field: number]: [string, FieldType, ('repeated' | undefined)?]}

const MAP_ENTRY: Schema = {1: ['key', 'string'], 2: ['value', 'string']}
const TYPE_META: Schema = {1: ['apiVersion', 'string'], 2: ['kind', 'string']}
const UNKNOWN: Schema = {
  1: ['typeMeta', TYPE_META],
  2: ['raw', 'bytes'],
  3: ['contentEncoding', 'string'],
  4: ['contentType', 'string'],
}
const RESOURCE_ATTRIBUTES: Schema = {
  1: ['namespace', 'string'],
  2: ['verb', 'string'],
  3: ['group', 'string'],
  4: ['version', 'string'],
  5: ['resource', 'string'],
  6: ['subresource', 'string'],
  7: ['name', 'string'],
}
const NON_RESOURCE_ATTRIBUTES: Schema = {1: ['path', 'string'], 2: ['verb', 'string']}
// k8s.io/api/authorization/v1 generated.proto; metadata (1) and status (3) are not needed to answer.
const SELF_SUBJECT_ACCESS_REVIEW: Schema = {
  2: ['spec', {1: ['resourceAttributes', RESOURCE_ATTRIBUTES], 2: ['nonResourceAttributes', NON_RESOURCE_ATTRIBUTES]}],
}

// k8s.io/apimachinery/pkg/apis/meta/v1 ObjectMeta, the fields a client sets on create.
const OBJECT_META: Schema = {
  1: ['name', 'string'],
  2: ['generateName', 'string'],
  3: ['namespace', 'string'],
  6: ['resourceVersion', 'string'],
  11: ['labels', 'map'],
  12: ['annotations', 'map'],
  14: ['finalizers', 'string', 'repeated'],
}
// k8s.io/api/core/v1 Namespace (kubectl create namespace).
const NAMESPACE: Schema = {
  1: ['metadata', OBJECT_META],
  2: ['spec', {1: ['finalizers', 'string', 'repeated']}],
  3: ['status', {1: ['phase', 'string']}],
}

const SCHEMAS: Record<string, Schema> = {
  'authorization.k8s.io/v1/SelfSubjectAccessReview': SELF_SUBJECT_ACCESS_REVIEW,
  'v1/Namespace': NAMESPACE,
}

function readVarint(buf: Buffer, pos: number): [number, number] {
  let value = 0
  let shift = 0
  for (;;) {
    if (pos >= buf.length) throw badRequest('protobuf: truncated varint')
    const byte = buf[pos++]
    value += (byte & 0x7f) * 2 ** shift
    if ((byte & 0x80) === 0) return [value, pos]
    shift += 7
  }
}

function decodeMessage(buf: Buffer, schema: Schema): JsonObject {
  const out: JsonObject = {}
  let pos = 0
  while (pos < buf.length) {
    let key: number
    ;[key, pos] = readVarint(buf, pos)
    const field = Math.floor(key / 8)
    const wire = key & 7
    let value: number | Buffer
    if (wire === 0) [value, pos] = readVarint(buf, pos)
    else if (wire === 2) {
      let len: number
      ;[len, pos] = readVarint(buf, pos)
      value = buf.subarray(pos, pos + len)
      pos += len
    } else if (wire === 1) {
      pos += 8
      continue
    } else if (wire === 5) {
      pos += 4
      continue
    } else throw badRequest(`protobuf: unsupported wire type ${wire}`)
    const spec = schema[field]
    if (!spec) continue
    const [name, type, repeated] = spec
    if (type === 'map') {
      const entry = decodeMessage(value as Buffer, MAP_ENTRY)
      out[name] = {...(out[name] as JsonObject | undefined), [String(entry.key ?? '')]: entry.value ?? ''}
      continue
    }
    const decoded =
      type === 'string'
        ? (value as Buffer).toString('utf8')
        : type === 'bytes'
          ? value
          : type === 'bool'
            ? value !== 0
            : type === 'int'
              ? value
              : decodeMessage(value as Buffer, type)
    if (repeated) out[name] = [...((out[name] as unknown[] | undefined) ?? []), decoded]
    // proto2 sends empty optional strings that the JSON form would omit (omitempty).
    else if (decoded !== '') out[name] = decoded
  }
  return out
}

/** Decodes a protobuf request body into the JSON form of the object it carries. */
export function decodeProtobuf(body: Buffer): JsonObject {
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC)) throw badRequest('protobuf: missing the k8s envelope')
  const unknown = decodeMessage(body.subarray(4), UNKNOWN)
  const typeMeta = (unknown.typeMeta ?? {}) as {apiVersion?: string; kind?: string}
  const schema = SCHEMAS[`${typeMeta.apiVersion}/${typeMeta.kind}`]
  if (!schema) {
    throw unsupportedMediaType(
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`,
    )
  }
  return {
    apiVersion: typeMeta.apiVersion,
    kind: typeMeta.kind,
    ...decodeMessage((unknown.raw as Buffer | undefined) ?? Buffer.alloc(0), schema),
  }
}
