// Two of kube-apiserver's default admission plugins that change what a client's create stores, and the
// controllers a cluster runs beside one of them (plugin/pkg/admission/storage/ in kubernetes/kubernetes):
//
// - DefaultStorageClass: a claim created with no class (no spec.storageClassName, no beta annotation) gets
//   the default StorageClass: the newest one annotated as default, by name when equally new.
// - StorageObjectInUseProtection: every PersistentVolume created gets the kubernetes.io/pv-protection
//   finalizer, every claim kubernetes.io/pvc-protection. In a cluster the pv-protection and pvc-protection
//   controllers of kube-controller-manager remove them from an object being deleted once nothing uses it (a
//   volume that is not Bound, a claim no running pod mounts): inUse() is their test, which the registry
//   applies whenever such an object is marked for deletion or written while marked.
import type {ResourceDef} from './resources.js'
import type {K8sObject} from './types.js'

export const PV_PROTECTION = 'kubernetes.io/pv-protection'
export const PVC_PROTECTION = 'kubernetes.io/pvc-protection'
const BETA_CLASS = 'volume.beta.kubernetes.io/storage-class'
const DEFAULT_CLASS = [
  'storageclass.kubernetes.io/is-default-class',
  'storageclass.beta.kubernetes.io/is-default-class',
]

export interface AdmissionView {
  storageClasses(): readonly K8sObject[]
  podsIn(namespace: string): readonly K8sObject[]
}

/** util.GetDefaultClass: newest first, then by name. */
function defaultClass(classes: readonly K8sObject[]): string | undefined {
  const defaults = classes.filter((c) => DEFAULT_CLASS.some((a) => c.metadata.annotations?.[a] === 'true'))
  defaults.sort((a, b) => {
    const ta = Date.parse(a.metadata.creationTimestamp ?? '')
    const tb = Date.parse(b.metadata.creationTimestamp ?? '')
    return ta === tb ? (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '') : tb - ta
  })
  return defaults[0]?.metadata.name
}

/** The mutating admission of a create, in the plugins' order. */
export function admitCreate(d: ResourceDef, obj: K8sObject, view: AdmissionView): void {
  if (d.plural === 'persistentvolumeclaims') {
    const spec = (obj.spec ??= {}) as {storageClassName?: string | null}
    const hasClass =
      obj.metadata.annotations?.[BETA_CLASS] !== undefined ||
      (spec.storageClassName !== undefined && spec.storageClassName !== null)
    const name = hasClass ? undefined : defaultClass(view.storageClasses())
    if (name !== undefined) spec.storageClassName = name
    addFinalizer(obj, PVC_PROTECTION)
  } else if (d.plural === 'persistentvolumes') {
    addFinalizer(obj, PV_PROTECTION)
  } else {
    // No admission plugin of these changes other kinds.
  }
}

function addFinalizer(obj: K8sObject, finalizer: string): void {
  const finalizers = obj.metadata.finalizers ?? []
  if (!finalizers.includes(finalizer)) obj.metadata.finalizers = [...finalizers, finalizer]
}

/** The protection finalizer a controller would remove from this object now (it is being deleted and unused). */
export function releasableProtection(d: ResourceDef, obj: K8sObject, view: AdmissionView): string | undefined {
  if (!obj.metadata.deletionTimestamp) return undefined
  if (d.plural === 'persistentvolumes') {
    // pv_protection_controller.isBeingUsed: the volume is Bound.
    const bound = (obj.status as {phase?: string} | undefined)?.phase === 'Bound'
    return !bound && obj.metadata.finalizers?.includes(PV_PROTECTION) ? PV_PROTECTION : undefined
  }
  if (d.plural === 'persistentvolumeclaims') {
    // pvc_protection_controller: a pod that is not terminated mounts the claim.
    const used = view.podsIn(obj.metadata.namespace ?? '').some((p) => {
      const phase = (p.status as {phase?: string} | undefined)?.phase
      const volumes =
        (p.spec as {volumes?: Array<{persistentVolumeClaim?: {claimName?: string}}>} | undefined)?.volumes ?? []
      return (
        phase !== 'Succeeded' &&
        phase !== 'Failed' &&
        volumes.some((v) => v.persistentVolumeClaim?.claimName === obj.metadata.name)
      )
    })
    return !used && obj.metadata.finalizers?.includes(PVC_PROTECTION) ? PVC_PROTECTION : undefined
  }
  return undefined
}
