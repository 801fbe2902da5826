// Where explain's evidence comes from (Events, CSIDrivers, Leases, VolumeAttachments, and the clock): the
// live cluster, read best-effort for the object explained, or the snapshot when it holds such objects.
// The engine decides what to read (engine/explain/evidence-query.ts) and judges it; this file reads it.
import type {SnapshotEvidence} from '../cluster/snapshot.js'
import type {Explainer} from '../engine/explain/explainer.js'
import {evidenceQuery} from '../engine/explain/evidence-query.js'
import {
  type EvidenceQuery,
  type EvidenceScope,
  type ExplainEvidence,
  noEvidence,
  NOT_READ,
  type Observed,
} from '../engine/explain/evidence.js'
import type {LiveSession} from './live-session.js'

/**
 * Reads the evidence a query asks for. `complete`: the source holds all its evidence already (a
 * snapshot), whatever the query, so there is nothing to work out before reading it.
 */
export type EvidenceSource = ((query: EvidenceQuery) => Promise<ExplainEvidence>) & {readonly complete?: boolean}

/** A snapshot's evidence: a kind the snapshot holds no object of was not captured, so it is not available. */
export function snapshotEvidenceSource(evidence: SnapshotEvidence, now: () => number): EvidenceSource {
  const kind = <T>(items: readonly unknown[], name: string): Observed<T> =>
    items.length > 0
      ? {observed: true, items: items as T[]}
      : {observed: false, reason: `the snapshot holds no ${name} objects`}
  const read = (): Promise<ExplainEvidence> =>
    Promise.resolve({
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
export async function gatherEvidence(
  explainer: Explainer,
  req: EvidenceScope,
  source: EvidenceSource,
): Promise<ExplainEvidence> {
  if (source.complete === true) return source({events: [], leaseNames: [], volumeAttachments: false})
  const query = evidenceQuery(explainer, req)
  // An object that does not exist is a usage error, said next without a round of reads first.
  return query === undefined ? noEvidence(NOT_READ) : source(query)
}
