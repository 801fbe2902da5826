// The reads behind explain's evidence on a live cluster: Events, CSIDrivers, Leases, VolumeAttachments.
// Best-effort by design: explain must still answer when one of these lists is forbidden (a namespaced
// role rarely grants cluster-wide Leases) or not served, so each list that fails with an API error
// becomes "not observed, because ..." instead of failing the command. Kept apart from live-api.ts: these
// kinds are read by explain alone, and never written.
import type * as k8s from '@kubernetes/client-node'

import type {
  CoreEventObject,
  CSIDriverObject,
  EvidenceQuery,
  ExplainEvidence,
  LeaseObject,
  Observed,
  VolumeAttachmentObject,
} from '../engine/explain/evidence.js'
import {ApiError, ForbiddenError, NotFoundError} from './api-errors.js'
import type {Page, PageOptions} from './page.js'
import {collectionPath, type ListedResource, WireClient} from './wire-client.js'
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

export async function readExplainEvidence(
  api: EvidenceApi,
  query: EvidenceQuery,
  now: number,
): Promise<ExplainEvidence> {
  const [events, csiDrivers, leases, volumeAttachments] = await Promise.all([
    observe(async () => (await Promise.all(query.events.map((sel) => listAll((p) => api.listEvents(sel, p))))).flat()),
    observe(() => listAll((p) => api.listCSIDrivers(p))),
    // One field-selected list per name: the Leases of every node (kube-node-lease) never cross the wire.
    observe(async () =>
      (
        await Promise.all(
          query.leaseNames.map((name) => listAll((p) => api.listLeases({fieldSelector: `metadata.name=${name}`}, p))),
        )
      ).flat(),
    ),
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

/** EvidenceApi through client-node's credentials, its lists kept in their wire shape as the loader's. */
export class KubernetesEvidenceApi implements EvidenceApi {
  private readonly lists: WireClient

  constructor(kc: k8s.KubeConfig) {
    this.lists = new WireClient(kc, kc.getCurrentCluster()?.server ?? '<unknown>')
  }

  private page<T>(resource: ListedResource, sel: ListSelector, p: PageOptions): Promise<Page<T>> {
    return this.lists.page(
      {verb: 'list', resource, namespace: sel.namespace},
      collectionPath(resource, sel.namespace),
      {...p, fieldSelector: sel.fieldSelector},
    )
  }

  listEvents(sel: ListSelector, p: PageOptions): Promise<Page<CoreEventObject>> {
    return this.page('events', sel, p)
  }

  listCSIDrivers(p: PageOptions): Promise<Page<CSIDriverObject>> {
    return this.page('csidrivers', {}, p)
  }

  listLeases(sel: ListSelector, p: PageOptions): Promise<Page<LeaseObject>> {
    return this.page('leases', sel, p)
  }

  listVolumeAttachments(p: PageOptions): Promise<Page<VolumeAttachmentObject>> {
    return this.page('volumeattachments', {}, p)
  }
}
