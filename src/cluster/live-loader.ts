// One load of the cluster: every kind listed in pages (limit/continue, `--chunk-size` as kubectl names it,
// 500 by default), the kinds in parallel. Volumes, classes and nodes are cluster-wide; claims and pods come
// from the namespace in scope (or all); -l narrows the claims.
//
// The pages of one kind form one consistent snapshot: the server reads every page at the first page's
// resourceVersion. When it no longer can (the continue token is older than its history: 410 Expired),
// the kind is listed again in full, in one request, as client-go's pager does (FullListIfExpired): the
// pages read so far are dropped, never mixed with a later revision.
//
// The loader reads each kind one page ahead (readAhead): the next page is asked for as soon as the head of
// the current answer says its continue token (list-head.ts), so that the server makes page N+1 while pvctl
// receives and parses page N. What the early request brings is used only if the page, parsed and checked
// in full, says that same token; otherwise, or when the page fails, the early request is aborted and its
// answer dropped. A list is every page of one snapshot, or an error.
import type {ClusterState} from '../engine/api/model.js'
import {ApiError} from './api-errors.js'
import type {ClusterApi} from './live-api.js'
import type {Page, PageOptions} from './page.js'
import {requestSignal, withRequestSignal} from './request-signal.js'

/** kubectl's default --chunk-size. */
export const PAGE_SIZE = 500

export interface LiveScope {
  namespace?: string
  labelSelector?: string
  /** Objects per page (`--chunk-size`); 0 lists each kind in one request. Default PAGE_SIZE. */
  chunkSize?: number
}

export interface ListedKind<T> {
  items: T[]
  /** The resourceVersion of the snapshot the items come from. */
  resourceVersion?: string
  /** Whether an expired continue token made the list start over in one request. */
  relisted: boolean
}

/** 410 Expired on a continue page: the snapshot the pages were read from is gone. */
const isExpiredContinue = (err: unknown, continueToken: string | undefined): boolean =>
  continueToken !== undefined && err instanceof ApiError && err.status === 410

export interface ListOptions {
  /** Objects per page; 0: one request. Default PAGE_SIZE. */
  chunkSize?: number
  labelSelector?: string
  /** Hears each page's size; a restart after 410 reports minus what it drops. */
  onPage?: (n: number) => void
  /** Stops between pages: what was listed is returned, incomplete (an informer stopping). */
  signal?: AbortSignal
  /**
   * Ask for the next page while this one is received and parsed, as soon as its head says the token
   * (list-head.ts): the server makes page N+1 while pvctl reads page N. Like every continue page, the one
   * read ahead takes no token of the rate limit (throttled-api.ts); at most one is in flight per list.
   */
  readAhead?: boolean
}

/** One request for a page: its answer, and the continue token its head said (list-head.ts), once it has. */
interface PageRequest<T> {
  continueToken: string | undefined
  page: Promise<Page<T>>
  /** The next page's token, from this answer's head, once received. */
  head?: string
  abort: AbortController
}

/** Every object of one kind, page by page, with the snapshot it comes from. */
export async function listKind<T>(fetchPage: (p: PageOptions) => Promise<Page<T>>, opts: ListOptions = {}): Promise<ListedKind<T>> {
  const chunkSize = opts.chunkSize ?? PAGE_SIZE
  const items: T[] = []
  let continueToken: string | undefined
  let resourceVersion: string | undefined
  // With readAhead, at most two requests are in flight: the page being received, and the next one, asked
  // for as soon as the head of the first says its token.
  let current: PageRequest<T> | undefined
  let next: PageRequest<T> | undefined
  // Each page's request is torn down by the caller's signal (a deadline around the whole list), if any, or
  // by the loader's own when it drops a page read ahead. Taken here, once: a page read ahead is asked for
  // from within the previous page's answer, whose signal is not its own.
  const outer = requestSignal()
  const request = (token: string | undefined): PageRequest<T> => {
    const r: PageRequest<T> = {continueToken: token, abort: new AbortController(), page: undefined as never}
    const p: PageOptions = {limit: chunkSize, continueToken: token, labelSelector: opts.labelSelector}
    if (opts.readAhead) {
      p.onContinue = (head: string) => {
        r.head = head
        if (r === current && next === undefined && opts.signal?.aborted !== true) next = request(head)
      }
      r.page = withRequestSignal(outer === undefined ? r.abort.signal : AbortSignal.any([outer, r.abort.signal]), () => fetchPage(p))
      // A page read ahead may fail before the loop awaits it: the failure is heard there (or dropped with it).
      r.page.catch(() => undefined)
    } else {
      r.page = fetchPage(p)
    }
    return r
  }
  /** A page asked for ahead and not used: torn down (its failure, the abort itself most likely, is unheard). */
  const drop = (r: PageRequest<T> | undefined) => r?.abort.abort()
  try {
    current = request(undefined)
    for (;;) {
      let page: Page<T>
      try {
        page = await current.page
      } catch (err) {
        drop(next)
        next = undefined
        if (!isExpiredContinue(err, current.continueToken)) throw err
        opts.onPage?.(-items.length)
        const full = await fetchPage({limit: 0, labelSelector: opts.labelSelector})
        opts.onPage?.(full.items.length)
        return {items: full.items, resourceVersion: full.resourceVersion, relisted: true}
      }
      // A loop, not push(...page.items): a spread passes every item as an argument, and a page of 100k
      // (--chunk-size 0) overflows the call stack.
      for (const item of page.items) items.push(item)
      opts.onPage?.(page.items.length)
      resourceVersion ??= page.resourceVersion
      continueToken = page.continueToken
      // The page read ahead is the next one only if it was asked for with the token the page says.
      if (next !== undefined && next.continueToken !== continueToken) {
        drop(next)
        next = undefined
      }
      if (continueToken === undefined || opts.signal?.aborted === true) return {items, resourceVersion, relisted: false}
      current = next ?? request(continueToken)
      next = undefined
      if (opts.readAhead && current.head !== undefined) next = request(current.head)
    }
  } finally {
    // Returned or failed: nothing asked for ahead is left pending.
    drop(next)
  }
}

/** Every object of one kind, page by page. */
export async function listAll<T>(fetchPage: (p: PageOptions) => Promise<Page<T>>, opts: ListOptions = {}): Promise<T[]> {
  return (await listKind(fetchPage, opts)).items
}

export interface LoadProgress {
  (kind: string, loaded: number): void
}

export async function loadLiveState(api: ClusterApi, scope: LiveScope, progress?: LoadProgress): Promise<ClusterState> {
  const options = (kind: string, labelSelector?: string) => {
    let n = 0
    return {chunkSize: scope.chunkSize, labelSelector, readAhead: true, onPage: (k: number) => progress?.(kind, (n += k))}
  }
  const [volumes, claims, classes, pods, nodes] = await Promise.all([
    listAll((p) => api.listVolumes(p), options('persistentvolumes')),
    listAll((p) => api.listClaims(scope.namespace, p), options('persistentvolumeclaims', scope.labelSelector)),
    listAll((p) => api.listClasses(p), options('storageclasses')),
    listAll((p) => api.listPods(scope.namespace, p), options('pods')),
    listAll((p) => api.listNodes(p), options('nodes')),
  ])
  return {volumes, claims, classes, pods, nodes}
}
