// The objects one sync of the controller reads, and no others: the state loop mode gives the engine for
// the sync of one object. Given a snapshot of its whole cache instead, a sync cost as much as the
// cluster is large (reconcile indexes every object it is given), and a resync, which syncs every
// object, cost objects × cluster size: minutes at 10,000 volumes, against a 15 s resync period.
//
//   a volume's sync   the volume; the claim its claimRef names, and that claim's pods (isVolumeUsed)
//   a claim's sync    the claim; its pods (findNonScheduledPodsByPVC); its selected node (provisioning
//                     checks that the node exists); and the volumes it may read:
//                       spec.volumeName set   that volume (syncBoundClaim, or a claim pre-bound by
//                                             the user), and no other
//                       unset                 the volumes findMatchingVolume can return (those whose
//                                             claimRef names the claim, of any class; those of the
//                                             claim's class that have no claimRef); one volume of
//                                             each access-mode set the claim's modes fit in, because
//                                             findBestMatchForClaim calls FindMatchingVolume once per
//                                             such set that exists, and FindMatchingVolume refuses some
//                                             claims whatever the volumes (a VolumeAttributesClass with
//                                             the gate off, an invalid selector); and the volume
//                                             provisioning would create ("pvc-UID"), which it looks for
//   both              every class (the default class, a class's provisioner, mode and reclaim policy)
//
// test/engine/sync-slice.test.ts holds this to the engine: for every object of random clusters, the
// plan of its sync over its slice is the plan of its sync over the whole state.
import {AnnSelectedNode} from './constants.js'
import {
  claimRefKey,
  type ClusterState,
  type Node,
  type PersistentVolume,
  type PersistentVolumeAccessMode,
  type PersistentVolumeClaim,
  type Pod,
  type StorageClass,
} from './model.js'
import type {ObjectRef} from './plan.js'
import {getProvisionedVolumeNameForClaim} from './pv-controller.js'
import {
  containsAllAccessModes,
  getAccessModesAsString,
  getAccessModesFromString,
  getPersistentVolumeClaimClass,
  getPersistentVolumeClass,
  podClaimKeys,
} from './storage-helpers.js'

/**
 * The controller's cache of volumes (ctrl.volumes), by name, indexed as the slices need it: by the
 * claim a claimRef names, and, for volumes without a claimRef, by class. A Map, so that it is written
 * as one (storeObjectUpdate) and read as one (metrics).
 */
export class VolumeCache extends Map<string, PersistentVolume> {
  private readonly byClaimRef = new Map<string, Map<string, PersistentVolume>>()
  private readonly unclaimedByClass = new Map<string, Map<string, PersistentVolume>>()
  private readonly byAccessModes = new Map<string, Map<string, PersistentVolume>>()

  override set(name: string, volume: PersistentVolume): this {
    this.unindex(name)
    const claimRef = volume.spec.claimRef
    if (claimRef != null) addTo(this.byClaimRef, claimRefKey(claimRef), name, volume)
    else addTo(this.unclaimedByClass, getPersistentVolumeClass(volume), name, volume)
    addTo(this.byAccessModes, getAccessModesAsString(volume.spec.accessModes), name, volume)
    return super.set(name, volume)
  }

  override delete(name: string): boolean {
    this.unindex(name)
    return super.delete(name)
  }

  override clear(): void {
    this.byClaimRef.clear()
    this.unclaimedByClass.clear()
    this.byAccessModes.clear()
    super.clear()
  }

  /** The volumes whose claimRef names the claim of this key ("namespace/name"), whatever its uid. */
  claimedBy(claimKey: string): Iterable<PersistentVolume> {
    return this.byClaimRef.get(claimKey)?.values() ?? []
  }

  /** The volumes of this class that have no claimRef. */
  unclaimedOfClass(className: string): Iterable<PersistentVolume> {
    return this.unclaimedByClass.get(className)?.values() ?? []
  }

  /** One volume of each access-mode set that holds all of `modes` (persistentVolumeOrderedIndex's buckets). */
  *oneOfEachAccessModeSetWith(modes: readonly PersistentVolumeAccessMode[] | null | undefined): Iterable<PersistentVolume> {
    for (const [key, volumes] of this.byAccessModes) {
      if (containsAllAccessModes(getAccessModesFromString(key), modes)) yield volumes.values().next().value!
    }
  }

  private unindex(name: string): void {
    const old = this.get(name)
    if (old === undefined) return
    const claimRef = old.spec.claimRef
    if (claimRef != null) removeFrom(this.byClaimRef, claimRefKey(claimRef), name)
    else removeFrom(this.unclaimedByClass, getPersistentVolumeClass(old), name)
    removeFrom(this.byAccessModes, getAccessModesAsString(old.spec.accessModes), name)
  }
}

/**
 * The pod informer's index by claim (podIndexer's PodPVCIndex), kept from its add, update and delete
 * events. A claim's pods are listed in the informer store's order (first added first), the order a
 * snapshot of the store lists them in: WaitForPodScheduled names them in that order.
 */
export class PodsByClaim {
  private readonly byClaim = new Map<string, Map<string, Pod>>()

  set(pod: Pod, old?: Pod): void {
    const key = podKey(pod)
    const keys = new Set(podClaimKeys(pod))
    if (old !== undefined) {
      for (const claim of podClaimKeys(old)) if (!keys.has(claim)) removeFrom(this.byClaim, claim, key)
    } else {
      // A pod seen for the first time.
    }
    // A pod's volumes are immutable: an update replaces the pod where it is.
    for (const claim of keys) addTo(this.byClaim, claim, key, pod)
  }

  delete(pod: Pod): void {
    const key = podKey(pod)
    for (const claim of podClaimKeys(pod)) removeFrom(this.byClaim, claim, key)
  }

  of(claimKey: string): Pod[] {
    const pods = this.byClaim.get(claimKey)
    return pods === undefined ? [] : [...pods.values()]
  }
}

/** Where a sync's objects are read from: the controller's caches and the informers' stores. */
export interface SyncSources {
  volumes: VolumeCache
  claims: ReadonlyMap<string, PersistentVolumeClaim>
  classes: ReadonlyMap<string, StorageClass>
  nodes: ReadonlyMap<string, Node>
  pods: PodsByClaim
}

/** The state the sync of `ref` reads (see the top of this file). */
export function stateForSync(sources: SyncSources, ref: ObjectRef): ClusterState {
  const classes = [...sources.classes.values()]
  if (ref.kind === 'PersistentVolume') {
    const volume = sources.volumes.get(ref.name)
    const claimRef = volume?.spec.claimRef
    if (volume === undefined || claimRef == null) {
      return {volumes: volume === undefined ? [] : [volume], claims: [], classes, pods: [], nodes: []}
    } else {
      const key = claimRefKey(claimRef)
      const claim = sources.claims.get(key)
      return {volumes: [volume], claims: claim === undefined ? [] : [claim], classes, pods: sources.pods.of(key), nodes: []}
    }
  }
  const key = `${ref.namespace ?? ''}/${ref.name}`
  const claim = sources.claims.get(key)
  if (claim === undefined) return {volumes: [], claims: [], classes, pods: [], nodes: []}
  const volumes = new Map<string, PersistentVolume>()
  const add = (volume: PersistentVolume | undefined) => {
    if (volume !== undefined) volumes.set(volume.metadata.name ?? '', volume)
  }
  const volumeName = claim.spec.volumeName ?? ''
  if (volumeName !== '') {
    add(sources.volumes.get(volumeName))
  } else {
    for (const volume of sources.volumes.claimedBy(key)) add(volume)
    for (const volume of sources.volumes.unclaimedOfClass(getPersistentVolumeClaimClass(claim))) add(volume)
    for (const volume of sources.volumes.oneOfEachAccessModeSetWith(claim.spec.accessModes)) add(volume)
    add(sources.volumes.get(getProvisionedVolumeNameForClaim(claim)))
  }
  const nodeName = claim.metadata.annotations?.[AnnSelectedNode]
  const node = nodeName === undefined ? undefined : sources.nodes.get(nodeName)
  return {volumes: [...volumes.values()], claims: [claim], classes, pods: sources.pods.of(key), nodes: node === undefined ? [] : [node]}
}

function podKey(pod: Pod): string {
  return `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`
}

function addTo<T>(index: Map<string, Map<string, T>>, key: string, name: string, value: T): void {
  const entries = index.get(key)
  if (entries === undefined) index.set(key, new Map([[name, value]]))
  else entries.set(name, value)
}

function removeFrom<T>(index: Map<string, Map<string, T>>, key: string, name: string): void {
  const entries = index.get(key)
  if (entries === undefined) return
  entries.delete(name)
  if (entries.size === 0) index.delete(key)
}
