// The evidence `pvctl audit` judges liveness by (Events, CSIDrivers, Leases, VolumeAttachments and the
// clock), as explain reads it: a snapshot's whole, or, live, best-effort lists of what the findings may ask
// about, as the engine works them out from the state as read (engine/audit/evidence-query.ts).
import {auditEvidenceQuery} from '../engine/audit/evidence-query.js'
import type {ExplainEvidence} from '../engine/explain/evidence.js'
import {liveEvidenceSource, snapshotEvidenceSource} from './explain-evidence.js'
import type {LoadedClusterState} from './load-cluster-state.js'

export async function auditEvidence(
  loaded: LoadedClusterState,
  now: () => number = Date.now,
): Promise<ExplainEvidence> {
  if (loaded.source === 'snapshot') {
    return snapshotEvidenceSource(loaded.evidence, now)({events: [], leaseNames: [], volumeAttachments: false})
  } else {
    return liveEvidenceSource(loaded.session, now)(auditEvidenceQuery(loaded.state))
  }
}
