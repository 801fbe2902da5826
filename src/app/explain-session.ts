// `pvctl explain` on a terminal with no claim named: pick a claim that is not Bound (typed to filter, the
// ones that will never bind first), read its explanation, then follow up (a near-miss volume's YAML, the
// dry-run sync of the claim, the reclaim of a volume held back only by its stale claimRef, another
// claim). The flow is here; the prompts and the printing are the caller's (a UI port), so the flow is
// tested without a terminal and the terminal without the flow.
import {claimsInScope, type Explainer} from '../engine/explain/explainer.js'
import type {ClaimExplanation, Verdict} from '../engine/explain/model.js'
import {decisiveNote} from '../engine/explain/parties.js'
import type {ClusterState, PersistentVolume} from '../engine/api/model.js'
import type {ReclaimOffer} from '../engine/repair/offers.js'
import type {ClaimName} from '../engine/repair/reclaim.js'
import type {ReclaimReport} from '../engine/repair/report.js'
import {refOfClaim, refOfVolume} from '../engine/simulation/plan.js'
import {PvctlError} from '../errors.js'
import {claimPickerLabels} from '../render/claim-picker.js'
import {controllerExplainer, type ExplainRequest, LIST_CANDIDATES, withRepairOffers} from './explain.js'
import type {LoadedClusterState, LoadStateUi} from './load-cluster-state.js'
import {reclaimInLoadedState} from './reclaim.js'
import {planSync} from './sync.js'
import type {SyncReport} from './sync-report.js'

export interface Choice<T> {
  value: T
  name: string
  description?: string
  /** What is shown once it is chosen (the name in full, where the menu shortened it). */
  short?: string
}

/** A choice of a list typed to filter: the text the filter matches. */
export interface FilterableChoice<T> extends Choice<T> {
  filterText: string
  /** Listed whatever is typed (Quit). */
  always?: boolean
}

export interface ExplainSessionUi {
  /** Asks for one of the choices; undefined when the user gives up (Ctrl-C). */
  choose<T>(message: string, choices: ReadonlyArray<Choice<T>>): Promise<T | undefined>
  /** As choose, for a long list: what is typed filters it (filterChoices); undefined when the user gives up. */
  search<T>(message: string, choices: ReadonlyArray<FilterableChoice<T>>): Promise<T | undefined>
  showClaim(explanation: ClaimExplanation): void
  showVolume(volume: PersistentVolume): void
  showPlan(report: SyncReport): void
  /** The reclaim as `pvctl reclaim` shows it: its checks, its edit, what the controller does next. */
  showReclaim(report: ReclaimReport): void
  /** Asks for a typed "yes" to `question`, warned with `warning`, as `pvctl reclaim` does; undefined when nobody can be asked. */
  confirm?: (question: string, warning: string) => Promise<boolean>
  notice(line: string): void
  /** Says what takes a while (the controller's pass over thousands of claims before the first prompt). */
  spinner: LoadStateUi['spinner']
}

/** What can follow an explanation. */
export type NextStep = {kind: 'volume'; name: string} | {kind: 'reclaim'; volume: string; target: ClaimName} | {kind: 'sync'} | {kind: 'another'} | {kind: 'quit'}

/** How many volumes the follow-up menu offers to show. */
const NEAR_MISSES = 3

/**
 * The order of the picker: the claims that will never bind as they are (a dead end: nothing in the cluster
 * changes it by itself), then those that wait for something outside the controller, then those the next
 * sync binds. Within a group, by namespace and name.
 */
export const PICKER_GROUPS: Readonly<Record<Verdict, number>> = {
  NoMatchingVolume: 0,
  StorageClassNotFound: 0,
  ProvisioningNotSupported: 0,
  RequestedVolumeNotFound: 0,
  RequestedVolumeBoundElsewhere: 0,
  RequestedVolumeMismatch: 0,
  Lost: 0,
  Misbound: 0,
  SyncError: 0,
  ExternalProvisioning: 1,
  WaitForFirstConsumer: 1,
  WaitForPodScheduled: 1,
  WillProvision: 1,
  WillBind: 2,
  Bound: 3,
}

type Picked = Pick<ClaimExplanation, 'claim' | 'verdict' | 'notes'>

/**
 * The claims in the picker's order (PICKER_GROUPS, then namespace/name); a wait that a note shows never ends
 * (a pod that bypasses the scheduler, a volume provisioned unfit) is a dead end too.
 */
export function pickerOrder<E extends Picked>(explanations: readonly E[]): E[] {
  const key = (e: Picked) => `${e.claim.namespace}/${e.claim.name}`
  const group = (e: Picked) => (decisiveNote(e.notes ?? []) === undefined ? PICKER_GROUPS[e.verdict] : 0)
  return [...explanations].sort((a, b) => group(a) - group(b) || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
}

/** The choices whose filterText holds every word typed, case aside, and those always listed; nothing typed: all of them. */
export function filterChoices<C extends {filterText: string; always?: boolean}>(choices: readonly C[], term: string | undefined): readonly C[] {
  const words = (term ?? '').toLowerCase().split(/\s+/).filter((w) => w !== '')
  if (words.length === 0) {
    return choices
  } else {
    // Each word narrows: "shop nomatch" is the claims of shop that match no volume.
  }
  return choices.filter((c) => {
    const text = c.filterText.toLowerCase()
    return c.always === true || words.every((w) => text.includes(w))
  })
}

/** The claim picker's choices: each claim with its verdict in an aligned column, then Quit. */
export function claimChoices(explanations: readonly ClaimExplanation[]): Array<FilterableChoice<ClaimExplanation | null>> {
  const ordered = pickerOrder(explanations)
  const labels = claimPickerLabels(ordered.map((e) => ({key: `${e.claim.namespace}/${e.claim.name}`, verdict: e.verdict})))
  return [
    ...ordered.map((e, i) => ({value: e, name: labels[i], short: `${e.claim.namespace}/${e.claim.name}`, description: e.summary, filterText: `${e.claim.namespace}/${e.claim.name} ${e.verdict}`})),
    // Always listed, whatever is typed: the way out that is not Ctrl-C.
    {value: null, name: 'Quit', filterText: 'quit', always: true},
  ]
}

/** What the flow works on: the state as loaded (a reclaim writes through its session, or simulates on a snapshot). */
export interface SessionContext {
  loaded: LoadedClusterState
  req: ExplainRequest
  ui: ExplainSessionUi
  /**
   * The volumes reclaimed (or, on a snapshot, simulated) in this run of the flow: the state it explains is
   * the one read at the start, and no other claim is offered a volume already given away.
   */
  reclaimed: Set<string>
}

/** `base`: the controller's view of `state` already made for `req` (controllerExplainer), its pass reused. */
export async function runExplainSession(loaded: LoadedClusterState, req: ExplainRequest, ui: ExplainSessionUi, base: Explainer = controllerExplainer(loaded.state, req)): Promise<void> {
  const state = loaded.state
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
  const spinner = await ui.spinner(`weighing ${claims.length.toLocaleString('en')} claims not Bound against ${state.volumes.length.toLocaleString('en')} volumes`)
  const explanations = claims.map((c) => explainer.listItem(c.metadata.namespace ?? '', c.metadata.name ?? '')!)
  const choices = claimChoices(explanations)
  spinner.stop()
  const ctx: SessionContext = {loaded, req, ui, reclaimed: new Set()}
  for (;;) {
    const picked = await ui.search<ClaimExplanation | null>(`Which claim? (${explanations.length.toLocaleString('en')}; type to filter by namespace/name or verdict)`, choices)
    if (picked === undefined || picked === null) return
    const {explanation, offers} = withRepairOffers(state, req, explainer.listItem(picked.claim.namespace, picked.claim.name, req.candidates ?? 0)!)
    ui.showClaim(explanation)
    const next = await followUp(ctx, explanation, offers.filter((o) => o.allowed && !ctx.reclaimed.has(o.volume)))
    if (next === 'quit') return
  }
}

/** The menu after an explanation, until the user picks another claim or quits. */
async function followUp(ctx: SessionContext, e: ClaimExplanation, offers: readonly ReclaimOffer[]): Promise<'another' | 'quit'> {
  const {loaded, req, ui} = ctx
  const state = loaded.state
  let offered = offers
  for (;;) {
    const step = await ui.choose<NextStep>('Next?', nextSteps(e, offered))
    if (step === undefined || step.kind === 'quit') return 'quit'
    switch (step.kind) {
      case 'reclaim':
        // Carried out (or simulated) once: no menu offers it again; refused or declined, it stays.
        if (await reclaimFromSession(ctx, step)) {
          ctx.reclaimed.add(step.volume)
          offered = offered.filter((o) => o.volume !== step.volume)
        } else {
          // Refused, declined or failed: said already; the offer stays for another try.
        }
        break
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

/** The claim's volume (bound or next), the reclaims offered, then the nearest volumes that were refused, then the rest. */
export function nextSteps(e: ClaimExplanation, offers: readonly ReclaimOffer[] = []): Array<Choice<NextStep>> {
  const steps: Array<Choice<NextStep>> = []
  for (const o of offers) {
    steps.push({value: {kind: 'reclaim', volume: o.volume, target: o.target}, name: `Reclaim pv/${o.volume} for this claim`, description: `${o.command}: ${o.next}`})
  }
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

/**
 * The reclaim offered, as `pvctl reclaim pv/X --for` this claim runs it on the state explained: refused
 * (the checks said), a simulation (a snapshot), or shown, confirmed with a typed "yes" and written through
 * the guard. Then what the controller does next: its dry-run sync of the pair with the volume as edited.
 * Errors pvctl expects (a permission missing, the volume changed) are said, not thrown: the flow goes on.
 * True when the reclaim was carried out or simulated.
 */
async function reclaimFromSession(ctx: SessionContext, step: Extract<NextStep, {kind: 'reclaim'}>): Promise<boolean> {
  const {loaded, req, ui} = ctx
  const request = {volumeName: step.volume, target: step.target, force: false, dryRun: false, yes: false, gates: req.gates, hostPathProvisioning: req.hostPathProvisioning}
  let result: Awaited<ReturnType<typeof reclaimInLoadedState>>
  try {
    result = await reclaimInLoadedState(loaded, request, {confirm: ui.confirm, showPlan: ui.showReclaim})
  } catch (err) {
    if (err instanceof PvctlError) {
      ui.notice(`pv/${step.volume} is not reclaimed: ${err.message}${err.suggestions.length > 0 ? ` (${err.suggestions.join('; ')})` : ''}`)
      return false
    } else {
      throw err
    }
  }
  // Declined: the plan was shown before the question.
  if (result.declined !== true) ui.showReclaim(result.report)
  else {
    // Shown already, and the notice says nothing was written.
  }
  for (const line of result.after) ui.notice(line)
  if (result.refusal !== undefined) {
    ui.notice(result.refusal.message)
    return false
  } else if (result.report.write.outcome !== 'written' && result.report.write.outcome !== 'simulated') {
    // Declined, or the guard read the volume changed and wrote nothing: said in the notices above.
    return false
  } else {
    // Written or simulated: what the controller does with the pair next.
  }
  ui.notice(`what the controller does next with pv/${step.volume} and pvc/${step.target.namespace}/${step.target.name}, the volume as reclaimed (a dry run):`)
  const edited: ClusterState = {...loaded.state, volumes: loaded.state.volumes.map((v) => (v.metadata.name === step.volume ? result.edit.after : v))}
  ui.showPlan(planSync(edited, {dryRun: true, gates: req.gates, hostPathProvisioning: req.hostPathProvisioning, targets: [refOfVolume(step.volume), refOfClaim(step.target.namespace, step.target.name)]}))
  return true
}
