// The Kubernetes objects the engine reads, in their wire (JSON) shape.
//
// These mirror k8s.io/api/core/v1 and storage/v1 field for field, but only the fields the PV controller
// reads or writes are typed; everything else is carried along untouched (index signatures), so an object
// read from a snapshot or the API is written back byte-faithfully. Timestamps stay RFC 3339 strings:
// the engine never parses a clock.

export interface ObjectMeta {
  name?: string
  namespace?: string
  uid?: string
  resourceVersion?: string
  creationTimestamp?: string | null
  deletionTimestamp?: string | null
  labels?: Record<string, string> | null
  annotations?: Record<string, string> | null
  finalizers?: string[] | null
  [field: string]: unknown
}

export interface ObjectReference {
  kind?: string
  namespace?: string
  name?: string
  uid?: string
  apiVersion?: string
  resourceVersion?: string
  fieldPath?: string
}

export type ResourceList = Record<string, string>

/** ReadWriteOnce, ReadOnlyMany, ReadWriteMany, ReadWriteOncePod, or whatever else an object holds. */
export type PersistentVolumeAccessMode = string
/** Filesystem or Block, or whatever else an object holds. */
export type PersistentVolumeMode = string

export interface PersistentVolumeSpec {
  capacity?: ResourceList | null
  accessModes?: PersistentVolumeAccessMode[] | null
  claimRef?: ObjectReference | null
  persistentVolumeReclaimPolicy?: string
  storageClassName?: string
  mountOptions?: string[] | null
  volumeMode?: PersistentVolumeMode | null
  nodeAffinity?: unknown
  csi?: {driver?: string; [field: string]: unknown} | null
  volumeAttributesClassName?: string | null
  [field: string]: unknown
}

export interface PersistentVolumeStatus {
  phase?: string
  message?: string
  reason?: string
  /** Stamped by the API server on every phase change (GA from v1.31). */
  lastPhaseTransitionTime?: string | null
  [field: string]: unknown
}

export interface PersistentVolume {
  apiVersion?: string
  kind?: string
  metadata: ObjectMeta
  spec: PersistentVolumeSpec
  status?: PersistentVolumeStatus
}

export interface LabelSelectorRequirement {
  key: string
  operator: string
  values?: string[] | null
}

export interface LabelSelector {
  matchLabels?: Record<string, string> | null
  matchExpressions?: LabelSelectorRequirement[] | null
}

export interface PersistentVolumeClaimSpec {
  accessModes?: PersistentVolumeAccessMode[] | null
  selector?: LabelSelector | null
  resources?: {requests?: ResourceList | null; limits?: ResourceList | null} | null
  volumeName?: string
  storageClassName?: string | null
  volumeMode?: PersistentVolumeMode | null
  dataSource?: unknown
  dataSourceRef?: unknown
  volumeAttributesClassName?: string | null
  [field: string]: unknown
}

export interface PersistentVolumeClaimStatus {
  phase?: string
  accessModes?: PersistentVolumeAccessMode[] | null
  capacity?: ResourceList | null
  currentVolumeAttributesClassName?: string | null
  [field: string]: unknown
}

export interface PersistentVolumeClaim {
  apiVersion?: string
  kind?: string
  metadata: ObjectMeta
  spec: PersistentVolumeClaimSpec
  status?: PersistentVolumeClaimStatus
}

export interface StorageClass {
  apiVersion?: string
  kind?: string
  metadata: ObjectMeta
  provisioner?: string
  parameters?: Record<string, string> | null
  reclaimPolicy?: string | null
  mountOptions?: string[] | null
  allowVolumeExpansion?: boolean | null
  volumeBindingMode?: string | null
  allowedTopologies?: unknown
  [field: string]: unknown
}

export interface PodVolume {
  name: string
  persistentVolumeClaim?: {claimName?: string; readOnly?: boolean} | null
  ephemeral?: unknown
  [field: string]: unknown
}

export interface ContainerStatus {
  state?: {running?: unknown; waiting?: unknown; terminated?: unknown} | null
  [field: string]: unknown
}

export interface Pod {
  apiVersion?: string
  kind?: string
  metadata: ObjectMeta
  spec?: {nodeName?: string; volumes?: PodVolume[] | null; [field: string]: unknown}
  status?: {
    phase?: string
    initContainerStatuses?: ContainerStatus[] | null
    containerStatuses?: ContainerStatus[] | null
    ephemeralContainerStatuses?: ContainerStatus[] | null
    [field: string]: unknown
  }
}

export interface Node {
  apiVersion?: string
  kind?: string
  metadata: ObjectMeta
  [field: string]: unknown
}

/** Everything the controller reads: the contents of its informers. */
export interface ClusterState {
  volumes: readonly PersistentVolume[]
  claims: readonly PersistentVolumeClaim[]
  classes: readonly StorageClass[]
  pods: readonly Pod[]
  nodes: readonly Node[]
}

export const VolumePhase = {
  Pending: 'Pending',
  Available: 'Available',
  Bound: 'Bound',
  Released: 'Released',
  Failed: 'Failed',
} as const

export const ClaimPhase = {
  Pending: 'Pending',
  Bound: 'Bound',
  Lost: 'Lost',
} as const

export const ReclaimPolicy = {
  Retain: 'Retain',
  Recycle: 'Recycle',
  Delete: 'Delete',
} as const

/** "namespace/name", the key of claimToClaimKey / claimrefToClaimKey. */
export function claimKey(claim: {metadata: ObjectMeta}): string {
  return `${claim.metadata.namespace ?? ''}/${claim.metadata.name ?? ''}`
}

export function claimRefKey(ref: ObjectReference): string {
  return `${ref.namespace ?? ''}/${ref.name ?? ''}`
}
