// The API calls volume plugins make (pods that scrub or delete data, PV objects created and deleted),
// behind their own port so the plugins can be tested against a fake and run against any cluster.
import type * as k8s from '@kubernetes/client-node'

import type {PersistentVolume, Pod} from '../engine/api/model.js'
import {collectionPath, objectPath, WireClient} from './wire-client.js'

export interface PodEvent {
  type: string
  reason: string
  message: string
}

export interface WorkloadApi {
  createVolume(volume: PersistentVolume): Promise<PersistentVolume>
  /**
   * Deletes a PV object; with preconditions, only while it is still that object at that version (the
   * API server answers 409 Conflict otherwise).
   */
  deleteVolume(name: string, preconditions?: {uid?: string; resourceVersion?: string}): Promise<void>
  createPod(pod: Pod): Promise<Pod>
  readPod(namespace: string, name: string): Promise<Pod>
  deletePod(namespace: string, name: string): Promise<void>
  /** Events whose involvedObject is the pod. */
  podEvents(namespace: string, name: string): Promise<PodEvent[]>
}

/** The real WorkloadApi: requests in the wire shape (WireClient), as every other request pvctl makes. */
export class KubernetesWorkloadApi implements WorkloadApi {
  private readonly wire: WireClient

  constructor(kc: k8s.KubeConfig) {
    this.wire = new WireClient(kc, kc.getCurrentCluster()?.server ?? '<unknown>')
  }

  createVolume(volume: PersistentVolume): Promise<PersistentVolume> {
    return this.wire.request(
      {verb: 'create', resource: 'persistentvolumes', name: volume.metadata.name},
      collectionPath('persistentvolumes'),
      {method: 'POST', body: volume},
    )
  }

  async deleteVolume(name: string, preconditions?: {uid?: string; resourceVersion?: string}): Promise<void> {
    const body = preconditions === undefined ? undefined : {apiVersion: 'v1', kind: 'DeleteOptions', preconditions}
    await this.wire.request(
      {verb: 'delete', resource: 'persistentvolumes', name},
      objectPath('persistentvolumes', undefined, name),
      {method: 'DELETE', body},
    )
  }

  createPod(pod: Pod): Promise<Pod> {
    const namespace = pod.metadata.namespace ?? 'default'
    return this.wire.request(
      {verb: 'create', resource: 'pods', namespace, name: pod.metadata.name},
      collectionPath('pods', namespace),
      {method: 'POST', body: pod},
    )
  }

  readPod(namespace: string, name: string): Promise<Pod> {
    return this.wire.request({verb: 'get', resource: 'pods', namespace, name}, objectPath('pods', namespace, name), {
      method: 'GET',
    })
  }

  async deletePod(namespace: string, name: string): Promise<void> {
    await this.wire.request({verb: 'delete', resource: 'pods', namespace, name}, objectPath('pods', namespace, name), {
      method: 'DELETE',
    })
  }

  async podEvents(namespace: string, name: string): Promise<PodEvent[]> {
    const fieldSelector = `involvedObject.kind=Pod,involvedObject.name=${name}`
    const page = await this.wire.page<{type?: string; reason?: string; message?: string}>(
      {verb: 'list', resource: 'events', namespace},
      collectionPath('events', namespace),
      {
        limit: 0,
        fieldSelector,
      },
    )
    return page.items.map((e) => ({type: e.type ?? 'Normal', reason: e.reason ?? '', message: e.message ?? ''}))
  }
}
