// The state indexed once for every explanation asked of it: claims and volumes by name, pods and
// claimRefs by claim, and what judging a volume needs that is the same for every claim. A list of every
// pending claim of a large cluster judges each volume once per distinct request (explain-request-groups.ts);
// nothing here is redone per request.
import {
  claimRefKey,
  type ClusterState,
  type Node,
  type PersistentVolume,
  type PersistentVolumeAccessMode,
  type PersistentVolumeClaim,
  type Pod,
  type StorageClass,
} from '../api/model.js'
import {ClaimKeyIndex} from '../api/claim-keyed-map.js'
import {compileLabelSelector, type CompiledSelector, SelectorError} from '../api/selector.js'
import {
  getAccessModesAsString,
  getAccessModesFromString,
  getDefaultClass,
  getPersistentVolumeClass,
  isDefaultStorageClass,
  podClaimKeys,
} from '../api/storage-helpers.js'

/** A volume as every claim sees it: its access modes (as the index keys them) and whom its claimRef names. */
export interface VolumeFacts {
  volume: PersistentVolume
  /** getAccessModesAsString: "RWO,ROX". */
  accessModes: string
  /** The modes the access-mode index files the volume under: only the known ones (shared: not to be changed). */
  indexModes: readonly PersistentVolumeAccessMode[]
  /** The modes as a set, for the index's containsAllAccessModes. */
  indexModeSet: ReadonlySet<PersistentVolumeAccessMode>
  /** namespace/name of the claimRef, null without one. */
  claimRefKey: string | null
  /** The claim of that name, if the state has one (whatever its uid). */
  holder: PersistentVolumeClaim | undefined
}

/**
 * What the candidates need from the cluster, indexed once per explanation: judging a volume's claimRef
 * looks its claim up, and a scan of every claim for every volume would make a large cluster quadratic.
 */
export interface ClusterLookup {
  readonly volumes: readonly PersistentVolume[]
  /** The claim of that namespace and name (claimKey "namespace/name"), of two the later, as the informer cache keeps it. */
  claimNamed(namespace: string, name: string): PersistentVolumeClaim | undefined
  volumeByName(name: string): PersistentVolume | undefined
  /** No two volumes of the state bear one name: volumeByName finds every volume of a name. */
  readonly volumeNamesUnique: boolean
  /** What judging a volume needs that is the same for every claim, worked out once per volume. */
  factsOf(volume: PersistentVolume): VolumeFacts
  /** factsOf every volume, in the state's order: a pass over all of them looks nothing up. */
  allFacts(): readonly VolumeFacts[]
  /** The claim's selector compiled once for all the volumes it is judged against, or why it cannot be. */
  selectorOf(claim: PersistentVolumeClaim): CompiledSelector | SelectorError
  /** The pods that use the claim key (PodPVCIndexFunc, generic ephemeral volumes included), in the state's order. */
  podsUsing(key: string): readonly Pod[]
  /** The volumes whose claimRef names the claim key (any uid), in the state's order. */
  volumesClaiming(key: string): readonly PersistentVolume[]
  /** The claims whose spec.volumeName is the volume, in the state's order. */
  claimsNaming(volumeName: string): readonly PersistentVolumeClaim[]
  /** The volumes of a class (getPersistentVolumeClass; "" for none), in the state's order. */
  volumesOfClass(name: string): readonly PersistentVolume[]
  /** The first StorageClass of that name in the state, as a scan of the classes finds it. */
  classNamed(name: string): StorageClass | undefined
  /** Every default class, in getDefaultClass's order of preference (defaultClassesNewestFirst). */
  defaultClasses(): readonly StorageClass[]
  /** The first Node of that name in the state. */
  nodeNamed(name: string): Node | undefined
}

/** The lookup of a state; of two objects with one name the later wins, as in the informer cache. */
export function clusterLookup(state: ClusterState): ClusterLookup {
  // By namespace and name: no key string built per claim, nor per lookup of a claimRef's claim.
  const claims = new ClaimKeyIndex<PersistentVolumeClaim>()
  for (let i = 0; i < state.claims.length; i++) {
    const c = state.claims[i]
    claims.set(c.metadata.namespace ?? '', c.metadata.name ?? '', c)
  }
  const volumes = new Map(state.volumes.map((v) => [v.metadata.name ?? '', v]))
  const factsOf = volumeFactsOf(claims)
  let all: VolumeFacts[] | undefined
  const allFacts = () => (all ??= state.volumes.map(factsOf))
  const selectorOf = claimSelectorOf()
  // Built when first asked: a single explanation that needs neither does not pay for them.
  let pods: Map<string, Pod[]> | undefined
  const podsUsing = (key: string): readonly Pod[] => {
    pods ??= groupBy(state.pods.flatMap((pod) => podClaimKeys(pod).map((k): [string, Pod] => [k, pod])))
    return pods.get(key) ?? []
  }
  let claiming: Map<string, PersistentVolume[]> | undefined
  const volumesClaiming = (key: string): readonly PersistentVolume[] => {
    claiming ??= groupByKey(state.volumes, (v) => (v.spec.claimRef == null ? undefined : claimRefKey(v.spec.claimRef)))
    return claiming.get(key) ?? []
  }
  let naming: Map<string, PersistentVolumeClaim[]> | undefined
  const claimsNaming = (volumeName: string): readonly PersistentVolumeClaim[] => {
    naming ??= groupByKey(state.claims, (c) => ((c.spec.volumeName ?? '') === '' ? undefined : c.spec.volumeName))
    return naming.get(volumeName) ?? []
  }
  let ofClass: Map<string, PersistentVolume[]> | undefined
  const volumesOfClass = (name: string): readonly PersistentVolume[] => {
    ofClass ??= groupByKey(state.volumes, getPersistentVolumeClass)
    return ofClass.get(name) ?? []
  }
  // Asked for by every claim's decision, of a handful of classes and nodes: found once.
  let classes: Map<string, StorageClass> | undefined
  let defaults: readonly StorageClass[] | undefined
  let nodes: Map<string, Node> | undefined
  const classNamed = (name: string) => (classes ??= firstByName(state.classes)).get(name)
  const defaultClasses = () => (defaults ??= defaultClassesNewestFirst(state.classes))
  const nodeNamed = (name: string) => (nodes ??= firstByName(state.nodes)).get(name)
  return {
    volumes: state.volumes,
    claimNamed: (namespace, name) => claims.get(namespace, name),
    volumeByName: (name) => volumes.get(name),
    volumeNamesUnique: volumes.size === state.volumes.length,
    factsOf,
    allFacts,
    selectorOf,
    podsUsing,
    volumesClaiming,
    claimsNaming,
    volumesOfClass,
    classNamed,
    defaultClasses,
    nodeNamed,
  }
}

/** The facts of a volume, made once per volume object; the holder of its claimRef found among the claims. */
function volumeFactsOf(claims: ClaimKeyIndex<PersistentVolumeClaim>): (volume: PersistentVolume) => VolumeFacts {
  // Keyed by object: a list of claims judges every volume once per distinct request. A Map, not a WeakMap:
  // the volumes are the state's, which lives as long as the lookup, and 100k weak entries cost every GC.
  const facts = new Map<PersistentVolume, VolumeFacts>()
  // The modes of each access-mode string, made once: a cluster's volumes offer a handful of mode sets.
  const modesOf = new Map<string, Pick<VolumeFacts, 'indexModes' | 'indexModeSet'>>()
  return (volume: PersistentVolume): VolumeFacts => {
    let f = facts.get(volume)
    if (f === undefined) {
      const accessModes = getAccessModesAsString(volume.spec.accessModes)
      const ref = volume.spec.claimRef
      let modes = modesOf.get(accessModes)
      if (modes === undefined) {
        const indexModes = getAccessModesFromString(accessModes)
        modes = {indexModes, indexModeSet: new Set(indexModes)}
        modesOf.set(accessModes, modes)
      } else {
        // Made for an earlier volume offering the same modes.
      }
      const key = ref == null ? null : claimRefKey(ref)
      f = {
        volume,
        accessModes,
        indexModes: modes.indexModes,
        indexModeSet: modes.indexModeSet,
        claimRefKey: key,
        holder: ref == null ? undefined : claims.get(ref.namespace ?? '', ref.name ?? ''),
      }
      facts.set(volume, f)
    }
    return f
  }
}

/** The claim's label selector, compiled once per claim object (or the error that keeps it from compiling). */
function claimSelectorOf(): (claim: PersistentVolumeClaim) => CompiledSelector | SelectorError {
  const selectors = new WeakMap<PersistentVolumeClaim, CompiledSelector | SelectorError>()
  return (claim: PersistentVolumeClaim): CompiledSelector | SelectorError => {
    let compiled = selectors.get(claim)
    if (compiled === undefined) {
      try {
        compiled = compileLabelSelector(claim.spec.selector)
      } catch (err) {
        if (!(err instanceof SelectorError)) throw err
        compiled = err
      }
      selectors.set(claim, compiled)
    }
    return compiled
  }
}

/** The first object of each name, as a scan of the objects finds it. */
function firstByName<T extends {metadata: {name?: string}}>(objects: readonly T[]): Map<string, T> {
  const byName = new Map<string, T>()
  for (const o of objects) if (!byName.has(o.metadata.name ?? '')) byName.set(o.metadata.name ?? '', o)
  return byName
}

/** The values by their key (none: left out), each group in the order given; one pass, no entry made per value. */
function groupByKey<T>(values: readonly T[], keyOf: (value: T) => string | undefined): Map<string, T[]> {
  const groups = new Map<string, T[]>()
  for (const value of values) {
    const key = keyOf(value)
    if (key === undefined) continue
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [value])
    else group.push(value)
  }
  return groups
}

/** The values by key, each group in the order given (a value repeated in a row kept once). */
export function groupBy<T>(entries: ReadonlyArray<[string, T]>): Map<string, T[]> {
  const groups = new Map<string, T[]>()
  for (const [key, value] of entries) {
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [value])
    else if (group[group.length - 1] !== value) group.push(value)
  }
  return groups
}

/** Every default class, in getDefaultClass's order of preference (newest first). */
export function defaultClassesNewestFirst(classes: readonly StorageClass[]): StorageClass[] {
  const remaining = classes.filter(isDefaultStorageClass)
  const ordered: StorageClass[] = []
  // Every one of `remaining` is a default: getDefaultClass answers one of them until none is left.
  for (let next = getDefaultClass(remaining); next !== undefined; next = getDefaultClass(remaining)) {
    ordered.push(next)
    remaining.splice(remaining.indexOf(next), 1)
  }
  return ordered
}
