// An in-memory ClusterApi with the API server's write semantics that matter to the executor:
// resourceVersion preconditions (409), status vs main resource, 404, and hooks to inject a concurrent
// writer or an error before a given write, or to hold a write in flight. (The HTTP emulator in
// test/emulator covers the wire.)
import {ConflictError, ForbiddenError, NotFoundError} from '../../src/cluster/api-errors.js'
import type {ClusterApi, CoreEvent, ResourceAttributes} from '../../src/cluster/live-api.js'
import type {Page, PageOptions} from '../../src/cluster/page.js'
import type {ClusterState, PersistentVolume, PersistentVolumeClaim} from '../../src/engine/api/model.js'

type Obj = PersistentVolume | PersistentVolumeClaim

export interface WriteCall {
  kind: 'PersistentVolume' | 'PersistentVolumeClaim'
  name: string
  namespace?: string
  status: boolean
}

export class FakeClusterApi implements ClusterApi {
  readonly server = 'https://fake.invalid'
  private rv = 1000
  readonly volumes = new Map<string, PersistentVolume>()
  readonly claims = new Map<string, PersistentVolumeClaim>()
  readonly writes: WriteCall[] = []
  readonly events: CoreEvent[] = []
  denied = new Set<string>()
  /** Runs before the n-th write (0-based) is applied; may change the store or throw. */
  beforeWrite?: (call: WriteCall, index: number) => void
  /**
   * Runs as a write arrives, before anything else: a promise returned holds the write in flight (as a
   * slow API server would) until it settles; undefined lets the write through at once.
   */
  holdWrite?: (call: WriteCall) => Promise<void> | undefined
  /** Runs before a single-object read (a GET) is answered, with the reads so far: another writer acting between two steps. */
  beforeRead?: (kind: WriteCall['kind'], key: string, index: number) => void
  /** Single-object reads (GETs), as "pv/NAME" or "pvc/NS/NAME", in order. */
  readonly reads: string[] = []

  constructor(private readonly state: ClusterState) {
    for (const v of state.volumes) this.volumes.set(v.metadata.name!, this.stamp(v))
    for (const c of state.claims) this.claims.set(`${c.metadata.namespace}/${c.metadata.name}`, this.stamp(c))
  }

  private stamp<T extends Obj>(o: T): T {
    return {...structuredClone(o), metadata: {...structuredClone(o.metadata), resourceVersion: String(++this.rv)}}
  }

  /** A write by someone else, server-side. */
  externalUpdate<T extends Obj>(
    kind: 'PersistentVolume' | 'PersistentVolumeClaim',
    key: string,
    change: (o: T) => void,
  ): void {
    const map = (kind === 'PersistentVolume' ? this.volumes : this.claims) as Map<string, Obj>
    const o = structuredClone(map.get(key)!) as T
    change(o)
    map.set(key, this.stamp(o))
  }

  /** An object created by someone else, server-side (the fake gives it its resourceVersion). */
  externalCreate(obj: Obj): void {
    if (obj.kind === 'PersistentVolume') this.volumes.set(obj.metadata.name!, this.stamp(obj as PersistentVolume))
    else this.claims.set(`${obj.metadata.namespace}/${obj.metadata.name}`, this.stamp(obj as PersistentVolumeClaim))
  }

  private read(kind: WriteCall['kind'], key: string): void {
    this.beforeRead?.(kind, key, this.reads.length)
    this.reads.push(kind === 'PersistentVolume' ? `pv/${key}` : `pvc/${key}`)
  }

  snapshot(): ClusterState {
    return {
      ...this.state,
      volumes: [...this.volumes.values()].map((v) => structuredClone(v)),
      claims: [...this.claims.values()].map((c) => structuredClone(c)),
    }
  }

  private page<T>(items: T[]): Promise<Page<T>> {
    return Promise.resolve({items: structuredClone(items)})
  }
  listVolumes(_p: PageOptions) {
    return this.page([...this.volumes.values()])
  }
  listClaims(_ns: string | undefined, _p: PageOptions) {
    return this.page([...this.claims.values()])
  }
  listClasses(_p: PageOptions) {
    return this.page([...this.state.classes])
  }
  listPods(_ns: string | undefined, _p: PageOptions) {
    return this.page([...this.state.pods])
  }
  listNodes(_p: PageOptions) {
    return this.page([...this.state.nodes])
  }
  async readVolume(name: string) {
    this.read('PersistentVolume', name)
    const v = this.volumes.get(name)
    if (v === undefined)
      throw new NotFoundError(
        `persistentvolumes "${name}" not found`,
        {verb: 'get', resource: 'persistentvolumes', name},
        404,
        'NotFound',
      )
    return structuredClone(v)
  }
  async readClaim(namespace: string, name: string) {
    this.read('PersistentVolumeClaim', `${namespace}/${name}`)
    const c = this.claims.get(`${namespace}/${name}`)
    if (c === undefined)
      throw new NotFoundError(
        `persistentvolumeclaims "${name}" not found`,
        {verb: 'get', resource: 'persistentvolumeclaims', name},
        404,
        'NotFound',
      )
    return structuredClone(c)
  }

  private async put<T extends Obj>(kind: WriteCall['kind'], obj: T, status: boolean): Promise<T> {
    const key = kind === 'PersistentVolume' ? obj.metadata.name! : `${obj.metadata.namespace}/${obj.metadata.name}`
    const call: WriteCall = {kind, name: obj.metadata.name!, namespace: obj.metadata.namespace, status}
    // Only a held write awaits: the others apply in the same tick, as before holds existed.
    const held = this.holdWrite?.(call)
    if (held !== undefined) await held
    const resource = kind === 'PersistentVolume' ? 'persistentvolumes' : 'persistentvolumeclaims'
    if (this.denied.has(`${resource}${status ? '/status' : ''}`)) {
      throw new ForbiddenError(`update ${resource}: forbidden`, {verb: 'update', resource}, 403, 'Forbidden')
    }
    this.beforeWrite?.(call, this.writes.length)
    this.writes.push(call)
    const map = (kind === 'PersistentVolume' ? this.volumes : this.claims) as Map<string, Obj>
    const stored = map.get(key)
    if (stored === undefined)
      throw new NotFoundError(
        `${resource} "${obj.metadata.name}" not found`,
        {verb: 'update', resource},
        404,
        'NotFound',
      )
    if (obj.metadata.resourceVersion !== stored.metadata.resourceVersion) {
      throw new ConflictError(
        `Operation cannot be fulfilled on ${resource} "${obj.metadata.name}": the object has been modified`,
        {verb: 'update', resource},
        409,
        'Conflict',
      )
    }
    // The status subresource changes only status; the main resource ignores status.
    const next = status
      ? {...structuredClone(stored), status: structuredClone(obj.status)}
      : {...structuredClone(obj), status: structuredClone(stored.status)}
    const saved = this.stamp(next as T)
    map.set(key, saved)
    return structuredClone(saved)
  }

  async replaceVolume(v: PersistentVolume) {
    return this.put('PersistentVolume', v, false)
  }
  async replaceVolumeStatus(v: PersistentVolume) {
    return this.put('PersistentVolume', v, true)
  }
  async replaceClaim(c: PersistentVolumeClaim) {
    return this.put('PersistentVolumeClaim', c, false)
  }
  async replaceClaimStatus(c: PersistentVolumeClaim) {
    return this.put('PersistentVolumeClaim', c, true)
  }
  async createEvent(e: CoreEvent) {
    this.events.push(structuredClone(e))
    return e
  }
  async patchEventCount(namespace: string, name: string, count: number) {
    const e = this.events.find((x) => x.metadata.namespace === namespace && x.metadata.name === name)
    if (e) e.count = count
  }
  async canI(a: ResourceAttributes) {
    return !this.denied.has(`${a.resource}${a.subresource ? `/${a.subresource}` : ''}`)
  }
}
