// The repairs pvctl offers where the problem is seen: in a claim's explanation and in audit's fixes. PURE.
// explain cannot know whether a repair is allowed (engine/explain sits below engine/repair), so its
// suggestions stay advice; here they meet the repair's own decision. Each kind of repair has its offer:
// a reclaim (a Released or Failed volume held back from a claim only by its stale claimRef).
import type {FeatureGates} from '../api/feature-gates.js'
import {
  claimKey,
  claimRefKey,
  type ClusterState,
  type PersistentVolume,
  type PersistentVolumeClaim,
} from '../api/model.js'
import {getPersistentVolumeClass} from '../api/storage-helpers.js'
import type {VolumePluginMgr} from '../controller/volume-plugins.js'
import {type MatchingPath, refusalsWithin} from '../explain/candidates.js'
import type {Observed, VolumeAttachmentObject} from '../explain/evidence.js'
import {type ClusterLookup, groupBy} from '../explain/lookup.js'
import type {Candidate, ClaimExplanation, ClaimExplanationFacts, ReasonCode, Verdict} from '../explain/model.js'
import {requestKeyText} from '../explain/request-groups.js'
import {NEAR_MISS_VERDICTS, removeClaimRefPatch} from '../explain/suggestions.js'
import {type ClaimName, decideReclaim, type PodsRead, reclaimCommand} from './reclaim.js'

/** A repair pvctl can carry out for a claim, with the command that does it. */
export interface ReclaimOffer {
  kind: 'reclaim'
  /** The reclaim's decision allows it (every check and the proof); refused, only its suggestion says why. */
  allowed: boolean
  volume: string
  target: ClaimName
  /** `pvctl reclaim pv/X --for NS/CLAIM`, with the flags that read the same state. */
  command: string
  /** The suggestion that names it, for the claim's explanation. */
  suggestion: string
  /** What the controller does once it is written (the decision's proof). */
  next: string
}

export interface OfferContext {
  state: ClusterState
  gates: FeatureGates
  plugins?: VolumePluginMgr
  /** The VolumeAttachments as read (explain reads them only for some volumes: else not read, and the reclaim reads them again). */
  attachments: Observed<VolumeAttachmentObject>
  /** Whether the state's pods were read (a snapshot without any was not taken with them). */
  pods: PodsRead
  /** The flags that name where the state came from (-f FILE, --context), carried into each command. */
  sourceArgs: readonly string[]
}

/**
 * How many reclaims one explanation decides at the most, nearest first: each decision is the controller's
 * plan on the whole edited cluster (about a second at 10k volumes), and an operator gives a claim one volume.
 */
export const MAX_RECLAIM_OFFERS = 3

/**
 * The verdicts of a claim that nothing will bind as it is: the only ones a volume is reclaimed for. A claim
 * that names a volume held by a stale claimRef (RequestedVolumeBoundElsewhere) asks for that one alone.
 */
export const RECLAIM_FOR_VERDICTS: ReadonlySet<Verdict> = new Set<Verdict>([
  ...NEAR_MISS_VERDICTS,
  'RequestedVolumeBoundElsewhere',
])

/** The refusals a reclaim removes: the stale claimRef, and the phase (Released, Failed) it leaves behind. */
const LIFTED_BY_RECLAIM: ReadonlySet<ReasonCode> = new Set<ReasonCode>(['BoundToOtherClaim', 'VolumeNotAvailable'])

/**
 * The cap of reclaimFits' refusals: before the phase is weighed (where the judge may stop), the one refusal
 * a reclaim can lift is the claimRef's; a second one there keeps the claim out of the volume whatever follows.
 */
const CLAIM_REF_REFUSALS = 1

/** A candidate that would fit the claim but for what a reclaim removes. */
export function heldOnlyByStaleClaimRef(c: Pick<Candidate, 'phase' | 'claimRef' | 'reasons'>): boolean {
  return (
    (c.phase === 'Released' || c.phase === 'Failed') &&
    c.claimRef !== null &&
    c.reasons.some((r) => r.code === 'BoundToOtherClaim') &&
    c.reasons.every((r) => LIFTED_BY_RECLAIM.has(r.code))
  )
}

/**
 * The reclaims that apply to the claim explained: each volume among its candidates held back only by its
 * stale claimRef, with decideReclaim's answer to `pvctl reclaim pv/X --for` this claim (every check and the
 * proof). A refused one is kept so that its suggestion says why in place of explain's hand-made patch, which
 * would do what the reclaim refuses. A List's items carry only their nearest candidates, and a Failed volume may not be among them:
 * the offers are for one claim's explanation, which lists every volume.
 */
export function reclaimOffers(e: ClaimExplanation, ctx: OfferContext): ReclaimOffer[] {
  if (!RECLAIM_FOR_VERDICTS.has(e.verdict)) {
    return []
  } else {
    // Nothing binds the claim as it is: a volume reclaimed for it may.
  }
  const target = {namespace: e.claim.namespace, name: e.claim.name}
  const source = ctx.sourceArgs.map((a) => ` ${a}`).join('')
  return e.candidates
    .filter(heldOnlyByStaleClaimRef)
    .slice(0, MAX_RECLAIM_OFFERS)
    .flatMap((c) => {
      const d = decideReclaim({
        state: ctx.state,
        volumeName: c.volume,
        target,
        force: new Set(),
        attachments: ctx.attachments,
        pods: ctx.pods,
        gates: ctx.gates,
        plugins: ctx.plugins,
        source,
      })
      if (d === undefined || d.already !== null) {
        // No such volume, or it is this claim's already (pre-bound or bound to it): nothing to offer.
        return []
      } else {
        // Decided: offered where allowed, and where refused said why (no hand-made patch in its place).
      }
      const command = reclaimCommand(c.volume, target, source)
      const policy = d.volume.spec.persistentVolumeReclaimPolicy ?? '<none>'
      const held = `${c.volume} (${c.phase}, reclaim policy ${policy}) would fit but for its stale claimRef to ${c.claimRef}`
      const suggestion = d.allowed
        ? `${held}: give it to this claim, its old data with it: ${command}`
        : `${held}, and it is not safe to reuse: ${d.checks
            .filter((k) => !k.ok)
            .map((k) => `${k.name}: ${k.message}`)
            .join('; ')}`
      return [
        {
          kind: 'reclaim' as const,
          allowed: d.allowed,
          volume: c.volume,
          target,
          command,
          suggestion,
          next: d.next ?? '',
        },
      ]
    })
}

/**
 * The explanation with the offers in its suggestions. A volume holding data that the claim could take is the
 * first thing to say: an allowed reclaim comes first, and explain's hand-made patch of that volume (kubectl
 * patch) goes. A refused one says why where that patch was, or after the sentence about that volume as the
 * nearest. The verdict and everything else stay explain's.
 */
export function withReclaimOffers(e: ClaimExplanation, offers: readonly ReclaimOffer[]): ClaimExplanation {
  if (offers.length === 0) {
    return e
  } else {
    // Rewrite the suggestions that speak of an offered volume.
  }
  let suggestions = [...e.suggestions]
  const first: string[] = []
  for (const offer of offers) {
    const patch = removeClaimRefPatch(offer.volume)
    const byHand = suggestions.findIndex((s) => s.includes(patch))
    if (offer.allowed) {
      first.push(offer.suggestion)
      suggestions = suggestions.filter((s) => !s.includes(patch))
    } else if (byHand >= 0) {
      suggestions = suggestions.flatMap((s, i) => (i === byHand ? [offer.suggestion] : s.includes(patch) ? [] : [s]))
    } else {
      const nearest = suggestions.findIndex((s) => s.startsWith(`the nearest volume, ${offer.volume},`))
      suggestions.splice(nearest + 1, 0, offer.suggestion)
    }
  }
  return {...e, suggestions: [...first, ...suggestions]}
}

/** A claim reclaimFits may give a volume to, and its place among the claims it was given. */
interface Asking {
  e: ClaimExplanationFacts
  claim: PersistentVolumeClaim
  path: MatchingPath
  order: number
}

/**
 * The claims a Released volume would fit but for its stale claimRef, among those nothing binds (audit's
 * briefs), in their order: the controller's own checks of the volume for each, with the refusals a
 * reclaim removes ignored. The claims are grouped by their class, and within it by what they ask for
 * (requestKeyText): a volume is checked once per request of its class, for the first claim of it, and
 * the claims its claimRef names (whose refusals may differ) each for themselves. Each answer stops at
 * `most` (audit asks whether exactly one fits).
 */
export function reclaimFits(
  lookup: ClusterLookup,
  claims: readonly ClaimExplanationFacts[],
  gates: FeatureGates,
): (volume: PersistentVolume, most?: number) => ClaimName[] {
  const asking: Asking[] = []
  // Volume name → the claims that name it (spec.volumeName) and that its stale claimRef keeps out.
  const naming = new Map<string, ClaimName[]>()
  for (const e of claims) {
    const claim = lookup.claimNamed(e.claim.namespace, e.claim.name)
    if (claim !== undefined && e.verdict === 'RequestedVolumeBoundElsewhere') {
      naming.set(claim.spec.volumeName ?? '', [...(naming.get(claim.spec.volumeName ?? '') ?? []), e.claim])
    } else if (claim !== undefined && RECLAIM_FOR_VERDICTS.has(e.verdict) && (claim.spec.volumeName ?? '') === '') {
      asking.push({e, claim, path: pathOf(e), order: asking.length})
    } else {
      // Bound, binding, waiting, or naming another volume: the controller would not match it against a reclaimed one.
    }
  }
  const byKey = groupBy(asking.map((a): [string, Asking] => [claimKey(a.claim), a]))
  const byClass = new Map(
    [...groupBy(asking.map((a): [string, Asking] => [a.e.storageClass.name, a]))].map(([name, of]) => [
      name,
      groupBy(of.map((a): [string, Asking] => [requestKeyText(a.claim, a.path), a])),
    ]),
  )
  return (volume, most = 2) => {
    // A claim that names the volume asks for it alone, and the controller binds a volume pre-bound to the
    // claim that names it without weighing the fit: those claims are its, before any that would match it.
    const asked = naming.get(volume.metadata.name ?? '')
    if (asked !== undefined) return asked.slice(0, most)
    const fits = (a: Asking) =>
      refusalsWithin(lookup, volume, a.claim, a.path, gates, CLAIM_REF_REFUSALS).every((r) =>
        LIFTED_BY_RECLAIM.has(r.code),
      )
    const volumeClass = getPersistentVolumeClass(volume)
    const own =
      volume.spec.claimRef == null
        ? []
        : (byKey.get(claimRefKey(volume.spec.claimRef)) ?? []).filter((a) => a.e.storageClass.name === volumeClass)
    const others = (members: readonly Asking[]) =>
      own.length === 0 ? members : members.filter((a) => !own.includes(a))
    const fit: Asking[] = own.filter(fits)
    for (const members of byClass.get(volumeClass)?.values() ?? []) {
      const alike = others(members)
      if (alike.length > 0 && fits(alike[0])) {
        fit.push(...alike.slice(0, most))
      } else {
        // Kept out by more than the claimRef (every claim of this request alike): a reclaim does not give it this volume.
      }
    }
    return fit
      .sort((a, b) => a.order - b.order)
      .slice(0, most)
      .map((a) => a.e.claim)
  }
}

/** The claim as syncUnboundClaim matches it: against the class in play (a delayed binding waits for a node, and fits no volume yet). */
function pathOf(e: ClaimExplanationFacts): MatchingPath {
  return {
    kind: 'index',
    claimClass: e.storageClass.name,
    delayBinding: e.storageClass.volumeBindingMode === 'WaitForFirstConsumer',
  }
}
