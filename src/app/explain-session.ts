// `pvctl explain` on a terminal with no claim named: pick a claim that is not Bound (typed to filter, the
// ones that will never bind first), read its explanation, then follow up (a near-miss volume's YAML, the
// dry-run sync of the claim, the reclaim of a volume held back only by its stale claimRef, live the claim's
// sync itself, another claim). After a write the cluster is read again and the claim explained again:
// nothing offered afterwards rests on what was read before it. The flow is here; the prompts and the
// printing are the caller's (a UI port), so the flow is tested without a terminal and the terminal
// without the flow.
import {present} from '../engine/api/invariant.js'
import {claimsInScope, type Explainer} from '../engine/explain/explainer.js'
import type {ClaimExplanation, Verdict} from '../engine/explain/model.js'
import {decisiveNote} from '../engine/explain/parties.js'
import type {ClusterState, PersistentVolume} from '../engine/api/model.js'
import type {ReclaimOffer} from '../engine/repair/offers.js'
import type {ClaimName} from '../engine/repair/reclaim.js'
import type {ReclaimReport} from '../engine/repair/report.js'
import {refOfClaim, refOfVolume} from '../engine/simulation/plan.js'
import {ExitCode, PvctlError} from '../errors.js'
import {claimPickerLabels} from '../render/claim-picker.js'
import {
  controllerExplainer,
  type ExplainRequest,
  LIST_CANDIDATES,
  withRepairOffers,
} from '../engine/repair/explain-state.js'
import type {LoadedClusterState, LoadStateUi} from './load-cluster-state.js'
import {reclaimInLoadedState} from './reclaim.js'
import {hasChanges, planSync} from '../engine/simulation/plan-sync.js'
import type {SyncReport} from '../engine/simulation/sync-report.js'

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
  showClaim: (explanation: ClaimExplanation) => void
  showVolume: (volume: PersistentVolume) => void
  showPlan: (report: SyncReport) => void
  /** The reclaim as `pvctl reclaim` shows it: its checks, its edit, what the controller does next. */
  showReclaim: (report: ReclaimReport) => void
  /** Asks for a typed "yes" to `question`, warned with `warning`, as `pvctl reclaim` does; undefined when nobody can be asked. */
  confirm?: (question: string, warning: string) => Promise<boolean>
  /** Asks consent to a sync's plan, as `pvctl sync` does (typed when it destroys data); undefined when nobody can be asked. */
  confirmSync?: (question: string, destructive: boolean) => Promise<boolean>
  /** A sync's writes, which an interrupt stops instead of ending pvctl (src/cli/interrupts.ts), until end(). */
  interruptibleWrites?: () => {writing(): AbortSignal; end(): void}
  notice: (line: string) => void
  /** Says what takes a while (the controller's pass over thousands of claims before the first prompt). */
  spinner: LoadStateUi['spinner']
}

/** What can follow an explanation. */
export type NextStep =
  | {kind: 'volume'; name: string}
  | {kind: 'reclaim'; volume: string; target: ClaimName}
  | {kind: 'sync'}
  | {kind: 'sync-now'}
  | {kind: 'another'}
  | {kind: 'quit'}

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
export function filterChoices<C extends {filterText: string; always?: boolean}>(
  choices: readonly C[],
  term: string | undefined,
): readonly C[] {
  const words = (term ?? '')
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '')
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
export function claimChoices(
  explanations: readonly ClaimExplanation[],
): Array<FilterableChoice<ClaimExplanation | null>> {
  const ordered = pickerOrder(explanations)
  const labels = claimPickerLabels(
    ordered.map((e) => ({key: `${e.claim.namespace}/${e.claim.name}`, verdict: e.verdict})),
  )
  return [
    ...ordered.map((e, i) => ({
      value: e,
      name: labels[i],
      short: `${e.claim.namespace}/${e.claim.name}`,
      description: e.summary,
      filterText: `${e.claim.namespace}/${e.claim.name} ${e.verdict}`,
    })),
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
   * The volumes reclaimed in a simulation (a snapshot) in this run of the flow: the state it explains is the
   * one read at the start, and no other claim is offered a volume already given away. Live, the cluster is
   * read again instead.
   */
  reclaimed: Set<string>
  /** The controller's view of the state, for the menu (each claim's verdict) and the claim picked. */
  explainer: Explainer
  /** Counts the readings of the cluster: the picker's list is made again after one. */
  generation: number
}

/**
 * `base`: the controller's view of `state` already made for `req` (controllerExplainer), its pass reused.
 * 'interrupted' when a sync run from the flow was interrupted (its report says what it wrote).
 */
export async function runExplainSession(
  loaded: LoadedClusterState,
  req: ExplainRequest,
  ui: ExplainSessionUi,
  base: Explainer = controllerExplainer(loaded.state, req),
): Promise<'done' | 'interrupted'> {
  if (claimsInScope(base, req).length === 0) {
    ui.notice(
      `no claim that is not Bound${req.namespace !== undefined ? ` in namespace ${req.namespace}` : ''}: nothing to explain`,
    )
    return 'done'
  }
  const ctx: SessionContext = {
    loaded,
    req,
    ui,
    reclaimed: new Set(),
    explainer: menuExplainer(base, req),
    generation: 0,
  }
  let menu = await claimMenu(ctx)
  for (;;) {
    if (menu.generation !== ctx.generation) menu = await claimMenu(ctx)
    const picked = await ui.search<ClaimExplanation | null>(
      `Which claim? (${menu.count.toLocaleString('en')}; type to filter by namespace/name or verdict)`,
      menu.choices,
    )
    if (picked === undefined || picked === null) return 'done'
    const next = await followUp(ctx, picked.claim)
    if (next === 'quit') return 'done'
    if (next === 'interrupted') return next
  }
}

/**
 * The menu needs each claim's verdict and summary, not every volume of each: the claim picked is explained
 * again with its candidates as --candidates asks (all of them by default, as pvc/NAME).
 */
function menuExplainer(base: Explainer, req: ExplainRequest): Explainer {
  return base.with({onlyRelevant: req.onlyRelevant, evidence: req.evidence, candidates: LIST_CANDIDATES})
}

/**
 * The picker's list: each claim not healthy as its sync in the controller's pass decides it (listItem), and so
 * is the claim picked, so that its explanation says what its line in the menu said.
 */
async function claimMenu(
  ctx: SessionContext,
): Promise<{choices: Array<FilterableChoice<ClaimExplanation | null>>; count: number; generation: number}> {
  const state = ctx.loaded.state
  const claims = claimsInScope(ctx.explainer, ctx.req)
  const spinner = await ctx.ui.spinner(
    `weighing ${claims.length.toLocaleString('en')} claims not healthy against ${state.volumes.length.toLocaleString('en')} volumes`,
  )
  const explanations = claims.map((c) =>
    present(
      ctx.explainer.listItem(c.metadata.namespace ?? '', c.metadata.name ?? ''),
      'the explainer explains every claim of its state',
    ),
  )
  spinner.stop()
  return {choices: claimChoices(explanations), count: explanations.length, generation: ctx.generation}
}

/** The claim's explanation, with every candidate as asked, and the reclaims that may be offered for it. */
function explainPicked(
  ctx: SessionContext,
  claim: ClaimExplanation['claim'],
): {explanation: ClaimExplanation; offers: ReclaimOffer[]} | undefined {
  const e = ctx.explainer.listItem(claim.namespace, claim.name, ctx.req.candidates ?? 0)
  return e === undefined ? undefined : withRepairOffers(ctx.loaded.state, ctx.req, e)
}

/** Live, after a write: the cluster read again, and the controller's view of it made again. */
async function reread(ctx: SessionContext): Promise<void> {
  if (ctx.loaded.source !== 'live') return
  const state = await ctx.loaded.reload()
  ctx.loaded = {...ctx.loaded, state}
  ctx.explainer = menuExplainer(controllerExplainer(state, ctx.req), ctx.req)
  ctx.generation++
}

/** The menu after an explanation, until the user picks another claim or quits. */
async function followUp(
  ctx: SessionContext,
  claim: ClaimExplanation['claim'],
): Promise<'another' | 'quit' | 'interrupted'> {
  const {req, ui} = ctx
  let shown = explainPicked(ctx, claim)
  if (shown === undefined) return 'another'
  ui.showClaim(shown.explanation)
  for (;;) {
    const {explanation: e, offers} = shown
    const state = ctx.loaded.state
    const plan = () =>
      planSync(state, {
        dryRun: true,
        gates: req.gates,
        hostPathProvisioning: req.hostPathProvisioning,
        targets: [refOfClaim(e.claim.namespace, e.claim.name)],
      })
    // Live, and the claim's sync would write: it can be run from here.
    const syncable = ctx.loaded.source === 'live' && ui.confirmSync !== undefined && hasChanges(plan())
    const step = await ui.choose<NextStep>(
      'Next?',
      nextSteps(
        e,
        offers.filter((o) => o.allowed && !ctx.reclaimed.has(o.volume)),
        syncable,
      ),
    )
    if (step === undefined || step.kind === 'quit') return 'quit'
    let wrote = false
    switch (step.kind) {
      case 'reclaim': {
        const done = await reclaimFromSession(ctx, step)
        // Simulated on a snapshot: no menu offers it again. Written: the cluster is read again below.
        if (done === 'simulated') ctx.reclaimed.add(step.volume)
        wrote = done === 'written'
        break
      }
      case 'sync-now': {
        const done = await syncFromSession(ctx, e.claim)
        if (done === 'interrupted') return done
        wrote = done === 'written'
        break
      }
      case 'volume': {
        const volume = state.volumes.find((v) => v.metadata.name === step.name)
        if (volume !== undefined) ui.showVolume(volume)
        break
      }
      case 'sync':
        ui.showPlan(plan())
        break
      case 'another':
        return 'another'
    }
    if (wrote) {
      // What was read before the write is not what the cluster holds now: read again, explain again.
      await reread(ctx)
      shown = explainPicked(ctx, claim)
      if (shown === undefined) {
        ui.notice(`pvc/${claim.namespace}/${claim.name} is gone`)
        return 'another'
      }
      ui.showClaim(shown.explanation)
    }
  }
}

/** The reclaims offered, the claim's sync (live, when it would write), the claim's volume (bound or next), then the nearest volumes that were refused, then the rest. */
export function nextSteps(
  e: ClaimExplanation,
  offers: readonly ReclaimOffer[] = [],
  syncable = false,
): Array<Choice<NextStep>> {
  const steps: Array<Choice<NextStep>> = []
  for (const o of offers) {
    steps.push({
      value: {kind: 'reclaim', volume: o.volume, target: o.target},
      name: `Reclaim pv/${o.volume} for this claim`,
      description: `${o.command}: ${o.next}`,
    })
  }
  if (syncable) {
    steps.push({
      value: {kind: 'sync-now'},
      name: `Sync pvc/${e.claim.name} now`,
      description: `pvctl sync pvc/${e.claim.namespace}/${e.claim.name}: the controller's sync of the claim, written after consent`,
    })
  }
  if (e.volume !== null) steps.push({value: {kind: 'volume', name: e.volume}, name: `Show pv/${e.volume} (YAML)`})
  const nearMisses = e.candidates
    .filter((c) => !c.eligible && !c.reasons.some((r) => r.code === 'NotConsidered'))
    .slice(0, NEAR_MISSES)
  for (const c of nearMisses) {
    steps.push({
      value: {kind: 'volume', name: c.volume},
      name: `Show pv/${c.volume} (YAML): ${c.reasons[0].message}${c.reasons.length > 1 ? ` (+${c.reasons.length - 1})` : ''}`,
    })
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
 * Says whether the reclaim was written or simulated; undefined when it was not carried out.
 */
async function reclaimFromSession(
  ctx: SessionContext,
  step: Extract<NextStep, {kind: 'reclaim'}>,
): Promise<'written' | 'simulated' | undefined> {
  const {loaded, req, ui} = ctx
  const request = {
    volumeName: step.volume,
    target: step.target,
    force: false,
    dryRun: false,
    yes: false,
    gates: req.gates,
    hostPathProvisioning: req.hostPathProvisioning,
  }
  let result: Awaited<ReturnType<typeof reclaimInLoadedState>>
  try {
    result = await reclaimInLoadedState(loaded, request, {confirm: ui.confirm, showPlan: ui.showReclaim})
  } catch (err) {
    if (err instanceof PvctlError) {
      ui.notice(
        `pv/${step.volume} is not reclaimed: ${err.message}${err.suggestions.length > 0 ? ` (${err.suggestions.join('; ')})` : ''}`,
      )
      return undefined
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
    return undefined
  } else if (result.report.write.outcome !== 'written' && result.report.write.outcome !== 'simulated') {
    // Declined, or the guard read the volume changed and wrote nothing: said in the notices above.
    return undefined
  } else {
    // Written or simulated: what the controller does with the pair next.
  }
  ui.notice(
    `what the controller does next with pv/${step.volume} and pvc/${step.target.namespace}/${step.target.name}, the volume as reclaimed (a dry run):`,
  )
  const edited: ClusterState = {
    ...loaded.state,
    volumes: loaded.state.volumes.map((v) => (v.metadata.name === step.volume ? result.edit.after : v)),
  }
  ui.showPlan(
    planSync(edited, {
      dryRun: true,
      gates: req.gates,
      hostPathProvisioning: req.hostPathProvisioning,
      targets: [refOfVolume(step.volume), refOfClaim(step.target.namespace, step.target.name)],
    }),
  )
  return result.report.write.outcome
}

/**
 * The claim's sync, live, as `pvctl sync pvc/NS/NAME` runs it: the plan shown, consent asked (typed when it
 * destroys data), then written, and the report of what was written. Errors pvctl expects are said, not
 * thrown: the flow goes on. 'written' when anything may have been written (the cluster is then read again).
 */
async function syncFromSession(
  ctx: SessionContext,
  claim: ClaimExplanation['claim'],
): Promise<'written' | 'interrupted' | undefined> {
  const {loaded, req, ui} = ctx
  if (loaded.source !== 'live') return undefined
  const {session} = loaded
  const {applySync} = await import('./sync-live.js')
  const writes = ui.interruptibleWrites?.()
  try {
    const result = await applySync(
      session.api,
      loaded.state,
      {
        gates: req.gates,
        hostPathProvisioning: req.hostPathProvisioning,
        dryRun: false,
        targets: [refOfClaim(claim.namespace, claim.name)],
        yes: false,
        confirm: ui.confirmSync,
        target: `context ${session.contextName}`,
        concurrency: 1,
        events: true,
        workload: session.workload,
        leases: session.leases,
        notice: ui.notice,
        writing: () => Promise.resolve(writes?.writing()),
      },
      ui.showPlan,
    )
    if (result.declined !== true) ui.showPlan(result.report)
    else {
      // Shown before the question.
    }
    if (result.notice !== undefined) ui.notice(result.notice)
    if (result.exitCode === ExitCode.Interrupted) return 'interrupted'
    return result.declined === true ? undefined : 'written'
  } catch (err) {
    if (err instanceof PvctlError) {
      ui.notice(
        `pvc/${claim.namespace}/${claim.name} is not synced: ${err.message}${err.suggestions.length > 0 ? ` (${err.suggestions.join('; ')})` : ''}`,
      )
      return undefined
    } else {
      throw err
    }
  } finally {
    writes?.end()
  }
}
