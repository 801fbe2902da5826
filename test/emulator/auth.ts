// Authentication by bearer token and authorization by deny rules. Real clusters use RBAC (allow rules);
// tests want "alice may do everything except update PVs", so the emulator inverts it: a known token may
// do everything its deny list does not name. The 401/403 bodies and the SelfSubjectAccessReview answer
// are shaped like the real ones (responsewriters.ForbiddenStatusError, authorization/v1).
import {forbidden, unauthorized, type ApiError} from './status-errors.js'
import type {Verb} from './types.js'

export interface DenyRule {
  /** An authorizer verb, or '*' for all. */
  verb: Verb | '*'
  /** Plural resource name (`persistentvolumes`), `plural/subresource`, or '*'. */
  resource: string
  /** `status`, or '*' for every subresource. Without it the rule covers the main resource only (RBAC's rule). */
  subresource?: string
  /** API group; any group when absent. */
  group?: string
  /** Only in this namespace; any namespace (and cluster scope) when absent. */
  namespace?: string
  /** Only this object name. */
  name?: string
}

export interface TokenInfo {
  user: string
  groups?: string[]
  deny?: DenyRule[]
}

export type Tokens = Record<string, TokenInfo>

/** authorizer.Attributes for a resource request. */
export interface ResourceAttributes {
  verb: string
  group: string
  resource: string
  subresource: string
  namespace: string
  name: string
}

export interface Identity {
  user: string
  deny: readonly DenyRule[]
}

/** Who sends requests when no tokens are configured: everything is allowed. */
export const ADMIN: Identity = {user: 'admin', deny: []}

/** Resolves the Authorization header; throws 401 Unauthorized for a missing or unknown token. */
export function authenticate(tokens: Tokens | undefined, header: string | undefined): Identity {
  if (!tokens) return ADMIN
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')
  const info = m ? tokens[m[1]] : undefined
  if (!info) throw unauthorized()
  return {user: info.user, deny: info.deny ?? []}
}

function ruleMatches(rule: DenyRule, a: ResourceAttributes): boolean {
  if (rule.verb !== '*' && rule.verb !== a.verb) return false
  if (rule.group !== undefined && rule.group !== a.group) return false
  if (rule.namespace !== undefined && rule.namespace !== a.namespace) return false
  if (rule.name !== undefined && rule.name !== a.name) return false
  let [resource, subresource] = rule.resource.split('/') as [string, string | undefined]
  subresource = rule.subresource ?? subresource
  if (resource === '*') return true
  if (resource !== a.resource) return false
  if (subresource === '*') return true
  return (subresource ?? '') === a.subresource
}

export function isAllowed(identity: Identity, a: ResourceAttributes): boolean {
  return !identity.deny.some((rule) => ruleMatches(rule, a))
}

/** forbiddenMessage + ForbiddenStatusError: details name the plural resource, the message the subresource too. */
export function forbiddenError(identity: Identity, a: ResourceAttributes): ApiError {
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource
  const where = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope'
  const why = `User "${identity.user}" cannot ${a.verb} resource "${resource}" in API group "${a.group}" ${where}`
  return forbidden({group: a.group, resource: a.resource}, a.name || undefined, why)
}

/** Throws 403 when a deny rule covers the request. */
export function authorize(identity: Identity, a: ResourceAttributes): void {
  if (!isAllowed(identity, a)) throw forbiddenError(identity, a)
}

/**
 * The status of a SelfSubjectAccessReview. Non-resource requests (paths) are always allowed; RBAC leaves
 * `reason` empty on a denial, and so do we.
 */
export function reviewAccess(identity: Identity, spec: Record<string, unknown>): {allowed: boolean} {
  const ra = spec.resourceAttributes as Partial<ResourceAttributes> | undefined
  if (!ra) return {allowed: true}
  const attrs: ResourceAttributes = {
    verb: ra.verb ?? '',
    group: ra.group ?? '',
    resource: ra.resource ?? '',
    subresource: ra.subresource ?? '',
    namespace: ra.namespace ?? '',
    name: ra.name ?? '',
  }
  return {allowed: isAllowed(identity, attrs)}
}
