// The objects one sync of the controller reads, and no others: the state loop mode gives the engine for
// the sync of one object. Given a snapshot of its whole cache instead, a sync cost as much as the
// cluster is large (reconcile indexes every object it is given), and a resync, which syncs every
// object, cost objects × cluster size: longer than a resync period at 10,000 volumes (docs/performance.md).
//
//   a volume's sync   the volume; the claim its claimRef names, and, when its reclaim policy is
//                     Recycle, that claim's pods (isVolumeUsed, which only the recycle asks)
//   a claim's sync    the claim; when it names no volume and its binding may be delayed, its pods
//                     (findNonScheduledPodsByPVC, which only the wait for a first consumer asks); its
//                     selected node (provisioning checks that the node exists); and the volumes it may
//                     read:
//                       spec.volumeName set   that volume (syncBoundClaim, or a claim pre-bound by
//                                             the user), and no other
//                       unset                 what findBestMatchForClaim can return: the one it picks
//                                             among all, found by the cache's own matching index, and,
//                                             with delayed binding (or a class whose binding mode the
//                                             engine refuses), the volumes whose claimRef names the
//                                             claim, the only ones it may pick then; and, unless it
//                                             binds at once to the pick, the volume provisioning would
//                                             create ("pvc-UID"), which it looks for.
//                                             Where the cache's index raises the claim's error (an
//                                             invalid selector, a VolumeAttributesClass with the gate
//                                             off, a capacity that does not parse), every volume: the
//                                             engine raises it too.
//   both              every class (the default class, a class's provisioner, mode and reclaim policy)
//
// The volume picked over a subset that holds the cache's pick and every volume pre-bound to the claim is
// that pick: the scan takes the smallest candidate of the first access-mode set that has one (or the
// first pre-bound one), and a subset has no better candidate, nor one in an earlier set.
// test/engine/sync-slice.test.ts holds this to the engine: for every object of random clusters, the plan
// of its sync over its slice is the plan over the whole state.
import {AnnSelectedNode} from '../api/constants.js'
import type {FeatureGates} from '../api/feature-gates.js'
import {
  claimRefKey,
  type ClusterState,
  type Node,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type Pod,
  type StorageClass,
} from '../api/model.js'
import type {ObjectRef} from './plan.js'
import {getProvisionedVolumeNameForClaim} from '../controller/pv-controller.js'
import {getPersistentVolumeClaimClass, podClaimKeys} from '../api/storage-helpers.js'
import {IndexedVolumeIndex} from '../matching/volume-match-index.js'

/**
 * The controller's cache of volumes (ctrl.volumes), by name, indexed as the slices need it: by the
 * claim a claimRef names, and for matching (the engine's index, kept up to date write by write). A Map,
 * so that it is written as one (storeObjectUpdate) and read as one (metrics).
 */
export class VolumeCache extends Map<string, PersistentVolume> {
  private readonly byClaimRef = new Map<string, Map<string, PersistentVolume>>()
  private matching = new IndexedVolumeIndex([])

  override set(name: string, volume: PersistentVolume): this {
    this.unindex(name)
    const claimRef = volume.spec.claimRef
    if (claimRef != null) addTo(this.byClaimRef, claimRefKey(claimRef), name, volume)
    this.matching.store(volume)
    return super.set(name, volume)
  }

  override delete(name: string): boolean {
    this.unindex(name)
    this.matching.remove(name)
    return super.delete(name)
  }

  override clear(): void {
    this.byClaimRef.clear()
    this.matching = new IndexedVolumeIndex([])
    super.clear()
  }

  /**
   * The volume findBestMatchForClaim picks for the claim among those without a claimRef for it (binding
   * not delayed: with delayed binding it picks among the pre-bound only); 'cannot tell' when it raises
   * the claim's error (an invalid selector, a VolumeAttributesClass with the gate off, a capacity that
   * does not parse). `delayBinding`: how the engine's sync will match (delayBindingOf), undefined when
   * that is not known.
   */
  bestMatchFor(
    claim: PersistentVolumeClaim,
    gates: FeatureGates,
    delayBinding?: boolean,
  ): PersistentVolume | undefined | 'cannot tell' {
    try {
      // With delayed binding the scan goes on through every later mode set, where it may meet a capacity
      // that does not parse; without, it stops at its pick. Asked both ways, it raises if either would.
      // Without delayed binding the engine scans as the second does, and stops at the same pick over a
      // slice that holds it (see the top of this file): the first is not asked.
      if (delayBinding !== false) this.matching.findBestMatchForClaim(claim, true, gates)
      return this.matching.findBestMatchForClaim(claim, false, gates)
    } catch {
      return 'cannot tell'
    }
  }

  /** The volumes whose claimRef names the claim of this key ("namespace/name"), whatever its uid. */
  claimedBy(claimKey: string): Iterable<PersistentVolume> {
    return this.byClaimRef.get(claimKey)?.values() ?? []
  }

  private unindex(name: string): void {
    const old = this.get(name)
    if (old === undefined) return
    const claimRef = old.spec.claimRef
    if (claimRef != null) removeFrom(this.byClaimRef, claimRefKey(claimRef), name)
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
    // Most claims have no pod: one empty list for them all (a slice is read, never changed).
    return pods === undefined ? (NO_PODS as Pod[]) : [...pods.values()]
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

const NO_PODS: readonly Pod[] = Object.freeze([])

/** The classes of the last slice made from a store, by store: the same list while the store holds the same classes. */
const classLists = new WeakMap<ReadonlyMap<string, StorageClass>, StorageClass[]>()

/** Every class of the store, as the list the last slice had if the store holds the very same classes. */
function classesOf(store: ReadonlyMap<string, StorageClass>): StorageClass[] {
  const last = classLists.get(store)
  if (last !== undefined && last.length === store.size) {
    let i = 0
    let same = true
    for (const c of store.values()) {
      if (last[i++] !== c) {
        same = false
        break
      }
    }
    if (same) return last
  } else {
    // First asked, or classes were added or deleted.
  }
  const classes = [...store.values()]
  classLists.set(store, classes)
  return classes
}

function addVolume(volumes: Map<string, PersistentVolume>, volume: PersistentVolume | undefined): void {
  if (volume !== undefined) volumes.set(volume.metadata.name ?? '', volume)
}

/**
 * addVolume over a list of a handful (a claim's pre-bound volumes, its pick, its provisioned one): a
 * name met again takes its first place, as in a Map, without a Map made for each sync.
 */
function addListed(volumes: PersistentVolume[], volume: PersistentVolume | undefined): void {
  if (volume === undefined) return
  const name = volume.metadata.name ?? ''
  for (let i = 0; i < volumes.length; i++) {
    if ((volumes[i].metadata.name ?? '') === name) {
      volumes[i] = volume
      return
    } else {
      // Another name.
    }
  }
  volumes.push(volume)
}

/**
 * The state the sync of `ref` reads (see the top of this file), the controller's gates on. `cached`, when
 * given, is the object of `ref` the caller has just read from `sources` (a worker that stored it): it is
 * not looked up again, as a look-up of a key in a cache of every object costs a part of the sync.
 * `claimKey`, given with a claim's `cached`, is its key ("namespace/name") as the caller holds it (its
 * queue's): a key made again would be hashed again at each look-up of the claim's pods and volumes.
 */
export function stateForSync(
  sources: SyncSources,
  ref: ObjectRef,
  gates: FeatureGates,
  cached?: PersistentVolume | PersistentVolumeClaim,
  claimKey?: string,
): ClusterState {
  // One list shared by the slices while the classes stay the same: a slice is read, never changed.
  const classes = classesOf(sources.classes)
  if (ref.kind === 'PersistentVolume') {
    const volume = (cached as PersistentVolume | undefined) ?? sources.volumes.get(ref.name)
    const claimRef = volume?.spec.claimRef
    if (volume === undefined || claimRef == null) {
      return {volumes: volume === undefined ? [] : [volume], claims: [], classes, pods: [], nodes: []}
    } else {
      const key = claimRefKey(claimRef)
      const claim = sources.claims.get(key)
      const pods = volume.spec.persistentVolumeReclaimPolicy === 'Recycle' ? sources.pods.of(key) : NO_PODS
      return {volumes: [volume], claims: claim === undefined ? [] : [claim], classes, pods, nodes: []}
    }
  }
  const key = claimKey ?? `${ref.namespace ?? ''}/${ref.name}`
  // A claim's `cached` is a claim (a volume's returned above); the types tell the two kinds apart by no field.
  const claim: PersistentVolumeClaim | undefined = cached ?? sources.claims.get(key)
  if (claim === undefined) return {volumes: [], claims: [], classes, pods: [], nodes: []}
  let volumes: PersistentVolume[] = []
  let pods = NO_PODS
  const volumeName = claim.spec.volumeName ?? ''
  if (volumeName !== '') {
    addListed(volumes, sources.volumes.get(volumeName))
  } else {
    const delayBinding = delayBindingOf(claim, sources.classes)
    if (delayBinding !== false) pods = sources.pods.of(key)
    const best = sources.volumes.bestMatchFor(claim, gates, delayBinding)
    if (best === 'cannot tell') {
      // Rare (a claim in error): the engine raises it over every volume, where the controller would.
      const every = new Map<string, PersistentVolume>()
      for (const volume of sources.volumes.values()) addVolume(every, volume)
      volumes = [...every.values()]
    } else {
      // With delayed binding the controller picks among the volumes pre-bound to the claim only, which the
      // index's pick (made as if binding were not delayed) need not be; without, the pick over all volumes
      // is the pick over any subset that holds it (see the top of this file): no other is read.
      if (delayBinding !== false) for (const volume of sources.volumes.claimedBy(key)) addListed(volumes, volume)
      addListed(volumes, best)
      // The volume provisioning would create, which it looks for: not when the claim binds at once to the
      // pick (binding not delayed), and never provisions.
      if (delayBinding !== false || best === undefined)
        addListed(volumes, sources.volumes.get(getProvisionedVolumeNameForClaim(claim)))
    }
  }
  const nodeName = claim.metadata.annotations?.[AnnSelectedNode]
  const node = nodeName === undefined ? undefined : sources.nodes.get(nodeName)
  return {volumes, claims: [claim], classes, pods, nodes: node === undefined ? [] : [node]}
}

/**
 * IsDelayBindingMode as the engine's sync of the claim asks it (pv-controller.ts), over the same classes;
 * undefined where the engine raises instead (a class without a binding mode), before any matching.
 */
function delayBindingOf(claim: PersistentVolumeClaim, classes: ReadonlyMap<string, StorageClass>): boolean | undefined {
  const className = getPersistentVolumeClaimClass(claim)
  if (className === '') return false
  const klass = classes.get(className)
  if (klass === undefined) return false
  if (klass.volumeBindingMode == null) return undefined
  return klass.volumeBindingMode === 'WaitForFirstConsumer'
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
