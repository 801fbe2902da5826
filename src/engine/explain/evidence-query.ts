// What evidence an explanation needs read: the Events, the Leases of the controllers its verdicts wait for,
// the VolumeAttachments; worked out from the verdicts without evidence (the reading is the caller's).
import type {EvidenceQuery, EvidenceScope} from './evidence.js'
import {claimsInScope, type Explainer} from './explainer.js'

/**
 * What to read for `req`, from the verdicts of `explainer` (controllerExplainer: no evidence yet); undefined
 * when the object named does not exist.
 */
export function evidenceQuery(explainer: Explainer, req: EvidenceScope): EvidenceQuery | undefined {
  const target = req.target
  // Events of cluster-scoped objects (volumes, VolumeAttachments) are recorded in namespace "default" (client-go's recorder).
  if (target?.kind === 'PersistentVolume') {
    const e = explainer.volume(target.name)
    if (e === undefined) return undefined
    return {
      events: [
        {namespace: 'default', fieldSelector: 'involvedObject.kind=PersistentVolume'},
        {namespace: 'default', fieldSelector: 'involvedObject.kind=VolumeAttachment'},
      ],
      leaseNames: unique(e.controllers.map((c) => c.leaseName)),
      volumeAttachments: true,
    }
  }
  const awaited =
    target === undefined
      ? // As the List decides them: a claim whose only volume an earlier claim takes may wait for a provisioner.
        claimsInScope(explainer, req).map((c) =>
          explainer.awaitedLease(c.metadata.namespace ?? '', c.metadata.name ?? '', true),
        )
      : [explainer.awaitedLease(target.namespace ?? 'default', target.name)]
  if (awaited.includes(undefined)) return undefined
  // Claims' events of every namespace, whatever the scope: a provisioner's last event, on a claim of any
  // namespace, tells whether it runs, and a scope must not change what is said of a claim.
  return {
    events: [{namespace: undefined, fieldSelector: 'involvedObject.kind=PersistentVolumeClaim'}],
    leaseNames: unique(awaited.flatMap((lease) => (lease == null ? [] : [lease]))),
    volumeAttachments: false,
  }
}

function unique(names: string[]): string[] {
  return [...new Set(names)].sort()
}
