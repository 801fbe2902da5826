// URL → what is asked, as the apiserver's RequestInfoFactory reads it:
//   /api/v1/[namespaces/<ns>/]<resource>[/<name>[/<subresource>]]
//   /apis/<group>/<version>/[namespaces/<ns>/]<resource>[/<name>[/<subresource>]]
// `/api/v1/namespaces/<ns>` is the namespace object itself (and `/status` its subresource), the legacy
// `/watch/` path segment and `?watch=true` both make a watch, and the verb is the authorizer's verb.
import {lookupResource, type ResourceDef} from './resources.js'
import type {Verb} from './types.js'

export type Route =
  | {kind: 'health'; path: string}
  | {kind: 'version'}
  | {kind: 'apiVersions'}
  | {kind: 'apiGroupList'}
  | {kind: 'apiGroup'; group: string}
  | {kind: 'apiResourceList'; group: string; version: string}
  | {kind: 'openapiV3'; path: string}
  | {kind: 'notFound'}
  | ResourceRoute

export interface ResourceRoute {
  kind: 'resource'
  verb: Verb
  group: string
  version: string
  /** The plural as written in the URL; `def` is undefined when the group/version does not serve it. */
  resource: string
  def: ResourceDef | undefined
  namespace: string
  name: string
  subresource: string
}

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize'])

function isWatch(query: URLSearchParams): boolean {
  const w = query.get('watch')
  return w === 'true' || w === '1'
}

export function route(method: string, pathname: string, query: URLSearchParams): Route {
  const path = pathname.replace(/\/+$/, '') || '/'
  if (['/healthz', '/readyz', '/livez'].some((p) => path === p || path.startsWith(`${p}/`)))
    return {kind: 'health', path}
  if (path === '/version') return {kind: 'version'}
  if (path === '/api') return {kind: 'apiVersions'}
  if (path === '/apis') return {kind: 'apiGroupList'}
  if (path === '/openapi/v3' || path.startsWith('/openapi/v3/'))
    return {kind: 'openapiV3', path: path.slice('/openapi/v3/'.length)}
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent)
  let group: string
  let version: string
  let rest: string[]
  if (parts[0] === 'api' && parts.length >= 2) {
    group = ''
    version = parts[1]
    rest = parts.slice(2)
  } else if (parts[0] === 'apis' && parts.length >= 2) {
    group = parts[1]
    if (parts.length === 2) return {kind: 'apiGroup', group}
    version = parts[2]
    rest = parts.slice(3)
  } else return {kind: 'notFound'}
  if (rest.length === 0) return {kind: 'apiResourceList', group, version}

  let watch = isWatch(query)
  if (rest[0] === 'watch') {
    watch = true
    rest = rest.slice(1)
  }
  let namespace = ''
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1]
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2])) rest = rest.slice(2)
  }
  if (rest.length === 0 || rest.length > 3) return {kind: 'notFound'}
  const [resource, name = '', subresource = ''] = rest
  const def = lookupResource(group, version, resource)

  let verb: Verb
  switch (method) {
    case 'GET':
    case 'HEAD':
      verb = watch ? 'watch' : name ? 'get' : 'list'
      break
    case 'POST':
      verb = 'create'
      break
    case 'PUT':
      verb = 'update'
      break
    case 'PATCH':
      verb = 'patch'
      break
    case 'DELETE':
      verb = name ? 'delete' : 'deletecollection'
      break
    default:
      verb = 'get'
  }
  return {kind: 'resource', verb, group, version, resource, def, namespace, name, subresource}
}
