// Applies the engine's JSON Patch (add / remove / replace, as json-patch.ts emits it) to an object
// read from the API, giving the object to PUT. Pure.
import {present} from '../api/invariant.js'
import type {JsonPatchOp} from './plan.js'

function unescape(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~')
}

export function applyPatch<T>(obj: T, patch: readonly JsonPatchOp[]): T {
  const doc = structuredClone(obj) as unknown as Record<string, unknown>
  for (const op of patch) {
    if (op.path === '') throw new Error('a patch of the whole document is not supported')
    const tokens = op.path.split('/').slice(1).map(unescape)
    const last = present(tokens.pop(), 'a JSON Patch path other than "" names a member')
    let parent: Record<string, unknown> = doc
    for (const t of tokens) {
      const next = parent[t]
      if (typeof next !== 'object' || next === null) {
        if (op.op === 'remove') break
        parent[t] = {}
      }
      parent = parent[t] as Record<string, unknown>
    }
    if (op.op === 'remove') Reflect.deleteProperty(parent, last)
    else parent[last] = structuredClone(op.value)
  }
  return doc as unknown as T
}
