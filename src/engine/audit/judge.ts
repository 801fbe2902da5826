// The judge of `pvctl audit`: the state after the controller's plan, and explain's verdicts on its claims,
// in; findings out. PURE. A claim's finding is read off explain's explanation of it (the Explainer's verdict), never
// decided again here: audit cannot disagree with `pvctl explain` on a claim. Each kind is judged in its own
// file (judge-claims, judge-volumes, judge-classes, judge-restores), each linear in the objects: what one
// object is checked against is looked up in maps built once here.
import {clusterLookup, type ClusterLookup} from '../explain/lookup.js'
import {defaultFeatureGates, type FeatureGates} from '../api/feature-gates.js'
import {reclaimFixOn} from './reclaim-fix.js'
import {relinkFixOn} from './relink-fix.js'
import type {ClaimExplanationBrief, ClaimExplanationFacts, Verdict, VolumeExplanation} from '../explain/model.js'
import type {ClusterState, PersistentVolume} from '../api/model.js'
import type {Finding, FindingCode} from './findings.js'
import {CLAIM_EVIDENCE_VERDICT_CODES, CLAIM_VERDICT_CODES, judgeClaim} from './judge-claims.js'
import {CLASS_FINDING_VERDICTS, judgeClasses} from './judge-classes.js'
import {judgeRestoredVolume} from './judge-restores.js'
import {judgeVolume, NodeIndex} from './judge-volumes.js'
import {RECLAIM_FOR_VERDICTS, reclaimFits} from '../repair/offers.js'

export interface AuditInput {
  /** The state after the plan: what the controller is about to fix is fixed here. */
  after: ClusterState
  /**
   * What explain's decision says of every claim of `after` (Explainer.claimFacts): each is judged as it
   * comes and let go, so that a large cluster's claims are never all held at once.
   */
  claims: Iterable<ClaimExplanationFacts>
  /**
   * The claims reported (-n, -l, objects named); none: all of them. The others are judged by nobody, but
   * what they tell about the rest is read as in the unscoped audit (the claims a class finding counts, the
   * claim a Released volume may be reclaimed for): a scope chooses what is shown, never a finding.
   */
  reported?: (claim: ClaimExplanationFacts['claim']) => boolean
  /**
   * explain's explanation of a claim of `claims`, without its candidates (Explainer.claimBrief, on the same
   * state): asked only of the claims whose finding words what blocks them (its summary and suggestions),
   * names their pods or their binding's pointers.
   */
  explainClaim: (claim: ClaimExplanationFacts['claim']) => ClaimExplanationBrief
  /** `after` looked up (the Explainer's lookup); none: looked up here. */
  lookup?: ClusterLookup
  /**
   * A volume's phase as read, before the plan: a repair of a volume the plan releases first is refused until
   * that release is written, so its fix says to sync it first. None: as after the plan.
   */
  phaseAsRead?: (volume: string) => string | null | undefined
  /** The volumes reported, from `after`. */
  volumes: readonly PersistentVolume[]
  /**
   * explain's explanation of a volume of `after` (`pvctl explain pv/NAME`, with the evidence the audit
   * read), asked only of the volumes being deleted or Released with Delete. None: those are not judged.
   */
  explainVolume?: (name: string) => VolumeExplanation | undefined
  /** Judge the StorageClasses too (not when objects are named: they are about those objects). */
  classes: boolean
  /**
   * The flags that name where the state came from (`-f FILE`, `--context`), for the pvctl commands a fix
   * prints: pasted, they read what the audit read, not another cluster.
   */
  sourceArgs?: readonly string[]
  /**
   * The controller's feature gates (default: the release's), for the repairs a fix offers: `pvctl relink`
   * where its decision allows it, the claim a reclaim is for where the volume fits it.
   */
  gates?: FeatureGates
  /**
   * Since when each volume Released as read has been Released (its status.lastPhaseTransitionTime), by name:
   * a volume the plan releases is released by the plan, and its stamp is the plan's.
   */
  releasedSince?: ReadonlyMap<string, string>
}

/** The finding a claim's facts stand for, or undefined for a healthy (or soon healthy) claim. */
export {claimCode} from './judge-claims.js'

/**
 * The verdicts a claim finding code stands for (the agreement test reads them back); empty for a code that
 * is about a claim's other fields (being deleted, a resize), which carries the verdict in its evidence.
 */
export function verdictsOfCode(code: FindingCode): readonly Verdict[] {
  return (
    CLAIM_EVIDENCE_VERDICT_CODES[code] ??
    (Object.keys(CLAIM_VERDICT_CODES) as Verdict[]).filter((v) => CLAIM_VERDICT_CODES[v] === code)
  )
}

export function judge(input: AuditInput): Finding[] {
  const {after} = input
  const source = (input.sourceArgs ?? []).map((a) => ` ${a}`).join('')
  const lookup = input.lookup ?? clusterLookup(after)
  const relink = relinkFixOn(after, input.gates ?? defaultFeatureGates, source, lookup)
  const phaseAsRead = input.phaseAsRead ?? ((name: string) => lookup.volumeByName(name)?.status?.phase)
  const reclaim = reclaimFixOn(after, lookup, input.gates ?? defaultFeatureGates, {phaseAsRead, source})
  const claimContext = {
    lookup,
    podsRead: after.pods.length > 0,
    source,
    relink,
    reclaim,
    explain: input.explainClaim,
    gates: input.gates ?? defaultFeatureGates,
  }
  const volumeBase = {
    lookup,
    explainVolume: input.explainVolume ?? (() => undefined),
    // A kind the state holds none of was not read (a partial snapshot): nothing is judged by it.
    classNames: after.classes.length > 0 ? new Set(after.classes.map((c) => c.metadata.name ?? '')) : undefined,
    nodes: after.nodes.length > 0 ? new NodeIndex(after.nodes) : undefined,
    source,
    relink,
    reclaim,
    releasedSince: input.releasedSince ?? new Map<string, string>(),
    phaseAsRead,
  }
  const found: Finding[] = []
  // Of the claims, only those a later finding reads are kept past their own judging: those the class
  // findings count, and those a Released volume may be reclaimed for.
  const counted: ClaimExplanationFacts[] = []
  const reclaimable: ClaimExplanationFacts[] = []
  for (const e of input.claims) {
    if (input.reported?.(e.claim) !== false) {
      for (const f of judgeClaim(e, claimContext)) found.push(f)
    } else {
      // Out of the scope shown: read below for the class and volume findings only.
    }
    if (input.classes && CLASS_FINDING_VERDICTS.has(e.verdict)) {
      counted.push(e)
    } else {
      // No class finding counts a claim of this verdict, or the classes are not judged.
    }
    if (RECLAIM_FOR_VERDICTS.has(e.verdict)) {
      reclaimable.push(e)
    } else {
      // Bound, binding or waiting: no reclaimed volume is offered to it.
    }
  }
  const volumeContext = {
    ...volumeBase,
    reclaimFits: reclaimFits(lookup, reclaimable, input.gates ?? defaultFeatureGates),
  }
  for (const v of input.volumes) found.push(...judgeVolume(v, volumeContext), ...judgeRestoredVolume(v, lookup, relink))
  if (input.classes) {
    found.push(...judgeClasses(after, counted))
  } else {
    // Objects are named: the audit is about them, not the classes.
  }
  return found
}
