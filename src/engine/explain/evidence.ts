// What the cluster shows around a claim or a volume beyond the objects the PV controller reads: core/v1
// Events, storage.k8s.io/v1 CSIDrivers and VolumeAttachments, coordination.k8s.io/v1 Leases. `explain`
// reads them best-effort: each kind is either observed (maybe empty) or unavailable, with why (forbidden,
// not in the snapshot), and the explanation says which. PURE: the clock (`now`) is an input like the
// objects, and timestamps are read with Date.parse, which is deterministic.
import type {EventsSeen, ObjectEvent} from './model.js'
import type {LabelSelector, ObjectMeta, ObjectReference} from '../api/model.js'
import type {ObjectRef} from '../simulation/plan.js'

/** A core/v1 Event, the fields explain reads. */
export interface CoreEventObject {
  metadata: ObjectMeta
  involvedObject?: ObjectReference | null
  reason?: string | null
  message?: string | null
  type?: string | null
  count?: number | null
  firstTimestamp?: string | null
  lastTimestamp?: string | null
  /** Set instead of the timestamps by recorders of the events.k8s.io API. */
  eventTime?: string | null
  series?: {count?: number | null; lastObservedTime?: string | null} | null
  source?: {component?: string | null; host?: string | null} | null
  reportingComponent?: string | null
  [field: string]: unknown
}

/** A storage.k8s.io/v1 CSIDriver: its name is the driver's (and its provisioner's) name. */
export interface CSIDriverObject {
  metadata: ObjectMeta
  [field: string]: unknown
}

/** A coordination.k8s.io/v1 Lease (times are RFC 3339 MicroTime strings). */
export interface LeaseObject {
  metadata: ObjectMeta
  spec?: {
    holderIdentity?: string | null
    leaseDurationSeconds?: number | null
    renewTime?: string | null
    [field: string]: unknown
  } | null
  [field: string]: unknown
}

/** A storage.k8s.io/v1 VolumeAttachment. */
export interface VolumeAttachmentObject {
  metadata: ObjectMeta
  spec?: {
    attacher?: string
    nodeName?: string
    source?: {persistentVolumeName?: string | null; [field: string]: unknown}
  } | null
  status?: {
    attached?: boolean
    attachError?: {message?: string; [field: string]: unknown} | null
    detachError?: {message?: string; [field: string]: unknown} | null
    [field: string]: unknown
  } | null
  [field: string]: unknown
}

/** One kind as read: its objects, or why they could not be seen. */
export type Observed<T> = {observed: true; items: readonly T[]} | {observed: false; reason: string}

export interface ExplainEvidence {
  /** The clock, in milliseconds since the epoch: ages and "recent" are judged against it. */
  now: number
  events: Observed<CoreEventObject>
  csiDrivers: Observed<CSIDriverObject>
  leases: Observed<LeaseObject>
  volumeAttachments: Observed<VolumeAttachmentObject>
}

/** Evidence of which nothing could be seen, for the same reason (the engine's default: nothing was read). */
export function noEvidence(reason: string, now = Number.NaN): ExplainEvidence {
  const none = {observed: false as const, reason}
  return {now, events: none, csiDrivers: none, leases: none, volumeAttachments: none}
}

/** What explain says about an object whose events were not read at all. */
export const NOT_READ = 'not read'

/**
 * The events whose involvedObject is this object, newest first (as `kubectl describe` lists them, but
 * newest first: the question is what happened last). The uid is matched when both sides carry one, so
 * the events of an earlier object of the same name are left out.
 */
export function eventsOf(evidence: ExplainEvidence, ref: ObjectKey): EventsSeen {
  const seen = evidence.events
  if (!seen.observed) return {available: false, unavailableReason: seen.reason, items: []}
  const items = seen.items.filter((e) => isAbout(e, ref)).map((e) => objectEvent(e, evidence.now))
  return {available: true, unavailableReason: null, items: newestFirst(items)}
}

/** The object an explanation is about, as an event's involvedObject names it. */
export interface ObjectKey {
  kind: string
  namespace?: string
  name: string
  /** When set, events naming another uid are of an earlier object of the same name. */
  uid?: string
}

/** Whether the event's involvedObject is this object. */
export function isAbout(e: CoreEventObject, o: ObjectKey): boolean {
  const ref = e.involvedObject
  if (ref == null || ref.kind !== o.kind || ref.name !== o.name) return false
  if (o.namespace !== undefined && (ref.namespace ?? '') !== o.namespace) return false
  return (ref.uid ?? '') === '' || (o.uid ?? '') === '' || ref.uid === o.uid
}

export function objectEvent(e: CoreEventObject, now: number): ObjectEvent {
  const lastSeen = e.series?.lastObservedTime ?? e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? null
  return {
    type: e.type ?? 'Normal',
    reason: e.reason ?? '',
    message: (e.message ?? '').trim(),
    count: e.series?.count ?? e.count ?? 1,
    lastSeen,
    ageSeconds: ageSeconds(lastSeen, now),
    source: eventSource(e),
  }
}

/** Who recorded the event: reportingComponent when set (client-go copies source.component into it), else source.component. */
export function eventSource(e: CoreEventObject): string {
  const reporting = e.reportingComponent ?? ''
  return reporting !== '' ? reporting : (e.source?.component ?? '')
}

export function newestFirst<T extends {lastSeen: string | null}>(items: T[]): T[] {
  const at = (x: T) => (x.lastSeen === null ? Number.NEGATIVE_INFINITY : Date.parse(x.lastSeen))
  return items.sort((a, b) => at(b) - at(a))
}

/** Whole seconds from `timestamp` to `now`; null when either is unknown. */
export function ageSeconds(timestamp: string | null | undefined, now: number): number | null {
  const t = Date.parse(timestamp ?? '')
  if (!Number.isFinite(t) || !Number.isFinite(now)) return null
  return Math.max(0, Math.floor((now - t) / 1000))
}

/** kubectl's age (k8s.io/apimachinery duration.HumanDuration), from whole seconds; `<unknown>` for null. */
export function humanDuration(seconds: number | null): string {
  if (seconds === null) return '<unknown>'
  if (seconds < -1) return '<invalid>'
  if (seconds < 0) return '0s'
  if (seconds < 60 * 2) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`
  if (minutes < 60 * 3) return `${minutes}m`
  const hours = Math.floor(minutes / 60)
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`
  if (hours < 48) return `${hours}h`
  const days = Math.floor(hours / 24)
  if (hours < 24 * 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`
  if (hours < 24 * 365 * 2) return `${days}d`
  const years = Math.floor(days / 365)
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`
  return `${years}y`
}

/** What an explanation is about: the evidence to read follows from it. */
export interface EvidenceScope {
  /** The object to explain; none: every claim in scope whose verdict is not a healthy Bound (claimsToExplain). */
  target?: ObjectRef
  /** Scope of the list (-n without -A); undefined: every namespace. */
  namespace?: string
  /** -l: only claims whose labels match (list only). */
  labelSelector?: LabelSelector
}

/** What to read for one explanation (or a list of them); the reading is the caller's. */
export interface EvidenceQuery {
  /** Each an Event list (a namespace, none: every one, and a field selector); their items are merged. */
  events: Array<{namespace?: string; fieldSelector?: string}>
  /** Lease names looked for in every namespace. */
  leaseNames: string[]
  volumeAttachments: boolean
}
