// Ports of k8s.io/component-helpers/storage/volume (pv_helpers.go, helpers.go) and the few
// pkg/volume/util helpers the controller calls. Each function keeps its upstream name.
import {
  AnnBoundByController,
  AnnSelectedNode,
  BetaIsDefaultStorageClassAnnotation,
  BetaStorageClassAnnotation,
  IsDefaultStorageClassAnnotation,
} from './constants.js'
import type {
  ObjectMeta,
  ObjectReference,
  PersistentVolume,
  PersistentVolumeAccessMode,
  PersistentVolumeClaim,
  PersistentVolumeClaimSpec,
  PersistentVolumeSpec,
  Pod,
  StorageClass,
} from './model.js'

/** metav1.HasAnnotation */
export function hasAnnotation(meta: ObjectMeta, key: string): boolean {
  return meta.annotations != null && Object.prototype.hasOwnProperty.call(meta.annotations, key)
}

/** metav1.SetMetaDataAnnotation: meta must be a copy the caller owns. */
export function setMetaDataAnnotation(meta: ObjectMeta, key: string, value: string): void {
  if (meta.annotations == null) meta.annotations = {}
  meta.annotations[key] = value
}

/** GetPersistentVolumeClaimClass: the beta annotation wins over spec.storageClassName; "" means no class. */
export function getPersistentVolumeClaimClass(claim: PersistentVolumeClaim): string {
  const annotations = claim.metadata.annotations
  if (annotations != null && Object.prototype.hasOwnProperty.call(annotations, BetaStorageClassAnnotation)) {
    return annotations[BetaStorageClassAnnotation]
  }
  if (claim.spec.storageClassName != null) {
    return claim.spec.storageClassName
  }
  return ''
}

/** PersistentVolumeClaimHasClass: unset (nil) differs from "" — only unset gets the default class. */
export function persistentVolumeClaimHasClass(claim: PersistentVolumeClaim): boolean {
  if (hasAnnotation(claim.metadata, BetaStorageClassAnnotation)) return true
  if (claim.spec.storageClassName != null) return true
  return false
}

/** GetPersistentVolumeClass */
export function getPersistentVolumeClass(volume: PersistentVolume): string {
  const annotations = volume.metadata.annotations
  if (annotations != null && Object.prototype.hasOwnProperty.call(annotations, BetaStorageClassAnnotation)) {
    return annotations[BetaStorageClassAnnotation]
  }
  return volume.spec.storageClassName ?? ''
}

/** IsVolumeBoundToClaim: claimRef names the claim, and its uid (when set) is the claim's. */
export function isVolumeBoundToClaim(volume: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const ref = volume.spec.claimRef
  if (ref == null) return false
  if ((claim.metadata.name ?? '') !== (ref.name ?? '') || (claim.metadata.namespace ?? '') !== (ref.namespace ?? '')) {
    return false
  }
  if ((ref.uid ?? '') !== '' && (claim.metadata.uid ?? '') !== ref.uid) return false
  return true
}

/**
 * CheckVolumeModeMismatches: true when the modes differ. An unset mode is Filesystem, because in HA
 * upgrades the API server may be older than the controller and not default the field.
 */
export function checkVolumeModeMismatches(
  claimSpec: PersistentVolumeClaimSpec,
  volumeSpec: PersistentVolumeSpec,
): boolean {
  const requested = claimSpec.volumeMode ?? 'Filesystem'
  const offered = volumeSpec.volumeMode ?? 'Filesystem'
  return requested !== offered
}

/** CheckAccessModes: every mode the claim asks for is offered by the volume. */
export function checkAccessModes(claim: PersistentVolumeClaim, volume: PersistentVolume): boolean {
  const offered = new Set(volume.spec.accessModes ?? [])
  return (claim.spec.accessModes ?? []).every((mode) => offered.has(mode))
}

const accessModeShortNames: ReadonlyArray<[PersistentVolumeAccessMode, string]> = [
  ['ReadWriteOnce', 'RWO'],
  ['ReadOnlyMany', 'ROX'],
  ['ReadWriteMany', 'RWX'],
  ['ReadWriteOncePod', 'RWOP'],
]

const shortNameOf = new Map(accessModeShortNames)

/** v1helper.GetAccessModesAsString: the index key of a mode set, in a fixed order ("RWO,ROX"). */
export function getAccessModesAsString(modes: readonly PersistentVolumeAccessMode[] | null | undefined): string {
  if (modes == null || modes.length === 0) return ''
  // Most volumes have one mode: its name, or none for a mode Kubernetes does not know (it is skipped).
  if (modes.length === 1) return shortNameOf.get(modes[0]) ?? ''
  const present = new Set(modes)
  return accessModeShortNames
    .filter(([mode]) => present.has(mode))
    .map(([, short]) => short)
    .join(',')
}

/** v1helper.GetAccessModesFromString */
export function getAccessModesFromString(key: string): PersistentVolumeAccessMode[] {
  const parts = new Set(key.split(',').map((s) => s.trim()))
  return accessModeShortNames.filter(([, short]) => parts.has(short)).map(([mode]) => mode)
}

/** util.ContainsAllAccessModes */
export function containsAllAccessModes(
  indexedModes: readonly PersistentVolumeAccessMode[],
  requestedModes: readonly PersistentVolumeAccessMode[] | null | undefined,
): boolean {
  // A handful of modes: looked for in the list, without a set made for each check.
  for (const mode of requestedModes ?? []) if (!indexedModes.includes(mode)) return false
  return true
}

/** IsDelayBindingProvisioning: the scheduler asked for provisioning on a selected node. */
export function isDelayBindingProvisioning(claim: PersistentVolumeClaim): boolean {
  return hasAnnotation(claim.metadata, AnnSelectedNode)
}

/** storageutil.IsDefaultAnnotation */
export function isDefaultStorageClass(klass: StorageClass): boolean {
  const annotations = klass.metadata.annotations
  if (annotations == null) return false
  return (
    annotations[IsDefaultStorageClassAnnotation] === 'true' ||
    annotations[BetaIsDefaultStorageClassAnnotation] === 'true'
  )
}

/**
 * util.GetDefaultClass: with several default classes, the newest wins (creationTimestamp, then name
 * ascending), as the API server's admission plugin and the controller both do since v1.26.
 */
export function getDefaultClass(classes: readonly StorageClass[]): StorageClass | undefined {
  const defaults = classes.filter(isDefaultStorageClass)
  if (defaults.length === 0) return undefined
  const sorted = [...defaults].sort((a, b) => {
    const ta = timestampOrder(a.metadata.creationTimestamp)
    const tb = timestampOrder(b.metadata.creationTimestamp)
    if (ta === tb)
      return (a.metadata.name ?? '') < (b.metadata.name ?? '')
        ? -1
        : (a.metadata.name ?? '') > (b.metadata.name ?? '')
          ? 1
          : 0
    return ta > tb ? -1 : 1
  })
  return sorted[0]
}

// RFC 3339 timestamps of the API (UTC, "Z") order as strings once normalised to a fixed width; an unset
// timestamp is Go's zero time, older than any other.
function timestampOrder(ts: string | null | undefined): string {
  if (ts == null || ts === '') return ''
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?Z$/.exec(ts)
  if (m === null) return ts
  // An optional group that did not take part is undefined, whatever RegExpExecArray's type says.
  const fraction = m[2] as string | undefined
  return m[1] + (fraction ?? '.').padEnd(10, '0')
}

/**
 * util.IsPodTerminated: Failed or Succeeded, or deleted with no container still running: init, regular and
 * ephemeral containers alike (a deleted pod whose init container runs still uses its volumes).
 */
export function isPodTerminated(pod: Pod): boolean {
  const phase = pod.status?.phase
  if (phase === 'Failed' || phase === 'Succeeded') return true
  const status = pod.status
  return (
    pod.metadata.deletionTimestamp != null &&
    notRunning(status?.initContainerStatuses ?? []) &&
    notRunning(status?.containerStatuses ?? []) &&
    notRunning(status?.ephemeralContainerStatuses ?? [])
  )
}

function notRunning(statuses: ReadonlyArray<{state?: {terminated?: unknown; waiting?: unknown} | null}>): boolean {
  return statuses.every((s) => s.state?.terminated != null || s.state?.waiting != null)
}

/**
 * common.PodPVCIndexFunc: the "namespace/claim" keys a pod uses, including generic ephemeral volumes,
 * whose claim is named "<pod>-<volume>" (ephemeral.VolumeClaimName).
 */
export function podClaimKeys(pod: Pod): string[] {
  const keys: string[] = []
  for (const volume of pod.spec?.volumes ?? []) {
    let claimName = ''
    if (volume.persistentVolumeClaim != null) {
      claimName = volume.persistentVolumeClaim.claimName ?? ''
    } else if (volume.ephemeral != null) {
      claimName = `${pod.metadata.name ?? ''}-${volume.name}`
    }
    if (claimName !== '') keys.push(`${pod.metadata.namespace ?? ''}/${claimName}`)
  }
  return keys
}

/** reference.GetReference for a claim: what GetBindVolumeToClaim writes into volume.spec.claimRef. */
export function getClaimReference(claim: PersistentVolumeClaim): ObjectReference {
  const fields: ObjectReference = {
    kind: 'PersistentVolumeClaim',
    namespace: claim.metadata.namespace,
    name: claim.metadata.name,
    uid: claim.metadata.uid,
    apiVersion: 'v1',
    resourceVersion: claim.metadata.resourceVersion,
  }
  // Go's omitempty: an empty field is left out (in the order above, which the JSON keeps).
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && value !== ''))
}

/**
 * A deep copy, as DeepCopy() does before every modification. JSON shapes only (what a snapshot or the
 * API gives: no cycles, no shared sub-objects, no class instances). The controller copies every object
 * it syncs, so this is a plain walk, much faster than structuredClone on objects this small
 * (docs/performance.md, "What the code is shaped around").
 */
export function deepCopy<T>(obj: T): T {
  return (typeof obj === 'object' && obj !== null ? copyJson(obj) : obj) as T
}

function copyJson(value: unknown): unknown {
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length)
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i]
      out[i] = typeof v === 'object' && v !== null ? copyJson(v) : v
    }
    return out
  }
  const object = value as Record<string, unknown>
  const out: Record<string, unknown> = {}
  // for-in: no key array to allocate; JSON objects have no inherited enumerable keys.
  for (const key in object) {
    const v = object[key]
    const copy = typeof v === 'object' && v !== null ? copyJson(v) : v
    // A "__proto__" key read from JSON is a plain key: keep it one (assignment would set the prototype).
    if (key === '__proto__')
      Object.defineProperty(out, key, {value: copy, enumerable: true, writable: true, configurable: true})
    else out[key] = copy
  }
  return out
}

/**
 * `{...obj}`, key by key. The controller adds fields to its copies (an annotation, a claimRef, a status
 * capacity), and V8 (Node 20) adds a field to an object made by spread syntax on a slow path
 * (docs/performance.md, "What the code is shaped around").
 */
export function shallowCopy<T extends object>(obj: T): T {
  const source = obj as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const key in source) {
    // A "__proto__" key read from JSON is a plain key: keep it one (assignment would set the prototype).
    if (key === '__proto__')
      Object.defineProperty(out, key, {value: source[key], enumerable: true, writable: true, configurable: true})
    else out[key] = source[key]
  }
  return out as T
}

/**
 * The controller's `volume.DeepCopy()` / `claim.DeepCopy()` before it modifies an object, copied as deep
 * as the controller writes: the object, its metadata, annotations, spec and status are new; what lies
 * below them (claimRef, capacity, access modes, finalizers, the volume source, ...) is shared with the
 * original. The controller never writes into those: it replaces them whole (`spec.claimRef = ...`,
 * `status.capacity = ...`, `metadata.finalizers = ...`). Go needs a deep copy because its copy and the
 * informer cache's object could otherwise be changed through each other; pvctl never mutates a cached
 * object, so sharing its unchanged parts is indistinguishable, and much cheaper: fewer objects to build,
 * and json-patch's diff skips the parts a write did not touch. test/engine/plan-purity.test.ts holds
 * every conformance case to it (frozen input; final state = input + the planned patches).
 */
export function copyForWrite<T extends PersistentVolume | PersistentVolumeClaim>(obj: T): T {
  const copy = shallowCopy(obj)
  copy.metadata = shallowCopy(obj.metadata)
  if (obj.metadata.annotations != null) copy.metadata.annotations = shallowCopy(obj.metadata.annotations)
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- an object written by hand may have no spec
  if (obj.spec != null) copy.spec = shallowCopy(obj.spec)
  if (obj.status != null) copy.status = shallowCopy(obj.status)
  return copy
}

/**
 * copyForWrite for a write of the status only (updateVolumePhase, updateClaimStatus): the object, its
 * metadata (the write's resourceVersion goes there) and its status are new; the spec and the annotations
 * stay shared, and json-patch's diff skips them as the same objects.
 */
export function copyForStatusWrite<T extends PersistentVolume | PersistentVolumeClaim>(obj: T): T {
  const copy = shallowCopy(obj)
  copy.metadata = shallowCopy(obj.metadata)
  if (obj.status != null) copy.status = shallowCopy(obj.status)
  return copy
}

/**
 * copyForWrite made on the first modification rather than up front: `clone()` copies once and then
 * returns the same copy. Go copies unconditionally; most syncs end up changing nothing, and an unmodified
 * copy is never written nor returned, so skipping it changes nothing but the time (a full plan is mostly
 * such syncs). Callers read the original and write only through clone().
 */
export function copyOnWrite<T extends PersistentVolume | PersistentVolumeClaim>(
  original: T,
  copyOf: (obj: T) => T = copyForWrite,
): () => T {
  let copy: T | undefined
  return () => (copy ??= copyOf(original))
}

/**
 * GetBindVolumeToClaim: the volume as bindVolumeToClaim would save it, and whether anything changed.
 * AnnBoundByController is set only when the volume was not already pre-bound to this claim. When nothing
 * changes the volume itself is returned (Go returns an unmodified copy, which its caller drops).
 */
export function getBindVolumeToClaim(
  volume: PersistentVolume,
  claim: PersistentVolumeClaim,
): {volume: PersistentVolume; dirty: boolean} {
  let dirty = false
  const shouldSetBoundByController = !isVolumeBoundToClaim(volume, claim)
  // The volume from method args can be pointing to watcher cache. We must not modify these, therefore
  // create a copy (on the first change).
  const volumeClone = copyOnWrite(volume)
  const ref = volume.spec.claimRef
  if (
    ref == null ||
    (ref.name ?? '') !== (claim.metadata.name ?? '') ||
    (ref.namespace ?? '') !== (claim.metadata.namespace ?? '') ||
    (ref.uid ?? '') !== (claim.metadata.uid ?? '')
  ) {
    volumeClone().spec.claimRef = getClaimReference(claim)
    dirty = true
  }
  // The claimRef above is not an annotation: the original's annotations are the copy's.
  if (shouldSetBoundByController && !hasAnnotation(volume.metadata, AnnBoundByController)) {
    setMetaDataAnnotation(volumeClone().metadata, AnnBoundByController, 'yes')
    dirty = true
  }
  return {volume: dirty ? volumeClone() : volume, dirty}
}
