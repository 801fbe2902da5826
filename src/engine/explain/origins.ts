// Where a field's value came from, when the object shows it: the tool that applied a manifest over it
// (kubectl's last-applied-configuration, the field managers of metadata.managedFields), the admission plugin
// that wrote a default, the provisioner that made a volume. Only what the object itself records is said: an
// origin pvctl cannot see is left unsaid, never guessed. PURE.
import type {ObjectMeta} from '../api/model.js'

/** kubectl apply's record of the manifest it last applied (client-side apply). */
export const LastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration'

/** The field manager of kube-controller-manager's writes (its PV controller among them). */
const ControllerManager = 'kube-controller-manager'

interface ManagedFieldsEntry {
  manager?: string
  operation?: string
  fieldsV1?: unknown
}

/**
 * Who last wrote `path` (e.g. ['spec', 'claimRef']) other than kube-controller-manager, as the object
 * records it: a field manager of metadata.managedFields owning the field (Argo CD, Flux's
 * kustomize-controller, Helm, kubectl), else kubectl apply when its last-applied-configuration holds the
 * field. Undefined when the object records neither (a snapshot from `kubectl get -o yaml` has no
 * managedFields).
 */
export function writtenBy(metadata: ObjectMeta, path: readonly string[]): string | undefined {
  const entries = Array.isArray(metadata.managedFields) ? (metadata.managedFields as ManagedFieldsEntry[]) : []
  const owner = entries.find(
    (e) => (e.manager ?? '') !== '' && !(e.manager ?? '').startsWith(ControllerManager) && owns(e.fieldsV1, path),
  )
  if (owner !== undefined) return `field manager '${owner.manager ?? ''}' (${owner.operation ?? 'Update'})`
  return lastApplied(metadata, path) !== undefined ? 'kubectl apply' : undefined
}

/** The value `path` had in the manifest kubectl last applied; undefined without one, null where the manifest left it out. */
export function lastApplied(metadata: ObjectMeta, path: readonly string[]): unknown {
  const text = metadata.annotations?.[LastAppliedAnnotation]
  if (text === undefined) return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    // Not JSON: kubectl wrote it, so something else did; it says nothing.
    return undefined
  }
  for (const key of path)
    value = value !== null && typeof value === 'object' ? ((value as Record<string, unknown>)[key] ?? null) : null
  return value
}

/** Whether a managedFields entry's fieldsV1 (`{"f:spec": {"f:claimRef": {...}}}`) owns the field at `path`. */
function owns(fieldsV1: unknown, path: readonly string[]): boolean {
  let node = fieldsV1
  for (const key of path) {
    if (node === null || typeof node !== 'object') return false
    node = (node as Record<string, unknown>)[`f:${key}`]
  }
  return node !== undefined
}
