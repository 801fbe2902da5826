// The reads behind explain's evidence on a live cluster: Events, CSIDrivers, Leases, VolumeAttachments.
// Best-effort by design: explain must still answer when one of these lists is forbidden (a namespaced
// role rarely grants cluster-wide Leases) or not served, so each list that fails with an API error
// becomes "not observed, because ..." instead of failing the command. Kept apart from live-api.ts: these
// kinds are read by explain alone, and never written.
import * as k8s from '@kubernetes/client-node'
import {ObjectSerializer} from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js'

import type {CoreEventObject, CSIDriverObject, ExplainEvidence, LeaseObject, Observed, VolumeAttachmentObject} from '../engine/explain-evidence.js'
import {ApiError, type ApiTarget, ForbiddenError, NotFoundError} from './api-errors.js'
import type {Page, PageOptions} from './live-api.js'
import {toApiError} from './live-api.js'
import {listAll} from './live-loader.js'

export interface ListSelector {
  namespace?: string
  fieldSelector?: string
}

/** The lists explain's evidence needs: a port, so the reading can be tested against a fake. */
export interface EvidenceApi {
  listEvents(sel: ListSelector, page: PageOptions): Promise<Page<CoreEventObject>>
  listCSIDrivers(page: PageOptions): Promise<Page<CSIDriverObject>>
  /** Leases in every namespace: a sidecar's Lease lives in the namespace of its pod, which explain cannot know. */
  listLeases(sel: ListSelector, page: PageOptions): Promise<Page<LeaseObject>>
  listVolumeAttachments(page: PageOptions): Promise<Page<VolumeAttachmentObject>>
}

/** What to read for one explanation (or a list of them). */
export interface EvidenceQuery {
  /** Each an Event list (namespace and field selector); their items are merged. */
  events: ListSelector[]
  /** Lease names looked for in every namespace. */
  leaseNames: string[]
  volumeAttachments: boolean
}

export async function readExplainEvidence(api: EvidenceApi, query: EvidenceQuery, now: number): Promise<ExplainEvidence> {
  const [events, csiDrivers, leases, volumeAttachments] = await Promise.all([
    observe(async () => (await Promise.all(query.events.map((sel) => listAll((p) => api.listEvents(sel, p))))).flat()),
    observe(() => listAll((p) => api.listCSIDrivers(p))),
    // One field-selected list per name: the Leases of every node (kube-node-lease) never cross the wire.
    observe(async () => (await Promise.all(query.leaseNames.map((name) => listAll((p) => api.listLeases({fieldSelector: `metadata.name=${name}`}, p))))).flat()),
    query.volumeAttachments ? observe(() => listAll((p) => api.listVolumeAttachments(p))) : Promise.resolve(notRead),
  ])
  return {now, events, csiDrivers, leases, volumeAttachments}
}

const notRead = {observed: false as const, reason: 'not read for this object'}

/** A list as read, or, for an API error (forbidden, not served, the server failing), why it could not be. */
async function observe<T>(read: () => Promise<T[]>): Promise<Observed<T>> {
  try {
    return {observed: true, items: await read()}
  } catch (err) {
    if (err instanceof ForbiddenError) return {observed: false, reason: `forbidden: ${err.message}`}
    if (err instanceof NotFoundError) return {observed: false, reason: `not served by this API server: ${err.message}`}
    if (err instanceof ApiError) return {observed: false, reason: err.message}
    throw err
  }
}

const toWire = <T>(obj: unknown, type: string): T => ObjectSerializer.serialize(obj, type, '') as T

/** EvidenceApi through client-node. */
export class KubernetesEvidenceApi implements EvidenceApi {
  private readonly core: k8s.CoreV1Api
  private readonly storage: k8s.StorageV1Api
  private readonly coordination: k8s.CoordinationV1Api
  private readonly server: string

  constructor(kc: k8s.KubeConfig) {
    this.core = kc.makeApiClient(k8s.CoreV1Api)
    this.storage = kc.makeApiClient(k8s.StorageV1Api)
    this.coordination = kc.makeApiClient(k8s.CoordinationV1Api)
    this.server = kc.getCurrentCluster()?.server ?? '<unknown>'
  }

  private async page<T>(target: ApiTarget, type: string, fn: () => Promise<{items: unknown[]; metadata?: {_continue?: string}}>): Promise<Page<T>> {
    try {
      const list = await fn()
      return {items: list.items.map((item) => toWire<T>(item, type)), continueToken: list.metadata?._continue || undefined}
    } catch (err) {
      throw toApiError(err, target, this.server)
    }
  }

  listEvents(sel: ListSelector, p: PageOptions): Promise<Page<CoreEventObject>> {
    const q = {fieldSelector: sel.fieldSelector, limit: p.limit, _continue: p.continueToken}
    return this.page({verb: 'list', resource: 'events', namespace: sel.namespace}, 'CoreV1Event', () =>
      sel.namespace === undefined ? this.core.listEventForAllNamespaces(q) : this.core.listNamespacedEvent({namespace: sel.namespace, ...q}),
    )
  }

  listCSIDrivers(p: PageOptions): Promise<Page<CSIDriverObject>> {
    return this.page({verb: 'list', resource: 'csidrivers'}, 'V1CSIDriver', () => this.storage.listCSIDriver({limit: p.limit, _continue: p.continueToken}))
  }

  listLeases(sel: ListSelector, p: PageOptions): Promise<Page<LeaseObject>> {
    const q = {fieldSelector: sel.fieldSelector, limit: p.limit, _continue: p.continueToken}
    return this.page({verb: 'list', resource: 'leases', namespace: sel.namespace}, 'V1Lease', () =>
      sel.namespace === undefined ? this.coordination.listLeaseForAllNamespaces(q) : this.coordination.listNamespacedLease({namespace: sel.namespace, ...q}),
    )
  }

  listVolumeAttachments(p: PageOptions): Promise<Page<VolumeAttachmentObject>> {
    return this.page({verb: 'list', resource: 'volumeattachments'}, 'V1VolumeAttachment', () => this.storage.listVolumeAttachment({limit: p.limit, _continue: p.continueToken}))
  }
}
