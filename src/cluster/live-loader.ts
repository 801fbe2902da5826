// One load of the cluster: every kind listed in pages (limit/continue, `--chunk-size` as kubectl names it,
// 500 by default), the kinds in parallel. Volumes, classes and nodes are cluster-wide; claims and pods come
// from the namespace in scope (or all); -l narrows the claims.
//
// The pages of one kind form one consistent snapshot: the server reads every page at the first page's
// resourceVersion. When it no longer can (the continue token is older than its history: 410 Expired),
// the kind is listed again in full, in one request, as client-go's pager does (FullListIfExpired): the
// pages read so far are dropped, never mixed with a later revision.
import type {ClusterState} from '../engine/api/model.js'
import {ApiError} from './api-errors.js'
import type {ClusterApi} from './live-api.js'
import type {Page, PageOptions} from './page.js'

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
}

/** Every object of one kind, page by page, with the snapshot it comes from. */
export async function listKind<T>(
  fetchPage: (p: PageOptions) => Promise<Page<T>>,
  opts: ListOptions = {},
): Promise<ListedKind<T>> {
  const chunkSize = opts.chunkSize ?? PAGE_SIZE
  const items: T[] = []
  let continueToken: string | undefined
  let resourceVersion: string | undefined
  do {
    let page: Page<T>
    try {
      page = await fetchPage({limit: chunkSize, continueToken, labelSelector: opts.labelSelector})
    } catch (err) {
      if (!isExpiredContinue(err, continueToken)) throw err
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
  } while (continueToken !== undefined && opts.signal?.aborted !== true)
  return {items, resourceVersion, relisted: false}
}

/** Every object of one kind, page by page. */
export async function listAll<T>(
  fetchPage: (p: PageOptions) => Promise<Page<T>>,
  opts: ListOptions = {},
): Promise<T[]> {
  return (await listKind(fetchPage, opts)).items
}

export interface LoadProgress {
  (kind: string, loaded: number): void
}

export async function loadLiveState(api: ClusterApi, scope: LiveScope, progress?: LoadProgress): Promise<ClusterState> {
  const options = (kind: string, labelSelector?: string) => {
    let n = 0
    return {chunkSize: scope.chunkSize, labelSelector, onPage: (k: number) => progress?.(kind, (n += k))}
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
