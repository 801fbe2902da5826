// An informer: client-go's Reflector (ListAndWatch) and its store, for one kind.
//
//   list     paginated (limit 500), every page from the snapshot of the first; the store is replaced
//            by the result: objects gone since are deleted, every other one is delivered as an update
//            (a relist is a resync of everything, as DeltaFIFO.Replace makes it)
//   watch    from the list's resourceVersion; every event moves the last-seen resourceVersion on
//            (bookmarks too)
//   resume   a watch the server ends — cleanly at its timeout, or by a broken connection — is resumed
//            from the last resourceVersion seen, so that no event is lost or seen twice (as the
//            reflector does; a watch that ends at once, empty, is resumed after a back-off)
//   relist   on 410 Gone (that resourceVersion left the server's history: as an ERROR event or as the
//            answer), after a watch or list that fails to start (with back-off, 0.8 s doubling to 30 s,
//            as the reflector's), and on request (relist())
//   beside   loop mode's --relist-period lists beside the watch (listBesideWatch()): the watch goes on
//            while the pages come, so that an event during a LIST of 100k objects is not held until the
//            list ends; the list is merged by resourceVersion (what the watch brought after the list's
//            snapshot stays). client-go's reflector lists only when its watch asks; a periodic relist
//            is for a path that may not deliver every event, and must not stop watching. Each page is
//            merged as it comes, in slices of MERGE_SLICE objects with a turn of the event loop between them, so that
//            a watch event is not held behind the merge of 100k objects either; each slice decides on the
//            store as the watch has left it by then
//   unchanged an object listed at the resourceVersion the store holds stays the object held (the same
//            one: no copy replaces it, its handlers get it as both old and new): the loop puts it in
//            the bulk lane, and the listed copy is garbage at once rather than the held one in the old
//            generation
//
// Handlers run synchronously in the order events arrive; they only enqueue keys.
import {setImmediate as yieldToEventLoop} from 'node:timers/promises'

import {ApiError, MalformedAnswerError} from '../../cluster/api-errors.js'
import type {WatchApi, WatchEvent, WatchedResource} from '../../cluster/live-api.js'
import type {Page, PageOptions} from '../../cluster/page.js'
import {listKind} from '../../cluster/live-loader.js'
import type {Logger} from '../../log.js'
import {abortableSleep} from '../../cluster/abortable-sleep.js'

export interface WireObject {
  metadata: {name?: string; namespace?: string; resourceVersion?: string; [field: string]: unknown}
}

/** Each is given the object's key in the store as well: the very string the store holds it under. */
export interface InformerHandlers<T> {
  onAdd?(obj: T, key: string): void
  onUpdate?(old: T, obj: T, key: string): void
  onDelete?(obj: T, key: string): void
}

export interface InformerMetrics {
  relisted(resource: string, reason: string): void
  watchEvent(resource: string, type: string): void
}

export interface InformerOptions<T> {
  resource: WatchedResource
  list: (page: PageOptions) => Promise<Page<T>>
  watchApi: WatchApi
  namespace?: string
  labelSelector?: string
  /** Objects per LIST page (--chunk-size); 0: one request. Default: live-loader's PAGE_SIZE. */
  chunkSize?: number
  handlers?: InformerHandlers<T>
  log: Logger
  metrics?: InformerMetrics
  /** The server ends each watch after a random 5–10 minutes (client-go's minWatchTimeout). */
  watchTimeoutSeconds?: () => number
  /** Back-off after a failed list or watch (defaults: 800 ms doubling to 30 s). */
  backOffMs?: {initial: number; max: number}
}

/** Listed objects merged per turn of the event loop by a list beside the watch. */
export const MERGE_SLICE = 2000

/** Thrown inside the loop: the watch asked for a relist. */
class Gone extends Error {}

export function objectKey(o: WireObject): string {
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name ?? ''}` : (o.metadata.name ?? '')
}

export class Informer<T extends WireObject> {
  readonly store = new Map<string, T>()
  private lastRv = ''
  private needList = true
  private listReason = 'initial'
  private synced = false
  private stopped = false
  private running: Promise<void> | undefined
  private watchAbort: AbortController | undefined
  private readonly stopAbort = new AbortController()
  private relistWaiters: Array<() => void> = []
  private syncWaiters: Array<{resolve: () => void; reject: (e: Error) => void}> = []
  private failures = 0
  /** Keys the watch deleted while a list beside it was under way, with the deletion's resourceVersion. */
  private deletedDuringList: Map<string, number> | undefined
  private listsBesideWatch = 0
  /** Counts the lists that replaced the store: a merge under way when one does is out of date, and stops. */
  private replaced = 0

  constructor(private readonly opts: InformerOptions<T>) {}

  get resource(): WatchedResource {
    return this.opts.resource
  }

  get hasSynced(): boolean {
    return this.synced
  }

  /** The resourceVersion the store reflects. */
  get resourceVersion(): string {
    return this.lastRv
  }

  /** Starts list-and-watch; resolves once the first list is in the store, rejects if it fails. */
  start(): Promise<void> {
    if (this.running === undefined) this.running = this.loop()
    return new Promise((resolve, reject) => {
      if (this.synced) resolve()
      else this.syncWaiters.push({resolve, reject})
    })
  }

  /** Lists again (ending the current watch); resolves when that list is in the store (or failed). */
  relist(reason: string): Promise<void> {
    if (this.stopped) return Promise.resolve()
    return new Promise((resolve) => {
      this.relistWaiters.push(resolve)
      this.needList = true
      this.listReason = reason
      this.watchAbort?.abort()
    })
  }

  /**
   * A LIST while the watch goes on (--relist-period); resolves when it is merged into the store. Before the first
   * list, or when resourceVersions are not numbers (the merge compares them, as the PV controller's
   * storeObjectUpdate does), or when the list fails, it is relist(): the watch ends, the list is retried.
   */
  async listBesideWatch(reason: string): Promise<void> {
    if (this.stopped) return
    if (!this.synced) return this.relist(reason)
    const {log, resource} = this.opts
    this.listsBesideWatch++
    this.deletedDuringList ??= new Map()
    const deleted = this.deletedDuringList
    // Each page is merged as it comes (its copies of unchanged objects are garbage at once, young, and
    // the pass's keys are queued while the rest is listed); the watch's deletions are recorded until
    // the merge is done. A full list after an expired continue token is a new snapshot: merged the same.
    const replaced = this.replaced
    const current = () => !this.stopped && this.replaced === replaced
    let listRv = Number.NaN
    let seen = new Set<string>()
    let valid = true
    const mergePage = async (p: PageOptions): Promise<Page<T>> => {
      const page = await this.opts.list(p)
      if (p.continueToken === undefined) {
        listRv = Number(page.resourceVersion)
        seen = new Set()
      }
      if (!valid) {
        // A page without comparable resourceVersions came: relisted at the end, nothing more merged.
      } else if (
        !Number.isFinite(listRv) ||
        page.items.some((o) => !Number.isFinite(Number(o.metadata.resourceVersion)))
      ) {
        valid = false // the merge compares resourceVersions: relisted instead
      } else if (current()) {
        await this.mergeItems(page.items, listRv, deleted, seen, current)
      } else {
        // Stopped, or replaced: the rest of the list is not merged.
      }
      return {...page, items: []}
    }
    let listed: {resourceVersion?: string}
    try {
      try {
        listed = await listKind(mergePage, {
          chunkSize: this.opts.chunkSize,
          labelSelector: this.opts.labelSelector,
          signal: this.stopAbort.signal,
        })
      } catch (err) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() sets it while this awaits
        if (this.stopped) return
        log.v(2).info('List beside the watch failed; relisting', {resource, err})
        // eslint-disable-next-line @typescript-eslint/return-await -- the list's bookkeeping (finally) ends as the relist starts
        return this.relist(reason)
      }
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition, @typescript-eslint/return-await -- mergePage clears it; see above
      if (!valid) return this.relist(reason)
      if (!current() || !(await this.dropUnlisted(listRv, seen, current))) {
        // Stopped, or a list the watch restarted from replaced the store meanwhile: it is newer than this one.
        return
      }
    } finally {
      if (--this.listsBesideWatch === 0) this.deletedDuringList = undefined
    }
    this.opts.metrics?.relisted(resource, reason)
    log.v(4).info('Listed', {resource, reason, resourceVersion: listed.resourceVersion, objects: this.store.size})
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.stopAbort.abort()
    this.watchAbort?.abort()
    for (const w of this.relistWaiters.splice(0)) w()
    await this.running
  }

  private async loop(): Promise<void> {
    const {log, resource} = this.opts
    const backOff = this.opts.backOffMs ?? {initial: 800, max: 30_000}
    while (!this.stopped) {
      try {
        if (this.needList) {
          this.needList = false
          const reason = this.listReason
          await this.list()
          this.opts.metrics?.relisted(resource, reason)
          log
            .v(reason === 'initial' || reason === 'relist-period' ? 4 : 2)
            .info('Listed', {resource, reason, resourceVersion: this.lastRv, objects: this.store.size})
          this.failures = 0
          for (const w of this.relistWaiters.splice(0)) w()
          if (!this.synced) {
            this.synced = true
            for (const w of this.syncWaiters.splice(0)) w.resolve()
          }
        }
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() sets it while this awaits
        if (this.stopped) break
        const started = performance.now()
        const events = await this.watchOnce()
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() sets it while this awaits
        if (this.needList || this.stopped) continue
        // The server ended the stream (its watch timeout, a restart, a broken connection): resume from the
        // last resourceVersion seen. A watch that ends at once with nothing in it backs off first, as the
        // reflector treats a "very short watch" as an error.
        if (events === 0 && performance.now() - started < 1000) {
          this.failures++
          const wait = Math.min(backOff.max, backOff.initial * 2 ** (this.failures - 1))
          log.v(2).info('Very short watch; resuming after a back-off', {
            resource,
            resourceVersion: this.lastRv,
            retryInMs: wait,
          })
          await abortableSleep(wait, this.stopAbort.signal)
        } else {
          this.failures = 0
          log.v(4).info('Watch closed; resuming', {resource, resourceVersion: this.lastRv})
        }
      } catch (err) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() sets it while this awaits
        if (this.stopped) break
        if (err instanceof Gone) {
          log.v(2).info('Watch expired (410 Gone); relisting', {resource, resourceVersion: this.lastRv})
          this.needList = true
          this.listReason = 'expired'
          continue
        }
        this.failures++
        if (!this.synced && err instanceof ApiError && (err.status === 401 || err.status === 403 || err.status === 0)) {
          // Nothing to fall back on before the first list: let start() report it.
          for (const w of this.syncWaiters.splice(0)) w.reject(err)
          this.stopped = true
          break
        }
        const wait = Math.min(backOff.max, backOff.initial * 2 ** (this.failures - 1))
        log.error('List and watch failed; retrying', {resource, err, retryInMs: wait})
        this.needList = true
        this.listReason = 'error'
        await abortableSleep(wait, this.stopAbort.signal)
      }
    }
  }

  private async list(): Promise<void> {
    // Paged as a one-shot load is (--chunk-size), a 410 on a continue token relisting the kind whole.
    const listed = await listKind(this.opts.list, {
      chunkSize: this.opts.chunkSize,
      labelSelector: this.opts.labelSelector,
      signal: this.stopAbort.signal,
    })
    if (this.stopped) return
    this.replaced++
    this.replace(listed.items)
    this.lastRv = listed.resourceVersion ?? ''
  }

  /** DeltaFIFO.Replace: deletions for what is gone, updates (or adds) for everything listed. */
  private replace(items: readonly T[]): void {
    const h = this.opts.handlers
    const seen = new Set<string>()
    for (const listedObj of items) {
      const key = objectKey(listedObj)
      seen.add(key)
      const old = this.store.get(key)
      const obj = unchanged(old, listedObj) ? old : listedObj
      this.store.set(key, obj)
      if (old === undefined) h?.onAdd?.(obj, key)
      else h?.onUpdate?.(old, obj, key)
    }
    for (const [key, old] of this.store) {
      if (seen.has(key)) continue
      this.store.delete(key)
      h?.onDelete?.(old, key)
    }
  }

  /**
   * Replace, for a list taken beside the watch, of one page: what the watch brought after the list's
   * snapshot (an object newer than `listRv`, or deleted after it) stays as the watch left it; the rest is
   * replaced. In slices of MERGE_SLICE, the watch's events applied between them: each object is decided
   * on the store as it is when its slice runs, `deletedAfter` holding every deletion the watch has brought
   * so far. Stops when `current()` turns false (the informer stopped, or a list replaced the store).
   */
  private async mergeItems(
    items: readonly T[],
    listRv: number,
    deletedAfter: ReadonlyMap<string, number>,
    seen: Set<string>,
    current: () => boolean,
  ): Promise<void> {
    const h = this.opts.handlers
    for (let from = 0; from < items.length; from += MERGE_SLICE) {
      if (from > 0) {
        await yieldToEventLoop()
        if (!current()) return
      }
      for (const listedObj of items.slice(from, from + MERGE_SLICE)) {
        const key = objectKey(listedObj)
        seen.add(key)
        if ((deletedAfter.get(key) ?? 0) > listRv) continue // the watch deleted it after the snapshot
        const old = this.store.get(key)
        if (old !== undefined && Number(old.metadata.resourceVersion) > listRv) continue // the watch brought a newer one
        const obj = unchanged(old, listedObj) ? old : listedObj
        this.store.set(key, obj)
        if (old === undefined) h?.onAdd?.(obj, key)
        else h?.onUpdate?.(old, obj, key)
      }
    }
  }

  /**
   * The end of a merge: what the list no longer holds is deleted, unless the watch brought it after the
   * snapshot. Keys taken now, each decided when its slice runs. False when `current()` turned false.
   */
  private async dropUnlisted(listRv: number, seen: ReadonlySet<string>, current: () => boolean): Promise<boolean> {
    const h = this.opts.handlers
    const held = [...this.store.keys()]
    for (let from = 0; from < held.length; from += MERGE_SLICE) {
      await yieldToEventLoop()
      if (!current()) return false
      for (const key of held.slice(from, from + MERGE_SLICE)) {
        if (seen.has(key)) continue
        const old = this.store.get(key)
        if (old === undefined) continue // the watch deleted it meanwhile (its handlers were told)
        if (Number(old.metadata.resourceVersion) > listRv) continue // created (or changed) after the snapshot
        this.store.delete(key)
        h?.onDelete?.(old, key)
      }
    }
    return true
  }

  /** One watch, until it ends; returns how many events it brought. */
  private async watchOnce(): Promise<number> {
    const abort = new AbortController()
    this.watchAbort = abort
    if (this.needList) return 0 // a relist was asked for before the watch began
    let events = 0
    const timeoutSeconds = this.opts.watchTimeoutSeconds?.() ?? Math.round(300 * (1 + Math.random()))
    // The stream's callback must not throw (it runs in the socket's event handlers): failures are kept
    // and thrown once the watch has ended.
    let failure: Error | undefined
    try {
      await this.opts.watchApi.watch(
        this.opts.resource,
        {
          resourceVersion: this.lastRv,
          namespace: this.opts.namespace,
          labelSelector: this.opts.labelSelector,
          timeoutSeconds,
          signal: abort.signal,
        },
        (event) => {
          if (failure !== undefined || abort.signal.aborted) return
          events++
          try {
            this.apply(event)
          } catch (err) {
            failure = err as Error
            abort.abort()
          }
        },
      )
    } catch (err) {
      if (err instanceof ApiError && (err.status === 410 || err.reason === 'Expired' || err.reason === 'Gone'))
        throw new Gone()
      throw err
    }
    if (failure !== undefined) throw failure
    return events
  }

  private apply(event: WatchEvent): void {
    const {resource, handlers: h, metrics} = this.opts
    metrics?.watchEvent(resource, event.type)
    if (event.type === 'ERROR') {
      const status = event.object
      if (status.code === 410 || status.reason === 'Expired' || status.reason === 'Gone') throw new Gone()
      throw new ApiError(
        `watch ${resource}: ${status.message ?? 'error event'}`,
        {verb: 'list', resource},
        status.code ?? 500,
        status.reason ?? 'WatchError',
      )
    }
    const malformed = malformedEvent(event)
    if (malformed !== undefined) {
      // As the reflector on an event it cannot decode: end the watch; the informer lists afresh (checked).
      throw new MalformedAnswerError(
        `watch ${resource}: ${malformed}`,
        {verb: 'list', resource},
        200,
        'MalformedAnswer',
      )
    }
    const rv = event.object.metadata?.resourceVersion
    if (event.type === 'BOOKMARK') {
      if (rv) this.lastRv = rv
      return
    }
    const obj = event.object as unknown as T
    const key = objectKey(obj)
    const old = this.store.get(key)
    if (event.type === 'DELETED') {
      this.deletedDuringList?.set(key, Number(rv))
      this.store.delete(key)
      h?.onDelete?.(old ?? obj, key)
    } else if (old !== undefined && Number(old.metadata.resourceVersion) > Number(rv)) {
      // Older than the store's: a list beside the watch merged a snapshot the watch has not caught up
      // with yet. The newer object stays (the watch brings it again); never so after a list the watch
      // started from, whose events are all newer.
    } else {
      this.store.set(key, obj)
      if (old === undefined) h?.onAdd?.(obj, key)
      else h?.onUpdate?.(old, obj, key)
    }
    if (rv) this.lastRv = rv
  }
}

/** The listed copy of an object the store holds at the same resourceVersion: the held one stays. */
function unchanged<T extends WireObject>(held: T | undefined, listed: T): held is T {
  return (
    held !== undefined &&
    held.metadata.resourceVersion !== undefined &&
    held.metadata.resourceVersion === listed.metadata.resourceVersion
  )
}

/**
 * Why a watch event is not one the API server sends (a type it has no name for, an object without a name,
 * or a resourceVersion that is no string), or undefined. Taken in, it would be a cache entry without a key,
 * or a volume whose claim the cache never holds.
 */
function malformedEvent(event: WatchEvent): string | undefined {
  if (!['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'].includes(event.type))
    return `an event of type ${(JSON.stringify(event.type) as string | undefined)?.slice(0, 40)}`
  const an = /^[AEIOU]/.test(event.type) ? `an ${event.type}` : `a ${event.type}`
  const obj = event.object as unknown
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return `${an} event without an object`
  const meta = (obj as {metadata?: unknown}).metadata as {name?: unknown; resourceVersion?: unknown} | null | undefined
  if (meta !== undefined && (typeof meta !== 'object' || meta === null))
    return `${an} event whose object's metadata is no object`
  if (meta?.resourceVersion !== undefined && typeof meta.resourceVersion !== 'string')
    return `${an} event whose resourceVersion is no string`
  if (event.type !== 'BOOKMARK' && typeof meta?.name !== 'string')
    return `${an} event whose object has no metadata.name`
  return undefined
}
