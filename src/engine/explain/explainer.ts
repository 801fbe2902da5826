// `pvctl explain pvc/NAME`: why a claim is (or is not) bound, from the controller's own decision path.
// PURE: state in, a ClaimExplanation out. The verdict comes from verdict.ts (syncClaim walked without
// writes), the candidates from candidates.ts (every reason, not only the first), the words from
// summary.ts and suggestions.ts.
import {bindingPointers} from './binding.js'
import type {ClusterLookup} from './lookup.js'
import {
  type CandidateOrder,
  candidateOrder,
  describeCandidates,
  type MatchingPath,
  describeReasons,
  isRelevant,
  type NearestPassing,
  rankCandidates,
} from './candidates.js'
import {ControllerQueries, type ExplainOptions} from './controller-queries.js'
import {
  EXPLAIN_API_VERSION,
  type Candidate,
  type Reason,
  type ClaimExplanation,
  type ClaimExplanationBrief,
  type ClaimExplanationFacts,
  type ClaimPod,
  type ClaimRequest,
  type PartyNote,
  type Verdict,
  type VolumeExplanation,
} from './model.js'
import {ageSeconds, type ExplainEvidence, eventsOf, noEvidence, NOT_READ, type ObjectKey} from './evidence.js'
import {controllerLiveness, provisionerLeaseName} from './liveness.js'
import {summarizeClaim} from './summary.js'
import {RequestGroups} from './request-groups.js'
import {describeNeed, NEAR_MISS_VERDICTS, nearMissTests, suggestFixes} from './suggestions.js'
import {crossedSentence, crossedSuggestion, CrossedVolumes} from './crossed.js'
import {type ClaimTurn, SyncPass} from './pass.js'
import {type Decision, decideClaim} from './verdict.js'
import {describeVolume} from './volume.js'
import {decisiveNote, noteSuggestions, partyNotes, withNotes} from './parties.js'
import {claimKey, type ClusterState, type LabelSelector, type PersistentVolumeClaim} from '../api/model.js'
import {scopePredicate} from '../simulation/reconcile.js'
import {compileLabelSelector, SelectorError} from '../api/selector.js'
import {AnnSelectedNode} from '../api/constants.js'
import {getPersistentVolumeClaimClass, isPodTerminated, persistentVolumeClaimHasClass} from '../api/storage-helpers.js'

export type {ExplainOptions} from './controller-queries.js'

/** The candidates of one claim's explanation (Explainer.judgeCandidates). */
interface JudgedCandidates {
  /** What the summary and suggestions read. */
  pool: Candidate[]
  /** What the explanation lists. */
  candidates: Candidate[]
  /** With a limit: how many candidates there are, and how many of them are eligible. */
  bounded: {candidatesTotal: number; eligible: number} | undefined
}

/**
 * Explanations of one state. The controller's view and the indexes are built once and shared by every
 * explanation asked of it: a list of every pending claim of a large cluster stays linear in its size.
 */
export class Explainer {
  private readonly q: ControllerQueries
  /** The rankings shared by the claims that ask for the same thing, made as they are first asked for. */
  private readonly groups: RequestGroups
  /**
   * The controller's pass over every claim that a List speaks about, run when first needed; held in a box
   * that the Explainers made by with() share, whichever runs it first.
   */
  private readonly pass: {run?: SyncPass}
  private readonly crossed: CrossedVolumes

  constructor(
    readonly state: ClusterState,
    readonly opts: ExplainOptions,
    shared?: {q: ControllerQueries; pass: {run?: SyncPass}},
  ) {
    this.q = shared?.q ?? new ControllerQueries(state, opts)
    this.pass = shared?.pass ?? {}
    this.groups = new RequestGroups(this.q.lookup, opts.gates, (claim) => nearMisses(this.q.lookup, claim))
    this.crossed = new CrossedVolumes(this.q.lookup, opts.gates)
  }

  /**
   * An Explainer of the same state and controller that tells more (evidence read since, more candidates):
   * the controller's view and its pass are this one's, not built and run again. Live `explain` decides what
   * evidence to read from the verdicts, then explains with it: at 100k claims the pass is seconds.
   */
  with(opts: Pick<ExplainOptions, 'evidence' | 'candidates' | 'onlyRelevant' | 'ranking'>): Explainer {
    return new Explainer(this.state, {...this.opts, ...opts}, {q: this.q, pass: this.pass})
  }

  /**
   * The explanation of claim namespace/name, or undefined when the state has no such claim; `limit`: how
   * many candidates it lists (ExplainOptions.candidates).
   */
  claim(namespace: string, name: string, limit = this.opts.candidates ?? 0): ClaimExplanation | undefined {
    return this.explain(namespace, name, limit, false)
  }

  /**
   * The explanation of claim namespace/name as an item of a List (`explain` with no claim named, the
   * picker): its next sync is the one of the controller's pass over every claim, after the syncs of the
   * claims before it (explain-pass.ts). A volume an earlier claim binds is not the claim's: the verdict says
   * what its sync in the pass does, and the volume, wherever listed, is refused with BoundToOtherClaim.
   */
  listItem(namespace: string, name: string, limit = this.opts.candidates ?? 0): ClaimExplanation | undefined {
    return this.explain(namespace, name, limit, true)
  }

  /**
   * claim(), without `candidates` and `candidatesTotal`: what `pvctl audit` judges a claim by. The volumes
   * are judged only for the decisions whose summary or suggestions read them (READS_CANDIDATES), and then
   * for the nearest one and those the summary and suggestions name, as a List item keeps them; all the rest
   * is claim()'s (test/engine/explain-brief.test.ts). Most claims of a cluster are Bound, and nothing of a
   * Bound claim's explanation reads another volume than its own: auditing every claim stays linear.
   */
  claimBrief(namespace: string, name: string): ClaimExplanationBrief | undefined {
    const e = this.explain(namespace, name, 'unlisted', false)
    if (e === undefined) return undefined
    const {candidates: _candidates, candidatesTotal: _total, ...brief} = e
    return brief
  }

  /**
   * The fields of claim() that its decision gives by itself (ClaimExplanationFacts), or undefined when the
   * state has no such claim: no volume judged, no word written. What `pvctl audit` judges every claim by:
   * at 100k claims, most of them Bound and healthy, the rest of an explanation is most of its cost.
   */
  claimFacts(namespace: string, name: string): ClaimExplanationFacts | undefined {
    const claim = this.q.claim(`${namespace}/${name}`)
    if (claim === undefined) return undefined
    return decisionFacts(
      this.q,
      this.state,
      {namespace, name},
      claim,
      decideClaim(this.q, this.state, claim, undefined),
      this.opts.evidence ?? noEvidence(NOT_READ),
    )
  }

  /** The state looked up as the explanations look it up (claims, volumes, pods and claimRefs by name). */
  get lookup(): ClusterLookup {
    return this.q.lookup
  }

  /** `limit`: how many candidates to list, 0 for all, 'unlisted' for none (claimBrief). */
  private explain(
    namespace: string,
    name: string,
    limit: number | 'unlisted',
    inPass: boolean,
  ): ClaimExplanation | undefined {
    const {q, state, opts} = this
    const claim = q.claim(`${namespace}/${name}`)
    if (claim === undefined) return undefined
    const turn = inPass ? this.syncPass().turnOf(claim) : undefined
    const decision = decideClaim(q, state, claim, turn)
    // What the cluster shows beyond the controller's objects: the claim's events, and whether the
    // provisioner it is handed to runs at all.
    const evidence = opts.evidence ?? noEvidence(NOT_READ)
    const facts = decisionFacts(q, state, {namespace, name}, claim, decision, evidence)
    const chosen = facts.volume
    // Reasons are judged against the claim as the deciding sync sees it (with the default class it is given).
    const order = candidateOrder(claim, chosen)
    const {pool, candidates, bounded} = this.judgeCandidates(claim, decision, turn, limit, order, chosen)
    const provisionerLiveness = facts.provisionerLiveness
    // A volume that fits, held by a claim asking for less: looked for in one claim's explanation (and audit's
    // brief of it), not in each item of a List, which stays linear in the cluster.
    const crossed = inPass ? undefined : this.crossed.of(claim, decision)
    const waiting = {
      liveness: provisionerLiveness,
      claimAgeSeconds: ageSeconds(claim.metadata.creationTimestamp, evidence.now),
    }
    return {
      apiVersion: EXPLAIN_API_VERSION,
      kind: 'ClaimExplanation',
      claim: facts.claim,
      phase: facts.phase,
      verdict: facts.verdict,
      volume: chosen,
      summary: withNotes(
        [
          summarizeClaim(decision, claim, pool, waiting, bounded?.eligible),
          ...(crossed === undefined ? [] : [crossedSentence(crossed)]),
        ].join(' '),
        facts.notes ?? [],
      ),
      candidates,
      ...(bounded === undefined ? {} : {candidatesTotal: bounded.candidatesTotal}),
      suggestions: suggestionsWith(facts.notes ?? [], claim, decision, () => [
        ...(crossed === undefined ? [] : [crossedSuggestion(crossed, decision.storageClass.name, describeNeed(claim))]),
        ...suggestFixes(q, state, claim, decision, pool, order, provisionerLiveness),
      ]),
      request: facts.request,
      storageClass: facts.storageClass,
      selectedNode: facts.selectedNode,
      pods: podsUsing(q.lookup, claim),
      pointers: bindingPointers(q.lookup, claim),
      provisioner: facts.provisioner,
      error: facts.error,
      events: eventsOf(evidence, claimObject(facts.claim, claim)),
      provisionerLiveness,
      ...(facts.notes === undefined ? {} : {notes: facts.notes}),
    }
  }

  /**
   * The candidates the explanation lists, and the pool its summary and suggestions read; `bounded` when a
   * limit keeps only the nearest.
   */
  private judgeCandidates(
    claim: PersistentVolumeClaim,
    decision: Decision,
    turn: ClaimTurn | undefined,
    limit: number | 'unlisted',
    order: CandidateOrder,
    chosen: string | null,
  ): JudgedCandidates {
    // The volume it would get alone, taken by an earlier claim of the pass: listed wherever it ranks.
    const takenFirst = decision.takenFirst?.volume
    if (limit === 'unlisted' && !READS_CANDIDATES.has(decision.verdict)) {
      // No candidate is listed, and neither the summary nor the suggestions of this verdict read one.
      return {pool: [], candidates: [], bounded: undefined}
    } else if (limit !== 0) {
      return this.nearestCandidates(claim, decision, turn, limit, order, chosen, takenFirst)
    } else {
      const {q, opts} = this
      let pool = describeCandidates(q.lookup, decision.claim, decision.path, opts.gates).filter(
        (c) => !opts.onlyRelevant || isRelevant(q.lookup, claim, c),
      )
      if (turn !== undefined) pool = pool.map((c) => takenAtTurn(c, turn, decision.path))
      pool.sort(turn === undefined ? order : passOrder(order, chosen, takenFirst))
      return {pool, candidates: pool, bounded: undefined}
    }
  }

  /**
   * A list of many claims: the nearest few of every claim, and the candidates its summary and
   * suggestions read wherever they rank (the volume it gets or names, the near misses). Unlisted: the
   * nearest one, as a List item of one candidate ranks them.
   */
  private nearestCandidates(
    claim: PersistentVolumeClaim,
    decision: Decision,
    turn: ClaimTurn | undefined,
    limit: number | 'unlisted',
    order: CandidateOrder,
    chosen: string | null,
    takenFirst: string | undefined,
  ): JudgedCandidates {
    const {q, opts} = this
    const keep = limit === 'unlisted' ? 1 : limit
    const ranked = {
      keep,
      onlyRelevant: opts.onlyRelevant ?? false,
      named: [chosen, decision.volume?.metadata.name, claim.spec.volumeName, takenFirst].filter(
        (n): n is string => (n ?? '') !== '',
      ),
    }
    // The near misses only for the verdicts whose suggestions name them.
    const wantNearMisses = NEAR_MISS_VERDICTS.has(decision.verdict)
    const ranking =
      opts.ranking === 'per-claim'
        ? rankCandidates(q.lookup, decision.claim, decision.path, opts.gates, order, {
            ...ranked,
            nearestPassing: wantNearMisses ? nearMisses(q.lookup, claim) : [],
          })
        : this.groups.rank(decision.claim, decision.path, order, {...ranked, nearestPassing: wantNearMisses})
    let pool = ranking.nearest
    let eligible = ranking.eligible
    if (turn !== undefined) {
      // The nearest of the state as it is, each as the claim's sync in the pass finds it. Of the volumes
      // earlier claims take, those ranked out of the nearest are not looked at (a List stays linear), and
      // the count of eligible ones is less only those looked at.
      const atTurn = pool.map((c) => takenAtTurn(c, turn, decision.path))
      eligible -= atTurn.filter((c, i) => pool[i].eligible && !c.eligible).length
      pool = atTurn.sort(passOrder(order, chosen, takenFirst))
    }
    const candidates = limit === 'unlisted' ? [] : pool.slice(0, keep).map(describeReasons)
    return {pool, candidates, bounded: {candidatesTotal: ranking.total, eligible}}
  }

  /**
   * The Lease of the external provisioner claim namespace/name waits for (ExternalProvisioning), null when
   * it waits for none, undefined when there is no such claim: the verdict alone, without the candidates,
   * so that what to read can be worked out for many claims before any evidence is read.
   */
  awaitedLease(namespace: string, name: string, inPass = false): string | null | undefined {
    const claim = this.q.claim(`${namespace}/${name}`)
    if (claim === undefined) return undefined
    const decision = decideClaim(this.q, this.state, claim, inPass ? this.syncPass().turnOf(claim) : undefined)
    return decision.verdict === 'ExternalProvisioning' && decision.provisioner !== null
      ? provisionerLeaseName(decision.provisioner)
      : null
  }

  /**
   * The verdict on claim namespace/name alone, as `claim` gives it, or undefined when there is no such
   * claim: without the candidates and words, so that counting verdicts stays linear in the cluster (sync's
   * pointer to audit counts findings).
   */
  /**
   * Whether the claim is Bound and nothing around the binder keeps it from use (no party note: a pod whose
   * node selection excludes every node its volume may be mounted on): a claim `explain` leaves out of its List.
   */
  healthyBound(namespace: string, name: string): boolean {
    const claim = this.q.claim(`${namespace}/${name}`)
    if (claim === undefined) return false
    const d = decideClaim(this.q, this.state, claim, undefined)
    return d.verdict === 'Bound' && partyNotes(this.q, claim, d, this.state.nodes.length > 0).length === 0
  }

  verdict(namespace: string, name: string): Verdict | undefined {
    const claim = this.q.claim(`${namespace}/${name}`)
    return claim === undefined ? undefined : decideClaim(this.q, this.state, claim, undefined).verdict
  }

  /** The explanation of volume `name`, or undefined when the state has no such volume; `wantedBy`: see describeVolume. */
  volume(name: string, opts: {wantedBy?: boolean} = {}): VolumeExplanation | undefined {
    return describeVolume(this.q, this.state, name, this.opts.evidence ?? noEvidence(NOT_READ), opts)
  }

  private syncPass(): SyncPass {
    return (this.pass.run ??= new SyncPass(this.state, this.q))
  }
}

/**
 * What the decision on the claim says by itself, as claim() and claimFacts() both give it: the volume of a
 * Bound or WillBind claim, the class, the provisioner and, for ExternalProvisioning, whether the evidence
 * shows the provisioner running.
 */
function decisionFacts(
  q: ControllerQueries,
  state: ClusterState,
  key: {namespace: string; name: string},
  claim: PersistentVolumeClaim,
  decision: Decision,
  evidence: ExplainEvidence,
): ClaimExplanationFacts {
  const bound = decision.verdict === 'Bound' || decision.verdict === 'WillBind'
  const provisionerLiveness =
    decision.verdict === 'ExternalProvisioning' && decision.provisioner !== null
      ? controllerLiveness(evidence, 'provisioner', decision.provisioner, [claimObject(key, claim)])
      : null
  // A kind the state holds none of was not read: no node is judged gone then.
  const notes = partyNotes(q, claim, decision, state.nodes.length > 0)
  return {
    claim: key,
    phase: claim.status?.phase ?? 'Pending',
    verdict: decision.verdict,
    volume: bound ? (decision.volume?.metadata.name ?? null) : null,
    request: requestOf(claim),
    storageClass: decision.storageClass,
    selectedNode: claim.metadata.annotations?.[AnnSelectedNode] ?? null,
    provisioner: decision.provisioner,
    error: decision.error,
    provisionerLiveness,
    ...(notes.length > 0 ? {notes} : {}),
  }
}

/** The claim of that namespace and name as the evidence names the objects it is about. */
function claimObject(key: {namespace: string; name: string}, claim: PersistentVolumeClaim): ObjectKey {
  return {kind: 'PersistentVolumeClaim', namespace: key.namespace, name: key.name, uid: claim.metadata.uid}
}

/** The notes' suggestions first; the verdict's own after them, unless a note shows its wait never ends. */
function suggestionsWith(
  notes: readonly PartyNote[],
  claim: PersistentVolumeClaim,
  d: Decision,
  verdicts: () => string[],
): string[] {
  const first = noteSuggestions(notes, claim, d)
  // A command a note's suggestion gives already is not given again by the verdict's (the same patch, other words).
  const commands = first
    .map((s) => s.slice(s.lastIndexOf(': ') + 2))
    .filter((c) => c.startsWith('kubectl ') || c.startsWith('pvctl '))
  const rest = decisiveNote(notes) === undefined ? verdicts().filter((s) => !commands.some((c) => s.includes(c))) : []
  return [...new Set([...first, ...rest])]
}

/**
 * The candidate as the claim's sync in the pass finds it: a volume without a claimRef that an earlier claim
 * binds is refused for it, with the claimRef reason the controller's checks would then give. A volume the
 * claim does not consider, or that a claimRef already refuses, is as it was.
 */
function takenAtTurn(c: Candidate, turn: ClaimTurn, path: MatchingPath): Candidate {
  const by = c.claimRef === null ? turn.takenBy(c.volume) : undefined
  if (by === undefined || c.reasons.some((r) => r.code === 'NotConsidered')) return c
  const reason: Reason = {
    code: 'BoundToOtherClaim',
    message: `the next sync binds it to ${by} first, an earlier claim of this pass`,
  }
  // Where the claimRef check stands: after the claim's own refusal (a VolumeAttributesClass with the gate
  // off) and the access-mode index for a claim matched by the index; a claim that names the volume checks
  // nothing else once it is bound.
  const at = c.reasons.findIndex(
    (r) => r.code !== 'VolumeAttributesClassUnsupported' && r.code !== 'AccessModesMismatch',
  )
  const reasons =
    path.kind !== 'index'
      ? [reason]
      : at < 0
        ? [...c.reasons, reason]
        : [...c.reasons.slice(0, at), reason, ...c.reasons.slice(at)]
  return {...c, eligible: false, reasons}
}

/** candidateOrder, but for the volume the claim would get alone and an earlier claim takes: second, after its own. */
function passOrder(order: CandidateOrder, chosen: string | null, takenFirst: string | undefined): CandidateOrder {
  if (takenFirst === undefined) return order
  return (a, b) => {
    if (a.volume === chosen || b.volume === chosen) return order(a, b)
    if ((a.volume === takenFirst) !== (b.volume === takenFirst)) return a.volume === takenFirst ? -1 : 1
    return order(a, b)
  }
}

/**
 * The verdicts whose summary (summarizeClaim) or suggestions (suggestFixes) read candidates: WillBind's
 * count of matching volumes, the near misses, the reasons of the volume the claim names. The words of every
 * other verdict come from the decision alone.
 */
const READS_CANDIDATES: ReadonlySet<Verdict> = new Set<Verdict>([
  ...NEAR_MISS_VERDICTS,
  'WillBind',
  'RequestedVolumeMismatch',
])

/** What nearMisses (explain-suggestions.ts) picks from: the nearest fixable volume, the nearest two Released ones. */
function nearMisses(cluster: ClusterLookup, claim: PersistentVolumeClaim): NearestPassing[] {
  const tests = nearMissTests(cluster, claim)
  return [
    {test: tests.fixable, count: 1},
    {test: tests.released, count: 2},
  ]
}

/** The explanation of claim namespace/name, or undefined when the state has no such claim. */
export function explainClaim(
  state: ClusterState,
  namespace: string,
  name: string,
  opts: ExplainOptions,
): ClaimExplanation | undefined {
  return new Explainer(state, opts).claim(namespace, name)
}

/** The explanation of volume `name`, or undefined when the state has no such volume. */
export function explainVolume(state: ClusterState, name: string, opts: ExplainOptions): VolumeExplanation | undefined {
  return new Explainer(state, opts).volume(name)
}

/**
 * The claims `explain` with no claim named looks at: every claim whose verdict is not a healthy Bound, by
 * namespace then name. Those not recorded Bound, those recorded Bound that their next sync makes Lost or
 * Misbound (or binds again), and Bound ones whose pod a party note shows cannot use them: a claim audit
 * reports an error on is never left out of the List.
 */
export function claimsToExplain(explainer: Explainer): PersistentVolumeClaim[] {
  return explainer.state.claims
    .filter(
      (c) => c.status?.phase !== 'Bound' || !explainer.healthyBound(c.metadata.namespace ?? '', c.metadata.name ?? ''),
    )
    .sort((a, b) => (claimKey(a) < claimKey(b) ? -1 : claimKey(a) > claimKey(b) ? 1 : 0))
}

/** claimsToExplain in scope (-n, -l): the list and the picker show these. */
export function claimsInScope(
  explainer: Explainer,
  scope: {namespace?: string; labelSelector?: LabelSelector},
): PersistentVolumeClaim[] {
  const inScope = scopePredicate({namespace: scope.namespace, labelSelector: scope.labelSelector})
  return claimsToExplain(explainer).filter((claim) => inScope.claim(claim))
}

function requestOf(claim: PersistentVolumeClaim): ClaimRequest {
  const volumeName = claim.spec.volumeName ?? ''
  let selector: string | null = null
  if (claim.spec.selector != null) {
    try {
      selector = compileLabelSelector(claim.spec.selector).toString() || '<everything>'
    } catch (err) {
      if (!(err instanceof SelectorError)) throw err
      selector = `<invalid: ${err.message}>`
    }
  }
  return {
    storage: claim.spec.resources?.requests?.storage ?? null,
    accessModes: [...(claim.spec.accessModes ?? [])],
    volumeMode: claim.spec.volumeMode ?? 'Filesystem',
    storageClassName: persistentVolumeClaimHasClass(claim) ? getPersistentVolumeClaimClass(claim) : null,
    selector,
    volumeName: volumeName === '' ? null : volumeName,
  }
}

/** The pods that use the claim (PodPVCIndexFunc, generic ephemeral volumes included), by name. */
function podsUsing(cluster: ClusterLookup, claim: PersistentVolumeClaim): ClaimPod[] {
  return cluster
    .podsUsing(claimKey(claim))
    .map((pod) => {
      const nodeName = pod.spec?.nodeName ?? ''
      const node = nodeName === '' ? null : nodeName
      return {
        name: pod.metadata.name ?? '',
        node,
        scheduled: node !== null,
        terminated: isPodTerminated(pod),
        phase: pod.status?.phase ?? null,
      }
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}
