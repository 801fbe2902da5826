// What evidence `pvctl audit` reads live: the Leases of every provisioner a claim or a volume of the state
// may wait for and of every attacher a volume being deleted waits for, worked out from the state as read,
// so that the evidence is read once, before the plan, for every object at once.
import {AnnDynamicallyProvisioned, AnnMigratedTo} from '../api/constants.js'
import type {ClusterState} from '../api/model.js'
import type {EvidenceQuery} from '../explain/evidence.js'
import {attacherLeaseName, provisionerLeaseName} from '../explain/liveness.js'

const EXTERNAL_ATTACHER_PREFIX = 'external-attacher/'

/**
 * What to read live: the events of claims (in every namespace, whatever -n says: a provisioner's last event,
 * on a claim of any namespace, tells whether it runs), of volumes and VolumeAttachments, the Leases named above.
 */
export function auditEvidenceQuery(state: ClusterState): EvidenceQuery {
  const leases = new Set<string>()
  for (const c of state.classes) {
    const provisioner = c.provisioner ?? ''
    if (provisioner !== '') leases.add(provisionerLeaseName(provisioner))
  }
  let attachers = false
  for (const v of state.volumes) {
    const deleter =
      v.metadata.annotations?.[AnnMigratedTo] ??
      v.spec.csi?.driver ??
      v.metadata.annotations?.[AnnDynamicallyProvisioned]
    if (v.spec.persistentVolumeReclaimPolicy === 'Delete' && deleter !== undefined && deleter !== '')
      leases.add(provisionerLeaseName(deleter))
    for (const f of v.metadata.deletionTimestamp == null ? [] : (v.metadata.finalizers ?? [])) {
      if (f.startsWith(EXTERNAL_ATTACHER_PREFIX)) {
        leases.add(attacherLeaseName(f.slice(EXTERNAL_ATTACHER_PREFIX.length)))
        attachers = true
      } else {
        // Not an attacher's finalizer: no Lease of its own to look for.
      }
    }
  }
  return {
    // Events of cluster-scoped objects (volumes, VolumeAttachments) are recorded in namespace "default" (client-go's recorder).
    events: [
      {namespace: undefined, fieldSelector: 'involvedObject.kind=PersistentVolumeClaim'},
      {namespace: 'default', fieldSelector: 'involvedObject.kind=PersistentVolume'},
      {namespace: 'default', fieldSelector: 'involvedObject.kind=VolumeAttachment'},
    ],
    leaseNames: [...leases].sort(),
    volumeAttachments: attachers,
  }
}
