// LIST requests as pvctl makes them: client-node's KubeConfig applies the credentials (tokens, exec
// plugins, client certificates), TLS settings and proxy, and the pages come back in their wire shape.
// Shared by the loader's lists and explain's evidence, so every list pvctl makes has the same speed, the
// same errors and the same shape.
import * as http from 'node:http'
import * as https from 'node:https'

import type * as k8s from '@kubernetes/client-node'

import type {ApiTarget} from './api-errors.js'
import type {Page, PageOptions} from './live-api.js'
import {toApiError} from './live-api.js'

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

/** The URL path of a collection, across namespaces when `namespace` is undefined. */
export function collectionPath(resource: ListedResource, namespace?: string): string {
  return `${GROUP_VERSION[resource] ?? '/api/v1'}${namespace !== undefined ? `/namespaces/${encodeURIComponent(namespace)}` : ''}/${resource}`
}

export interface ListRequest extends PageOptions {
  fieldSelector?: string
}

export class ListClient {
  private keepAlive: {fingerprint: string; agent: http.Agent} | undefined

  constructor(
    private readonly kc: k8s.KubeConfig,
    private readonly server: string,
  ) {}

  /**
   * One page of a LIST, as the API server sent it. The request is client-node's — its KubeConfig applies
   * the credentials (tokens, exec plugins, client certificates) and TLS settings, as for every other call —
   * but the body is parsed once with JSON.parse and kept in its wire shape, where the generated list
   * methods would turn every object into model classes (ObjectSerializer) that toWire turns back: at 100k
   * volumes that round trip cost more than the transfer, and it dropped fields the model does not know and
   * rewrote timestamps. Pages go over one keep-alive connection (client-node makes a new agent, hence a new
   * TLS handshake, per request).
   */
  async page<T>(target: ApiTarget, path: string, p: ListRequest): Promise<Page<T>> {
    const url = new URL(`${this.server.replace(/\/$/, '')}${path}`)
    if (p.limit > 0) url.searchParams.set('limit', String(p.limit))
    if (p.continueToken !== undefined) url.searchParams.set('continue', p.continueToken)
    if (p.labelSelector !== undefined) url.searchParams.set('labelSelector', p.labelSelector)
    if (p.fieldSelector !== undefined) url.searchParams.set('fieldSelector', p.fieldSelector)
    const opts: https.RequestOptions = {}
    try {
      await this.kc.applyToHTTPSOptions(opts)
    } catch (err) {
      throw toApiError(err, target, this.server)
    }
    const agent = this.listAgent(opts)
    const list = await new Promise<{items?: T[] | null; metadata?: {continue?: string; resourceVersion?: string}}>((resolve, reject) => {
      const lib = url.protocol === 'https:' ? https : http
      const request = lib.request(url, {method: 'GET', agent, headers: {...opts.headers, Accept: 'application/json'}, auth: opts.auth}, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('error', (err) => reject(toApiError(err, target, this.server)))
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8')
          if (res.statusCode !== 200) {
            reject(toApiError({code: res.statusCode, body, headers: res.headers}, target, this.server))
            return
          }
          try {
            resolve(JSON.parse(body))
          } catch {
            reject(toApiError({code: 500, body: `{"message": "the list is not JSON"}`, headers: res.headers}, target, this.server))
          }
        })
      })
      request.on('error', (err) => reject(toApiError(err, target, this.server)))
      request.end()
    })
    return {items: list.items ?? [], continueToken: list.metadata?.continue || undefined, resourceVersion: list.metadata?.resourceVersion}
  }

  /**
   * The keep-alive agent lists share, with the TLS settings client-node applied (a new one when they
   * change, e.g. an exec plugin's fresh client certificate; the old one is left to close its idle
   * sockets, since other lists may still be reading on it). Behind a proxy, client-node's own agent.
   */
  private listAgent(opts: https.RequestOptions): http.Agent | undefined {
    if (this.kc.getCurrentCluster()?.proxyUrl) return opts.agent instanceof http.Agent ? opts.agent : undefined
    const tls = {ca: opts.ca, cert: opts.cert, key: opts.key, pfx: opts.pfx, passphrase: opts.passphrase, rejectUnauthorized: opts.rejectUnauthorized, servername: opts.servername}
    // client-node reads the certificates afresh for every request: compare their bytes, not the Buffers.
    const fingerprint = JSON.stringify(tls, (_key, value: unknown) => (Buffer.isBuffer(value) ? value.toString('base64') : value))
    if (this.keepAlive?.fingerprint !== fingerprint) {
      const agent = this.server.startsWith('https:') ? new https.Agent({...tls, keepAlive: true}) : new http.Agent({keepAlive: true})
      this.keepAlive = {fingerprint, agent}
    }
    return this.keepAlive.agent
  }
}
