// The HTTP front: each request goes through the apiserver's filter order, as far as it is modelled —
//   route → log → authenticate (401) → injected faults → authorize (403) → handler
// Faults sit where the apiserver's priority-and-fairness filter sits (after authentication, before
// authorization), so a 429 reaches even a request that would be forbidden, as on a real server.
import {createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import {createServer as createHttpsServer} from 'node:https'
import type {Socket} from 'node:net'

import {authenticate, authorize, reviewAccess, type Identity, type Tokens} from './auth.js'
import {apiGroup, apiGroupList, apiResourceList, apiVersions, SERVER_VERSION} from './discovery.js'
import type {Faults} from './faults.js'
import {openApiV3Document, openApiV3Root} from './openapi.js'
import {negotiate, readBody, send, sendError, type Output} from './http-io.js'
import {PATCH_CONTENT_TYPES} from './patch.js'
import {groupResource, type DeleteOptions, type ListResult, type Registry} from './registry.js'
import {apiVersionOf, type ResourceDef} from './resources.js'
import {route, type ResourceRoute} from './router.js'
import {
  badRequest,
  conflict,
  forCode,
  methodNotAllowed,
  pathNotFound,
  tooManyRequests,
  unsupportedMediaType,
} from './status-errors.js'
import type {Store} from './store.js'
import {toTable, type IncludeObject} from './tables.js'
import {isObject, type JsonObject, type K8sObject, type Verb} from './types.js'
import {serveWatch} from './watch.js'

/** One served request, for tests that assert what a client did (e.g. no writes during a dry run). */
export interface RequestRecord {
  method: string
  path: string
  query: string
  /**
   * The authorizer verb for resource requests; for the rest (discovery, health) the lower-cased method,
   * as the authorizer sees it: filter on `resource` to leave those out.
   */
  verb: Verb | string
  /** Plural resource name, '' for non-resource requests. */
  resource: string
  subresource: string
  namespace: string
  name: string
  user: string
  /** The request's Content-Type (media type only), '' without one: tells merge from strategic patches. */
  contentType: string
  dryRun: boolean
  /** HTTP status sent; 0 when the connection was dropped (a `drop` fault) or is still streaming. */
  status: number
  /** The fault effect that answered this request, if any. */
  fault?: string
}

export interface ServerConfig {
  store: Store
  registry: Registry
  faults: Faults
  tokens?: Tokens
  clock: () => Date
  bookmarkIntervalMs: number
  /** Put apiVersion/kind on every List item (the real server omits them). */
  listItemTypeMeta: boolean
  log: RequestRecord[]
  tls?: {key: string; cert: string}
  /** What GET /version answers; changed by Emulator.setVersion. */
  version: {current: typeof SERVER_VERSION}
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'])

export interface ApiServer {
  server: Server
  /** Ends every open watch stream and connection. */
  closeAll(): void
  /** Ends every open watch stream, cleanly (`close`, as at the server's watch timeout) or by a reset connection. */
  endWatches(mode: WatchEnd): number
}

export type WatchEnd = 'close' | 'reset'
type EndWatch = (mode?: WatchEnd) => void

export function createApiServer(cfg: ServerConfig): ApiServer {
  const watches = new Set<EndWatch>()
  const sockets = new Set<Socket>()
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    handle(cfg, req, res, watches).catch((e) => sendError(res, e))
  }
  const server: Server = cfg.tls
    ? createHttpsServer({key: cfg.tls.key, cert: cfg.tls.cert}, handler)
    : createHttpServer(handler)
  server.on(cfg.tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  return {
    server,
    closeAll() {
      for (const stop of watches) stop()
      for (const s of sockets) s.destroy()
    },
    endWatches(mode) {
      const open = [...watches]
      for (const end of open) end(mode)
      return open.length
    },
  }
}

async function handle(
  cfg: ServerConfig,
  req: IncomingMessage,
  res: ServerResponse,
  watches: Set<EndWatch>,
): Promise<void> {
  const method = req.method ?? 'GET'
  const url = new URL(req.url ?? '/', 'http://emulator')
  const r = route(method, url.pathname, url.searchParams)
  const dryRunParam = url.searchParams.getAll('dryRun')
  const record: RequestRecord = {
    method,
    path: url.pathname,
    query: url.search,
    verb: r.kind === 'resource' ? r.verb : method.toLowerCase(),
    resource: r.kind === 'resource' ? r.resource : '',
    subresource: r.kind === 'resource' ? r.subresource : '',
    namespace: r.kind === 'resource' ? r.namespace : '',
    name: r.kind === 'resource' ? r.name : '',
    user: '',
    contentType: (req.headers['content-type'] ?? '').split(';')[0].trim(),
    dryRun: dryRunParam.length > 0,
    status: 0,
  }
  cfg.log.push(record)
  // 'finish' fires when the whole answer is written; a watch is recorded when its headers go out.
  res.on('finish', () => (record.status = res.statusCode))
  const origWriteHead = res.writeHead.bind(res)
  res.writeHead = ((...args: Parameters<ServerResponse['writeHead']>) => {
    record.status = args[0]
    return origWriteHead(...args)
  }) as ServerResponse['writeHead']

  try {
    if (!METHODS.has(method)) throw methodNotAllowed()
    if (r.kind === 'health') {
      res.writeHead(200, {'Content-Type': 'text/plain; charset=utf-8'})
      res.end('ok')
      return
    }
    const identity = authenticate(cfg.tokens, req.headers.authorization)
    record.user = identity.user
    if (r.kind !== 'resource') {
      if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed()
      const host = req.headers.host ?? '127.0.0.1'
      const doc =
        r.kind === 'version'
          ? cfg.version.current
          : r.kind === 'apiVersions'
            ? apiVersions(host)
            : r.kind === 'apiGroupList'
              ? apiGroupList()
              : r.kind === 'apiGroup'
                ? apiGroup(r.group)
                : r.kind === 'apiResourceList'
                  ? apiResourceList(r.group, r.version)
                  : r.kind === 'openapiV3'
                    ? r.path
                      ? openApiV3Document(r.path)
                      : openApiV3Root()
                    : undefined
      if (!doc) throw pathNotFound()
      send(res, 200, doc)
      return
    }
    const def = checkRoute(r)
    for (const effect of cfg.faults.take({
      verb: r.verb,
      resource: def.plural,
      subresource: r.subresource,
      namespace: r.namespace,
      name: r.name,
    })) {
      if (effect.type === 'latency') {
        // Held, not parked: a client that goes away ends the wait, and the timer keeps no test process alive.
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, effect.ms)
          t.unref()
          res.once('close', () => {
            clearTimeout(t)
            resolve()
          })
        })
        if (res.destroyed) return
        continue
      }
      if (effect.type === 'hook') {
        await effect.run()
        continue
      }
      if (effect.type === 'beforeAnswer') {
        // The answer waits for `run`: whatever the handler did (a write stored) is done by then.
        const end = res.end.bind(res) as (...args: unknown[]) => typeof res
        const run = effect.run
        res.end = ((...args: unknown[]) => {
          void Promise.resolve(run()).then(() => end(...args))
          return res
        }) as typeof res.end
        continue
      }
      if (effect.type === 'afterAnswer') {
        // 'finish': the answer is handed to the operating system, on its way to the client.
        const run = effect.run
        res.once('finish', () => void run())
        continue
      }
      record.fault = effect.type
      if (effect.type === 'drop') {
        // No answer at all: the client sees a reset connection (ECONNRESET / "socket hang up").
        req.socket.destroy()
        return
      }
      if (effect.type === 'body') {
        res.writeHead(effect.code, {'Content-Type': 'application/json', ...effect.headers})
        res.end(effect.body)
        return
      }
      if (effect.type === 'throttle') throw tooManyRequests(effect.retryAfterSeconds)
      if (effect.type === 'conflict') throw conflict(groupResource(def), r.name || '')
      throw forCode(effect.code, effect.message)
    }
    authorize(identity, {
      verb: r.verb,
      group: r.group,
      resource: r.resource,
      subresource: r.subresource,
      namespace: r.namespace,
      name: r.name,
    })
    await serveResource(cfg, req, res, r, def, identity, url.searchParams, watches)
  } catch (e) {
    sendError(res, e)
  }
}

/** 404 for what no route serves, 405 for a verb the resource does not offer. */
function checkRoute(r: ResourceRoute): ResourceDef {
  const def = r.def
  if (!def) throw pathNotFound()
  if (r.subresource && !def.subresources.includes(r.subresource)) throw pathNotFound()
  if (r.subresource && !['get', 'update', 'patch'].includes(r.verb)) throw methodNotAllowed()
  // A namespace in the path of a cluster-scoped resource (other than the namespace itself) matches no route.
  if (!def.namespaced && r.namespace && def.plural !== 'namespaces') throw pathNotFound()
  if (!def.verbs.includes(r.verb)) throw methodNotAllowed()
  // Namespaced objects live under /namespaces/<ns>/: across namespaces there is no per-object path (404)
  // and the collection path serves only list and watch (405).
  if (def.namespaced && !r.namespace && !['list', 'watch'].includes(r.verb))
    throw r.name ? pathNotFound() : methodNotAllowed()
  return def
}

function parseDryRun(values: string[]): boolean {
  for (const v of values)
    if (v !== 'All') throw badRequest(`dryRun: Unsupported value: "${v}": supported values: "All"`)
  return values.length > 0
}

function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name)
  if (v === null || v === '') return undefined
  if (!/^-?\d+$/.test(v)) throw badRequest(`${name}: Invalid value: "${v}": must be an integer`)
  return Number(v)
}

function boolParam(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name)
  if (v === null) return undefined
  return v === 'true' || v === '1'
}

async function serveResource(
  cfg: ServerConfig,
  req: IncomingMessage,
  res: ServerResponse,
  r: ResourceRoute,
  def: ResourceDef,
  identity: Identity,
  q: URLSearchParams,
  watches: Set<EndWatch>,
): Promise<void> {
  const {registry} = cfg
  const ns = def.namespaced ? r.namespace : undefined
  const name = r.name
  const output = negotiate(req.headers.accept)
  const include = (q.get('includeObject') ?? 'Metadata') as IncludeObject
  const now = () => cfg.clock().getTime()
  const dryRun = parseDryRun(q.getAll('dryRun'))

  /** One object in the negotiated form. */
  const single = (o: K8sObject): unknown => {
    if (output.as === 'table')
      return toTable(
        def,
        [o],
        {resourceVersion: o.metadata.resourceVersion},
        {now: now(), include, apiVersion: output.apiVersion},
      )
    if (output.as === 'metadata')
      return {kind: 'PartialObjectMetadata', apiVersion: output.apiVersion, metadata: o.metadata}
    return o
  }
  const reply = (code: number, body: unknown) =>
    send(res, code, body, output.as === 'object' ? output.encoding : 'json')

  switch (r.verb) {
    case 'get':
      return reply(200, single(registry.get(def, ns, name, q.get('resourceVersion') ?? undefined)))
    case 'list': {
      const result = registry.list(def, ns || undefined, {
        labelSelector: q.get('labelSelector') ?? undefined,
        fieldSelector: q.get('fieldSelector') ?? undefined,
        limit: intParam(q, 'limit'),
        continue: q.get('continue') ?? undefined,
        resourceVersion: q.get('resourceVersion') ?? undefined,
        resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
      })
      return reply(200, listBody(cfg, def, result, output, include, now()))
    }
    case 'watch': {
      const stop = serveWatch(
        res,
        {
          def,
          namespace: r.namespace,
          name: r.name,
          labelSelector: q.get('labelSelector') ?? undefined,
          fieldSelector: q.get('fieldSelector') ?? undefined,
          resourceVersion: q.get('resourceVersion') ?? undefined,
          allowWatchBookmarks: boolParam(q, 'allowWatchBookmarks') ?? false,
          sendInitialEvents: boolParam(q, 'sendInitialEvents'),
          timeoutSeconds: intParam(q, 'timeoutSeconds'),
        },
        {store: cfg.store, encode: single, bookmarkIntervalMs: cfg.bookmarkIntervalMs},
      )
      const end: EndWatch = (mode = 'close') => (mode === 'reset' ? res.destroy() : stop())
      watches.add(end)
      res.on('close', () => watches.delete(end))
      return
    }
    case 'create': {
      const body = await readBody(req)
      if (def.virtual) return reply(201, selfSubjectAccessReview(identity, body))
      return reply(201, registry.create(def, ns, body, dryRun))
    }
    case 'update': {
      const {object, created} = registry.update(def, ns, name, await readBody(req), r.subresource, dryRun)
      return reply(created ? 201 : 200, object)
    }
    case 'patch': {
      const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
      const type = PATCH_CONTENT_TYPES[contentType]
      if (!type) {
        throw unsupportedMediaType(
          `the body of the request was in an unknown format - accepted media types include: ${Object.keys(PATCH_CONTENT_TYPES).join(', ')}`,
        )
      }
      const patch = await readBody(req)
      if (patch === undefined) throw badRequest('the body of the request was empty')
      return reply(200, registry.patch(def, ns, name, type, patch, r.subresource, dryRun))
    }
    case 'delete': {
      const opts = deleteOptions(q, await readBody(req))
      const result = registry.delete(def, ns, name, opts.options, dryRun || opts.dryRun)
      return reply(result.code, result.body)
    }
    case 'deletecollection': {
      const opts = deleteOptions(q, await readBody(req))
      const result = registry.deleteCollection(
        def,
        ns || undefined,
        {labelSelector: q.get('labelSelector') ?? undefined, fieldSelector: q.get('fieldSelector') ?? undefined},
        opts.options,
        dryRun || opts.dryRun,
      )
      return reply(200, listBody(cfg, def, result, {as: 'object', encoding: 'json'}, include, now()))
    }
  }
}

function listBody(
  cfg: ServerConfig,
  def: ResourceDef,
  result: ListResult,
  output: Output,
  include: IncludeObject,
  now: number,
): JsonObject {
  const metadata: JsonObject = {resourceVersion: result.resourceVersion}
  if (result.continue) metadata.continue = result.continue
  if (result.remainingItemCount !== undefined) metadata.remainingItemCount = result.remainingItemCount
  if (output.as === 'table') return toTable(def, result.items, metadata, {now, include, apiVersion: output.apiVersion})
  if (output.as === 'metadata') {
    const items = result.items.map((o) => ({
      kind: 'PartialObjectMetadata',
      apiVersion: output.apiVersion,
      metadata: o.metadata,
    }))
    return {kind: 'PartialObjectMetadataList', apiVersion: output.apiVersion, metadata, items}
  }
  const items = cfg.listItemTypeMeta ? result.items : result.items.map(({apiVersion: _a, kind: _k, ...rest}) => rest)
  return {kind: `${def.kind}List`, apiVersion: apiVersionOf(def), metadata, items}
}

/** DeleteOptions from the body (kubectl sends one) and the query parameters (client-go may use those). */
function deleteOptions(q: URLSearchParams, body: unknown): {options: DeleteOptions; dryRun: boolean} {
  const b = isObject(body) ? body : {}
  const grace = b.gracePeriodSeconds ?? intParam(q, 'gracePeriodSeconds')
  if (grace !== undefined && (typeof grace !== 'number' || grace < 0))
    throw badRequest(`gracePeriodSeconds: Invalid value: ${String(grace)}: must be greater than or equal to 0`)
  const dryRun = Array.isArray(b.dryRun) ? parseDryRun(b.dryRun.map(String)) : false
  const pre = isObject(b.preconditions) ? b.preconditions : {}
  return {
    options: {
      gracePeriodSeconds: grace as number | undefined,
      propagationPolicy: (b.propagationPolicy as string | undefined) ?? q.get('propagationPolicy') ?? undefined,
      preconditions: {uid: pre.uid as string | undefined, resourceVersion: pre.resourceVersion as string | undefined},
    },
    dryRun,
  }
}

/** POST selfsubjectaccessreviews: the request echoed with its status, nothing stored. */
function selfSubjectAccessReview(identity: Identity, body: unknown): JsonObject {
  const b = isObject(body) ? body : {}
  const spec = isObject(b.spec) ? b.spec : {}
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) {
    throw badRequest(
      'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    )
  }
  return {
    kind: 'SelfSubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: {creationTimestamp: null},
    spec,
    status: reviewAccess(identity, spec),
  }
}
