// --recycler-pod-template: kube-controller-manager's --pv-recycler-pod-template-filepath-*, for one-shot
// sync and loop mode alike. Read before anything else runs: a bad file is a usage error (exit 2).
import {loadSnapshot} from '../cluster/snapshot.js'
import type {ClusterState, Pod} from '../engine/api/model.js'
import {InputError, UsageError} from '../errors.js'

/** The one Pod of a --recycler-pod-template file. */
export async function loadRecyclerPodTemplate(path: string): Promise<Pod> {
  let state: ClusterState
  try {
    state = (await loadSnapshot(path)).state
  } catch (err) {
    if (err instanceof InputError) throw new UsageError(`--recycler-pod-template: ${err.message}`)
    else throw err
  }
  if (state.pods.length !== 1) {
    throw new UsageError(`--recycler-pod-template "${path}": expected exactly one Pod, found ${state.pods.length}`)
  }
  return state.pods[0]
}
