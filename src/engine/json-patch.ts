// A minimal RFC 6902 diff between two JSON values: what a write changes, for the report and the diff
// view. Objects are walked key by key; arrays and scalars that differ are replaced whole, which is
// what a reader of "claimRef changed" or "finalizers changed" wants to see.
import type {JsonPatchOp} from './plan.js'

/** JSON Pointer escaping (RFC 6901): "~" → "~0", "/" → "~1". */
function escape(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1')
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]))
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined)
    const kb = Object.keys(b).filter((k) => b[k] !== undefined)
    return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k], b[k]))
  }
  return false
}

export function diffJson(before: unknown, after: unknown, path = '', out: JsonPatchOp[] = []): JsonPatchOp[] {
  if (isObject(before) && isObject(after)) {
    for (const key of Object.keys(before)) {
      if (before[key] === undefined) continue
      if (!Object.prototype.hasOwnProperty.call(after, key) || after[key] === undefined) {
        out.push({op: 'remove', path: `${path}/${escape(key)}`})
      }
    }
    for (const key of Object.keys(after)) {
      if (after[key] === undefined) continue
      const p = `${path}/${escape(key)}`
      if (!Object.prototype.hasOwnProperty.call(before, key) || before[key] === undefined) {
        out.push({op: 'add', path: p, value: after[key]})
      } else {
        diffJson(before[key], after[key], p, out)
      }
    }
    return out
  }
  if (!jsonEqual(before, after)) {
    out.push({op: 'replace', path: path === '' ? '' : path, value: after})
  }
  return out
}
