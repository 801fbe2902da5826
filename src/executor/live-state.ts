// The executor's picture of the cluster while it writes, and what a sync reads and writes of it.
import {claimKey, type ClusterState, type PersistentVolume, type PersistentVolumeClaim} from '../engine/api/model.js'
import {present} from '../engine/api/invariant.js'
import {type Action, type ObjectRef, refKey} from '../engine/simulation/plan.js'

/** The live objects, kept current with every read and write, as the controller's cache is. */
export class LiveState {
  readonly volumes = new Map<string, PersistentVolume>()
  readonly claims = new Map<string, PersistentVolumeClaim>()
  /**
   * What this run has read or written (undefined: found gone), by ref key: newer than any base. Kept only
   * when the state may be rebased (loop mode's one sync), not for the writes of a whole cluster.
   */
  private readonly own: Map<string, PersistentVolume | PersistentVolumeClaim | undefined> | undefined

  constructor(
    public base: ClusterState,
    rebased: boolean,
  ) {
    this.own = rebased ? new Map() : undefined
    this.load(base)
  }

  /** Starts again from another base, keeping what this run has read or written. */
  rebase(base: ClusterState): void {
    this.base = base
    this.volumes.clear()
    this.claims.clear()
    this.load(base)
    for (const [key, obj] of present(this.own, 'a state built to be rebased keeps its own reads'))
      this.put(refOfSync(key), obj)
  }

  snapshot(): ClusterState {
    return {...this.base, volumes: [...this.volumes.values()], claims: [...this.claims.values()]}
  }

  get(ref: ObjectRef): PersistentVolume | PersistentVolumeClaim | undefined {
    return ref.kind === 'PersistentVolume'
      ? this.volumes.get(ref.name)
      : this.claims.get(`${ref.namespace}/${ref.name}`)
  }

  set(ref: ObjectRef, obj: PersistentVolume | PersistentVolumeClaim | undefined): void {
    this.own?.set(refKey(ref), obj)
    this.put(ref, obj)
  }

  private load(base: ClusterState): void {
    for (const v of base.volumes) this.volumes.set(v.metadata.name ?? '', v)
    for (const c of base.claims) this.claims.set(claimKey(c), c)
  }

  private put(ref: ObjectRef, obj: PersistentVolume | PersistentVolumeClaim | undefined): void {
    const key = ref.kind === 'PersistentVolume' ? ref.name : `${ref.namespace}/${ref.name}`
    const map = (ref.kind === 'PersistentVolume' ? this.volumes : this.claims) as Map<
      string,
      PersistentVolume | PersistentVolumeClaim
    >
    if (obj === undefined) map.delete(key)
    else map.set(key, obj)
  }
}

export function refOfSync(sync: string): ObjectRef {
  if (sync.startsWith('pv/')) return {kind: 'PersistentVolume', name: sync.slice(3)}
  const [namespace, name] = sync.slice(4).split('/')
  return {kind: 'PersistentVolumeClaim', namespace, name}
}

/**
 * The object a sync reads by name: the claim's volume (spec.volumeName), the volume's claim
 * (spec.claimRef). Its decisions depend on it, so a unit holds it as it holds what it writes.
 */
export function namedBy(sync: string, state: LiveState): string | undefined {
  const ref = refOfSync(sync)
  if (ref.kind === 'PersistentVolume') {
    const claimRef = state.volumes.get(ref.name)?.spec.claimRef
    return claimRef?.name ? `pvc/${claimRef.namespace ?? ''}/${claimRef.name}` : undefined
  } else {
    const volumeName = state.claims.get(`${ref.namespace}/${ref.name}`)?.spec.volumeName
    return volumeName ? `pv/${volumeName}` : undefined
  }
}

/** What a plan of one sync touches: the sync's object, the object it names, every object written. */
export function touchedBy(sync: string, actions: readonly Action[], state: LiveState): Set<string> {
  const named = namedBy(sync, state)
  return new Set([sync, ...(named !== undefined ? [named] : []), ...actions.map((a) => refKey(a.object))])
}
