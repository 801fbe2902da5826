// The caches and stores a loop's informers hold, built from a state: what a sync's slice is read from.
import {claimKey, type ClusterState} from '../../src/engine/api/model.js'
import {PodsByClaim, type SyncSources, VolumeCache} from '../../src/engine/simulation/sync-slice.js'

/** The caches and stores of a loop whose informers listed `state`, in its order. */
export function sourcesOf(state: ClusterState): SyncSources {
  const volumes = new VolumeCache()
  for (const v of state.volumes) volumes.set(v.metadata.name ?? '', v)
  const pods = new PodsByClaim()
  for (const p of state.pods) pods.set(p)
  return {
    volumes,
    claims: new Map(state.claims.map((c) => [claimKey(c), c])),
    classes: new Map(state.classes.map((c) => [c.metadata.name ?? '', c])),
    nodes: new Map(state.nodes.map((n) => [n.metadata.name ?? '', n])),
    pods,
  }
}
