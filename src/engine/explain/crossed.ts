// Claims that crossed: the controller gives each claim the smallest volume that fits it, in the order it
// syncs them, and a bound claim never moves. A small claim synced first can take the one volume a bigger
// claim needed, though a smaller volume would have done for it; the big one then waits for ever. Said where
// the state shows it: a volume of the claim's class held by a live claim that asks for less, and kept from
// this claim by that binding alone. PURE.
import type {FeatureGates} from '../api/feature-gates.js'
import {claimRefKey, type PersistentVolume, type PersistentVolumeClaim} from '../api/model.js'
import {compareQuantities} from '../api/quantity.js'
import {storageQuantity} from '../matching/volume-index.js'
import {reasonsFor} from './candidates.js'
import type {ClusterLookup} from './lookup.js'
import type {ReasonCode, Verdict} from './model.js'
import type {Decision} from './verdict.js'

/** The verdicts of a claim nothing binds or provisions: a crossed volume is what it lacks. */
const NEVER_BOUND: ReadonlySet<Verdict> = new Set<Verdict>(['NoMatchingVolume', 'StorageClassNotFound', 'ProvisioningNotSupported'])

/** The refusals a binding to another claim gives a volume that would otherwise fit. */
const HELD: ReadonlySet<ReasonCode> = new Set<ReasonCode>(['BoundToOtherClaim', 'VolumeNotAvailable'])

export interface Crossed {
  volume: PersistentVolume
  /** namespace/name of the claim that holds it. */
  holder: string
  /** What that claim asks for (spec.resources.requests.storage). */
  holderRequest: string
}

/** The smallest volume that would fit the claim but for its binding to a claim asking for less, if any. */
export function crossedVolume(lookup: ClusterLookup, claim: PersistentVolumeClaim, d: Decision, gates: FeatureGates): Crossed | undefined {
  if (!NEVER_BOUND.has(d.verdict) || d.path.kind !== 'index') return undefined
  const requested = storageQuantity(claim.spec.resources?.requests)
  let best: Crossed | undefined
  for (const volume of lookup.volumesOfClass(d.path.claimClass)) {
    const ref = volume.spec.claimRef
    if (ref == null || (ref.uid ?? '') === '') continue
    const holder = lookup.claimNamed(ref.namespace ?? '', ref.name ?? '')
    if (holder === undefined || holder.metadata.uid !== ref.uid || holder === claim) continue
    // The size first: most volumes of a class held by claims are not the fitting ones.
    if (compareQuantities(storageQuantity(volume.spec.capacity), requested) < 0) continue
    if (compareQuantities(storageQuantity(holder.spec.resources?.requests), requested) >= 0) continue
    if (!reasonsFor(lookup, volume, d.claim, d.path, gates).every((r) => HELD.has(r.code))) continue
    if (best === undefined || compareQuantities(storageQuantity(volume.spec.capacity), storageQuantity(best.volume.spec.capacity)) < 0) {
      best = {volume, holder: claimRefKey(ref), holderRequest: holder.spec.resources?.requests?.storage ?? '0'}
    }
  }
  return best
}

/** The summary's sentence about it. */
export function crossedSentence(c: Crossed): string {
  return `${c.volume.metadata.name ?? ''} (${c.volume.spec.capacity?.storage ?? 'no capacity'}), which would fit it, is bound to ${c.holder}, a claim asking for only ${c.holderRequest}.`
}

/** What to do about it: a volume that fits, and a pre-binding next time; a bound claim is never moved. */
export function crossedSuggestion(c: Crossed, className: string, need: string): string {
  return `${c.volume.metadata.name ?? ''} went to ${c.holder}, which asks for only ${c.holderRequest}: the controller gives each claim the smallest volume that fits it when it syncs it, and never moves a bound claim; create a volume of class '${className}' with ${need} for this claim, and reserve a volume for a claim by pre-binding them (spec.volumeName on the claim, or spec.claimRef on the volume)`
}
