// pvctl explain from the state loaded to the answer: the evidence read for the verdicts the explanation
// gives, then either the picker's session (a terminal, no object named) or the document to print.
import type {ExplainDocument} from '../engine/explain/model.js'
import {withMissingKindCaveats} from '../engine/explain/missing-kinds.js'
import {controllerExplainer, type ExplainRequest} from '../engine/repair/explain-state.js'
import {explainInState, loadExplainState, type RunExplainOptions} from './explain.js'
import {gatherEvidence} from './explain-evidence.js'
import {type ExplainSessionUi, runExplainSession} from './explain-session.js'
import type {LoadStateUi} from './load-cluster-state.js'

/** What the user asked, as the explanation takes it; the release and its gates come from the state loaded. */
export type ExplainAsked = Omit<ExplainRequest, 'gates' | 'kubernetesVersion' | 'evidence' | 'pods'>

export interface ExplainUi extends LoadStateUi {
  /** The picker, made once the state is loaded; undefined: the document is the answer. */
  session?: () => ExplainSessionUi
}

export type ExplainOutcome =
  | {kind: 'session'; outcome: 'done' | 'interrupted'}
  | {
      kind: 'document'
      document: ExplainDocument
      /** 0: the claim is (or will be) bound, the volume is settled; 1: something stays pending or stuck. */
      exitCode: number
      /** Says what the answer rests on, once it is printed. */
      answered: () => void
    }

/** Where the state is read from: a snapshot, or the cluster and how it is reached, and the release asked for. */
export type ExplainSource = Omit<RunExplainOptions, keyof ExplainAsked>

export async function runExplain(asked: ExplainAsked, source: ExplainSource, ui: ExplainUi): Promise<ExplainOutcome> {
  const {state, evidence, answered, missing, loaded, pods} = await loadExplainState({...asked, ...source}, ui)
  // Explained as the release the cluster runs, with its gates.
  const request: ExplainRequest = {...asked, gates: loaded.gates, kubernetesVersion: loaded.version}
  // One controller view for both: what evidence to read is decided from the verdicts the explanation gives.
  const controller = controllerExplainer(state, request)
  request.evidence = await gatherEvidence(controller, request, evidence)
  request.pods = pods
  if (ui.session !== undefined)
    return {kind: 'session', outcome: await runExplainSession(loaded, request, ui.session(), controller)}
  const explained = explainInState(state, request, controller)
  return {
    kind: 'document',
    document: withMissingKindCaveats(explained.document, missing),
    exitCode: explained.exitCode,
    answered,
  }
}
