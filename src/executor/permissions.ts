// Before writing, ask the API (SelfSubjectAccessReview) for every permission the plan needs, and name
// the missing ones — better than failing halfway through a repair.
import type {ClusterApi, ResourceAttributes} from '../cluster/live-api.js'
import type {Action} from '../engine/simulation/plan.js'

const OPERATIONS = new Set(['recycle', 'delete', 'provision'])

/**
 * The permissions a plan needs. `plugins`: the volume plugins are carried out, recycler pods in that
 * namespace (cleanup pods in "default") — a recycle or delete runs a pod (create, read, delete it) and then
 * writes the volume (its status, its finalizer, the PV object gone), a provision creates a PV.
 */
export function permissionsFor(actions: readonly Action[], events: boolean, plugins?: {recyclerNamespace: string}): ResourceAttributes[] {
  const needed = new Map<string, ResourceAttributes>()
  const add = (a: ResourceAttributes) => needed.set(`${a.verb} ${a.resource}/${a.subresource ?? ''} ${a.namespace ?? ''}`, a)
  for (const a of actions) {
    if (OPERATIONS.has(a.action)) {
      if (plugins === undefined) continue
      if (a.action === 'provision') {
        add({verb: 'create', group: '', resource: 'persistentvolumes'})
        continue
      }
      const podNamespace = a.action === 'recycle' ? plugins.recyclerNamespace : 'default'
      for (const verb of ['create', 'get', 'delete']) add({verb, group: '', resource: 'pods', namespace: podNamespace})
      add({verb: 'update', group: '', resource: 'persistentvolumes'})
      add({verb: 'update', group: '', resource: 'persistentvolumes', subresource: 'status'})
      if (a.action === 'delete') add({verb: 'delete', group: '', resource: 'persistentvolumes'})
      continue
    }
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
