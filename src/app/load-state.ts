// Where the cluster state comes from: a snapshot (-f) or, later, a live cluster.
import {loadSnapshot} from '../cluster/snapshot.js'
import type {ClusterState} from '../engine/model.js'
import {UsageError} from '../errors.js'

export interface StateSource {
  filename?: string
  kubeconfig?: string
  context?: string
}

export interface LoadedState {
  state: ClusterState
  /** Kinds the snapshot held that pvctl does not read, with their counts. */
  skipped: Record<string, number>
  live: boolean
}

export async function loadState(source: StateSource, stdin: NodeJS.ReadableStream): Promise<LoadedState> {
  if (source.filename !== undefined) {
    const snapshot = await loadSnapshot(source.filename, {stdin})
    return {state: snapshot.state, skipped: snapshot.skipped, live: false}
  }
  // Reading a live cluster (kubeconfig, context, in-cluster) is the next slice of work; until it lands,
  // say so plainly rather than guess at a cluster.
  throw new UsageError('reading a live cluster is not available in this version of pvctl: pass a snapshot with -f FILE|DIR|-', [
    'kubectl get pv,pvc,storageclasses,pods,nodes -A -o yaml > snapshot.yaml && pvctl sync --dry-run -f snapshot.yaml',
  ])
}
