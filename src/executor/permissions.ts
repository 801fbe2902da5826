// Before writing, ask the API (SelfSubjectAccessReview) for every permission the plan needs, and name
// the missing ones — better than failing halfway through a repair.
import type {ClusterApi, ResourceAttributes} from '../cluster/live-api.js'
import type {Action} from '../engine/simulation/plan.js'
import {ClusterError} from '../errors.js'

const OPERATIONS = new Set(['recycle', 'delete', 'provision'])

/**
 * The permissions a plan needs. `plugins`: the volume plugins are carried out, recycler pods in that
 * namespace (cleanup pods in "default") — a recycle or delete runs a pod (create, read, delete it) and then
 * writes the volume (its status, its finalizer, the PV object gone), a provision creates a PV.
 */
export function permissionsFor(
  actions: readonly Action[],
  events: boolean,
  plugins?: {recyclerNamespace: string},
): ResourceAttributes[] {
  const needed = new Map<string, ResourceAttributes>()
  const add = (a: ResourceAttributes) =>
    needed.set(`${a.verb} ${a.resource}/${a.subresource ?? ''} ${a.namespace ?? ''}`, a)
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
    add({
      verb: 'update',
      group: '',
      resource,
      ...(a.subresource ? {subresource: a.subresource} : {}),
      ...(a.object.namespace ? {namespace: a.object.namespace} : {}),
    })
    if (events) {
      const namespace = a.object.namespace ?? 'default'
      add({verb: 'create', group: '', resource: 'events', namespace})
      add({verb: 'patch', group: '', resource: 'events', namespace})
    }
  }
  return [...needed.values()]
}

/**
 * What `pvctl reclaim` asks of the API server, live: the load's lists (the loader's kinds, and the
 * VolumeAttachments), then the guard's calls — the volume read again, every claim listed again (the load's
 * list), the pods of the old claim's namespace, the VolumeAttachments, and the PUT of the volume.
 * deploy/repair-rbac.yaml grants exactly this (test/loop/repair-rbac.test.ts holds the two together).
 */
export function reclaimPermissions(
  volumeName: string,
  oldClaim?: {namespace: string; name: string},
): ResourceAttributes[] {
  return [
    ...LOAD_LISTS,
    {verb: 'list', group: 'storage.k8s.io', resource: 'volumeattachments'},
    core('get', 'persistentvolumes', {name: volumeName}),
    ...(oldClaim === undefined ? [] : [core('list', 'pods', {namespace: oldClaim.namespace})]),
    core('update', 'persistentvolumes', {name: volumeName}),
  ]
}

/**
 * What `pvctl relink` asks of the API server, live, for each pair: the load's lists, then the guard's calls
 * — the volume and the claim read again, and the PUT of each it writes (the volume, then the claim).
 * deploy/repair-rbac.yaml grants it (test/loop/repair-rbac.test.ts holds the two together).
 */
export function relinkPermissions(
  pairs: ReadonlyArray<{
    volume: string
    claim: {namespace: string; name: string}
    writes: ReadonlyArray<'PersistentVolume' | 'PersistentVolumeClaim'>
  }>,
): ResourceAttributes[] {
  return [
    ...LOAD_LISTS,
    ...pairs.flatMap((p) => [
      core('get', 'persistentvolumes', {name: p.volume}),
      core('get', 'persistentvolumeclaims', p.claim),
      ...p.writes.map((kind) =>
        kind === 'PersistentVolume'
          ? core('update', 'persistentvolumes', {name: p.volume})
          : core('update', 'persistentvolumeclaims', p.claim),
      ),
    ]),
  ]
}

const core = (verb: string, resource: string, where: {namespace?: string; name?: string} = {}): ResourceAttributes => ({
  verb,
  group: '',
  resource,
  ...where,
})
/** The load's lists (the loader's kinds). */
const LOAD_LISTS: ResourceAttributes[] = [
  core('list', 'persistentvolumes'),
  core('list', 'persistentvolumeclaims'),
  {verb: 'list', group: 'storage.k8s.io', resource: 'storageclasses'},
  core('list', 'pods'),
  core('list', 'nodes'),
]

export function describePermission(a: ResourceAttributes): string {
  // The group only where it is not the core one: "list volumeattachments.storage.k8s.io", as kubectl auth can-i takes it.
  const resource = `${a.resource}${a.group ? `.${a.group}` : ''}${a.subresource ? `/${a.subresource}` : ''}`
  // The name where the check asked for one object: RBAC may grant that object alone (resourceNames).
  return `${a.verb} ${resource}${a.name ? ` named ${a.name}` : ''} ${a.namespace ? `in namespace ${a.namespace}` : '(cluster-wide)'}`
}

/**
 * Throws, naming each permission of `wanted` the current user lacks, in one line; `grant` says where they
 * come from. Every writing command calls it before its first write.
 */
export async function requirePermissions(
  api: ClusterApi,
  wanted: readonly ResourceAttributes[],
  grant: string,
): Promise<void> {
  const missing = await missingPermissions(api, wanted)
  if (missing.length > 0)
    throw new ClusterError(`missing permissions: ${missing.map(describePermission).join('; ')}`, [
      `${grant}, or run with --dry-run`,
    ])
}

/** The permissions the current user lacks, of those given. */
export async function missingPermissions(
  api: ClusterApi,
  wanted: readonly ResourceAttributes[],
): Promise<ResourceAttributes[]> {
  const answers = await Promise.all(wanted.map(async (a) => ({a, allowed: await api.canI(a)})))
  return answers.filter((x) => !x.allowed).map((x) => x.a)
}
