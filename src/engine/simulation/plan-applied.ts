// The state after a plan: what audit judges, and what a printed fix's next step reads once a sync ran.
import {ClaimKeyIndex} from '../api/claim-keyed-map.js'
import type {ClusterState, PersistentVolume, PersistentVolumeClaim} from '../api/model.js'

/**
 * The state with the plan's objects in place of the ones they were (and the ones it creates added): the
 * classes, pods and nodes the plan does not write stay as read.
 */
export function withPlanApplied(
  state: ClusterState,
  planned: ReadonlyArray<PersistentVolume | PersistentVolumeClaim>,
): ClusterState {
  const volumes = new Map<string, PersistentVolume>()
  const claims = new PlacedClaims()
  // Indexed loops: each runs once over 100k objects, and a for-of makes an iterator result per step until optimized.
  for (let i = 0; i < state.volumes.length; i++) volumes.set(state.volumes[i].metadata.name ?? '', state.volumes[i])
  for (let i = 0; i < state.claims.length; i++) claims.put(state.claims[i])
  for (let i = 0; i < planned.length; i++) {
    const o = planned[i]
    if (o.kind === 'PersistentVolume') volumes.set(o.metadata.name ?? '', o as PersistentVolume)
    else claims.put(o)
  }
  return {...state, volumes: [...volumes.values()], claims: claims.list}
}

/**
 * Claims by claimKey in the order a Map of the keys keeps them (where a key first came, its last claim),
 * found by namespace and name: no key string is built for each of 100k claims, twice.
 */
class PlacedClaims {
  readonly list: PersistentVolumeClaim[] = []
  private readonly places = new ClaimKeyIndex<number>()

  put(claim: PersistentVolumeClaim): void {
    const namespace = claim.metadata.namespace ?? ''
    const name = claim.metadata.name ?? ''
    const place = this.places.get(namespace, name)
    if (place === undefined) {
      this.places.set(namespace, name, this.list.length)
      this.list.push(claim)
    } else {
      this.list[place] = claim
    }
  }
}
