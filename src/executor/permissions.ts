// Before writing, ask the API (SelfSubjectAccessReview) for every permission the plan needs, and name
// the missing ones — better than failing halfway through a repair.
import type {ClusterApi, ResourceAttributes} from '../cluster/live-api.js'
import type {Action} from '../engine/plan.js'

const OPERATIONS = new Set(['recycle', 'delete', 'provision'])

export function permissionsFor(actions: readonly Action[], events: boolean): ResourceAttributes[] {
  const needed = new Map<string, ResourceAttributes>()
  const add = (a: ResourceAttributes) => needed.set(`${a.verb} ${a.resource}/${a.subresource ?? ''} ${a.namespace ?? ''}`, a)
  for (const a of actions) {
    if (OPERATIONS.has(a.action)) continue
    const resource = a.object.kind === 'PersistentVolume' ? 'persistentvolumes' : 'persistentvolumeclaims'
    add({verb: 'update', group: '', resource, ...(a.subresource ? {subresource: a.subresource} : {}), ...(a.object.namespace ? {namespace: a.object.namespace} : {})})
    if (events) {
      const namespace = a.object.namespace ?? 'default'
      add({verb: 'create', group: '', resource: 'events', namespace})
      add({verb: 'patch', group: '', resource: 'events', namespace})
    }
  }
  return [...needed.values()]
}

export function describePermission(a: ResourceAttributes): string {
  return `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ''} ${a.namespace ? `in namespace ${a.namespace}` : '(cluster-wide)'}`
}

/** The permissions the current user lacks, of those given. */
export async function missingPermissions(api: ClusterApi, wanted: readonly ResourceAttributes[]): Promise<ResourceAttributes[]> {
  const answers = await Promise.all(wanted.map(async (a) => ({a, allowed: await api.canI(a)})))
  return answers.filter((x) => !x.allowed).map((x) => x.a)
}
