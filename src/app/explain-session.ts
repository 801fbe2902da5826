// `pvctl explain` on a terminal with no claim named: pick a claim that is not Bound, read its explanation,
// then follow up (a near-miss volume's YAML, the dry-run sync of the claim, another claim). The flow is
// here; the prompts and the printing are the caller's (a UI port), so the flow is tested without a
// terminal and the terminal without the flow.
import {claimsInScope, type Explainer} from '../engine/explain/explainer.js'
import type {ClaimExplanation} from '../engine/explain/model.js'
import type {ClusterState, PersistentVolume} from '../engine/api/model.js'
import {refOfClaim} from '../engine/simulation/plan.js'
import {controllerExplainer, type ExplainRequest, LIST_CANDIDATES} from './explain.js'
import {planSync} from './sync.js'
import type {SyncReport} from './sync-report.js'

export interface Choice<T> {
  value: T
  name: string
  description?: string
}

export interface ExplainSessionUi {
  /** Asks for one of the choices; undefined when the user gives up (Ctrl-C). */
  choose<T>(message: string, choices: ReadonlyArray<Choice<T>>): Promise<T | undefined>
  showClaim(explanation: ClaimExplanation): void
  showVolume(volume: PersistentVolume): void
  showPlan(report: SyncReport): void
  notice(line: string): void
}

/** What can follow an explanation. */
export type NextStep = {kind: 'volume'; name: string} | {kind: 'sync'} | {kind: 'another'} | {kind: 'quit'}

/** How many volumes the follow-up menu offers to show. */
const NEAR_MISSES = 3

/** `base`: the controller's view of `state` already made for `req` (controllerExplainer), its pass reused. */
export async function runExplainSession(state: ClusterState, req: ExplainRequest, ui: ExplainSessionUi, base: Explainer = controllerExplainer(state, req)): Promise<void> {
  const claims = claimsInScope(state, req)
  if (claims.length === 0) {
    ui.notice(`no claim that is not Bound${req.namespace !== undefined ? ` in namespace ${req.namespace}` : ''}: nothing to explain`)
    return
  }
  // The menu needs each claim's verdict and summary, not every volume of each: the claim picked is
  // explained again with its candidates as --candidates asks (all of them by default, as pvc/NAME).
  const explainer = base.with({onlyRelevant: req.onlyRelevant, evidence: req.evidence, candidates: LIST_CANDIDATES})
  // The menu is a List: each claim as its sync in the controller's pass decides it (listItem), and so is
  // the claim picked, so that its explanation says what its line in the menu said.
  const explanations = claims.map((c) => explainer.listItem(c.metadata.namespace ?? '', c.metadata.name ?? '')!)
  for (;;) {
    const picked = await ui.choose<ClaimExplanation | null>('Which claim?', [
      ...explanations.map((e) => ({value: e, name: `${e.claim.namespace}/${e.claim.name}  ${e.verdict}`, description: e.summary})),
      {value: null, name: 'Quit'},
    ])
    if (picked === undefined || picked === null) return
    const full = explainer.listItem(picked.claim.namespace, picked.claim.name, req.candidates ?? 0)!
    ui.showClaim(full)
    const next = await followUp(state, req, full, ui)
    if (next === 'quit') return
  }
}

/** The menu after an explanation, until the user picks another claim or quits. */
async function followUp(state: ClusterState, req: ExplainRequest, e: ClaimExplanation, ui: ExplainSessionUi): Promise<'another' | 'quit'> {
  for (;;) {
    const step = await ui.choose<NextStep>('Next?', nextSteps(e))
    if (step === undefined || step.kind === 'quit') return 'quit'
    switch (step.kind) {
      case 'volume': {
        const volume = state.volumes.find((v) => v.metadata.name === step.name)
        if (volume !== undefined) ui.showVolume(volume)
        break
      }
      case 'sync':
        ui.showPlan(planSync(state, {dryRun: true, gates: req.gates, hostPathProvisioning: req.hostPathProvisioning, targets: [refOfClaim(e.claim.namespace, e.claim.name)]}))
        break
      case 'another':
        return 'another'
    }
  }
}

/** The claim's volume (bound or next), then the nearest volumes that were refused, then the rest. */
export function nextSteps(e: ClaimExplanation): Array<Choice<NextStep>> {
  const steps: Array<Choice<NextStep>> = []
  if (e.volume !== null) steps.push({value: {kind: 'volume', name: e.volume}, name: `Show pv/${e.volume} (YAML)`})
  const nearMisses = e.candidates.filter((c) => !c.eligible && !c.reasons.some((r) => r.code === 'NotConsidered')).slice(0, NEAR_MISSES)
  for (const c of nearMisses) {
    steps.push({value: {kind: 'volume', name: c.volume}, name: `Show pv/${c.volume} (YAML): ${c.reasons[0].message}${c.reasons.length > 1 ? ` (+${c.reasons.length - 1})` : ''}`})
  }
  steps.push(
    {value: {kind: 'sync'}, name: `Show the dry-run sync of pvc/${e.claim.name}`},
    {value: {kind: 'another'}, name: 'Pick another claim'},
    {value: {kind: 'quit'}, name: 'Quit'},
  )
  return steps
}
