// An in-memory WorkloadApi for the plugins' pods: a pod's phase is whatever the test sets, a create of
// an existing pod is AlreadyExists (409), as the API server answers; every call is recorded.
import {ApiError, NotFoundError} from '../../src/cluster/api-errors.js'
import type {PodEvent, WorkloadApi} from '../../src/cluster/workload-api.js'
import type {PersistentVolume, Pod} from '../../src/engine/api/model.js'

export class FakeWorkloadApi implements WorkloadApi {
  readonly pods = new Map<string, Pod>()
  readonly calls: string[] = []
  /** Runs after every read of a pod (the test's clock: abort, or let the pod finish). */
  afterRead?: (pod: Pod, reads: number) => void
  private reads = 0

  async createVolume(volume: PersistentVolume): Promise<PersistentVolume> {
    this.calls.push(`create pv/${volume.metadata.name}`)
    return volume
  }
  async deleteVolume(name: string): Promise<void> {
    this.calls.push(`delete pv/${name}`)
  }
  async createPod(pod: Pod): Promise<Pod> {
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`
    this.calls.push(`create pod/${key}`)
    if (this.pods.has(key))
      throw new ApiError(
        `pods "${pod.metadata.name}" already exists`,
        {verb: 'create', resource: 'pods', name: pod.metadata.name},
        409,
        'AlreadyExists',
      )
    const created = {...structuredClone(pod), status: {phase: 'Pending'}}
    this.pods.set(key, created)
    return created
  }
  async readPod(namespace: string, name: string): Promise<Pod> {
    const pod = this.pods.get(`${namespace}/${name}`)
    if (pod === undefined)
      throw new NotFoundError(`pods "${name}" not found`, {verb: 'get', resource: 'pods', name}, 404, 'NotFound')
    const read = structuredClone(pod)
    this.afterRead?.(pod, ++this.reads)
    return read
  }
  async deletePod(namespace: string, name: string): Promise<void> {
    this.calls.push(`delete pod/${namespace}/${name}`)
    if (!this.pods.delete(`${namespace}/${name}`))
      throw new NotFoundError(`pods "${name}" not found`, {verb: 'delete', resource: 'pods', name}, 404, 'NotFound')
  }
  async podEvents(_namespace: string, _name: string): Promise<PodEvent[]> {
    return []
  }
}
