// Builders for explain's evidence (core/v1 Events, CSIDrivers, Leases, VolumeAttachments) in their wire
// shape, timed relative to a fixed clock so that ages are exact. Shared by the engine tables, the golden
// renderers and the end-to-end test (which stores them in the API-server emulator).
import type {
  CoreEventObject,
  CSIDriverObject,
  ExplainEvidence,
  LeaseObject,
  Observed,
  VolumeAttachmentObject,
} from '../../src/engine/explain/evidence.js'

/** The tests' clock. */
export const NOW = Date.parse('2026-03-01T12:00:00Z')

/** RFC 3339 (seconds) `seconds` before NOW, or before `now`. */
export function ago(seconds: number, now = NOW): string {
  return new Date(now - seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')
}

export interface EventOpts {
  kind?: string
  namespace?: string
  name: string
  uid?: string
  reason: string
  message?: string
  type?: 'Normal' | 'Warning'
  /** source.component (and reportingComponent, as client-go's recorder sets both). */
  component: string
  /** Seconds before the clock it last happened. */
  lastSeconds: number
  count?: number
  now?: number
}

let serial = 0

export function event(o: EventOpts): CoreEventObject {
  const kind = o.kind ?? 'PersistentVolumeClaim'
  // client-go records events of cluster-scoped objects in namespace "default".
  const namespace = o.namespace ?? 'default'
  const last = ago(o.lastSeconds, o.now)
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {name: `${o.name}.${(++serial).toString(16).padStart(8, '0')}`, namespace},
    involvedObject: {
      kind,
      apiVersion: kind === 'VolumeAttachment' ? 'storage.k8s.io/v1' : 'v1',
      name: o.name,
      ...(kind === 'PersistentVolumeClaim' ? {namespace} : {}),
      ...(o.uid !== undefined ? {uid: o.uid} : {}),
    },
    reason: o.reason,
    message: o.message ?? `${o.reason} of ${o.name}`,
    type: o.type ?? 'Normal',
    count: o.count ?? 1,
    firstTimestamp: last,
    lastTimestamp: last,
    source: {component: o.component},
    reportingComponent: o.component,
  }
}

export function csiDriver(name: string): CSIDriverObject {
  return {apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: {name}, spec: {attachRequired: true}}
}

/** A Lease renewed `renewedSeconds` before the clock, for 15 s (the sidecars' default). */
export function lease(namespace: string, name: string, holder: string, renewedSeconds: number, now = NOW): LeaseObject {
  const renewTime = new Date(now - renewedSeconds * 1000).toISOString().replace('Z', '000Z')
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {name, namespace},
    spec: {holderIdentity: holder, leaseDurationSeconds: 15, renewTime, acquireTime: renewTime},
  }
}

export function volumeAttachment(
  name: string,
  o: {attacher: string; volume: string; node: string; attached?: boolean; deleting?: boolean; detachError?: string},
): VolumeAttachmentObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttachment',
    metadata: {
      name,
      ...(o.deleting ? {deletionTimestamp: ago(60), finalizers: [`external-attacher/${o.attacher}`]} : {}),
    },
    spec: {attacher: o.attacher, nodeName: o.node, source: {persistentVolumeName: o.volume}},
    status: {
      attached: o.attached ?? true,
      ...(o.detachError !== undefined ? {detachError: {message: o.detachError, time: ago(30)}} : {}),
    },
  }
}

type Kinds = {
  events: CoreEventObject
  csiDrivers: CSIDriverObject
  leases: LeaseObject
  volumeAttachments: VolumeAttachmentObject
}

/** Evidence at NOW: each kind given is observed; a string is the reason it could not be; a kind left out is observed and empty. */
export function evidence(parts: {[K in keyof Kinds]?: readonly Kinds[K][] | string}, now = NOW): ExplainEvidence {
  const kind = <K extends keyof Kinds>(k: K): Observed<Kinds[K]> => {
    const v = parts[k]
    return typeof v === 'string' ? {observed: false, reason: v} : {observed: true, items: v ?? []}
  }
  return {
    now,
    events: kind('events'),
    csiDrivers: kind('csiDrivers'),
    leases: kind('leases'),
    volumeAttachments: kind('volumeAttachments'),
  }
}
