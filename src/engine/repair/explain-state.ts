// explain's answer on a state: the object named (or every claim not Bound, as a List), from the controller's
// view of the state, a claim's with the repairs pvctl can carry out for it. It offers repairs, so it sits in
// repair/, above explain/.
import {present} from '../api/invariant.js'
import type {FeatureGates} from '../api/feature-gates.js'
import type {DecidedVersion} from '../api/kube-version.js'
import type {ClusterState} from '../api/model.js'
import {claimNotFound, volumeNotFound} from '../api/not-found.js'
import {RequestError} from '../api/request-error.js'
import {defaultVolumePluginMgr, type VolumePluginMgr, type VolumePluginOptions} from '../controller/volume-plugins.js'
import type {EvidenceScope, ExplainEvidence} from '../explain/evidence.js'
import {claimsInScope, Explainer} from '../explain/explainer.js'
import {type ClusterLookup, clusterLookup} from '../explain/lookup.js'
import {
  type ClaimExplanation,
  EXPLAIN_API_VERSION,
  type ExplainDocument,
  SETTLED_VERDICTS,
  SETTLED_VOLUME_STATES,
} from '../explain/model.js'
import {type ClaimName, sourceText} from './checks.js'
import {type ReclaimOffer, reclaimOffers, withReclaimOffers} from './offers.js'
import type {PodsRead} from './reclaim.js'
import {relinkWay} from './relink.js'

/** hostPathProvisioning: --enable-hostpath-provisioner, as kube-controller-manager's. */
export interface ExplainRequest extends Pick<VolumePluginOptions, 'hostPathProvisioning'>, EvidenceScope {
  gates: FeatureGates
  /** The release the gates are those of, and where it came from, for the document; unset: not said. */
  kubernetesVersion?: DecidedVersion
  onlyRelevant: boolean
  /** Events, CSIDrivers, Leases, VolumeAttachments and the clock (read by app/explain-evidence.ts); none: not read. */
  evidence?: ExplainEvidence
  /**
   * --candidates: how many volumes each explanation lists, nearest first; 0: all. Unset: all for one
   * claim, LIST_CANDIDATES for each claim of a List.
   */
  candidates?: number
  /** Whether the state's pods were read (podsRead in app/load-cluster-state.ts), for the repairs offered; unset: read. */
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

export interface ExplainAnswer {
  document: ExplainDocument
  /** The claim is (or will be) bound, the volume is settled; false: something stays pending or stuck. */
  settled: boolean
}

/**
 * explain's relink port: `pvctl relink pvc/NAME` as relink's own decision on `state` takes it (relinkWay),
 * with the flags that read the same state; undefined where relink refuses it.
 */
export function relinkPort(
  state: ClusterState,
  gates: FeatureGates,
  plugins: VolumePluginMgr,
  sourceArgs: readonly string[] | undefined,
): (claim: ClaimName) => string | undefined {
  // Indexed once, when a relink is first asked for (most explanations never ask).
  let lookup: ClusterLookup | undefined
  return ({namespace, name}) => {
    lookup ??= clusterLookup(state)
    return relinkWay({
      state,
      target: {kind: 'PersistentVolumeClaim', namespace, name},
      gates,
      plugins,
      lookup,
      source: sourceText(sourceArgs),
    })?.way
  }
}

/**
 * The controller's view of `state` for `req` (its gates and volume plugins), without evidence: what to read
 * is worked out with it (gatherEvidence), and the explanation shares it (explainState's `base`).
 */
export function controllerExplainer(state: ClusterState, req: ExplainRequest): Explainer {
  const plugins = defaultVolumePluginMgr(req)
  return new Explainer(state, {
    gates: req.gates,
    plugins,
    relink: relinkPort(state, req.gates, plugins, req.sourceArgs),
  })
}

/** `base`: the controller's view of `state` already made for `req` (controllerExplainer), its pass reused. */
export function explainState(
  state: ClusterState,
  req: ExplainRequest,
  base = controllerExplainer(state, req),
): ExplainAnswer {
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
      throw new RequestError(
        `--candidates ${req.candidates}: a List of ${claims.length.toLocaleString('en')} claims with ${each.toLocaleString('en')} candidates each is ${(claims.length * each).toLocaleString('en')} candidates, more than ${MAX_LIST_CANDIDATES.toLocaleString('en')}: name a claim (pvc/NAME), narrow the List (-n, -l), or give fewer --candidates`,
        'RequestEntityTooLarge',
      )
    }
    // Each item is the claim's sync in the controller's pass, after the claims before it (listItem).
    const items = claims.map((c) =>
      present(
        explainer.listItem(c.metadata.namespace ?? '', c.metadata.name ?? ''),
        'the explainer explains every claim of its state',
      ),
    )
    const settled = items.every((e) => SETTLED_VERDICTS.has(e.verdict))
    return {document: {apiVersion: EXPLAIN_API_VERSION, kind: 'List', ...versionOf(req), items}, settled}
  } else if (target.kind === 'PersistentVolumeClaim') {
    const namespace = target.namespace ?? 'default'
    const found = explainer.claim(namespace, target.name)
    if (found === undefined) throw claimNotFound(state, namespace, target.name)
    const e = withRepairOffers(state, req, found).explanation
    return {document: {...e, ...versionOf(req)}, settled: SETTLED_VERDICTS.has(e.verdict)}
  } else {
    const e = explainer.volume(target.name)
    if (e === undefined) throw volumeNotFound(state, target.name)
    return {document: {...e, ...versionOf(req)}, settled: SETTLED_VOLUME_STATES.has(e.state) && e.terminating === null}
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
export function withRepairOffers(
  state: ClusterState,
  req: ExplainRequest,
  e: ClaimExplanation,
): {explanation: ClaimExplanation; offers: ReclaimOffer[]} {
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
