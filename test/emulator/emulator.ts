// startEmulator: a Kubernetes API server for tests, on 127.0.0.1, with the wire behaviour of the real
// one for the kinds pvctl uses. See README.md for what is modelled and what is not.
//
//   const api = await startEmulator({objects: [pv('pv1')]})
//   await fetch(`${api.url}/api/v1/persistentvolumes`)
//   api.faults.add({verb: 'update', resource: 'pv', count: 1, effect: {type: 'conflict'}})
//   writeFileSync(kubeconfigPath, api.kubeconfig({namespace: 'default'}))
//   await api.stop()
import type {AddressInfo} from 'node:net'

import {SERVER_VERSION, serverVersionOf} from './discovery.js'
import type {Tokens} from './auth.js'
import {Faults} from './faults.js'
import {kubeconfigYaml, type KubeconfigOptions} from './kubeconfig.js'
import {Registry} from './registry.js'
import {keyOf, resolveKind, resourceForObject, type ResourceDef} from './resources.js'
import {createApiServer, type RequestRecord, type WatchEnd} from './server.js'
import {Store} from './store.js'
import {tlsIdentity} from './tls.js'
import {clone, WRITE_VERBS, type K8sObject, type Verb} from './types.js'

export type {DenyRule, TokenInfo, Tokens} from './auth.js'
export type {Fault, FaultEffect, FaultSpec} from './faults.js'
export type {RequestRecord, WatchEnd} from './server.js'
export {ApiError} from './status-errors.js'
export type {Status} from './status-errors.js'
export type {K8sObject, Verb} from './types.js'
export {WRITE_VERBS} from './types.js'

export interface EmulatorOptions {
  /** 0 (the default) picks a free port. */
  port?: number
  /** Bearer tokens; without them every request is served as user "admin" with no restrictions. */
  tokens?: Tokens
  /** Change events kept for watches and paginated lists (default 1000); older ones are 410 Expired. */
  watchHistory?: number
  /** Objects present at start, stored as given (status included), each at its own resourceVersion. */
  objects?: K8sObject[]
  /** Serve HTTPS with a self-signed certificate made at start-up (see tls.ts). */
  tls?: boolean
  /** The server's clock, for creationTimestamp, deletionTimestamp and AGE columns. */
  clock?: () => Date
  /** How often a watch with allowWatchBookmarks=true gets a BOOKMARK (default 60 s, as the apiserver's cacher). */
  bookmarkIntervalMs?: number
  /**
   * Put apiVersion/kind on List items (default true). The real apiserver leaves them out of items of
   * built-in kinds; pass false to catch a client that relies on them.
   */
  listItemTypeMeta?: boolean
  /** Start with the namespaces a cluster has: default, kube-system, kube-public, kube-node-lease (default true). */
  defaultNamespaces?: boolean
  /** The gitVersion GET /version answers, e.g. `v1.34.2` (default: `v1.32.0-pvctl-emulator`). */
  version?: string
}

export interface RequestFilter {
  verb?: Verb | readonly Verb[] | string
  resource?: string
  subresource?: string
  namespace?: string
  name?: string
  user?: string
}

export interface Emulator {
  /** `http://127.0.0.1:<port>` (or https). */
  readonly url: string
  readonly port: number
  /** The CA (the server certificate itself) in PEM when serving HTTPS. */
  readonly ca: string | undefined
  stop(): Promise<void>

  /** An object as stored (a copy), or undefined. `namespace` is ignored for cluster-scoped kinds. */
  get(kind: string, namespace: string | undefined | null, name: string): K8sObject | undefined
  /** The objects of a kind in key order, optionally of one namespace. */
  list(kind: string, namespace?: string): K8sObject[]
  /** Stores a new object server-side (no HTTP, no strategy or validation), bumping the resourceVersion. */
  create(obj: K8sObject): K8sObject
  /** Replaces an object server-side, unconditionally; removing the last finalizer of a deleting object deletes it. */
  update(obj: K8sObject): K8sObject
  /** Removes an object server-side at once, finalizers or not. */
  delete(kind: string, namespace: string | undefined | null, name: string): void
  /** The latest resourceVersion. */
  readonly resourceVersion: string
  /** Drops the change history: every earlier resourceVersion becomes too old (410) for watches and continue tokens. */
  compact(): void
  /**
   * Ends every open watch, as the apiserver does at a watch's timeout or when it restarts: `close` ends the
   * stream cleanly, `reset` destroys the connection mid-stream. Returns how many were open.
   */
  endWatches(mode?: WatchEnd): number

  readonly faults: Faults
  /** Every request served, in arrival order. */
  readonly requests: readonly RequestRecord[]
  /** Requests matching a filter; `resource` accepts any kind name (`pv`, `persistentvolumes`). */
  countRequests(filter?: RequestFilter): number
  /** Write requests (create, update, patch, delete, deletecollection) matching a filter. */
  countWrites(filter?: Omit<RequestFilter, 'verb'>): number
  clearRequests(): void

  /** A kubeconfig (YAML text) pointing at this emulator. */
  kubeconfig(opts?: KubeconfigOptions): string
  /** From now on GET /version answers this gitVersion (an upgrade of the control plane). */
  setVersion(gitVersion: string): void
}

const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease']

function defOf(obj: K8sObject): ResourceDef {
  const d = resourceForObject(obj)
  if (!d || d.virtual)
    throw new Error(
      `emulator: cannot store ${obj.apiVersion ?? '?'} ${obj.kind ?? '?'} ${obj.metadata?.name ?? ''}: kind not served`,
    )
  return d
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const clock = options.clock ?? (() => new Date())
  const store = new Store(options.watchHistory ?? 1000)
  const registry = new Registry(store, clock)
  const faults = new Faults()
  const log: RequestRecord[] = []
  const tls = options.tls ? await tlsIdentity() : undefined

  if (options.defaultNamespaces ?? true) {
    for (const name of DEFAULT_NAMESPACES) {
      registry.seed(resolveKind('namespaces'), {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: {name},
        spec: {finalizers: ['kubernetes']},
        status: {phase: 'Active'},
      })
    }
  }
  for (const obj of options.objects ?? []) registry.seed(defOf(obj), obj)

  const version = {current: options.version === undefined ? SERVER_VERSION : serverVersionOf(options.version)}
  const api = createApiServer({
    store,
    registry,
    faults,
    tokens: options.tokens,
    clock,
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
    listItemTypeMeta: options.listItemTypeMeta ?? true,
    log,
    tls,
    version,
  })
  await new Promise<void>((resolve, reject) => {
    api.server.once('error', reject)
    api.server.listen(options.port ?? 0, '127.0.0.1', () => resolve())
  })
  const port = (api.server.address() as AddressInfo).port
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`

  const matches = (r: RequestRecord, f: RequestFilter) => {
    if (f.verb !== undefined) {
      const verbs: readonly string[] = typeof f.verb === 'string' ? [f.verb] : f.verb
      if (!verbs.includes(r.verb)) return false
    }
    if (f.resource !== undefined && r.resource !== resolveKind(f.resource).plural) return false
    if (f.subresource !== undefined && r.subresource !== f.subresource) return false
    if (f.namespace !== undefined && r.namespace !== f.namespace) return false
    if (f.name !== undefined && r.name !== f.name) return false
    if (f.user !== undefined && r.user !== f.user) return false
    return true
  }

  return {
    url,
    port,
    ca: tls?.cert,
    async stop() {
      api.closeAll()
      await new Promise<void>((resolve) => api.server.close(() => resolve()))
    },
    get(kind, namespace, name) {
      const d = resolveKind(kind)
      const o = store.get(d.id, keyOf(d, namespace ?? undefined, name))
      return o && clone(o)
    },
    list(kind, namespace) {
      const d = resolveKind(kind)
      return store
        .current(d.id)
        .filter(([key]) => !namespace || !d.namespaced || key.startsWith(`${namespace}/`))
        .map(([, o]) => clone(o))
    },
    create: (obj) => registry.seed(defOf(obj), obj),
    update: (obj) => registry.replace(defOf(obj), obj),
    delete(kind, namespace, name) {
      registry.remove(resolveKind(kind), namespace ?? undefined, name)
    },
    get resourceVersion() {
      return String(store.resourceVersion)
    },
    compact: () => store.compact(),
    endWatches: (mode = 'close') => api.endWatches(mode),
    faults,
    requests: log,
    countRequests: (filter = {}) => log.filter((r) => matches(r, filter)).length,
    countWrites: (filter = {}) => log.filter((r) => matches(r, {...filter, verb: WRITE_VERBS})).length,
    clearRequests() {
      log.length = 0
    },
    kubeconfig: (opts) => kubeconfigYaml(url, tls?.cert, opts),
    setVersion: (gitVersion) => void (version.current = serverVersionOf(gitVersion)),
  }
}
