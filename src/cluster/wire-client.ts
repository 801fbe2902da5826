// API requests as pvctl makes them: client-node's KubeConfig applies the credentials (tokens, exec
// plugins, client certificates), TLS settings and proxy, and objects go out and come back in their wire
// shape. Shared by the loader's lists, the executor's reads and writes, the volume plugins' workloads and
// explain's evidence, so that every request pvctl makes has the same speed, the same errors and the same
// shape.
import * as http from 'node:http'
import * as https from 'node:https'
import type {Socket} from 'node:net'

import type * as k8s from '@kubernetes/client-node'

import {type ApiTarget, describeTarget, MalformedAnswerError, toApiError} from './api-errors.js'
import {type ExpectedKind, listAnswer, objectAnswer} from './answer-shape.js'
import {JsonDepthGauge} from './json-depth.js'
import type {Page, PageOptions} from './page.js'
import {requestSignal} from './request-signal.js'
import {type StartTimer, startTimer as realTimer} from './timer.js'
import {InputError} from '../errors.js'

/** The collections pvctl lists or watches. */
export type ListedResource =
  | 'persistentvolumes'
  | 'persistentvolumeclaims'
  | 'storageclasses'
  | 'pods'
  | 'nodes'
  | 'leases'
  | 'events'
  | 'csidrivers'
  | 'volumeattachments'

const GROUP_VERSION: Partial<Record<ListedResource, string>> = {
  storageclasses: '/apis/storage.k8s.io/v1',
  csidrivers: '/apis/storage.k8s.io/v1',
  volumeattachments: '/apis/storage.k8s.io/v1',
  leases: '/apis/coordination.k8s.io/v1',
}

/**
 * The kind of each collection's objects, as the API server names it in its answers (a List is
 * `<Kind>List`): every answer is checked against it (answer-shape.ts).
 */
const KIND: Record<ListedResource, string> = {
  persistentvolumes: 'PersistentVolume',
  persistentvolumeclaims: 'PersistentVolumeClaim',
  storageclasses: 'StorageClass',
  pods: 'Pod',
  nodes: 'Node',
  leases: 'Lease',
  events: 'Event',
  csidrivers: 'CSIDriver',
  volumeattachments: 'VolumeAttachment',
}

/** The kind and apiVersion of a collection's objects. */
export function expectedKind(resource: ListedResource): ExpectedKind {
  return {kind: KIND[resource], apiVersion: (GROUP_VERSION[resource] ?? '/api/v1').replace(/^\/apis?\//, '')}
}

/** A request's target, its resource one pvctl knows the kind of. */
export type WireTarget = ApiTarget & {resource: ListedResource}

/** The URL path of a collection, across namespaces when `namespace` is undefined. */
export function collectionPath(resource: ListedResource, namespace?: string): string {
  return `${GROUP_VERSION[resource] ?? '/api/v1'}${namespace !== undefined ? `/namespaces/${encodeURIComponent(namespace)}` : ''}/${resource}`
}

export interface ListRequest extends PageOptions {
  fieldSelector?: string
}

/** The path of one object of a collection, or of its status subresource. */
export function objectPath(
  resource: ListedResource,
  namespace: string | undefined,
  name: string,
  subresource?: 'status',
): string {
  return `${collectionPath(resource, namespace)}/${encodeURIComponent(name)}${subresource !== undefined ? `/${subresource}` : ''}`
}

/** A request's method and, for a write, its body and how it is encoded. */
export interface WireRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  query?: URLSearchParams
  body?: unknown
  /** Default application/json; a merge patch says application/merge-patch+json. */
  contentType?: string
}

/**
 * How long a new connection may take to be ready (TCP, then the TLS handshake): Go's dialer and
 * http.Transport give kubectl 30 s and 10 s. A server that accepts the connection and never answers the
 * handshake fails the request instead of holding it forever.
 */
export const CONNECT_TIMEOUT_MS = 10_000

function connectDeadline(
  request: http.ClientRequest,
  socket: Socket,
  tls: boolean,
  startTimer: StartTimer,
  ms = CONNECT_TIMEOUT_MS,
): void {
  // A connection of the keep-alive pool is ready; a new one is handed over while it still connects.
  if (!socket.connecting) return
  const cancel = startTimer(ms, () => {
    request.destroy(
      Object.assign(new Error(`${tls ? 'TLS handshake' : 'connection'} timeout after ${ms / 1000} s`), {
        code: 'ETIMEDOUT',
      }),
    )
  })
  socket.once(tls ? 'secureConnect' : 'connect', cancel)
  socket.once('close', cancel)
}

export class WireClient {
  private keepAlive: {fingerprint: string; agent: http.Agent} | undefined

  constructor(
    private readonly kc: k8s.KubeConfig,
    private readonly server: string,
    /** Starts a new connection's deadline (a real timer unless a test gives a fake one). */
    private readonly startTimer: StartTimer = realTimer,
  ) {}

  /**
   * One page of a LIST, as the API server sent it: parsed once with JSON.parse and kept in its wire
   * shape, where the generated list methods would turn every object into model classes (ObjectSerializer)
   * and back: at 100k volumes that round trip cost more than the transfer. The answer must be a List of
   * the collection's kind (answer-shape.ts): anything else is an error, never an empty page.
   */
  async page<T>(target: WireTarget, path: string, p: ListRequest): Promise<Page<T>> {
    const query = new URLSearchParams()
    if (p.limit > 0) query.set('limit', String(p.limit))
    if (p.continueToken !== undefined) query.set('continue', p.continueToken)
    if (p.labelSelector !== undefined) query.set('labelSelector', p.labelSelector)
    if (p.fieldSelector !== undefined) query.set('fieldSelector', p.fieldSelector)
    const answer = await this.send(target, path, {method: 'GET', query})
    return listAnswer<T>(target, expectedKind(target.resource), answer.status, answer.body)
  }

  /**
   * One request, its body sent and its answer returned in their wire shape. The request is client-node's —
   * its KubeConfig applies the credentials (tokens, exec plugins, client certificates) and TLS settings, as
   * for every other call — but the objects are not turned into client-node's model classes and back
   * (ObjectSerializer): that round trip drops every field the models do not know, so a write to a newer API
   * server would clear the fields it added (and a claim's spec, immutable, would be refused), and it
   * rewrites timestamps. Requests go over one keep-alive connection (client-node makes a new agent, hence a
   * new TLS handshake, per request). The answer must be the object asked for (answer-shape.ts).
   */
  async request<T>(target: WireTarget, path: string, req: WireRequest): Promise<T> {
    const answer = await this.send(target, path, req)
    return objectAnswer<T>(target, expectedKind(target.resource), req.method, answer.status, answer.body)
  }

  /** The kubeconfig's credentials and certificates, as request options (client-node's applyToHTTPSOptions). */
  private async credentials(): Promise<https.RequestOptions> {
    const opts: https.RequestOptions = {}
    try {
      await this.kc.applyToHTTPSOptions(opts)
    } catch (err) {
      // Nothing was sent: the kubeconfig's credentials or certificates could not be had (an exec plugin
      // that is missing or fails, a token or CA file that is not there). A local setup error, not the server's.
      const reason = (err instanceof Error ? err.message : String(err)).split('\n')[0].trim()
      throw new InputError(
        `cannot use the kubeconfig's credentials for ${this.server}: ${reason === '' ? 'the credential plugin failed without saying why' : reason}`,
        ['check the user and cluster entries of the kubeconfig (kubectl config view)'],
      )
    }
    return opts
  }

  /** Sends a request; a 2xx answer is parsed (undefined when empty), anything else is its ApiError. */
  private async send(target: ApiTarget, path: string, req: WireRequest): Promise<{status: number; body: unknown}> {
    const url = new URL(`${this.server.replace(/\/$/, '')}${path}`)
    for (const [key, value] of req.query ?? []) url.searchParams.set(key, value)
    const opts = await this.credentials()
    const agent = this.agent(opts)
    const payload = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body))
    const headers: http.OutgoingHttpHeaders = {
      ...(opts.headers as http.OutgoingHttpHeaders | undefined),
      Accept: 'application/json',
    }
    if (payload !== undefined) {
      headers['Content-Type'] = req.contentType ?? 'application/json'
      headers['Content-Length'] = payload.length
    }
    const signal = requestSignal()
    return new Promise((resolve, reject) => {
      const lib = url.protocol === 'https:' ? https : http
      // The call's deadline (--request-timeout) aborts the request: its socket is destroyed, not left open.
      const request = lib.request(
        url,
        {method: req.method, agent, headers, auth: opts.auth, ...(signal !== undefined ? {signal} : {})},
        (res) => {
          const chunks: Buffer[] = []
          // The nesting is measured as the bytes arrive (json-depth.ts): an answer nested past any object's
          // depth is refused before it is parsed, and the rest of it is not read.
          const gauge = new JsonDepthGauge()
          res.on('data', (chunk: Buffer) => {
            if (gauge.feed(chunk)) {
              chunks.push(chunk)
              return
            }
            reject(
              new MalformedAnswerError(
                `${describeTarget(target)}: the answer nests deeper than ${gauge.limit} levels, deeper than any object of the cluster`,
                target,
                res.statusCode ?? 0,
                'TooDeep',
              ),
            )
            res.destroy()
          })
          res.on('error', (err) => reject(toApiError(err, target, this.server)))
          res.on('end', () => {
            const body = Buffer.concat(chunks).toString('utf8')
            const status = res.statusCode ?? 0
            if (status < 200 || status > 299) {
              reject(toApiError({code: status, body, headers: res.headers}, target, this.server))
              return
            }
            try {
              resolve({status, body: body === '' ? undefined : JSON.parse(body)})
            } catch {
              const type = res.headers['content-type']
              reject(
                new MalformedAnswerError(
                  `${describeTarget(target)}: the answer is not JSON${type ? ` (got ${type.split(';')[0]})` : ''}`,
                  target,
                  status,
                  'NotJSON',
                ),
              )
            }
          })
        },
      )
      request.on('error', (err) => reject(toApiError(err, target, this.server)))
      request.on('socket', (socket) => connectDeadline(request, socket, lib === https, this.startTimer))
      request.end(payload)
    })
  }

  /**
   * The keep-alive agent requests share, with the TLS settings client-node applied (a new one when they
   * change, e.g. an exec plugin's fresh client certificate; the old one is left to close its idle
   * sockets, since other requests may still be reading on it). Behind a proxy, client-node's own agent.
   */
  private agent(opts: https.RequestOptions): http.Agent | undefined {
    if (this.kc.getCurrentCluster()?.proxyUrl) return opts.agent instanceof http.Agent ? opts.agent : undefined
    const tls = {
      ca: opts.ca,
      cert: opts.cert,
      key: opts.key,
      pfx: opts.pfx,
      passphrase: opts.passphrase,
      rejectUnauthorized: opts.rejectUnauthorized,
      servername: opts.servername,
    }
    // client-node reads the certificates afresh for every request: compare their bytes, not the Buffers.
    const fingerprint = JSON.stringify(tls, (_key, value: unknown) =>
      Buffer.isBuffer(value) ? value.toString('base64') : value,
    )
    if (this.keepAlive?.fingerprint !== fingerprint) {
      const agent = this.server.startsWith('https:')
        ? new https.Agent({...tls, keepAlive: true})
        : new http.Agent({keepAlive: true})
      this.keepAlive = {fingerprint, agent}
    }
    return this.keepAlive.agent
  }
}
