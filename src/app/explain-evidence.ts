// Where explain's evidence comes from (Events, CSIDrivers, Leases, VolumeAttachments, and the clock): the
// live cluster, read best-effort for the object explained, or the snapshot when it holds such objects.
// The engine judges it; this file only decides what to read and reads it.
import type {EvidenceQuery} from '../cluster/explain-evidence-api.js'
import type {SnapshotEvidence} from '../cluster/snapshot.js'
import {claimsInScope, type Explainer} from '../engine/explain/explainer.js'
import {type EvidenceScope, type ExplainEvidence, noEvidence, NOT_READ, type Observed} from '../engine/explain/evidence.js'
import type {LiveSession} from './live-session.js'

/**
 * Reads the evidence a query asks for. `complete`: the source holds all its evidence already (a
 * snapshot), whatever the query, so there is nothing to work out before reading it.
 */
export type EvidenceSource = ((query: EvidenceQuery) => Promise<ExplainEvidence>) & {readonly complete?: boolean}

/** A snapshot's evidence: a kind the snapshot holds no object of was not captured, so it is not available. */
export function snapshotEvidenceSource(evidence: SnapshotEvidence, now: () => number): EvidenceSource {
  const kind = <T>(items: readonly unknown[], name: string): Observed<T> =>
    items.length > 0 ? {observed: true, items: items as T[]} : {observed: false, reason: `the snapshot holds no ${name} objects`}
  const read = async (): Promise<ExplainEvidence> => ({
    now: now(),
    events: kind(evidence.events, 'Event'),
    csiDrivers: kind(evidence.csiDrivers, 'CSIDriver'),
    leases: kind(evidence.leases, 'Lease'),
    volumeAttachments: kind(evidence.volumeAttachments, 'VolumeAttachment'),
  })
  return Object.assign(read, {complete: true})
}

export function liveEvidenceSource(session: LiveSession, now: () => number): EvidenceSource {
  return async (query) => {
    // client-node is loaded already (the state was just read through it); this module is not.
    const {readExplainEvidence} = await import('../cluster/explain-evidence-api.js')
    return readExplainEvidence(session.evidence, query, now())
  }
}

/**
 * The evidence for what `req` explains. Which Leases to look for depends on the verdict (the provisioner a
 * claim waits for, the attachers of a volume's finalizers), so the verdicts are worked out first, without
 * evidence and without candidates: the engine names the Leases, and nothing but those is read. A snapshot
 * holds its evidence already: it is taken whole, with no verdicts first.
 */
export async function gatherEvidence(explainer: Explainer, req: EvidenceScope, source: EvidenceSource): Promise<ExplainEvidence> {
  if (source.complete === true) return source({events: [], leaseNames: [], volumeAttachments: false})
  const query = evidenceQuery(explainer, req)
  // An object that does not exist is a usage error, said next without a round of reads first.
  return query === undefined ? noEvidence(NOT_READ) : source(query)
}

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
        claimsInScope(explainer, req).map((c) => explainer.awaitedLease(c.metadata.namespace ?? '', c.metadata.name ?? '', true))
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
