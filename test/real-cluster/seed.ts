// Puts a cluster state (a snapshot's objects, a generated cluster) into a real API server as it is, status
// included: namespaces (each with its default ServiceAccount, which the ServiceAccount admission plugin
// wants for pods), classes and nodes, claims, then volumes (a claimRef's uid that was its claim's uid in
// the state is the created claim's uid), pods; then each object's status through the status subresource
// (a create resets it), then the deletions the state shows (a deletionTimestamp; the protection finalizers
// the admission plugins add keep the object). What the API server refuses (validation) is reported, not
// retried. wipe() removes every such object again, finalizers first (no protection controller runs).
import * as k8s from '@kubernetes/client-node'

import type {ClusterState} from '../../src/engine/api/model.js'

type Obj = {
  apiVersion?: string
  kind?: string
  metadata?: {
    name?: string
    namespace?: string
    uid?: string
    deletionTimestamp?: string | null
    finalizers?: string[]
  } & Record<string, unknown>
  spec?: Record<string, unknown>
  status?: Record<string, unknown>
}

export interface SeedResult {
  /** Objects the API server refused, with its message. */
  refused: Array<{object: string; message: string}>
  /** The created claims' uids by namespace/name. */
  claimUids: Map<string, string>
}

export interface ApiClients {
  core: k8s.CoreV1Api
  storage: k8s.StorageV1Api
}

export function clients(kubeconfig: string): ApiClients {
  const kc = new k8s.KubeConfig()
  kc.loadFromFile(kubeconfig)
  return {core: kc.makeApiClient(k8s.CoreV1Api), storage: kc.makeApiClient(k8s.StorageV1Api)}
}

const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch)

/** The API server's message of a refused request. */
export function apiMessage(e: unknown): string {
  if (e instanceof k8s.ApiException) {
    try {
      return (JSON.parse(String(e.body)) as {message?: string}).message ?? String(e.body)
    } catch {
      return String(e.body)
    }
  }
  return e instanceof Error ? e.message : String(e)
}

const status = (e: unknown): number | undefined => (e instanceof k8s.ApiException ? e.code : undefined)

async function ignoreConflict(p: Promise<unknown>): Promise<void> {
  await p.catch((e: unknown) => {
    if (status(e) !== 409) throw e
  })
}

/** In chunks of `width` at once: a burst of thousands would meet the server's priority and fairness limits. */
export async function inParallel<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < items.length) await fn(items[next++] as T)
  }
  await Promise.all(Array.from({length: Math.min(width, items.length)}, worker))
}

/** The object as a create takes it: no server-set metadata, no status. */
function forCreate<T extends Obj>(o: T): T {
  const copy = structuredClone(o)
  const meta = copy.metadata ?? {}
  for (const field of [
    'uid',
    'resourceVersion',
    'creationTimestamp',
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
    'managedFields',
    'generation',
  ])
    delete meta[field]
  delete copy.status
  return copy
}

/**
 * The state as a List a snapshot file holds (`pvctl ... -f FILE` reads it): each item with its kind and
 * apiVersion, which the items of a real API server's lists do not carry; no managedFields.
 */
export function stateAsList(state: ClusterState): {apiVersion: 'v1'; kind: 'List'; items: unknown[]} {
  const typed = (apiVersion: string, kind: string) => (o: unknown) => {
    const copy = {apiVersion, kind, ...(JSON.parse(JSON.stringify(o)) as Obj)}
    delete copy.metadata?.managedFields
    return copy
  }
  const items = [
    ...state.classes.map(typed('storage.k8s.io/v1', 'StorageClass')),
    ...state.nodes.map(typed('v1', 'Node')),
    ...state.volumes.map(typed('v1', 'PersistentVolume')),
    ...state.claims.map(typed('v1', 'PersistentVolumeClaim')),
    ...state.pods.map(typed('v1', 'Pod')),
  ]
  return {apiVersion: 'v1', kind: 'List', items}
}

const keyOf = (o: Obj) => `${o.metadata?.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata?.name ?? ''}`

export async function seed(
  api: ApiClients,
  state: Partial<ClusterState>,
  opts: {width?: number} = {},
): Promise<SeedResult> {
  const width = opts.width ?? 8
  const refused: SeedResult['refused'] = []
  const claimUids = new Map<string, string>()
  const claims = (state.claims ?? []) as unknown as Obj[]
  const volumes = (state.volumes ?? []) as unknown as Obj[]
  const pods = (state.pods ?? []) as unknown as Obj[]
  const created: Array<{kind: 'pv' | 'pvc' | 'pod'; source: Obj}> = []
  const attempt = async (kind: string, o: Obj, create: () => Promise<unknown>) => {
    try {
      await create()
      return true
    } catch (e) {
      refused.push({object: `${kind}/${keyOf(o)}`, message: apiMessage(e)})
      return false
    }
  }

  // 'default' too: the volume plugins' pods run there (the serviceaccount controller that makes these does not run here).
  const namespaces = new Set(['default', ...[...claims, ...pods].map((o) => o.metadata?.namespace ?? 'default')])
  for (const name of namespaces) {
    await ignoreConflict(api.core.createNamespace({body: {metadata: {name}}}))
    await ignoreConflict(
      api.core.createNamespacedServiceAccount({namespace: name, body: {metadata: {name: 'default'}}}),
    )
  }
  for (const c of (state.classes ?? []) as unknown as Obj[])
    await attempt('storageclass', c, () => api.storage.createStorageClass({body: forCreate(c) as never}))
  for (const n of (state.nodes ?? []) as unknown as Obj[])
    await attempt('node', n, () => api.core.createNode({body: forCreate(n) as never}))

  await inParallel(claims, width, async (c) => {
    const namespace = c.metadata?.namespace ?? 'default'
    await attempt('pvc', c, async () => {
      const made = await api.core.createNamespacedPersistentVolumeClaim({namespace, body: forCreate(c) as never})
      claimUids.set(`${namespace}/${c.metadata?.name}`, made.metadata?.uid ?? '')
      created.push({kind: 'pvc', source: c})
    })
  })
  const sourceClaimUids = new Map(
    claims.map((c) => [`${c.metadata?.namespace ?? 'default'}/${c.metadata?.name}`, c.metadata?.uid]),
  )
  await inParallel(volumes, width, async (v) => {
    const body = forCreate(v)
    const ref = body.spec?.claimRef as {namespace?: string; name?: string; uid?: string} | undefined
    const key = `${ref?.namespace ?? ''}/${ref?.name ?? ''}`
    if (ref?.uid !== undefined && ref.uid === sourceClaimUids.get(key) && claimUids.has(key))
      ref.uid = claimUids.get(key)
    await attempt('pv', v, async () => {
      await api.core.createPersistentVolume({body: body as never})
      created.push({kind: 'pv', source: v})
    })
  })
  await inParallel(pods, width, async (p) => {
    const body = forCreate(p)
    body.spec = {containers: [{name: 'main', image: 'registry.k8s.io/pause:3.10'}], ...body.spec}
    await attempt('pod', p, async () => {
      await api.core.createNamespacedPod({namespace: p.metadata?.namespace ?? 'default', body: body as never})
      created.push({kind: 'pod', source: p})
    })
  })

  await inParallel(created, width, async ({kind, source}) => {
    const name = source.metadata?.name ?? ''
    const namespace = source.metadata?.namespace ?? 'default'
    if (source.status !== undefined && Object.keys(source.status).length > 0) {
      const body = {status: source.status}
      await attempt(`${kind} status`, source, () =>
        kind === 'pv'
          ? api.core.patchPersistentVolumeStatus({name, body}, mergePatch)
          : kind === 'pvc'
            ? api.core.patchNamespacedPersistentVolumeClaimStatus({name, namespace, body}, mergePatch)
            : api.core.patchNamespacedPodStatus({name, namespace, body}, mergePatch),
      )
    }
    if (source.metadata?.deletionTimestamp != null) {
      await attempt(`${kind} delete`, source, () =>
        kind === 'pv'
          ? api.core.deletePersistentVolume({name})
          : kind === 'pvc'
            ? api.core.deleteNamespacedPersistentVolumeClaim({name, namespace})
            : api.core.deleteNamespacedPod({name, namespace, gracePeriodSeconds: 0}),
      )
    }
  })
  return {refused, claimUids}
}

/**
 * Removes every PersistentVolume, claim, pod, StorageClass, node and event: a clean API server. The
 * finalizers go first (no protection controller here to remove them; where one runs, it adds them back to
 * an object not yet marked, so this repeats until the objects are gone).
 */
export async function wipe(api: ApiClients, opts: {width?: number; deadlineMs?: number} = {}): Promise<void> {
  const width = opts.width ?? 8
  const deadline = Date.now() + (opts.deadlineMs ?? 60_000)
  const unfinalize = {metadata: {finalizers: null}}
  const gone = async (p: Promise<unknown>): Promise<void> => {
    await p.catch((e: unknown) => {
      if (status(e) !== 404 && status(e) !== 409) throw e
    })
  }
  const pods = (await api.core.listPodForAllNamespaces()).items
  await inParallel(pods, width, (p) =>
    gone(
      api.core.deleteNamespacedPod({
        name: p.metadata?.name ?? '',
        namespace: p.metadata?.namespace ?? '',
        gracePeriodSeconds: 0,
      }),
    ),
  )
  for (;;) {
    const [claims, volumes] = await Promise.all([
      api.core.listPersistentVolumeClaimForAllNamespaces(),
      api.core.listPersistentVolume(),
    ])
    if (claims.items.length === 0 && volumes.items.length === 0) break
    if (Date.now() > deadline)
      throw new Error(
        `wipe: ${claims.items.length} claims and ${volumes.items.length} volumes still there after ${(opts.deadlineMs ?? 60_000) / 1000} s`,
      )
    await inParallel(claims.items, width, async (c) => {
      const ref = {name: c.metadata?.name ?? '', namespace: c.metadata?.namespace ?? ''}
      if (c.metadata?.deletionTimestamp == null) await gone(api.core.deleteNamespacedPersistentVolumeClaim(ref))
      await gone(api.core.patchNamespacedPersistentVolumeClaim({...ref, body: unfinalize}, mergePatch))
    })
    await inParallel(volumes.items, width, async (v) => {
      const name = v.metadata?.name ?? ''
      if (v.metadata?.deletionTimestamp == null) await gone(api.core.deletePersistentVolume({name}))
      await gone(api.core.patchPersistentVolume({name, body: unfinalize}, mergePatch))
    })
  }
  await gone(api.storage.deleteCollectionStorageClass())
  await gone(api.core.deleteCollectionNode())
  const namespaces = (await api.core.listNamespace()).items.map((n) => n.metadata?.name ?? '')
  await inParallel(namespaces, width, (namespace) => gone(api.core.deleteCollectionNamespacedEvent({namespace})))
}
