// A minimal RFC 6902 diff between two JSON values: what a write changes, for the report and the diff
// view. Objects are walked key by key; arrays and scalars that differ are replaced whole, which is
// what a reader of "claimRef changed" or "finalizers changed" wants to see.
import {jsonEqual} from '../api/json-equal.js'
import type {JsonPatchOp} from './plan.js'

/** JSON Pointer escaping (RFC 6901): "~" → "~0", "/" → "~1". Most keys have neither: no regex for them. */
function escape(token: string): string {
  return token.includes('~') || token.includes('/') ? token.replace(/~/g, '~0').replace(/\//g, '~1') : token
}

/**
 * The JSON Pointer of `key` under `path`, made once per distinct pointer: a plan of 100k objects writes the
 * same few pointers (/status/phase, /spec/claimRef, an annotation's) a hundred thousand times, and each
 * report keeps its patches until it is printed. At most POINTERS_MAX are kept (a bound for objects with
 * ever new keys); past it a pointer is built each time, the same text.
 */
const POINTERS_MAX = 10_000
const pointers = new Map<string, Map<string, string>>()
let pointerCount = 0

function childPointer(path: string, key: string): string {
  let children = pointers.get(path)
  let pointer = children?.get(key)
  if (pointer !== undefined) return pointer
  pointer = `${path}/${escape(key)}`
  if (pointerCount < POINTERS_MAX) {
    if (children === undefined) pointers.set(path, (children = new Map<string, string>()))
    children.set(key, pointer)
    pointerCount++
  } else {
    // Enough kept.
  }
  return pointer
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * The patch from `before` to `after`. `ignoredPath` (exactly, and anything below it) is left out, as if
 * neither side had it: the simulated cluster ignores the resourceVersion a write bumps without copying
 * both objects to drop it.
 */
export function diffJson(before: unknown, after: unknown, ignoredPath?: string): JsonPatchOp[] {
  const out: JsonPatchOp[] = []
  diffInto(before, after, '', out, ignoredPath)
  // A copy at its length: a list grown by push keeps room for 16 operations, and a plan keeps each of
  // its 150k patches, most of one to three operations, until it is printed.
  return out.slice()
}

// for-in rather than Object.keys: the same keys in the same order for JSON objects (no inherited
// enumerable keys), without an array per object; this runs for every write of a plan.
function diffInto(
  before: unknown,
  after: unknown,
  path: string,
  out: JsonPatchOp[],
  ignoredPath: string | undefined,
): void {
  // The same value (a primitive, or an object a write left untouched) differs in nothing.
  if (before === after) return
  if (isObject(before) && isObject(after)) {
    for (const key in before) {
      if (before[key] === undefined) continue
      if (!Object.hasOwn(after, key) || after[key] === undefined) {
        const p = childPointer(path, key)
        if (p !== ignoredPath) out.push({op: 'remove', path: p})
      }
    }
    for (const key in after) {
      const value = after[key]
      if (value === undefined) continue
      const old = before[key]
      // Most keys of a write are unchanged: skip them before building their path.
      if (old === value) continue
      const p = childPointer(path, key)
      if (p === ignoredPath) {
        continue
      } else if (!Object.hasOwn(before, key) || old === undefined) {
        out.push({op: 'add', path: p, value})
      } else {
        diffInto(old, value, p, out, ignoredPath)
      }
    }
    return
  }
  if (!jsonEqual(before, after)) {
    out.push({op: 'replace', path: path === '' ? '' : path, value: after})
  }
}
