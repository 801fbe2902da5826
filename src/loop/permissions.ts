// What loop mode asks of the API server, verb by verb: the least privilege of deploy/rbac.yaml is this
// list (test/loop/rbac.test.ts holds the two together), and at start-up pvctl checks it with
// SelfSubjectAccessReviews and names what is missing before it does anything.
import type {ResourceAttributes} from '../cluster/live-api.js'
import {KCM_LEASE} from './builtin-binder.js'

export interface LoopPermissionOptions {
  /** --dry-run: no writes. */
  dryRun: boolean
  events: boolean
  /** -n: claims and pods of one namespace only. */
  namespace?: string
  /** --leader-elect: the lock. */
  lease?: {namespace: string; name: string}
  /** The kube-controller-manager Lease is read (the binder is not declared disabled). */
  readsKcmLease: boolean
  /** Where recycler pods run (the --recycler-pod-template's namespace, else default). */
  recyclerNamespace: string
}

export function loopPermissions(o: LoopPermissionOptions): ResourceAttributes[] {
  const out: ResourceAttributes[] = []
  const ns = o.namespace !== undefined ? {namespace: o.namespace} : {}
  for (const verb of ['list', 'watch']) {
    out.push({verb, group: '', resource: 'persistentvolumes'})
    out.push({verb, group: '', resource: 'persistentvolumeclaims', ...ns})
    out.push({verb, group: 'storage.k8s.io', resource: 'storageclasses'})
    out.push({verb, group: '', resource: 'pods', ...ns})
    out.push({verb, group: '', resource: 'nodes'})
  }
  if (!o.dryRun) {
    // The executor re-reads the objects of a sync after a conflict.
    out.push({verb: 'get', group: '', resource: 'persistentvolumes'})
    out.push({verb: 'get', group: '', resource: 'persistentvolumeclaims', ...ns})
    for (const subresource of [undefined, 'status']) {
      out.push({verb: 'update', group: '', resource: 'persistentvolumes', ...(subresource ? {subresource} : {})})
      out.push({
        verb: 'update',
        group: '',
        resource: 'persistentvolumeclaims',
        ...(subresource ? {subresource} : {}),
        ...ns,
      })
    }
    if (o.events) {
      out.push({verb: 'create', group: '', resource: 'events'})
      out.push({verb: 'patch', group: '', resource: 'events'})
    }
    // The volume plugins, as kube-controller-manager's persistent-volume-binder role grants them: recycler
    // and cleanup pods (cleanup pods run in default) and their events (relayed on the volume; the role's
    // "recyclerClient.WatchPod" rule), PV objects created by in-tree provisioning and deleted after a delete.
    for (const namespace of new Set([o.recyclerNamespace, 'default'])) {
      for (const verb of ['create', 'get', 'delete']) out.push({verb, group: '', resource: 'pods', namespace})
      out.push({verb: 'list', group: '', resource: 'events', namespace})
    }
    for (const verb of ['create', 'delete']) out.push({verb, group: '', resource: 'persistentvolumes'})
  }
  if (o.lease !== undefined) {
    // create cannot be limited to a name (the object has none yet when RBAC decides); get and update are.
    out.push({verb: 'create', group: 'coordination.k8s.io', resource: 'leases', namespace: o.lease.namespace})
    for (const verb of ['get', 'update'])
      out.push({
        verb,
        group: 'coordination.k8s.io',
        resource: 'leases',
        namespace: o.lease.namespace,
        name: o.lease.name,
      })
  }
  if (o.readsKcmLease)
    out.push({
      verb: 'get',
      group: 'coordination.k8s.io',
      resource: 'leases',
      namespace: KCM_LEASE.namespace,
      name: KCM_LEASE.name,
    })
  return out
}
