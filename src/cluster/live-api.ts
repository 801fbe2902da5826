// The live cluster through @kubernetes/client-node: the reads and writes pvctl makes, behind a small
// port (ClusterApi) so the executor can be tested against a fake and run against the emulator or a
// real cluster alike. Objects cross this boundary, and travel to and from the server, in their wire (JSON)
// shape (wire-client.ts): client-node gives the KubeConfig's credentials and TLS, not its model classes.
import * as http from 'node:http'
import * as https from 'node:https'
import {createInterface} from 'node:readline'

import * as k8s from '@kubernetes/client-node'

import type {Node, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass} from '../engine/api/model.js'
import {type ApiTarget, toApiError} from './api-errors.js'
import type {Page, PageOptions} from './page.js'
import {MAX_ANSWER_DEPTH, valueNestsDeeper} from './json-depth.js'
import type {ResolvedConfig} from './kubeconfig.js'
import type {StartTimer} from './timer.js'
import {TOKEN_FILE_PROVIDER, TokenFileAuth} from './token-file-auth.js'
import {collectionPath, objectPath, WireClient, type WireTarget} from './wire-client.js'

export interface CoreEvent {
  metadata: {name: string; namespace: string; resourceVersion?: string}
  involvedObject: {
    kind: string
    name: string
    namespace?: string
    uid?: string
    apiVersion: string
    resourceVersion?: string
  }
  reason: string
  message: string
  type: string
  source: {component: string}
  count: number
  firstTimestamp: string
  lastTimestamp: string
  reportingComponent?: string
  reportingInstance?: string
}

export interface ResourceAttributes {
  verb: string
  group: string
  resource: string
  subresource?: string
  namespace?: string
  /** One object (RBAC rules with resourceNames allow nothing else). */
  name?: string
}

/** Everything pvctl asks of the API server. */
export interface ClusterApi {
  readonly server: string
  listVolumes(page: PageOptions): Promise<Page<PersistentVolume>>
  listClaims(namespace: string | undefined, page: PageOptions): Promise<Page<PersistentVolumeClaim>>
  listClasses(page: PageOptions): Promise<Page<StorageClass>>
  listPods(namespace: string | undefined, page: PageOptions): Promise<Page<Pod>>
  listNodes(page: PageOptions): Promise<Page<Node>>
  readVolume(name: string): Promise<PersistentVolume>
  readClaim(namespace: string, name: string): Promise<PersistentVolumeClaim>
  replaceVolume(volume: PersistentVolume): Promise<PersistentVolume>
  replaceVolumeStatus(volume: PersistentVolume): Promise<PersistentVolume>
  replaceClaim(claim: PersistentVolumeClaim): Promise<PersistentVolumeClaim>
  replaceClaimStatus(claim: PersistentVolumeClaim): Promise<PersistentVolumeClaim>
  createEvent(event: CoreEvent): Promise<CoreEvent>
  patchEventCount(namespace: string, name: string, count: number, lastTimestamp: string): Promise<void>
  canI(attrs: ResourceAttributes): Promise<boolean>
}

/** A coordination.k8s.io/v1 Lease in its wire shape (times are RFC 3339 MicroTime strings). */
export interface Lease {
  apiVersion?: string
  kind?: string
  metadata: {name: string; namespace: string; resourceVersion?: string; [field: string]: unknown}
  spec?: {
    holderIdentity?: string | null
    leaseDurationSeconds?: number | null
    acquireTime?: string | null
    renewTime?: string | null
    leaseTransitions?: number | null
    [field: string]: unknown
  }
}

/** The Lease calls of leader election and of the built-in binder check (loop mode). */
export interface LeaseApi {
  readLease(namespace: string, name: string): Promise<Lease>
  createLease(lease: Lease): Promise<Lease>
  replaceLease(lease: Lease): Promise<Lease>
  listLeases(namespace: string, page: PageOptions): Promise<Page<Lease>>
}

/** The kinds loop mode keeps informers of. */
export type WatchedResource = 'persistentvolumes' | 'persistentvolumeclaims' | 'storageclasses' | 'pods' | 'nodes'

export interface WatchOptions {
  /** Changes after this resourceVersion (the one the LIST returned, then the last one seen). */
  resourceVersion: string
  namespace?: string
  labelSelector?: string
  /** Ask the server to end the stream after this long (the reflector then watches again). */
  timeoutSeconds?: number
  signal: AbortSignal
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR'
  /** The object in its wire shape; for ERROR a metav1.Status. */
  object: {
    metadata?: {name?: string; namespace?: string; resourceVersion?: string}
    code?: number
    reason?: string
    message?: string
    [field: string]: unknown
  }
}

/**
 * A watch: events as they arrive. Resolves when the stream ends — the server closed it, the connection
 * broke mid-stream, or the signal aborted it — so the caller resumes from the last resourceVersion it saw;
 * rejects with an ApiError when the watch could not start (an error status, no connection).
 */
export interface WatchApi {
  watch(resource: WatchedResource, opts: WatchOptions, onEvent: (event: WatchEvent) => void): Promise<void>
}

/** client-node's KubeConfig from kubectl-resolved settings (see kubeconfig.ts). */
export function makeKubeConfig(config: ResolvedConfig): k8s.KubeConfig {
  const kc = new k8s.KubeConfig()
  const {name: clusterName, ...cluster} = config.cluster
  const {name: userName, tokenFile, ...user} = config.user
  // A token file (in-cluster, or a kubeconfig's tokenFile) is read as client-go reads it (TokenFileAuth).
  kc.addAuthenticator(new TokenFileAuth())
  const tokenProvider =
    tokenFile !== undefined ? {'auth-provider': {name: TOKEN_FILE_PROVIDER, config: {path: tokenFile}}} : {}
  // One resolved context as a kubeconfig document, read by client-node's public loader (JSON is YAML).
  kc.loadFromString(
    JSON.stringify({
      clusters: [{name: clusterName, cluster}],
      users: [{name: userName, user: {...user, ...tokenProvider}}],
      contexts: [
        {
          name: config.contextName,
          context: {cluster: clusterName, user: userName, ...(config.namespace ? {namespace: config.namespace} : {})},
        },
      ],
      'current-context': config.contextName,
    }),
  )
  return kc
}

/** The real ClusterApi, through client-node. */
export class KubernetesClusterApi implements ClusterApi {
  private readonly authz: k8s.AuthorizationV1Api
  readonly server: string
  private readonly wire: WireClient

  /** `startTimer` starts a new connection's deadline: a real timer unless a test gives a fake one. */
  constructor(
    private readonly kc: k8s.KubeConfig,
    startTimer?: StartTimer,
  ) {
    this.authz = kc.makeApiClient(k8s.AuthorizationV1Api)
    this.server = kc.getCurrentCluster()?.server ?? '<unknown>'
    this.wire = new WireClient(kc, this.server, startTimer)
  }

  private async call<T>(target: ApiTarget, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn()
    } catch (err) {
      throw toApiError(err, target, this.server)
    }
  }

  /** One page of a LIST, in its wire shape (see WireClient). */
  private page<T>(target: WireTarget, path: string, p: PageOptions): Promise<Page<T>> {
    return this.wire.page(target, path, p)
  }

  listVolumes(p: PageOptions): Promise<Page<PersistentVolume>> {
    return this.page({verb: 'list', resource: 'persistentvolumes'}, collectionPath('persistentvolumes'), p)
  }

  listClaims(namespace: string | undefined, p: PageOptions): Promise<Page<PersistentVolumeClaim>> {
    return this.page(
      {verb: 'list', resource: 'persistentvolumeclaims', namespace},
      collectionPath('persistentvolumeclaims', namespace),
      p,
    )
  }

  listClasses(p: PageOptions): Promise<Page<StorageClass>> {
    return this.page({verb: 'list', resource: 'storageclasses'}, collectionPath('storageclasses'), {
      ...p,
      labelSelector: undefined,
    })
  }

  listPods(namespace: string | undefined, p: PageOptions): Promise<Page<Pod>> {
    return this.page({verb: 'list', resource: 'pods', namespace}, collectionPath('pods', namespace), {
      ...p,
      labelSelector: undefined,
    })
  }

  listNodes(p: PageOptions): Promise<Page<Node>> {
    return this.page({verb: 'list', resource: 'nodes'}, collectionPath('nodes'), {...p, labelSelector: undefined})
  }

  // Objects are read and written in their wire shape (WireClient.request): a write sends back every field
  // it read, those client-node's models do not know included.

  readVolume(name: string): Promise<PersistentVolume> {
    return this.wire.request(
      {verb: 'get', resource: 'persistentvolumes', name},
      objectPath('persistentvolumes', undefined, name),
      {method: 'GET'},
    )
  }

  readClaim(namespace: string, name: string): Promise<PersistentVolumeClaim> {
    const target: WireTarget = {verb: 'get', resource: 'persistentvolumeclaims', namespace, name}
    return this.wire.request(target, objectPath('persistentvolumeclaims', namespace, name), {method: 'GET'})
  }

  replaceVolume(volume: PersistentVolume): Promise<PersistentVolume> {
    const name = volume.metadata.name ?? ''
    return this.wire.request(
      {verb: 'update', resource: 'persistentvolumes', name},
      objectPath('persistentvolumes', undefined, name),
      {method: 'PUT', body: volume},
    )
  }

  replaceVolumeStatus(volume: PersistentVolume): Promise<PersistentVolume> {
    const name = volume.metadata.name ?? ''
    const target: WireTarget = {verb: 'update', resource: 'persistentvolumes', subresource: 'status', name}
    return this.wire.request(target, objectPath('persistentvolumes', undefined, name, 'status'), {
      method: 'PUT',
      body: volume,
    })
  }

  replaceClaim(claim: PersistentVolumeClaim): Promise<PersistentVolumeClaim> {
    const {name = '', namespace = ''} = claim.metadata
    const target: WireTarget = {verb: 'update', resource: 'persistentvolumeclaims', namespace, name}
    return this.wire.request(target, objectPath('persistentvolumeclaims', namespace, name), {
      method: 'PUT',
      body: claim,
    })
  }

  replaceClaimStatus(claim: PersistentVolumeClaim): Promise<PersistentVolumeClaim> {
    const {name = '', namespace = ''} = claim.metadata
    const target: WireTarget = {
      verb: 'update',
      resource: 'persistentvolumeclaims',
      subresource: 'status',
      namespace,
      name,
    }
    return this.wire.request(target, objectPath('persistentvolumeclaims', namespace, name, 'status'), {
      method: 'PUT',
      body: claim,
    })
  }

  createEvent(event: CoreEvent): Promise<CoreEvent> {
    const namespace = event.metadata.namespace
    return this.wire.request({verb: 'create', resource: 'events', namespace}, collectionPath('events', namespace), {
      method: 'POST',
      body: event,
    })
  }

  async patchEventCount(namespace: string, name: string, count: number, lastTimestamp: string): Promise<void> {
    await this.wire.request(
      {verb: 'patch', resource: 'events', namespace, name},
      objectPath('events', namespace, name),
      {
        method: 'PATCH',
        body: {count, lastTimestamp},
        contentType: 'application/merge-patch+json',
      },
    )
  }

  async canI(attrs: ResourceAttributes): Promise<boolean> {
    const review = await this.call({verb: 'create', resource: 'selfsubjectaccessreviews'}, () =>
      this.authz.createSelfSubjectAccessReview({
        // client-node's models are data classes, serialized from their fields: a plain object is one.
        /* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment */
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: {resourceAttributes: attrs},
        },
        /* eslint-enable @typescript-eslint/no-unsafe-class-instance-assignment */
      }),
    )
    return review.status?.allowed === true
  }

  // Leases (loop mode: leader election, and the check for kube-controller-manager's binder). MicroTime
  // fields stay strings: client-node has no V1MicroTime model, so they cross unchanged.

  readLease(namespace: string, name: string): Promise<Lease> {
    return this.wire.request(
      {verb: 'get', resource: 'leases', namespace, name},
      objectPath('leases', namespace, name),
      {method: 'GET'},
    )
  }

  createLease(lease: Lease): Promise<Lease> {
    const {namespace, name} = lease.metadata
    return this.wire.request(
      {verb: 'create', resource: 'leases', namespace, name},
      collectionPath('leases', namespace),
      {method: 'POST', body: lease},
    )
  }

  replaceLease(lease: Lease): Promise<Lease> {
    const {namespace, name} = lease.metadata
    return this.wire.request(
      {verb: 'update', resource: 'leases', namespace, name},
      objectPath('leases', namespace, name),
      {method: 'PUT', body: lease},
    )
  }

  listLeases(namespace: string, p: PageOptions): Promise<Page<Lease>> {
    return this.page({verb: 'list', resource: 'leases', namespace}, collectionPath('leases', namespace), p)
  }

  /**
   * A WATCH as a stream of wire-shaped events. Written on node:http(s) with client-node's TLS and
   * credentials rather than client-node's Watch, which cannot be aborted before the server answers
   * (a stalled watch would outlive a resync or a SIGTERM).
   */
  async watch(resource: WatchedResource, opts: WatchOptions, onEvent: (event: WatchEvent) => void): Promise<void> {
    const target: ApiTarget = {verb: 'list', resource, namespace: opts.namespace}
    const url = new URL(`${this.server.replace(/\/$/, '')}${collectionPath(resource, opts.namespace)}`)
    url.searchParams.set('watch', 'true')
    url.searchParams.set('resourceVersion', opts.resourceVersion)
    url.searchParams.set('allowWatchBookmarks', 'true')
    if (opts.timeoutSeconds !== undefined) url.searchParams.set('timeoutSeconds', String(opts.timeoutSeconds))
    if (opts.labelSelector !== undefined) url.searchParams.set('labelSelector', opts.labelSelector)
    const req: {agent?: http.Agent; headers?: Record<string, string>; auth?: string} = {}
    try {
      await this.kc.applyToHTTPSOptions(req)
    } catch (err) {
      throw toApiError(err, target, this.server)
    }
    if (opts.signal.aborted) return
    await new Promise<void>((resolve, reject) => {
      const lib = url.protocol === 'https:' ? https : http
      let settled = false
      let streaming = false
      const finish = (err?: unknown) => {
        if (settled) return
        settled = true
        opts.signal.removeEventListener('abort', onAbort)
        if (err === undefined || streaming || opts.signal.aborted) resolve()
        else reject(toApiError(err, target, this.server))
      }
      const request = lib.request(
        url,
        {method: 'GET', agent: req.agent, headers: {...req.headers, Accept: 'application/json'}, auth: req.auth},
        (res) => {
          if (res.statusCode !== 200) {
            let body = ''
            res.setEncoding('utf8')
            res.on('data', (chunk: string) => (body += chunk))
            res.on('end', () => finish({code: res.statusCode, body, headers: res.headers}))
            res.on('error', finish)
            return
          }
          streaming = true
          const lines = createInterface({input: res, crlfDelay: Infinity})
          lines.on('line', (line) => {
            if (line.trim() === '' || settled) return
            let event: WatchEvent
            try {
              event = JSON.parse(line) as WatchEvent
            } catch {
              return // a torn line from a dropped connection: the re-watch replays from the last resourceVersion
            }
            if (valueNestsDeeper(event, MAX_ANSWER_DEPTH)) {
              // Deeper than any object: an ERROR ends the watch, and the informer lists afresh.
              onEvent({
                type: 'ERROR',
                object: {
                  code: 500,
                  reason: 'MalformedAnswer',
                  message: `an event nests deeper than any object of the cluster (pvctl reads at most ${MAX_ANSWER_DEPTH} levels)`,
                },
              })
              return
            }
            onEvent(event)
          })
          res.on('error', finish)
          lines.on('error', finish)
          res.on('aborted', () => finish())
          lines.on('close', () => finish())
        },
      )
      const onAbort = () => {
        request.destroy()
        finish()
      }
      opts.signal.addEventListener('abort', onAbort, {once: true})
      request.on('error', finish)
      request.end()
    })
  }
}
