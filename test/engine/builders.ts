// Builders for engine tests, after the Go tests' newVolume / newClaim helpers: a few named fields, the
// rest defaulted the way those helpers default them.
import type {
  ClusterState,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  StorageClass,
} from '../../src/engine/api/model.js'

export interface VolumeOpts {
  capacity?: string
  modes?: string[]
  claim?: {namespace?: string; name: string; uid?: string}
  phase?: string
  policy?: string
  className?: string
  annotations?: Record<string, string>
  finalizers?: string[]
  labels?: Record<string, string>
  volumeMode?: string
  source?: Record<string, unknown>
  deleting?: boolean
  uid?: string
}

export function pv(name: string, o: VolumeOpts = {}): PersistentVolume {
  const volume: PersistentVolume = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {name, resourceVersion: '1'},
    spec: {
      capacity: {storage: o.capacity ?? '1Gi'},
      accessModes: o.modes ?? ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: o.policy ?? 'Retain',
      volumeMode: o.volumeMode ?? 'Filesystem',
      ...(o.source ?? {gcePersistentDisk: {pdName: 'disk'}}),
    },
    status: {phase: o.phase ?? 'Available'},
  }
  if (o.uid !== undefined) volume.metadata.uid = o.uid
  if (o.annotations !== undefined) volume.metadata.annotations = {...o.annotations}
  if (o.finalizers !== undefined) volume.metadata.finalizers = [...o.finalizers]
  if (o.labels !== undefined) volume.metadata.labels = {...o.labels}
  if (o.deleting) volume.metadata.deletionTimestamp = '2026-01-01T00:00:00Z'
  if (o.className !== undefined) volume.spec.storageClassName = o.className
  if (o.claim !== undefined) {
    volume.spec.claimRef = {
      kind: 'PersistentVolumeClaim',
      apiVersion: 'v1',
      namespace: o.claim.namespace ?? 'default',
      name: o.claim.name,
    }
    if (o.claim.uid !== undefined) volume.spec.claimRef.uid = o.claim.uid
  }
  return volume
}

export interface ClaimOpts {
  namespace?: string
  request?: string
  modes?: string[]
  volumeName?: string
  phase?: string
  className?: string | null
  annotations?: Record<string, string>
  selector?: PersistentVolumeClaim['spec']['selector']
  volumeMode?: string
  statusCapacity?: string
  dataSource?: unknown
  labels?: Record<string, string>
}

export function pvc(name: string, uid: string, o: ClaimOpts = {}): PersistentVolumeClaim {
  const claim: PersistentVolumeClaim = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {name, namespace: o.namespace ?? 'default', uid, resourceVersion: '1'},
    spec: {
      accessModes: o.modes ?? ['ReadWriteOnce'],
      resources: {requests: {storage: o.request ?? '1Gi'}},
      volumeMode: o.volumeMode ?? 'Filesystem',
    },
    status: {phase: o.phase ?? 'Pending'},
  }
  if (o.annotations !== undefined) claim.metadata.annotations = {...o.annotations}
  if (o.labels !== undefined) claim.metadata.labels = {...o.labels}
  if (o.volumeName !== undefined) claim.spec.volumeName = o.volumeName
  if (o.className !== undefined && o.className !== null) claim.spec.storageClassName = o.className
  if (o.selector !== undefined) claim.spec.selector = o.selector
  if (o.dataSource !== undefined) claim.spec.dataSource = o.dataSource
  if (o.statusCapacity !== undefined) claim.status!.capacity = {storage: o.statusCapacity}
  return claim
}

export function sc(
  name: string,
  provisioner: string,
  o: {mode?: string | null; isDefault?: boolean; created?: string; mountOptions?: string[]} = {},
): StorageClass {
  const klass: StorageClass = {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {name},
    provisioner,
    reclaimPolicy: 'Delete',
  }
  if (o.mode !== null) klass.volumeBindingMode = o.mode ?? 'Immediate'
  if (o.isDefault) klass.metadata.annotations = {'storageclass.kubernetes.io/is-default-class': 'true'}
  if (o.created !== undefined) klass.metadata.creationTimestamp = o.created
  if (o.mountOptions !== undefined) klass.mountOptions = o.mountOptions
  return klass
}

export function pod(
  name: string,
  claimName: string,
  o: {phase?: string; nodeName?: string; namespace?: string} = {},
): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {name, namespace: o.namespace ?? 'default'},
    spec: {
      ...(o.nodeName !== undefined ? {nodeName: o.nodeName} : {}),
      volumes: [{name: 'data', persistentVolumeClaim: {claimName}}],
    },
    status: {phase: o.phase ?? 'Pending'},
  }
}

export function state(parts: Partial<ClusterState>): ClusterState {
  return {
    volumes: parts.volumes ?? [],
    claims: parts.claims ?? [],
    classes: parts.classes ?? [],
    pods: parts.pods ?? [],
    nodes: parts.nodes ?? [],
  }
}

export const bound = {'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes'}
export const byController = {'pv.kubernetes.io/bound-by-controller': 'yes'}
