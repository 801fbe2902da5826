// RBAC manifests as the API-server emulator can enforce them. The emulator's tokens take deny lists, so a
// grant is made by denying every (verb, resource, subresource) the RBAC does not allow, and — for what only
// a Role allows — every other namespace. A deny list cannot say "every name but one": resourceNames are
// checked statically (allows), and the emulator allows the other names of a granted (verb, resource,
// namespace).
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'

import {parseAllDocuments} from 'yaml'

import type {ResourceAttributes} from '../../src/cluster/live-api.js'
import type {DenyRule} from '../emulator/emulator.js'
import {RESOURCES} from '../emulator/resources.js'

export interface Grant {
  verbs: string[]
  apiGroups: string[]
  resources: string[]
  resourceNames?: string[]
  /** A Role's namespace; undefined for a ClusterRole (bound cluster-wide). */
  namespace?: string
}

export interface Subject {
  kind: string
  name: string
  namespace?: string
}

/** The namespaces the tests' requests can name ('' is cluster scope and across namespaces). */
const NAMESPACES = ['', 'default', 'kube-system', 'kube-public', 'kube-node-lease', 'pvctl-system', 'team', 'shop']
const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'] as const

function documentsOf(file: string): Array<Record<string, any>> {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJSON() as Record<string, any>)
}

/** What the bindings of `file` grant `subject`; every binding in the file must bind it. */
export function boundGrantsOf(file: string, subject: Subject): Grant[] {
  const docs = documentsOf(file)
  const roles = new Map(
    docs
      .filter((d) => d.kind === 'ClusterRole' || d.kind === 'Role')
      .map((d) => [`${d.kind}/${d.metadata.namespace ?? ''}/${d.metadata.name}`, d]),
  )
  const grants: Grant[] = []
  for (const b of docs.filter((d) => d.kind === 'ClusterRoleBinding' || d.kind === 'RoleBinding')) {
    assert.ok(
      b.subjects.some(
        (s: Subject) => s.kind === subject.kind && s.name === subject.name && s.namespace === subject.namespace,
      ),
      `${b.metadata.name} binds ${subject.kind} ${subject.name}`,
    )
    const roleNs = b.roleRef.kind === 'Role' ? b.metadata.namespace : ''
    const role = roles.get(`${b.roleRef.kind}/${roleNs}/${b.roleRef.name}`)
    assert.ok(role, `${b.metadata.name}: role ${b.roleRef.name} exists`)
    for (const r of role.rules)
      grants.push({...r, namespace: b.kind === 'RoleBinding' ? b.metadata.namespace : undefined})
  }
  return grants
}

/** The rules of the ClusterRole `name` in `file`, as a ClusterRoleBinding grants them. */
export function clusterRoleGrantsOf(file: string, name: string): Grant[] {
  const role = documentsOf(file).find((d) => d.kind === 'ClusterRole' && d.metadata.name === name)
  assert.ok(role, `ClusterRole ${name} in ${file}`)
  return role.rules.map((r: Grant) => ({...r}))
}

export function allows(g: Grant, a: ResourceAttributes, opts: {ignoreNames?: boolean} = {}): boolean {
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource
  if (!g.verbs.includes(a.verb) || !g.apiGroups.includes(a.group) || !g.resources.includes(resource)) return false
  if (g.namespace !== undefined && g.namespace !== (a.namespace ?? '')) return false
  if (!opts.ignoreNames && g.resourceNames !== undefined && !(a.name !== undefined && g.resourceNames.includes(a.name)))
    return false
  return true
}

/** Each (verb, resource) the grants allow that none of `needed` asks for: a rule granted but never used. */
export function unusedGrants(grants: readonly Grant[], needed: readonly ResourceAttributes[]): string[] {
  const unused: string[] = []
  for (const g of grants) {
    for (const verb of g.verbs) {
      for (const resource of g.resources) {
        const [plural, subresource] = resource.split('/')
        const used = needed.some(
          (p) =>
            p.verb === verb &&
            g.apiGroups.includes(p.group) &&
            p.resource === plural &&
            (p.subresource ?? '') === (subresource ?? '') &&
            (g.namespace === undefined || g.namespace === p.namespace) &&
            (g.resourceNames === undefined || (p.name !== undefined && g.resourceNames.includes(p.name))),
        )
        if (!used) unused.push(`${verb} ${resource}${g.namespace ? ` in ${g.namespace}` : ''}`)
      }
    }
  }
  return unused
}

/** The emulator's deny list that leaves exactly the grants (names aside). */
export function denyAllBut(grants: readonly Grant[]): DenyRule[] {
  const deny: DenyRule[] = []
  for (const def of RESOURCES) {
    if (def.virtual) continue // SelfSubjectAccessReviews: every authenticated user may create them
    for (const subresource of ['', ...def.subresources]) {
      for (const verb of VERBS) {
        const attrs = (namespace: string): ResourceAttributes => ({
          verb,
          group: def.group,
          resource: def.plural,
          ...(subresource ? {subresource} : {}),
          namespace,
        })
        const where = NAMESPACES.filter((ns) => grants.some((g) => allows(g, attrs(ns), {ignoreNames: true})))
        const rule = {verb, resource: def.plural, group: def.group, ...(subresource ? {subresource} : {})}
        if (where.length === 0) deny.push(rule)
        else if (where.length < NAMESPACES.length)
          for (const ns of NAMESPACES.filter((n) => !where.includes(n))) deny.push({...rule, namespace: ns})
      }
    }
  }
  return deny
}
