// The storage layer: what etcd plus the apiserver's watch cache give the registry.
//  - One global revision counter. Every committed write takes the next revision, which becomes the
//    object's metadata.resourceVersion (etcd's mod_revision), so resourceVersions are comparable across
//    kinds, as on a real cluster.
//  - A bounded history of change events (the watch cache window, `historyLimit` events). It serves watches
//    from a past resourceVersion, and consistent LIST snapshots at a past resourceVersion (paginated lists
//    read at the revision of their first page, like etcd's MVCC reads): undo the events newer than it.
//  - Anything older than the window is "compacted": such watches and continue tokens get 410 Expired.
// Objects held here are never mutated after a commit; callers get copies.
import {EventEmitter} from 'node:events'

import {clone, type K8sObject} from './types.js'

export type StoreEventType = 'ADDED' | 'MODIFIED' | 'DELETED'

export interface StoreEvent {
  readonly rv: number
  readonly type: StoreEventType
  /** The resource's id in the resource table (e.g. `persistentvolumes`, `storageclasses.storage.k8s.io`). */
  readonly resource: string
  /** `name` for cluster-scoped objects, `namespace/name` otherwise: the etcd key order. */
  readonly key: string
  /** The object after the change; for DELETED, the last state stamped with the deletion revision. */
  readonly object: K8sObject
  /** The object before the change (absent for ADDED). */
  readonly prev?: K8sObject
}

/** etcd's key order: byte order of the keys (all ASCII here, so UTF-16 order is the same). */
function byKey(entries: Array<[string, K8sObject]>): Array<[string, K8sObject]> {
  return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
}

/** Keys written since a kind was ordered beyond which it is ordered afresh (a sort) rather than patched. */
const PUT_IN_PLACE_LIMIT = 1000

/** The index of the first entry whose key is not below `key` (binary search over the key order). */
export function lowerBound(entries: ReadonlyArray<readonly [string, unknown]>, key: string): number {
  let lo = 0
  let hi = entries.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (entries[mid][0] < key) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** `key` set to `object` (undefined: removed) in a key-ordered array, in place. */
function putInOrder(entries: Array<readonly [string, K8sObject]>, key: string, object: K8sObject | undefined): void {
  const i = lowerBound(entries, key)
  const present = i < entries.length && entries[i][0] === key
  if (object === undefined) {
    if (present) entries.splice(i, 1)
  } else if (present) {
    entries[i] = [key, object]
  } else {
    entries.splice(i, 0, [key, object])
  }
}

export class Store {
  private revision: number
  private compacted: number
  private readonly data = new Map<string, Map<string, K8sObject>>()
  /**
   * Each resource's objects in key order, kept across writes (their keys put in place, in a copy):
   * every page of a paginated LIST reads this order, and sorting 100k keys per page would make a list
   * quadratic (the apiserver's watch cache and etcd both keep their keys ordered too).
   */
  private readonly sorted = new Map<string, ReadonlyArray<readonly [string, K8sObject]>>()
  /** The keys written since `sorted` was made or brought up to date, per resource. */
  private readonly changedSinceSorted = new Map<string, string[]>()
  private readonly history: StoreEvent[] = []
  /**
   * The last past snapshot made of each resource, by revision: the pages of one paginated LIST all read
   * the same revision, and remaking it (a copy of the kind and a sort) for each page after a write would
   * cost a page the whole list's size. A past revision's objects never change, so it stays right.
   */
  private readonly pastSnapshots = new Map<string, {rv: number; entries: ReadonlyArray<readonly [string, K8sObject]>}>()
  /** Emits `event` with a StoreEvent after each commit, synchronously, so watchers never miss one. */
  readonly events = new EventEmitter()

  constructor(private readonly historyLimit: number) {
    // Revision 1 is the empty store, as for a fresh etcd; nothing before it can be asked for.
    this.revision = 1
    this.compacted = 1
    this.events.setMaxListeners(0)
  }

  /** The latest committed revision. */
  get resourceVersion(): number {
    return this.revision
  }

  /** Revisions below this are gone from the history: watches and snapshots there are Expired. */
  get oldestAvailable(): number {
    return this.compacted
  }

  private bucket(resource: string): Map<string, K8sObject> {
    let b = this.data.get(resource)
    if (!b) {
      b = new Map()
      this.data.set(resource, b)
    }
    return b
  }

  get(resource: string, key: string): K8sObject | undefined {
    return this.data.get(resource)?.get(key)
  }

  /** The current objects of a resource, in key order (shared until the next write: do not modify it). */
  current(resource: string): ReadonlyArray<readonly [string, K8sObject]> {
    let entries = this.sorted.get(resource)
    const changed = this.changedSinceSorted.get(resource)
    if (!entries) {
      entries = byKey([...this.bucket(resource).entries()])
      this.sorted.set(resource, entries)
      this.changedSinceSorted.set(resource, [])
    } else if (changed !== undefined && changed.length > 0) {
      // A copy (a page being read, or a past snapshot, may hold the old one) with each changed key put in place.
      const next = [...entries]
      const bucket = this.bucket(resource)
      for (const key of changed) putInOrder(next, key, bucket.get(key))
      changed.length = 0
      this.sorted.set(resource, (entries = next))
    } else {
      // Unchanged since ordered.
    }
    return entries
  }

  /**
   * Writes (or, with `object` undefined, deletes) one object at the next revision and records the event.
   * Returns the stored object (for a delete: the last state stamped with the deletion revision).
   */
  commit(resource: string, key: string, object: K8sObject | undefined): K8sObject {
    const bucket = this.bucket(resource)
    const prev = bucket.get(key)
    if (!object && !prev) throw new Error(`store: delete of missing ${resource} ${key}`)
    const rv = ++this.revision
    let stored: K8sObject
    let type: StoreEventType
    if (object) {
      stored = clone(object)
      stored.metadata.resourceVersion = String(rv)
      bucket.set(key, stored)
      type = prev ? 'MODIFIED' : 'ADDED'
    } else {
      stored = clone(prev!)
      stored.metadata.resourceVersion = String(rv)
      bucket.delete(key)
      type = 'DELETED'
    }
    // The key order is kept: the key is put in place when the order is next read (current()), unless
    // so many changed that ordering afresh costs less.
    const changed = this.changedSinceSorted.get(resource)
    if (changed === undefined) {
      // Not ordered yet: current() orders it when first asked.
    } else if (changed.length < PUT_IN_PLACE_LIMIT) {
      changed.push(key)
    } else {
      this.sorted.delete(resource)
      this.changedSinceSorted.delete(resource)
    }
    const event: StoreEvent = {rv, type, resource, key, object: stored, ...(prev ? {prev} : {})}
    this.history.push(event)
    while (this.history.length > this.historyLimit) this.compacted = this.history.shift()!.rv
    this.events.emit('event', event)
    return stored
  }

  /**
   * The objects of a resource as they were at revision `rv`, in key order; undefined when `rv` is older
   * than the retained history (the caller answers 410 Expired).
   */
  snapshot(resource: string, rv: number): ReadonlyArray<readonly [string, K8sObject]> | undefined {
    if (rv < this.compacted) return undefined
    const newer: StoreEvent[] = []
    for (let i = this.history.length - 1; i >= 0 && this.history[i].rv > rv; i--) {
      if (this.history[i].resource === resource) newer.push(this.history[i])
    }
    // Writes to other kinds since rv (the usual case while a list pages on): this kind is as it is now.
    if (newer.length === 0) return this.current(resource)
    const made = this.pastSnapshots.get(resource)
    if (made?.rv === rv) return made.entries
    // The current order, with the newer events undone, newest first: a copy, no sort.
    const entries = [...this.current(resource)]
    for (const e of newer) putInOrder(entries, e.key, e.prev)
    this.pastSnapshots.set(resource, {rv, entries})
    return entries
  }

  /** The events after revision `rv` (all resources), or undefined when some of them are compacted away. */
  eventsAfter(rv: number): StoreEvent[] | undefined {
    if (rv < this.compacted) return undefined
    return this.history.filter((e) => e.rv > rv)
  }

  /** Forgets the whole history, as an etcd compaction at the current revision would (for 410 tests). */
  compact(): void {
    this.history.length = 0
    this.compacted = this.revision
  }
}
