// The API calls volume plugins make (pods that scrub or delete data, PV objects created and deleted),
// behind their own port so the plugins can be tested against a fake and run against any cluster.
import * as k8s from '@kubernetes/client-node'
import {ObjectSerializer} from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js'

import type {PersistentVolume, Pod} from '../engine/model.js'
import {type ApiTarget} from './api-errors.js'
import {toApiError} from './live-api.js'

export interface PodEvent {
  type: string
  reason: string
  message: string
}

export interface WorkloadApi {
  createVolume(volume: PersistentVolume): Promise<PersistentVolume>
  deleteVolume(name: string): Promise<void>
  createPod(pod: Pod): Promise<Pod>
  readPod(namespace: string, name: string): Promise<Pod>
  deletePod(namespace: string, name: string): Promise<void>
  /** Events whose involvedObject is the pod. */
  podEvents(namespace: string, name: string): Promise<PodEvent[]>
}

const toWire = <T>(obj: unknown, type: string): T => ObjectSerializer.serialize(obj, type, '') as T
const fromWire = (obj: unknown, type: string): any => ObjectSerializer.deserialize(obj, type, '')

export class KubernetesWorkloadApi implements WorkloadApi {
  private readonly core: k8s.CoreV1Api
  private readonly server: string

  constructor(kc: k8s.KubeConfig) {
    this.core = kc.makeApiClient(k8s.CoreV1Api)
    this.server = kc.getCurrentCluster()?.server ?? '<unknown>'
  }

  private async call<T>(target: ApiTarget, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn()
    } catch (err) {
      throw toApiError(err, target, this.server)
    }
  }

  async createVolume(volume: PersistentVolume): Promise<PersistentVolume> {
    const v = await this.call({verb: 'create', resource: 'persistentvolumes', name: volume.metadata.name}, () =>
      this.core.createPersistentVolume({body: fromWire(volume, 'V1PersistentVolume')}),
    )
    return toWire(v, 'V1PersistentVolume')
  }

  async deleteVolume(name: string): Promise<void> {
    await this.call({verb: 'delete', resource: 'persistentvolumes', name}, () => this.core.deletePersistentVolume({name}))
  }

  async createPod(pod: Pod): Promise<Pod> {
    const namespace = pod.metadata.namespace ?? 'default'
    const p = await this.call({verb: 'create', resource: 'pods', namespace, name: pod.metadata.name}, () =>
      this.core.createNamespacedPod({namespace, body: fromWire(pod, 'V1Pod')}),
    )
    return toWire(p, 'V1Pod')
  }

  async readPod(namespace: string, name: string): Promise<Pod> {
    const p = await this.call({verb: 'get', resource: 'pods', namespace, name}, () => this.core.readNamespacedPod({namespace, name}))
    return toWire(p, 'V1Pod')
  }

  async deletePod(namespace: string, name: string): Promise<void> {
    await this.call({verb: 'delete', resource: 'pods', namespace, name}, () => this.core.deleteNamespacedPod({namespace, name}))
  }

  async podEvents(namespace: string, name: string): Promise<PodEvent[]> {
    const list = await this.call({verb: 'list', resource: 'events', namespace}, () =>
      this.core.listNamespacedEvent({namespace, fieldSelector: `involvedObject.kind=Pod,involvedObject.name=${name}`}),
    )
    return list.items.map((e) => ({type: e.type ?? 'Normal', reason: e.reason ?? '', message: e.message ?? ''}))
  }
}
