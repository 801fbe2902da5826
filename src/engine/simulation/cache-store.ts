// The informer cache of one kind, as the simulated cluster keeps it: objects by key (a claim's
// namespace/name, a volume's name), each key in a slot that is made once and kept. A round's syncs and
// the checks of quiet syncs hold slots, so they follow a pointer where a lookup of the key would hash the
// string and probe a map of every object: at 100k objects such lookups were most of a replayed sync.

/** One key of the cache, what it holds now, and the simulated cluster's record of its last sync. */
export interface CacheSlot<T, S> {
  readonly key: string
  /** The object cached under the key; undefined when there is none (deleted, or not created yet). */
  object: T | undefined
  /** The last sync of this object, while it can be replayed (simulated-cluster.ts, QuietSync). */
  sync: S | undefined
  /**
   * The slot of another cache this one was last looked up from or with (a claim's volume, a volume's
   * claim): a hint, checked against the key before it is followed (simulated-cluster.ts).
   */
  peer: CacheSlot<unknown, S> | undefined
}

/**
 * The object of a slot listed with one (filledSlots) and not emptied since: the lists of a round are made
 * again when objects come or go, so a slot of one without an object is a bug.
 */
export function filledObject<T>(slot: CacheSlot<T, unknown>): T {
  const object = slot.object
  if (object === undefined) throw new Error(`invariant: the slot of ${slot.key} was listed with an object and has none`)
  return object
}

/**
 * Keys a store scans for, below which it keeps no map of them: a cluster of one sync's slice (loop mode's)
 * holds a handful of objects, and a map made for each, its keys hashed, cost more than comparing them.
 */
const SCANNED_KEYS = 8

/** A read-only Map of the cached objects by key, plus the slots behind it. */
export class CacheStore<T, S> implements ReadonlyMap<string, T> {
  /** Every slot, in the order its key was first seen (a slot is never removed, only emptied): the first `used`. */
  private list: Array<CacheSlot<T, S>>
  private used = 0
  /** The slots by key, once there are more than SCANNED_KEYS. */
  private byKey: Map<string, CacheSlot<T, S>> | undefined
  private count = 0

  /**
   * `expected`: the keys it is about to be given. A handful (a cluster of one sync's slice, loop mode's,
   * made for every sync) and its list is made at that length, where a list grown by push takes room for
   * seventeen; more, and it grows as it goes (an array made at a large length is not a fast one in V8).
   */
  constructor(expected = 0) {
    this.list = expected > 0 && expected <= SCANNED_KEYS ? new Array<CacheSlot<T, S>>(expected) : []
  }

  get size(): number {
    return this.count
  }

  get(key: string): T | undefined {
    return this.find(key)?.object
  }

  has(key: string): boolean {
    return this.find(key)?.object !== undefined
  }

  /** The slot of a key when it holds an object (one look-up, where has() and slot() are two). */
  filledSlot(key: string): CacheSlot<T, S> | undefined {
    const slot = this.find(key)
    return slot?.object !== undefined ? slot : undefined
  }

  /** The slot of a key, made (empty) when the key has none: where an object of that key would go. */
  slot(key: string): CacheSlot<T, S> {
    let slot = this.find(key)
    if (slot === undefined) {
      slot = {key, object: undefined, sync: undefined, peer: undefined}
      if (this.used < this.list.length) this.list[this.used] = slot
      else this.list.push(slot)
      this.used++
      if (this.byKey !== undefined) this.byKey.set(key, slot)
      else if (this.used > SCANNED_KEYS) this.byKey = new Map(this.slots().map((s) => [s.key, s]))
      else {
        // Few keys: scanned.
      }
    } else {
      // Made before, for an object or for a read of its absence.
    }
    return slot
  }

  /** Caches `object` under `key`; returns its slot. */
  set(key: string, object: T): CacheSlot<T, S> {
    const slot = this.slot(key)
    this.put(slot, object)
    return slot
  }

  /** Caches `object` in a slot the caller holds (one of this store's). */
  put(slot: CacheSlot<T, S>, object: T): void {
    if (slot.object === undefined) this.count++
    slot.object = object
  }

  /** Drops the object of `key` (its slot stays, empty); false when there was none. */
  delete(key: string): boolean {
    const slot = this.find(key)
    if (slot === undefined || slot.object === undefined) return false
    slot.object = undefined
    this.count--
    return true
  }

  /** Drops every slot: the store as new (a slot held elsewhere is no longer this store's). */
  clear(): void {
    this.list = []
    this.used = 0
    this.byKey = undefined
    this.count = 0
  }

  /** Lets go of every slot's last sync and peer: the cache is not synced from again by whoever kept them. */
  forgetSyncs(): void {
    for (const slot of this.slots()) {
      slot.sync = undefined
      slot.peer = undefined
    }
  }

  /** The slots that hold an object, in the order their keys were first seen. */
  filledSlots(): Array<CacheSlot<T, S>> {
    // Made at its length: a sync of loop mode lists a cache of one or two objects, and a list grown by
    // push would take room for seventeen.
    const filled = new Array<CacheSlot<T, S>>(this.count)
    const list = this.list
    let n = 0
    // Indexed: see docs/design.md, "Loops that run once".
    for (let i = 0; i < this.used; i++) if (list[i].object !== undefined) filled[n++] = list[i]
    return filled
  }

  *entries(): Generator<[string, T]> {
    for (const slot of this.slots()) if (slot.object !== undefined) yield [slot.key, slot.object]
  }

  *keys(): Generator<string> {
    for (const slot of this.slots()) if (slot.object !== undefined) yield slot.key
  }

  *values(): Generator<T> {
    for (const slot of this.slots()) if (slot.object !== undefined) yield slot.object
  }

  [Symbol.iterator](): Generator<[string, T]> {
    return this.entries()
  }

  forEach(callback: (value: T, key: string, map: ReadonlyMap<string, T>) => void, thisArg?: unknown): void {
    const list = this.list
    for (let i = 0; i < this.used; i++) {
      const slot = list[i]
      if (slot.object !== undefined) callback.call(thisArg, slot.object, slot.key, this)
    }
  }

  /** Every slot made (the list's first `used`). */
  private slots(): Array<CacheSlot<T, S>> {
    return this.used === this.list.length ? this.list : this.list.slice(0, this.used)
  }

  private find(key: string): CacheSlot<T, S> | undefined {
    if (this.byKey !== undefined) return this.byKey.get(key)
    const list = this.list
    for (let i = 0; i < this.used; i++) {
      if (list[i].key === key) return list[i]
    }
    return undefined
  }
}
