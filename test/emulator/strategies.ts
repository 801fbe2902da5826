// Per-kind registry strategies, the part of pkg/registry/<group>/<kind>/strategy.go that changes what a
// client sees: defaults filled in on every decoded body, status reset on create, fields a status update
// may not touch, the validation a controller port can trip over (PVC spec immutability, PV source
// immutability, no new finalizers while deleting), and pod graceful deletion. Defaulting is limited to the
// fields listed here; the real server defaults many more (see README.md).
import {forbiddenField, invalidValue, notSupported, required, type FieldError} from './status-errors.js'
import type {ResourceDef} from './resources.js'
import {compareQuantities} from './quantity.js'
import {clone, isObject, jsonEqual, type JsonObject, type K8sObject} from './types.js'

export interface StrategyContext {
  /** RFC 3339 "now", seconds precision like metav1.Time. */
  readonly now: string
}

interface Strategy {
  /** Defaulting (SetDefaults_*), applied to every body the server decodes: create, update and patch results. */
  defaults?(obj: K8sObject): void
  /** PrepareForCreate. */
  prepareForCreate?(obj: K8sObject, ctx: StrategyContext): void
  /** StatusStrategy.PrepareForUpdate beyond keeping the old spec. */
  prepareForStatusUpdate?(obj: K8sObject, old: K8sObject, ctx: StrategyContext): void
  validate?(obj: K8sObject): FieldError[]
  validateUpdate?(obj: K8sObject, old: K8sObject): FieldError[]
  /** CheckGracefulDelete: the grace period of a DELETE, 0 for an immediate delete. */
  gracePeriodSeconds?(obj: K8sObject, requested: number | undefined): number
}

const spec = (o: K8sObject): JsonObject => {
  if (!isObject(o.spec)) o.spec = {}
  return o.spec as JsonObject
}

const setDefault = (target: JsonObject, field: string, value: unknown) => {
  if (target[field] === undefined || target[field] === null) target[field] = value
}

const PV_SOURCES = [
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'hostPath',
  'glusterfs',
  'nfs',
  'rbd',
  'iscsi',
  'cinder',
  'cephfs',
  'fc',
  'flocker',
  'flexVolume',
  'azureFile',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'portworxVolume',
  'scaleIO',
  'local',
  'storageos',
  'csi',
]

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod']

function validateAccessModes(modes: unknown, field: string, requiredDetail: string): FieldError[] {
  if (!Array.isArray(modes) || modes.length === 0) return [required(field, requiredDetail)]
  return modes.filter((m) => !ACCESS_MODES.includes(String(m))).map((m) => notSupported(field, m, ACCESS_MODES))
}

const persistentVolume: Strategy = {
  defaults(pv) {
    setDefault(spec(pv), 'persistentVolumeReclaimPolicy', 'Retain')
    setDefault(spec(pv), 'volumeMode', 'Filesystem')
  },
  prepareForCreate(pv, ctx) {
    // The PV controller, not the client, owns the phase; the server starts every volume as Pending.
    pv.status = {phase: 'Pending', lastPhaseTransitionTime: ctx.now}
  },
  prepareForStatusUpdate(pv, old, ctx) {
    const status = isObject(pv.status) ? pv.status : (pv.status = {})
    const oldStatus = isObject(old.status) ? old.status : {}
    if (status.phase === oldStatus.phase && status.lastPhaseTransitionTime === undefined) {
      if (oldStatus.lastPhaseTransitionTime !== undefined)
        status.lastPhaseTransitionTime = oldStatus.lastPhaseTransitionTime
    } else if (
      status.phase !== oldStatus.phase &&
      (status.lastPhaseTransitionTime === undefined ||
        status.lastPhaseTransitionTime === oldStatus.lastPhaseTransitionTime)
    ) {
      status.lastPhaseTransitionTime = ctx.now
    }
  },
  validate(pv) {
    const s = spec(pv)
    const errs = validateAccessModes(s.accessModes, 'spec.accessModes', '')
    const capacity = isObject(s.capacity) ? s.capacity : undefined
    if (!capacity || Object.keys(capacity).length === 0) errs.push(required('spec.capacity'))
    else if (capacity.storage === undefined || Object.keys(capacity).length > 1)
      errs.push(notSupported('spec.capacity', capacity, ['storage']))
    const sources = PV_SOURCES.filter((f) => s[f] !== undefined && s[f] !== null)
    if (sources.length === 0) errs.push(required('spec', 'must specify a volume type'))
    for (const extra of sources.slice(1))
      errs.push(forbiddenField(`spec.${extra}`, 'may not specify more than 1 volume type'))
    const policy = s.persistentVolumeReclaimPolicy
    if (policy !== undefined && !['Delete', 'Recycle', 'Retain'].includes(String(policy))) {
      errs.push(notSupported('spec.persistentVolumeReclaimPolicy', policy, ['Delete', 'Recycle', 'Retain']))
    }
    return errs
  },
  validateUpdate(pv, old) {
    const errs: FieldError[] = []
    const pick = (o: K8sObject) => Object.fromEntries(PV_SOURCES.map((f) => [f, spec(o)[f]]))
    if (!jsonEqual(pick(pv), pick(old)))
      errs.push(
        forbiddenField('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'),
      )
    if (spec(pv).volumeMode !== spec(old).volumeMode)
      errs.push(invalidValue('spec.volumeMode', spec(pv).volumeMode, 'field is immutable'))
    return errs
  },
}

const persistentVolumeClaim: Strategy = {
  defaults(pvc) {
    setDefault(spec(pvc), 'volumeMode', 'Filesystem')
  },
  prepareForCreate(pvc) {
    pvc.status = {phase: 'Pending'}
  },
  validate(pvc) {
    const s = spec(pvc)
    const errs = validateAccessModes(s.accessModes, 'spec.accessModes', 'at least 1 access mode is required')
    const requests = isObject(s.resources) && isObject(s.resources.requests) ? s.resources.requests : {}
    if (requests.storage === undefined) errs.push(required('spec.resources[storage]'))
    return errs
  },
  validateUpdate(pvc, old) {
    // ValidatePersistentVolumeClaimUpdate: claims are immutable to keep quota honest, except that the
    // PV controller may set volumeName once, the storage class may be set once from the beta annotation,
    // and a Bound claim's storage request and volumeAttributesClassName may change (expansion, modify);
    // the request may not shrink (RecoverVolumeExpansionFailure is off by default). An update of the main
    // resource keeps the stored status, so "Bound" is the claim's phase as stored.
    const newSpec = clone(spec(pvc))
    const oldSpec = clone(spec(old))
    if (!oldSpec.volumeName) oldSpec.volumeName = newSpec.volumeName
    if (
      oldSpec.storageClassName === undefined &&
      old.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] === newSpec.storageClassName
    ) {
      oldSpec.storageClassName = newSpec.storageClassName
    }
    const requests = (s: JsonObject): JsonObject | undefined =>
      isObject(s.resources) && isObject(s.resources.requests) ? s.resources.requests : undefined
    if (isObject(old.status) && old.status.phase === 'Bound') {
      const [newRequests, oldRequests] = [requests(newSpec), requests(oldSpec)]
      if (newRequests !== undefined) newRequests.storage = oldRequests?.storage
      newSpec.volumeAttributesClassName = oldSpec.volumeAttributesClassName
    }
    const errs: FieldError[] = []
    if (!jsonEqual(stripEmpty(newSpec), stripEmpty(oldSpec))) {
      errs.push(
        forbiddenField(
          'spec',
          'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
        ),
      )
    }
    const [newSize, oldSize] = [requests(spec(pvc))?.storage, requests(spec(old))?.storage]
    if (typeof newSize === 'string' && typeof oldSize === 'string' && compareQuantities(newSize, oldSize) < 0) {
      errs.push(forbiddenField('spec.resources.requests.storage', 'field can not be less than previous value'))
    }
    return errs
  },
}

/** Drops empty objects left behind by deleting fields, so `{resources: {}}` equals `{}`. */
function stripEmpty(v: unknown): unknown {
  if (!isObject(v)) return v
  const out: JsonObject = {}
  for (const [k, x] of Object.entries(v)) {
    const s = stripEmpty(x)
    if (s === undefined || s === null || (isObject(s) && Object.keys(s).length === 0)) continue
    out[k] = s
  }
  return out
}

const pod: Strategy = {
  prepareForCreate(p) {
    p.status = {phase: 'Pending'}
  },
  prepareForStatusUpdate(p, old) {
    // podStatusStrategy: old kubelets corrupted ownerReferences, so the status endpoint may not touch them.
    if (old.metadata.ownerReferences) p.metadata.ownerReferences = clone(old.metadata.ownerReferences)
    else delete p.metadata.ownerReferences
  },
  gracePeriodSeconds(p, requested) {
    // podStrategy.CheckGracefulDelete. Without defaulting, an unset terminationGracePeriodSeconds means 0
    // here where the real server would have defaulted it to 30.
    let period = requested ?? Number(spec(p).terminationGracePeriodSeconds ?? 0)
    if (!spec(p).nodeName) period = 0
    const phase = isObject(p.status) ? p.status.phase : undefined
    if (phase === 'Succeeded' || phase === 'Failed') period = 0
    return period
  },
}

const namespace: Strategy = {
  prepareForCreate(ns) {
    // The namespace controller's finalizer (spec, not metadata); nothing runs it here, see README.md.
    spec(ns).finalizers = ['kubernetes']
    ns.status = {phase: 'Active'}
  },
}

const storageClass: Strategy = {
  defaults(sc) {
    setDefault(sc, 'reclaimPolicy', 'Delete')
    setDefault(sc, 'volumeBindingMode', 'Immediate')
  },
  validate(sc) {
    return sc.provisioner ? [] : [required('provisioner')]
  },
  validateUpdate(sc, old) {
    const errs: FieldError[] = []
    for (const field of ['parameters', 'provisioner', 'reclaimPolicy']) {
      if (!jsonEqual(sc[field], old[field])) errs.push(forbiddenField(field, `updates to ${field} are forbidden.`))
    }
    if (sc.volumeBindingMode !== old.volumeBindingMode)
      errs.push(invalidValue('volumeBindingMode', sc.volumeBindingMode, 'field is immutable'))
    return errs
  },
}

const csiDriver: Strategy = {
  defaults(d) {
    const s = spec(d)
    setDefault(s, 'attachRequired', true)
    setDefault(s, 'podInfoOnMount', false)
    setDefault(s, 'storageCapacity', false)
    setDefault(s, 'fsGroupPolicy', 'ReadWriteOnceWithFSType')
    setDefault(s, 'requiresRepublish', false)
    setDefault(s, 'volumeLifecycleModes', ['Persistent'])
  },
}

/** pkg/apis/storage/validation: ValidateVolumeAttachment (the fields a client must set) and its immutable spec. */
const volumeAttachment: Strategy = {
  validate(va) {
    const s = spec(va)
    const errs: FieldError[] = []
    if (!s.attacher) errs.push(required('spec.attacher'))
    if (!s.nodeName) errs.push(required('spec.nodeName'))
    const source = isObject(s.source) ? s.source : {}
    const sources = ['persistentVolumeName', 'inlineVolumeSpec'].filter(
      (f) => source[f] !== undefined && source[f] !== null,
    )
    if (sources.length !== 1)
      errs.push(forbiddenField('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'))
    return errs
  },
  validateUpdate(va, old) {
    return jsonEqual(va.spec, old.spec) ? [] : [invalidValue('spec', va.spec, 'field is immutable')]
  },
}

const STRATEGIES: Record<string, Strategy> = {
  persistentvolumes: persistentVolume,
  persistentvolumeclaims: persistentVolumeClaim,
  pods: pod,
  namespaces: namespace,
  'storageclasses.storage.k8s.io': storageClass,
  'csidrivers.storage.k8s.io': csiDriver,
  'volumeattachments.storage.k8s.io': volumeAttachment,
}

export const strategyFor = (d: ResourceDef): Strategy => STRATEGIES[d.id] ?? {}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/

/** ValidateObjectMeta's name checks: namespaces are DNS labels, everything else DNS subdomains. */
export function validateName(d: ResourceDef, obj: K8sObject): FieldError[] {
  const name = obj.metadata.name
  if (!name) return [required('metadata.name', 'name or generateName is required')]
  if (d.plural === 'namespaces') {
    if (name.length > 63 || !DNS_LABEL.test(name)) {
      return [
        invalidValue(
          'metadata.name',
          name,
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        ),
      ]
    }
  } else if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
    return [
      invalidValue(
        'metadata.name',
        name,
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ),
    ]
  }
  return []
}

/** ValidateObjectMetaUpdate: the object is being deleted, so only removing finalizers is allowed. */
export function validateFinalizersUpdate(obj: K8sObject, old: K8sObject): FieldError[] {
  if (!old.metadata.deletionTimestamp) return []
  const before = new Set(old.metadata.finalizers ?? [])
  const added = (obj.metadata.finalizers ?? []).filter((f) => !before.has(f))
  if (added.length === 0) return []
  return [
    forbiddenField(
      'metadata.finalizers',
      `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
    ),
  ]
}
