// One consistent load of the cluster: every kind listed in pages of 500 (limit/continue), the kinds in
// parallel. Volumes, classes and nodes are cluster-wide; claims and pods come from the namespace in
// scope (or all); -l narrows the claims.
import type {ClusterState} from '../engine/model.js'
import type {ClusterApi, Page, PageOptions} from './live-api.js'

export const PAGE_SIZE = 500

export interface LiveScope {
  namespace?: string
  labelSelector?: string
}

export async function listAll<T>(fetchPage: (p: PageOptions) => Promise<Page<T>>, labelSelector?: string, onPage?: (n: number) => void): Promise<T[]> {
  const items: T[] = []
  let continueToken: string | undefined
  do {
    const page = await fetchPage({limit: PAGE_SIZE, continueToken, labelSelector})
    items.push(...page.items)
    onPage?.(page.items.length)
    continueToken = page.continueToken
  } while (continueToken !== undefined)
  return items
}

export interface LoadProgress {
  (kind: string, loaded: number): void
}

export async function loadLiveState(api: ClusterApi, scope: LiveScope, progress?: LoadProgress): Promise<ClusterState> {
  const counter = (kind: string) => {
    let n = 0
    return (k: number) => progress?.(kind, (n += k))
  }
  const [volumes, claims, classes, pods, nodes] = await Promise.all([
    listAll((p) => api.listVolumes(p), undefined, counter('persistentvolumes')),
    listAll((p) => api.listClaims(scope.namespace, p), scope.labelSelector, counter('persistentvolumeclaims')),
    listAll((p) => api.listClasses(p), undefined, counter('storageclasses')),
    listAll((p) => api.listPods(scope.namespace, p), undefined, counter('pods')),
    listAll((p) => api.listNodes(p), undefined, counter('nodes')),
  ])
  return {volumes, claims, classes, pods, nodes}
}
