// Claims that crossed: the controller gives each claim the smallest volume that fits it, in the order it
// syncs them, and a bound claim never moves. A small claim synced first can take the one volume a bigger
// claim needed, though a smaller volume would have done for it; the big one then waits for ever. Said where
// the state shows it: a volume of the claim's class held by a live claim that asks for less, and kept from
// this claim by that binding alone. PURE.
import type {FeatureGates} from '../api/feature-gates.js'
import {claimKey, type PersistentVolume, type PersistentVolumeClaim} from '../api/model.js'
import {compareQuantities, type Quantity} from '../api/quantity.js'
import {lowerIndex} from '../matching/sorted-list.js'
import {compareNames, storageQuantity} from '../matching/volume-index.js'
import {reasonsFor} from './candidates.js'
import type {ClusterLookup} from './lookup.js'
import type {ReasonCode, Verdict} from './model.js'
import type {Decision} from './verdict.js'

/** The verdicts of a claim nothing binds or provisions: a crossed volume is what it lacks. */
const NEVER_BOUND: ReadonlySet<Verdict> = new Set<Verdict>([
  'NoMatchingVolume',
  'StorageClassNotFound',
  'ProvisioningNotSupported',
])

/** The refusals a binding to another claim gives a volume that would otherwise fit. */
const HELD: ReadonlySet<ReasonCode> = new Set<ReasonCode>(['BoundToOtherClaim', 'VolumeNotAvailable'])

export interface Crossed {
  volume: PersistentVolume
  /** namespace/name of the claim that holds it. */
  holder: string
  /** What that claim asks for (spec.resources.requests.storage). */
  holderRequest: string
}

/** A volume of a class held by a claim that exists (its claimRef's uid is that claim's). */
interface Held {
  volume: PersistentVolume
  capacity: Quantity
  holder: PersistentVolumeClaim
  holderRequest: Quantity
}

/**
 * The crossed volume of each claim of a state. The volumes of a class held by a claim are sorted by size
 * once; a claim's look starts at the first large enough and ends at the first that fits it but for its
 * binding (the smallest such: the nearest), so a cluster's many unbound claims stay cheap to look at.
 */
export class CrossedVolumes {
  private readonly heldByClass = new Map<string, Held[]>()

  constructor(
    private readonly lookup: ClusterLookup,
    private readonly gates: FeatureGates,
  ) {}

  /** The smallest volume that would fit the claim but for its binding to a claim asking for less, if any. */
  of(claim: PersistentVolumeClaim, d: Decision): Crossed | undefined {
    if (!NEVER_BOUND.has(d.verdict) || d.path.kind !== 'index') return undefined
    const requested = storageQuantity(claim.spec.resources?.requests)
    const held = this.held(d.path.claimClass)
    for (let i = lowerIndex(held, (h) => compareQuantities(h.capacity, requested) >= 0); i < held.length; i++) {
      const h = held[i]
      if (h.holder === claim || compareQuantities(h.holderRequest, requested) >= 0) continue
      if (reasonsFor(this.lookup, h.volume, d.claim, d.path, this.gates).every((r) => HELD.has(r.code))) {
        return {
          volume: h.volume,
          holder: claimKey(h.holder),
          holderRequest: h.holder.spec.resources?.requests?.storage ?? '0',
        }
      }
    }
    return undefined
  }

  private held(className: string): Held[] {
    let held = this.heldByClass.get(className)
    if (held === undefined) {
      held = []
      for (const volume of this.lookup.volumesOfClass(className)) {
        const ref = volume.spec.claimRef
        if (ref == null || (ref.uid ?? '') === '') continue
        const holder = this.lookup.claimNamed(ref.namespace ?? '', ref.name ?? '')
        if (holder === undefined || holder.metadata.uid !== ref.uid) continue
        held.push({
          volume,
          capacity: storageQuantity(volume.spec.capacity),
          holder,
          holderRequest: storageQuantity(holder.spec.resources?.requests),
        })
      }
      // By size, then name: the first that passes is the nearest, as candidateOrder ranks them.
      held.sort(
        (a, b) =>
          compareQuantities(a.capacity, b.capacity) || compareNames(a.volume.metadata.name, b.volume.metadata.name),
      )
      this.heldByClass.set(className, held)
    }
    return held
  }
}

/** The summary's sentence about it. */
export function crossedSentence(c: Crossed): string {
  return `${c.volume.metadata.name ?? ''} (${c.volume.spec.capacity?.storage ?? 'no capacity'}), which would fit it, is bound to ${c.holder}, a claim asking for only ${c.holderRequest}.`
}

/** What to do about it: a volume that fits, and a pre-binding next time; a bound claim is never moved. */
export function crossedSuggestion(c: Crossed, className: string, need: string): string {
  return `${c.volume.metadata.name ?? ''} went to ${c.holder}, which asks for only ${c.holderRequest}: the controller gives each claim the smallest volume that fits it when it syncs it, and never moves a bound claim; create a volume of class '${className}' with ${need} for this claim, and reserve a volume for a claim by pre-binding them (spec.volumeName on the claim, or spec.claimRef on the volume)`
}
