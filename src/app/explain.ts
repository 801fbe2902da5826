// The explain use-case: load the state once, explain the object named (or every claim not Bound) with the
// engine (engine/repair/explain-state.ts), and say how the command should exit. No oclif here: the command
// passes options in and renders the document that comes back.
import type {ClusterState} from '../engine/api/model.js'
import type {MissingKind} from '../engine/explain/missing-kinds.js'
import type {Explainer} from '../engine/explain/explainer.js'
import type {ExplainDocument} from '../engine/explain/model.js'
import type {PodsRead} from '../engine/repair/reclaim.js'
import {type ExplainRequest, explainState} from '../engine/repair/explain-state.js'
import {ExitCode} from '../errors.js'
import {type EvidenceSource, liveEvidenceSource, snapshotEvidenceSource} from './explain-evidence.js'
import {
  loadClusterState,
  type LoadedClusterState,
  type LoadStateOptions,
  type LoadStateUi,
  noticeEmptyNamespace,
  noticeCaveats,
  podsRead,
} from './load-cluster-state.js'
import {asked} from './request-errors.js'

export interface ExplainResult {
  document: ExplainDocument
  /** 0: the claim is (or will be) bound, the volume is settled; 1: something stays pending or stuck. */
  exitCode: number
}

export interface RunExplainOptions
  extends
    Omit<ExplainRequest, 'gates' | 'kubernetesVersion'>,
    Omit<LoadStateOptions, 'namespace' | 'labelSelectorText'> {}

/**
 * Every claim is loaded, in every namespace, whatever -n says: whether a volume's claimRef is stale
 * depends on claims of other namespaces, and a candidate bound to team-b/cache must not look free.
 * The evidence is read later (gatherEvidence), once it is known what to look for.
 */
export async function loadExplainState(
  opts: RunExplainOptions,
  ui: LoadStateUi,
): Promise<{
  state: ClusterState
  evidence: EvidenceSource
  /** Says what the answer rests on, once it is made. */
  answered: () => void
  /** The kinds the snapshot lacks (none for a live cluster, which lists every kind). */
  missing: ReadonlySet<MissingKind>
  /** The state as loaded, with its source: the interactive flow's reclaim writes through it. */
  loaded: LoadedClusterState
  /** Whether its pods were read, for the repairs offered (ExplainRequest.pods). */
  pods: PodsRead
}> {
  const loaded = await loadClusterState({...opts, namespace: undefined, labelSelectorText: undefined}, ui)
  noticeEmptyNamespace(loaded.state, opts.target === undefined ? opts.namespace : undefined, ui)
  const evidence =
    loaded.source === 'snapshot'
      ? snapshotEvidenceSource(loaded.evidence, Date.now)
      : liveEvidenceSource(loaded.session, Date.now)
  return {
    state: loaded.state,
    evidence,
    answered: () => noticeCaveats(loaded, ui),
    missing: new Set(loaded.source === 'snapshot' ? loaded.missing : []),
    loaded,
    pods: podsRead(loaded),
  }
}

/**
 * The engine's explanation of `state` for `req` (explainState; `base`: its controllerExplainer, already made),
 * with the exit code it gives; an object named that the state lacks, or a List too large, is a usage error.
 */
export function explainInState(state: ClusterState, req: ExplainRequest, base?: Explainer): ExplainResult {
  const {document, settled} = asked(() => explainState(state, req, base))
  return {document, exitCode: settled ? ExitCode.Ok : ExitCode.Changes}
}
