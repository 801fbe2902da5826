// The volume plugins pvctl carries out against a live cluster, by plugin name, as the executor needs
// them: each runs the real work (a pod, or nothing but a computed PV) and returns the outcome the
// engine's VolumeOperations port expects, so the engine then plans the controller's follow-up writes.
//
//   kubernetes.io/host-path  recycle (recycler pod), delete (cleanup pod; only a path with /tmp/.+ in it, as the
//                            in-tree deleter), provision (/tmp/hostpath_pv/<claim uid>)
//   kubernetes.io/nfs        recycle (recycler pod)
//   kubernetes.io/local-volume  delete (cleanup pod on the volume's node), with --local-volume-deleter
//
// recycle and delete take the run's abort signal: on abort they throw PodRunInterrupted, the pod left
// running for the next run to adopt, instead of waiting out a deadline of up to half an hour.
import type {PodEvent, WorkloadApi} from '../cluster/workload-api.js'
import type {PersistentVolume, Pod} from '../engine/api/model.js'
import type {ProvisionOptions} from '../engine/controller/volume-operations.js'
import {hostPathDeleteRefusal} from '../engine/controller/volume-plugins.js'
import {type PodWait, runPodToCompletion} from './pod-runner.js'
import {hostPathCleanupPod, localCleanupPod, recyclerPod, timeoutForVolume} from './pod-templates.js'

export interface LivePluginOptions {
  /** --recycler-pod-template: a Pod whose spec replaces the default recycler's. */
  recyclerTemplate?: Pod
  pollMs?: number
  /** Relayed as RecyclerPod events on the volume ("Recycler pod: <message>"). */
  onPodEvent?: (volume: PersistentVolume, event: PodEvent) => void
  /** What a recycler or cleanup pod is doing while it is waited for. */
  onWaiting?: (w: PodWait) => void
}

export type DeleteOutcome = {newDeleterError?: string; deleteError?: string; inUse?: boolean}
export type ProvisionOutcome = {newProvisionerError?: string; provisionError?: string; volume?: PersistentVolume}

export class LiveVolumePlugins {
  constructor(
    private readonly api: WorkloadApi,
    private readonly opts: LivePluginOptions = {},
  ) {}

  /** Whether pvctl can carry out this operation of this plugin. */
  supports(operation: 'recycle' | 'delete' | 'provision', pluginName: string): boolean {
    if (pluginName === 'kubernetes.io/host-path') return true
    if (pluginName === 'kubernetes.io/nfs') return operation === 'recycle'
    if (pluginName === 'kubernetes.io/local-volume') return operation === 'delete'
    return false
  }

  /** plugin.Recycle: a recycler pod scrubs the volume. undefined on success. */
  async recycle(_pluginName: string, volume: PersistentVolume, signal?: AbortSignal): Promise<string | undefined> {
    const nfs = volume.spec.nfs as {server?: string; path?: string; readOnly?: boolean} | undefined
    const hostPath = volume.spec.hostPath as {path?: string; type?: string} | undefined
    let source: Record<string, unknown>
    let timeout: number
    if (nfs != null) {
      source = {nfs: {server: nfs.server, path: nfs.path, readOnly: false}}
      timeout = timeoutForVolume(300, 30, volume)
    } else if (hostPath != null) {
      source = {hostPath: {path: hostPath.path}}
      timeout = timeoutForVolume(60, 30, volume)
    } else {
      return 'no recyclable volume source'
    }
    const pod = recyclerPod(volume, source, timeout, this.opts.recyclerTemplate)
    return runPodToCompletion(this.api, pod, {
      timeoutMs: (timeout + 30) * 1000,
      pollMs: this.opts.pollMs,
      onEvent: (e) => this.opts.onPodEvent?.(volume, e),
      onWaiting: this.opts.onWaiting,
      signal,
    })
  }

  /**
   * NewDeleter + Delete. host-path: only a path with /tmp/.+ in it, as the in-tree deleter refuses
   * anything else (Delete's error, hostPathDeleteRefusal); the directory goes. local: the directory's contents go, on the volume's node (the directory stays, as
   * the local static provisioner leaves it for the next volume).
   */
  async delete(pluginName: string, volume: PersistentVolume, signal?: AbortSignal): Promise<DeleteOutcome> {
    if (pluginName === 'kubernetes.io/local-volume') {
      const local = volume.spec.local as {path?: string} | undefined
      const timeout = timeoutForVolume(60, 30, volume)
      const error = await runPodToCompletion(this.api, localCleanupPod(volume, local?.path ?? '', timeout), {
        timeoutMs: (timeout + 30) * 1000,
        pollMs: this.opts.pollMs,
        onWaiting: this.opts.onWaiting,
        signal,
      })
      return error === undefined ? {} : {deleteError: error}
    }
    const refusal = hostPathDeleteRefusal(volume)
    if (refusal !== undefined) return {deleteError: refusal}
    const path = (volume.spec.hostPath as {path: string}).path
    const timeout = timeoutForVolume(60, 30, volume)
    const error = await runPodToCompletion(this.api, hostPathCleanupPod(volume, path, timeout), {
      timeoutMs: (timeout + 30) * 1000,
      pollMs: this.opts.pollMs,
      onWaiting: this.opts.onWaiting,
      signal,
    })
    return error === undefined ? {} : {deleteError: error}
  }

  /**
   * The host-path provisioner: a PV of the claim's size and modes at /tmp/hostpath_pv/<claim uid>,
   * created on the node when first mounted (type DirectoryOrCreate: pvctl runs on no node).
   */
  provision(_pluginName: string, o: ProvisionOptions): Promise<ProvisionOutcome> {
    // Nothing to wait for: the PV is what the controller creates; the directory comes with the first mount.
    if (o.claim.spec.volumeMode === 'Block') {
      return Promise.resolve({provisionError: 'kubernetes.io/host-path does not support block volume provisioning'})
    }
    const volume: PersistentVolume = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: {name: o.pvName, annotations: {'kubernetes.io/createdby': 'hostpath-dynamic-provisioner'}},
      spec: {
        persistentVolumeReclaimPolicy: o.storageClass.reclaimPolicy ?? 'Delete',
        accessModes:
          o.claim.spec.accessModes != null && o.claim.spec.accessModes.length > 0
            ? o.claim.spec.accessModes
            : ['ReadWriteOnce'],
        capacity: {storage: o.claim.spec.resources?.requests?.storage ?? '0'},
        hostPath: {path: `/tmp/hostpath_pv/${o.claim.metadata.uid}`, type: 'DirectoryOrCreate'},
      },
    }
    return Promise.resolve({volume})
  }
}
