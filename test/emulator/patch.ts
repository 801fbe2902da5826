// The three PATCH bodies the apiserver accepts besides server-side apply:
//  - application/merge-patch+json     RFC 7386
//  - application/json-patch+json      RFC 6902
//  - application/strategic-merge-patch+json
// Strategic merge patch is driven, in the real server, by the Go struct tags of every type (patchStrategy,
// patchMergeKey). The emulator has no schemas, so it applies a merge patch plus the SMP directives
// ($patch, $deleteFromPrimitiveList, $setElementOrder, $retainKeys) and merges by key only the lists named
// in MERGE_KEYS below — the ones the kinds served here declare. Every other list is replaced, which is
// also what SMP does for lists without a patch strategy (accessModes, tolerations, ...).
import {badRequest, unprocessable} from './status-errors.js'
import {clone, isObject, type JsonObject} from './types.js'

export type PatchType = 'merge' | 'json' | 'strategic'

export const PATCH_CONTENT_TYPES: Record<string, PatchType> = {
  'application/merge-patch+json': 'merge',
  'application/json-patch+json': 'json',
  'application/strategic-merge-patch+json': 'strategic',
}

/** RFC 7386: objects merge recursively, null deletes, anything else (arrays included) replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch)
  const result: JsonObject = isObject(target) ? clone(target) : {}
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key]
    else result[key] = mergePatch(result[key], value)
  }
  return result
}

interface JsonPatchOp {
  op: string
  path: string
  from?: string
  value?: unknown
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return []
  if (!pointer.startsWith('/')) throw unprocessable(`JSON pointer must be empty or start with a "/": ${pointer}`)
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
}

/** Resolves all but the last token of a pointer; the container it returns is mutated by the op. */
function resolveParent(doc: unknown, tokens: string[], op: string, path: string): {parent: unknown; key: string} {
  let node: unknown = doc
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(node)) node = node[Number(token)]
    else if (isObject(node)) node = node[token]
    else node = undefined
    if (node === undefined)
      throw unprocessable(`${op} operation does not apply: doc is missing path: "${path}": missing value`)
  }
  return {parent: node, key: tokens[tokens.length - 1]}
}

function arrayIndex(arr: unknown[], key: string, allowEnd: boolean, op: string, path: string): number {
  if (key === '-' && allowEnd) return arr.length
  if (!/^\d+$/.test(key))
    throw unprocessable(`${op} operation does not apply: doc is missing path: "${path}": missing value`)
  const i = Number(key)
  if (i > arr.length || (!allowEnd && i === arr.length))
    throw unprocessable(`${op} operation does not apply: doc is missing path: "${path}": missing value`)
  return i
}

function getAt(doc: unknown, path: string, op: string): unknown {
  let node = doc
  for (const token of parsePointer(path)) {
    if (Array.isArray(node)) node = node[Number(token)]
    else if (isObject(node)) node = node[token]
    else node = undefined
    if (node === undefined)
      throw unprocessable(`${op} operation does not apply: doc is missing path: "${path}": missing value`)
  }
  return node
}

function removeAt(doc: unknown, path: string, op: string): unknown {
  const tokens = parsePointer(path)
  if (tokens.length === 0) throw unprocessable(`${op} operation does not apply: cannot remove the document root`)
  const {parent, key} = resolveParent(doc, tokens, op, path)
  if (Array.isArray(parent)) {
    const i = arrayIndex(parent, key, false, op, path)
    return parent.splice(i, 1)[0]
  }
  if (isObject(parent) && Object.hasOwn(parent, key)) {
    const value = parent[key]
    delete parent[key]
    return value
  }
  throw unprocessable(`${op} operation does not apply: doc is missing key: ${path}: missing value`)
}

function addAt(doc: unknown, path: string, value: unknown, op: string, replace: boolean): unknown {
  const tokens = parsePointer(path)
  if (tokens.length === 0) return clone(value)
  const {parent, key} = resolveParent(doc, tokens, op, path)
  if (Array.isArray(parent)) {
    const i = arrayIndex(parent, key, !replace, op, path)
    if (replace) parent[i] = clone(value)
    else parent.splice(i, 0, clone(value))
  } else if (isObject(parent)) {
    if (replace && !Object.hasOwn(parent, key))
      throw unprocessable(`replace operation does not apply: doc is missing key: ${path}: missing value`)
    parent[key] = clone(value)
  } else {
    throw unprocessable(`${op} operation does not apply: doc is missing path: "${path}": missing value`)
  }
  return doc
}

/** RFC 6902. A malformed patch is a 400; an op that does not apply is a 422, as the apiserver answers. */
export function jsonPatch(target: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch')
  let doc = clone(target)
  for (const raw of patch as JsonPatchOp[]) {
    if (!isObject(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') {
      throw badRequest('invalid JSON patch operation: missing "op" or "path"')
    }
    const {op, path} = raw
    switch (op) {
      case 'add':
        doc = addAt(doc, path, raw.value, op, false)
        break
      case 'replace':
        doc = addAt(doc, path, raw.value, op, true)
        break
      case 'remove':
        removeAt(doc, path, op)
        break
      case 'move': {
        const value = removeAt(doc, raw.from ?? '', op)
        doc = addAt(doc, path, value, op, false)
        break
      }
      case 'copy':
        doc = addAt(doc, path, getAt(doc, raw.from ?? '', op), op, false)
        break
      case 'test': {
        const actual = getAt(doc, path, op)
        if (JSON.stringify(sortKeys(actual)) !== JSON.stringify(sortKeys(raw.value))) {
          throw unprocessable(`testing value ${path} failed: test failed`)
        }
        break
      }
      default:
        throw badRequest(`Unexpected kind: ${op}`)
    }
  }
  return doc
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys)
  if (isObject(v))
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys(v[k])]),
    )
  return v
}

/**
 * Lists that strategic merge patch merges instead of replacing, by field name, with their merge key
 * (`null` for a list of scalars merged as a set). Taken from the patchStrategy/patchMergeKey tags of
 * core/v1 and meta/v1 for the kinds the emulator serves.
 */
const MERGE_KEYS: Record<string, string | null> = {
  finalizers: null,
  ownerReferences: 'uid',
  conditions: 'type',
  addresses: 'type',
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  volumes: 'name',
  env: 'name',
  imagePullSecrets: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  ports: 'containerPort',
  topologySpreadConstraints: 'topologyKey',
}

const DELETE_FROM_PRIMITIVE = '$deleteFromPrimitiveList/'
const SET_ELEMENT_ORDER = '$setElementOrder/'

function orderBy(list: unknown[], order: unknown[], key: string | null): unknown[] {
  const id = (item: unknown) => JSON.stringify(key === null ? item : isObject(item) ? item[key] : item)
  const rank = new Map(order.map((o, i) => [JSON.stringify(key === null ? o : isObject(o) ? o[key] : o), i]))
  return [...list].sort((a, b) => (rank.get(id(a)) ?? Infinity) - (rank.get(id(b)) ?? Infinity))
}

function mergeList(current: unknown, patch: unknown[], key: string | null): unknown[] {
  const base = Array.isArray(current) ? clone(current) : []
  if (patch.some((p) => isObject(p) && p.$patch === 'replace')) {
    return patch.filter((p) => !(isObject(p) && p.$patch === 'replace')).map((p) => strip(p))
  }
  if (key === null) {
    for (const item of patch) if (!base.some((b) => JSON.stringify(b) === JSON.stringify(item))) base.push(clone(item))
    return base
  }
  for (const item of patch) {
    if (!isObject(item)) {
      base.push(clone(item))
      continue
    }
    const index = base.findIndex((b) => isObject(b) && JSON.stringify(b[key]) === JSON.stringify(item[key]))
    if (item.$patch === 'delete') {
      if (index >= 0) base.splice(index, 1)
    } else if (index >= 0) base[index] = strategicMergePatch(base[index], item)
    else base.push(strip(item))
  }
  return base
}

/** Removes directives from a value that is inserted wholesale (nothing to merge it into). */
function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip)
  if (!isObject(value)) return value
  const out: JsonObject = {}
  for (const [k, v] of Object.entries(value)) {
    if (k.startsWith('$')) continue
    if (v !== null) out[k] = strip(v)
  }
  return out
}

/** Strategic merge patch as described at the top of this file. */
export function strategicMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch)
  if (patch.$patch === 'delete') return undefined
  if (patch.$patch === 'replace') return strip(patch)
  const result: JsonObject = isObject(target) ? clone(target) : {}
  const orders: Array<[string, unknown[]]> = []
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith(DELETE_FROM_PRIMITIVE)) {
      const field = key.slice(DELETE_FROM_PRIMITIVE.length)
      const remove = Array.isArray(value) ? value.map((v) => JSON.stringify(v)) : []
      if (Array.isArray(result[field])) {
        result[field] = (result[field] as unknown[]).filter((v) => !remove.includes(JSON.stringify(v)))
      }
      continue
    }
    if (key.startsWith(SET_ELEMENT_ORDER)) {
      if (Array.isArray(value)) orders.push([key.slice(SET_ELEMENT_ORDER.length), value])
      continue
    }
    if (key === '$retainKeys' || key === '$patch') continue
    if (value === null) {
      delete result[key]
    } else if (Array.isArray(value) && Object.hasOwn(MERGE_KEYS, key)) {
      result[key] = mergeList(result[key], value, MERGE_KEYS[key])
    } else if (Array.isArray(value)) {
      result[key] = strip(value)
    } else {
      const merged = strategicMergePatch(result[key], value)
      if (merged === undefined) delete result[key]
      else result[key] = merged
    }
  }
  for (const [field, order] of orders) {
    if (Array.isArray(result[field]))
      result[field] = orderBy(result[field] as unknown[], order, MERGE_KEYS[field] ?? null)
  }
  if (Array.isArray(patch.$retainKeys)) {
    const keep = new Set((patch.$retainKeys as unknown[]).map(String))
    for (const key of Object.keys(result)) if (!keep.has(key)) delete result[key]
  }
  return result
}

export function applyPatch(type: PatchType, target: unknown, patch: unknown): unknown {
  switch (type) {
    case 'merge':
      return mergePatch(target, patch)
    case 'json':
      return jsonPatch(target, patch)
    case 'strategic':
      return strategicMergePatch(target, patch)
  }
}
