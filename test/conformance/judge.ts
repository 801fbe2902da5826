// How a conformance case is judged: the Go tests' own rules, from README.md beside it.
// - objects matched by kind and name, compared whole without metadata.resourceVersion and
//   spec.claimRef.resourceVersion; absent, empty and null are the same, except a claim's
//   spec.storageClassName, where unset and "" differ; a volume's status.lastPhaseTransitionTime is the API
//   server's stamp, which the Go tests' fake client never makes: not compared (phaseTransitionsStamped
//   checks it);
// - events in order, each expected string a prefix of "<Type> <Reason> <message>"; an extra event fails.
import {isDeepStrictEqual} from 'node:util'

type Json = unknown

/** Drops null, empty arrays and empty objects, recursively. */
export function normalize(value: Json): Json {
  if (Array.isArray(value)) {
    return value.map(normalize)
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, Json> = {}
    for (const [k, v] of Object.entries(value)) {
      const n = normalize(v)
      if (n === null || n === undefined) continue
      if (Array.isArray(n) && n.length === 0) continue
      if (typeof n === 'object' && !Array.isArray(n) && Object.keys(n as object).length === 0) continue
      out[k] = n
    }
    return out
  }
  return value
}

interface K8sObject {
  kind?: string
  metadata?: {name?: string; namespace?: string; resourceVersion?: string}
  spec?: {claimRef?: {resourceVersion?: string} | null; storageClassName?: string | null}
}

/** The comparable form of an object. */
export function comparable(obj: K8sObject, kind: string): Json {
  const copy = structuredClone(obj) as K8sObject & Record<string, Json>
  copy.kind = kind
  delete copy.apiVersion
  if (copy.metadata) delete copy.metadata.resourceVersion
  if (copy.spec?.claimRef) delete copy.spec.claimRef.resourceVersion
  const status = (copy as {status?: Record<string, Json>}).status
  if (kind === 'PersistentVolume' && status != null) delete status.lastPhaseTransitionTime
  const classMarker =
    kind === 'PersistentVolumeClaim'
      ? copy.spec?.storageClassName === undefined || copy.spec?.storageClassName === null
        ? '<unset>'
        : `=${copy.spec.storageClassName}`
      : undefined
  const n = normalize(copy) as Record<string, Json>
  if (classMarker !== undefined) n.storageClassNameIs = classMarker
  return n
}

function keyOf(obj: K8sObject, kind: string): string {
  return `${kind}/${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`
}

export interface Expected {
  volumes: K8sObject[]
  claims: K8sObject[]
}

/** Differences between the report's objects and the expected ones, as readable lines. */
export function diffObjects(got: K8sObject[], expected: Expected): string[] {
  const problems: string[] = []
  const want = new Map<string, Json>()
  for (const v of expected.volumes) want.set(keyOf(v, 'PersistentVolume'), comparable(v, 'PersistentVolume'))
  for (const c of expected.claims) want.set(keyOf(c, 'PersistentVolumeClaim'), comparable(c, 'PersistentVolumeClaim'))
  const have = new Map<string, Json>()
  for (const o of got) have.set(keyOf(o, o.kind ?? ''), comparable(o, o.kind ?? ''))
  for (const [key, w] of want) {
    const h = have.get(key)
    if (h === undefined) problems.push(`missing ${key}`)
    else if (!isDeepStrictEqual(h, w))
      problems.push(`${key} differs:\n  got:  ${JSON.stringify(h)}\n  want: ${JSON.stringify(w)}`)
  }
  for (const key of have.keys()) if (!want.has(key)) problems.push(`unexpected ${key}`)
  return problems
}

export interface GotEvent {
  type: string
  reason: string
  message: string
}

export function diffEvents(got: GotEvent[], expected: string[]): string[] {
  const problems: string[] = []
  const lines = got.map((e) => `${e.type} ${e.reason} ${e.message}`)
  expected.forEach((want, i) => {
    if (i >= lines.length) problems.push(`missing event ${i}: "${want}"`)
    else if (!lines[i].startsWith(want)) problems.push(`event ${i}: got "${lines[i]}", want prefix "${want}"`)
  })
  for (let i = expected.length; i < lines.length; i++) problems.push(`unexpected event ${i}: "${lines[i]}"`)
  return problems
}

/**
 * The API server's stamp on the volumes of a plan made at [from, to] (RFC 3339 seconds): a volume whose
 * phase the plan changed carries a lastPhaseTransitionTime in that window, any other keeps the one it had.
 */
export function phaseTransitionsStamped(initial: K8sObject[], got: K8sObject[], from: string, to: string): string[] {
  type Volume = K8sObject & {status?: {phase?: string; lastPhaseTransitionTime?: string}}
  const before = new Map(
    (initial as Volume[]).filter((o) => o.kind === 'PersistentVolume').map((v) => [v.metadata?.name, v]),
  )
  const problems: string[] = []
  for (const v of (got as Volume[]).filter((o) => o.kind === 'PersistentVolume')) {
    const old = before.get(v.metadata?.name)
    const stamp = v.status?.lastPhaseTransitionTime
    if (old !== undefined && old.status?.phase !== v.status?.phase) {
      if (stamp === undefined || stamp < from || stamp > to)
        problems.push(
          `${v.metadata?.name}: phase ${old.status?.phase} -> ${v.status?.phase} stamped ${stamp ?? 'not at all'}, not within ${from}..${to}`,
        )
    } else if (old !== undefined && stamp !== old.status?.lastPhaseTransitionTime) {
      problems.push(
        `${v.metadata?.name}: phase kept, lastPhaseTransitionTime ${old.status?.lastPhaseTransitionTime ?? 'unset'} -> ${stamp ?? 'unset'}`,
      )
    }
  }
  return problems
}
