// An ordered collection with O(log n) search and cheap insertion and removal: a list of sorted chunks
// (the layout of Python's sortedcontainers). The matching index keeps its candidate volumes in these,
// ordered by capacity then name, and takes volumes out and puts them back as the controller writes.
//
// A plain sorted array would move half the array on every insertion or removal; one chunk moves at most
// a few hundred entries, and a binary search over the chunks' last entries finds the chunk.

const CHUNK = 256

export class SortedList<T> {
  private chunks: T[][] = []
  /** The last (greatest) entry of each chunk, for the binary search over chunks. */
  private lasts: T[] = []
  private count = 0

  /** `compare` must be a total order in which no two distinct entries are equal. */
  constructor(
    private readonly compare: (a: T, b: T) => number,
    items: readonly T[] = [],
  ) {
    this.insertAll(items)
  }

  /** Inserts every item: into an empty list with one sort, not one search and splice per item. */
  insertAll(items: readonly T[]): void {
    if (items.length === 0) {
      // Nothing to insert.
    } else if (this.count === 0) {
      const sorted = [...items].sort(this.compare)
      this.chunks = []
      for (let i = 0; i < sorted.length; i += CHUNK) this.chunks.push(sorted.slice(i, i + CHUNK))
      this.lasts = this.chunks.map((c) => c[c.length - 1])
      this.count = sorted.length
    } else {
      for (const item of items) this.insert(item)
    }
  }

  get size(): number {
    return this.count
  }

  insert(item: T): void {
    if (this.chunks.length === 0) {
      this.chunks.push([item])
      this.lasts.push(item)
      this.count = 1
      return
    } else {
      // Into the first chunk whose last entry is not smaller, or the last chunk.
    }
    let c = this.lowerIndexOf(this.lasts, item)
    if (c === this.chunks.length) c--
    const chunk = this.chunks[c]
    chunk.splice(this.lowerIndexOf(chunk, item), 0, item)
    this.lasts[c] = chunk[chunk.length - 1]
    this.count++
    if (chunk.length > 2 * CHUNK) {
      const tail = chunk.splice(CHUNK)
      this.chunks.splice(c + 1, 0, tail)
      this.lasts.splice(c, 1, chunk[chunk.length - 1], tail[tail.length - 1])
    } else {
      // Small enough.
    }
  }

  /** Removes the entry equal to `item` (by the order); false when there is none. */
  remove(item: T): boolean {
    const c = this.lowerIndexOf(this.lasts, item)
    if (c === this.chunks.length) return false
    const chunk = this.chunks[c]
    // The item itself, most often (the one inserted): found by identity in the chunk's few hundred
    // pointers, without reading the entries a binary search would compare (a cache miss each).
    let i = chunk.indexOf(item)
    if (i < 0) {
      i = this.lowerIndexOf(chunk, item)
      if (i === chunk.length || this.compare(chunk[i], item) !== 0) return false
    } else {
      // Found as inserted.
    }
    chunk.splice(i, 1)
    this.count--
    if (chunk.length === 0) {
      this.chunks.splice(c, 1)
      this.lasts.splice(c, 1)
    } else {
      this.lasts[c] = chunk[chunk.length - 1]
    }
    return true
  }

  /**
   * The entries from the first one for which `atLeast` holds, in order. `atLeast` must be monotone over
   * the order (false, ..., false, true, ..., true), as "capacity >= request" is over (capacity, name).
   */
  *from(atLeast: (item: T) => boolean): Generator<T> {
    let c = this.firstChunk(atLeast)
    if (c === this.chunks.length) return
    let i = lowerIndex(this.chunks[c], atLeast)
    for (; c < this.chunks.length; c++, i = 0) {
      const chunk = this.chunks[c]
      for (; i < chunk.length; i++) yield chunk[i]
    }
  }

  /** The first entry for which `atLeast` holds (see from()), without a generator. */
  first(atLeast: (item: T) => boolean): T | undefined {
    const c = this.firstChunk(atLeast)
    if (c === this.chunks.length) return undefined
    const chunk = this.chunks[c]
    return chunk[lowerIndex(chunk, atLeast)]
  }

  /** Every entry, in order. */
  *[Symbol.iterator](): Generator<T> {
    for (const chunk of this.chunks) yield* chunk
  }

  private firstChunk(atLeast: (item: T) => boolean): number {
    return lowerIndex(this.lasts, atLeast)
  }

  /** lowerIndex(array, (x) => compare(x, item) >= 0) without a closure per call: insert and remove run
   * for most volume writes of a plan. */
  private lowerIndexOf(array: readonly T[], item: T): number {
    let lo = 0
    let hi = array.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.compare(array[mid], item) >= 0) hi = mid
      else lo = mid + 1
    }
    return lo
  }
}

/** The index of the first element for which the monotone `atLeast` holds (length when none does). */
export function lowerIndex<T>(array: readonly T[], atLeast: (item: T) => boolean): number {
  let lo = 0
  let hi = array.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (atLeast(array[mid])) hi = mid
    else lo = mid + 1
  }
  return lo
}
