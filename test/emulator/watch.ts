// WATCH: an HTTP 200 chunked stream of newline-terminated JSON events {type, object}, as the apiserver's
// watch cache (cacher.go, watch_cache.go) serves it:
//  - resourceVersion unset or "0": synthetic ADDED events for the current objects, then changes;
//  - resourceVersion N: the changes after N, replayed from history, then live ones;
//  - N older than the history window: one ERROR event carrying a 410 Expired Status, then the stream ends
//    ("too old resource version: N (M)"), since errors found after the request was accepted are events;
//  - N newer than the store: one ERROR event with a 504 Timeout Status ("Too large resource version");
//  - with selectors, an object that starts matching arrives as ADDED and one that stops as DELETED (with
//    its previous content at the new resourceVersion), as cacheWatcher.convertToWatchEvent does;
//  - allowWatchBookmarks: periodic BOOKMARK events carrying only the current resourceVersion, and with
//    sendInitialEvents=true a bookmark annotated k8s.io/initial-events-end after the initial ADDED events;
//  - timeoutSeconds ends the stream cleanly.
import type {ServerResponse} from 'node:http'

import {parseResourceVersion} from './registry.js'
import {apiVersionOf, fieldSetOf, selectableFields, type ResourceDef} from './resources.js'
import {parseFieldSelector, parseLabelSelector} from './selectors.js'
import {expired, timeout, type Status} from './status-errors.js'
import type {Store, StoreEvent} from './store.js'
import type {JsonObject, K8sObject} from './types.js'

export interface WatchRequest {
  def: ResourceDef
  namespace: string
  /** A single object: the legacy /watch/<resource>/<name> form or a metadata.name field selector. */
  name: string
  labelSelector?: string
  fieldSelector?: string
  resourceVersion?: string
  allowWatchBookmarks: boolean
  sendInitialEvents?: boolean
  timeoutSeconds?: number
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR'

export interface WatchOptions {
  store: Store
  /** Turns an object into what the client asked for (the object itself, or a Table). */
  encode: (object: K8sObject) => unknown
  bookmarkIntervalMs: number
}

/** Parses the request's selectors up front so that a bad selector is a 400, not a stream. */
export function compileWatchFilter(req: WatchRequest): (o: K8sObject) => boolean {
  const labels = parseLabelSelector(req.labelSelector)
  const fields = parseFieldSelector(req.fieldSelector, selectableFields(req.def))
  return (o) =>
    (!req.def.namespaced || !req.namespace || o.metadata.namespace === req.namespace) &&
    (!req.name || o.metadata.name === req.name) &&
    labels.matches(o.metadata.labels) &&
    fields.matches(fieldSetOf(req.def, o))
}

/**
 * Streams a watch until the client goes away, the timeout passes or `stop` is called. Returns `stop`.
 * A bad selector or resourceVersion throws before anything is written (a plain 400 answer).
 */
export function serveWatch(res: ServerResponse, req: WatchRequest, opts: WatchOptions): () => void {
  const store = opts.store
  const def = req.def
  const matches = compileWatchFilter(req)
  const rv = req.resourceVersion
  const fromNow = rv === undefined || rv === '' || rv === '0'
  const startRv = fromNow ? undefined : parseResourceVersion(rv)
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  })
  res.flushHeaders()

  let deadline: NodeJS.Timeout | undefined
  let bookmarks: NodeJS.Timeout | undefined
  let open = true
  const write = (type: WatchEventType, object: unknown) => {
    if (open) res.write(`${JSON.stringify({type, object})}\n`)
  }
  const stop = () => {
    if (!open) return
    open = false
    store.events.off('event', onEvent)
    clearTimeout(deadline)
    clearInterval(bookmarks)
    res.end()
  }
  const fail = (status: Status) => {
    write('ERROR', status)
    stop()
  }
  const bookmark = (annotations?: Record<string, string>) => {
    const metadata: JsonObject = {resourceVersion: String(store.resourceVersion)}
    if (annotations) metadata.annotations = annotations
    write('BOOKMARK', {kind: def.kind, apiVersion: apiVersionOf(def), metadata})
  }

  /** cacheWatcher.convertToWatchEvent: selector transitions become ADDED / DELETED. */
  function toWatchEvent(e: StoreEvent): [WatchEventType, K8sObject] | undefined {
    const cur = e.type !== 'DELETED' && matches(e.object)
    const old = e.prev !== undefined && matches(e.prev)
    if (cur && !old) return ['ADDED', e.object]
    if (cur && old) return ['MODIFIED', e.object]
    if (!cur && old) return ['DELETED', {...e.prev!, metadata: {...e.prev!.metadata, resourceVersion: String(e.rv)}}]
    return undefined
  }
  function onEvent(e: StoreEvent) {
    if (e.resource !== def.id) return
    const ev = toWatchEvent(e)
    if (ev) write(ev[0], opts.encode(ev[1]))
  }

  res.on('close', stop)
  // A client that went away while the request was held (a latency fault) gets no stream, and the
  // stream's timers never keep the test process alive.
  if (res.destroyed) {
    stop()
    return stop
  }
  if (req.timeoutSeconds !== undefined && req.timeoutSeconds > 0)
    deadline = setTimeout(stop, req.timeoutSeconds * 1000).unref()

  const initialEvents = req.sendInitialEvents ?? fromNow
  if (initialEvents) {
    for (const [, o] of store.current(def.id)) if (matches(o)) write('ADDED', opts.encode(o))
    if (req.sendInitialEvents && req.allowWatchBookmarks) bookmark({'k8s.io/initial-events-end': 'true'})
  }
  if (startRv !== undefined && !initialEvents) {
    const n = startRv
    if (n > store.resourceVersion) {
      fail(timeout(`Too large resource version: ${n}, current: ${store.resourceVersion}`, 1).status)
      return stop
    }
    const history = store.eventsAfter(n)
    if (!history) {
      fail(expired(`too old resource version: ${n} (${store.oldestAvailable})`).status)
      return stop
    }
    for (const e of history) onEvent(e)
  }
  // Subscribing in the same tick as the replay: no event can fall between the two.
  store.events.on('event', onEvent)
  if (req.allowWatchBookmarks && opts.bookmarkIntervalMs > 0)
    bookmarks = setInterval(() => bookmark(), opts.bookmarkIntervalMs).unref()
  return stop
}
