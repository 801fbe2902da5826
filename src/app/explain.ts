// The explain use-case: load the state once, explain the object named (or every claim not Bound), and
// say how the command should exit. No oclif here: the command passes options in and renders the
// document that comes back.
import {claimsInScope, Explainer} from '../engine/explain/explainer.js'
import {type ClaimExplanation, EXPLAIN_API_VERSION, SETTLED_VERDICTS, SETTLED_VOLUME_STATES, type ExplainDocument} from '../engine/explain/model.js'
import type {FeatureGates} from '../engine/api/feature-gates.js'
import type {DecidedVersion} from '../engine/api/kube-version.js'
import type {ClusterState} from '../engine/api/model.js'
import {type ReclaimOffer, reclaimOffers, withReclaimOffers} from '../engine/repair/offers.js'
import type {PodsRead} from '../engine/repair/reclaim.js'
import {defaultVolumePluginMgr, type VolumePluginMgr, type VolumePluginOptions} from '../engine/controller/volume-plugins.js'
import type {ClaimName} from '../engine/repair/checks.js'
import {relinkWay} from '../engine/repair/relink.js'
import {type ClusterLookup, clusterLookup} from '../engine/explain/lookup.js'
import {sourceText} from './load-cluster-state.js'
import {ExitCode, UsageError} from '../errors.js'
import type {ExplainEvidence} from '../engine/explain/evidence.js'
import {type EvidenceScope, type EvidenceSource, liveEvidenceSource, snapshotEvidenceSource} from './explain-evidence.js'
import {loadClusterState, type LoadedClusterState, type LoadStateOptions, type LoadStateUi, type MissingKind, noticeEmptyNamespace, noticeCaveats, podsRead} from './load-cluster-state.js'
import {claimNotFound, volumeNotFound} from './not-found.js'

/** hostPathProvisioning: --enable-hostpath-provisioner, as kube-controller-manager's. */
export interface ExplainRequest extends Pick<VolumePluginOptions, 'hostPathProvisioning'>, EvidenceScope {
  gates: FeatureGates
  /** The release the gates are those of, and where it came from, for the document; unset: not said. */
  kubernetesVersion?: DecidedVersion
  onlyRelevant: boolean
  /** Events, CSIDrivers, Leases, VolumeAttachments and the clock (explain-evidence.ts); none: not read. */
  evidence?: ExplainEvidence
  /**
   * --candidates: how many volumes each explanation lists, nearest first; 0: all. Unset: all for one
   * claim, LIST_CANDIDATES for each claim of a List.
   */
  candidates?: number
  /** Whether the state's pods were read (podsRead in load-cluster-state.ts), for the repairs offered; unset: read. */
  pods?: PodsRead
  /** Where the state came from, as flags (sourceArgs in src/cli/flags.ts), for the repair commands a suggestion names. */
  sourceArgs?: readonly string[]
}

/**
 * The candidates each item of a List carries when --candidates is not given. Every volume for every claim
 * is claims × volumes (50 million at 10k volumes and 5k pending claims); an operator scanning many claims
 * wants the few that came closest, and `explain pvc/NAME` for the rest.
 */
export const LIST_CANDIDATES = 5

/**
 * The most candidates a List carries in all (claims × candidates each) when --candidates asks for more than
 * the default. Each is about a kilobyte of memory and most of one of output: 500 claims × 1,000 volumes with
 * --candidates 0 took 7 s, 1.1 GB and printed 350 MB; 1,500 × 3,000 took 200 s and 4 GB. Past this, the
 * List is refused, not run out of memory.
 */
export const MAX_LIST_CANDIDATES = 500_000

export interface ExplainResult {
  document: ExplainDocument
  /** 0: the claim is (or will be) bound, the volume is settled; 1: something stays pending or stuck. */
  exitCode: number
}

export interface RunExplainOptions extends Omit<ExplainRequest, 'gates' | 'kubernetesVersion'>, Omit<LoadStateOptions, 'namespace' | 'labelSelectorText'> {}

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
  const evidence = loaded.source === 'snapshot' ? snapshotEvidenceSource(loaded.evidence, Date.now) : liveEvidenceSource(loaded.session, Date.now)
  return {state: loaded.state, evidence, answered: () => noticeCaveats(loaded, ui), missing: new Set(loaded.source === 'snapshot' ? loaded.missing : []), loaded, pods: podsRead(loaded)}
}

/**
 * Marks each claim's verdict that rests on a kind the snapshot lacks: without StorageClasses a class is
 * "not found" because none was read; without Pods a claim has no consumer because none was read; without
 * Nodes no node is left to fit. The verdict stays the controller's (it is what the controller would decide
 * on that state); the caveat says what it may only mean.
 */
export function withMissingKindCaveats<D extends ExplainDocument>(doc: D, missing: ReadonlySet<MissingKind>): D {
  if (missing.size === 0) return doc
  const mark = (e: ClaimExplanation): ClaimExplanation => {
    const caveats: string[] = []
    if (missing.has('StorageClass') && (e.verdict === 'StorageClassNotFound' || (e.verdict === 'NoMatchingVolume' && e.storageClass.selection === 'Unset'))) {
      caveats.push('the snapshot holds no StorageClass: the class may exist in the cluster')
    }
    if (missing.has('Pod') && (e.verdict === 'WaitForFirstConsumer' || e.verdict === 'WaitForPodScheduled')) {
      caveats.push('the snapshot holds no Pod: a pod may use the claim in the cluster, and whether one names its node itself (bypassing the scheduler) could not be seen')
    }
    if (missing.has('Node') && e.candidates.some((c) => c.reasons.some((r) => r.code === 'NodeAffinityMismatch'))) {
      caveats.push("the snapshot holds no Node: volumes' node affinity was checked against no node")
    }
    if (missing.has('Node') && e.selectedNode !== null && e.phase !== 'Bound') {
      caveats.push(`the snapshot holds no Node: whether node ${e.selectedNode}, the claim's selected-node, still exists could not be seen`)
    }
    return caveats.length === 0 ? e : {...e, caveats}
  }
  if (doc.kind === 'ClaimExplanation') return mark(doc) as D
  if (doc.kind === 'List') return {...doc, items: doc.items.map(mark)}
  return doc
}

/**
 * explain's relink port: `pvctl relink pvc/NAME` as relink's own decision on `state` takes it (relinkWay),
 * with the flags that read the same state; undefined where relink refuses it.
 */
export function relinkPort(state: ClusterState, gates: FeatureGates, plugins: VolumePluginMgr, sourceArgs: readonly string[] | undefined): (claim: ClaimName) => string | undefined {
  // Indexed once, when a relink is first asked for (most explanations never ask).
  let lookup: ClusterLookup | undefined
  return ({namespace, name}) => {
    lookup ??= clusterLookup(state)
    return relinkWay({state, target: {kind: 'PersistentVolumeClaim', namespace, name}, gates, plugins, lookup, source: sourceText(sourceArgs)})?.way
  }
}

/**
 * The controller's view of `state` for `req` (its gates and volume plugins), without evidence: what to read
 * is worked out with it (gatherEvidence), and the explanation shares it (explainInState's `base`).
 */
export function controllerExplainer(state: ClusterState, req: ExplainRequest): Explainer {
  const plugins = defaultVolumePluginMgr(req)
  return new Explainer(state, {gates: req.gates, plugins, relink: relinkPort(state, req.gates, plugins, req.sourceArgs)})
}

/** `base`: the controller's view of `state` already made for `req` (controllerExplainer), its pass reused. */
export function explainInState(state: ClusterState, req: ExplainRequest, base = controllerExplainer(state, req)): ExplainResult {
  const target = req.target
  const explainer = base.with({
    onlyRelevant: req.onlyRelevant,
    evidence: req.evidence,
    candidates: req.candidates ?? (target === undefined ? LIST_CANDIDATES : 0),
  })
  if (target === undefined) {
    const claims = claimsInScope(explainer, req)
    // Only a bound asked for: the default one (LIST_CANDIDATES) keeps a List linear in the cluster's size.
    const each = req.candidates === 0 ? state.volumes.length : Math.min(req.candidates ?? 0, state.volumes.length)
    if (claims.length * each > MAX_LIST_CANDIDATES) {
      throw new UsageError(
        `--candidates ${req.candidates}: a List of ${claims.length.toLocaleString('en')} claims with ${each.toLocaleString('en')} candidates each is ${(claims.length * each).toLocaleString('en')} candidates, more than ${MAX_LIST_CANDIDATES.toLocaleString('en')}: name a claim (pvc/NAME), narrow the List (-n, -l), or give fewer --candidates`,
      )
    }
    // Each item is the claim's sync in the controller's pass, after the claims before it (listItem).
    const items = claims.map((c) => explainer.listItem(c.metadata.namespace ?? '', c.metadata.name ?? '')!)
    const settled = items.every((e) => SETTLED_VERDICTS.has(e.verdict))
    return {document: {apiVersion: EXPLAIN_API_VERSION, kind: 'List', ...versionOf(req), items}, exitCode: settled ? ExitCode.Ok : ExitCode.Changes}
  } else if (target.kind === 'PersistentVolumeClaim') {
    const namespace = target.namespace ?? 'default'
    const found = explainer.claim(namespace, target.name)
    if (found === undefined) throw claimNotFound(state, namespace, target.name)
    const e = withRepairOffers(state, req, found).explanation
    return {document: {...e, ...versionOf(req)}, exitCode: SETTLED_VERDICTS.has(e.verdict) ? ExitCode.Ok : ExitCode.Changes}
  } else {
    const e = explainer.volume(target.name)
    if (e === undefined) throw volumeNotFound(state, target.name)
    return {document: {...e, ...versionOf(req)}, exitCode: SETTLED_VOLUME_STATES.has(e.state) && e.terminating === null ? ExitCode.Ok : ExitCode.Changes}
  }
}

function versionOf(req: ExplainRequest): {kubernetesVersion?: DecidedVersion} {
  return req.kubernetesVersion === undefined ? {} : {kubernetesVersion: req.kubernetesVersion}
}


/**
 * One claim's explanation with the repairs pvctl can carry out for it (engine/repair/offers.ts): each named
 * in its suggestions, with the flags that read the same state. Only for one claim: each offer is decided on
 * the whole cluster, too much for every claim of a List.
 */
export function withRepairOffers(state: ClusterState, req: ExplainRequest, e: ClaimExplanation): {explanation: ClaimExplanation; offers: ReclaimOffer[]} {
  const offers = reclaimOffers(e, {
    state,
    gates: req.gates,
    plugins: defaultVolumePluginMgr(req),
    attachments: req.evidence?.volumeAttachments ?? {observed: false, reason: 'not read by explain'},
    pods: req.pods ?? {observed: true},
    sourceArgs: req.sourceArgs ?? [],
  })
  return {explanation: withReclaimOffers(e, offers), offers}
}
