// The shapes the emulator passes around. Objects stay plain JSON (what travels on the wire), so a test
// can compare a stored object with a response body without converting either.

export interface ObjectMeta {
  name?: string
  generateName?: string
  namespace?: string
  uid?: string
  resourceVersion?: string
  generation?: number
  creationTimestamp?: string
  deletionTimestamp?: string
  deletionGracePeriodSeconds?: number
  labels?: Record<string, string>
  annotations?: Record<string, string>
  finalizers?: string[]
  ownerReferences?: unknown[]
  [field: string]: unknown
}

/** Any Kubernetes object as JSON. Fields other than metadata are kind-specific and left untyped. */
export interface K8sObject {
  apiVersion?: string
  kind?: string
  metadata: ObjectMeta
  [field: string]: unknown
}

export type JsonObject = Record<string, unknown>

/** The verbs of the apiserver's authorizer (RequestInfo.Verb), which faults and deny rules match on. */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection'

export const WRITE_VERBS: readonly Verb[] = ['create', 'update', 'patch', 'delete', 'deletecollection']

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v)

/** A deep copy through JSON: the store's objects never share structure with what callers hold. */
export const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T))

/** Structural equality of two JSON values (key order ignored), used to detect no-op writes. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]))
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined)
    const kb = Object.keys(b).filter((k) => b[k] !== undefined)
    return ka.length === kb.length && ka.every((k) => jsonEqual(a[k], b[k]))
  }
  return false
}
