// The pass a List speaks about. `explain pvc/NAME` tells the claim's next sync against the state as it is;
// a List tells the next sync of many claims, and those are one pass of the controller over every claim (by
// namespace, then name: reconcile's round, the informer's list order). Each claim's sync comes after the
// syncs of the claims before it, so a volume an earlier claim binds is no longer there for a later one:
// two claims that fit the same best volume are not both told they get it. The pass is the engine's own
// (syncClaim of PersistentVolumeController over a simulated cluster, the claims of the first round in
// reconcile's order), so a List cannot disagree with `sync --dry-run`'s first round. It is run once per
// Explainer, as long as one round of claim syncs, and read per claim from maps: a List stays linear.
import type {ControllerQueries} from './controller-queries.js'
import {claimKey, type ClusterState, type PersistentVolume, type PersistentVolumeClaim} from '../api/model.js'
import {PersistentVolumeController} from '../controller/pv-controller.js'
import {reconcile} from '../simulation/reconcile.js'
import {SimulatedCluster} from '../simulation/simulated-cluster.js'
import {filledObject} from '../simulation/cache-store.js'
import {compareNames} from '../matching/volume-index.js'

/** What the pass does before one claim's sync, as that claim's decision reads it (explain-verdict.ts). */
export interface ClaimTurn {
  /**
   * The claim (namespace/name) whose sync takes volume `name` before this claim's, or undefined. `later`:
   * for the sync after the next (the default class assigned first), every claim of the first round counts.
   */
  takenBy(name: string, later?: boolean): string | undefined
  /** The volume `name` as this claim's sync finds it, when an earlier claim's sync took it; else undefined. */
  volume(name: string): PersistentVolume | undefined
  /**
   * What findBestMatchForClaim answers at this claim's turn when its answer on the state as it is was taken
   * first: the volume the claim's own sync binds (in the first round, or the second with `later`), if any.
   */
  bestMatch(later: boolean): PersistentVolume | undefined
}

interface Taken {
  /** The claim whose sync took it, as the state gives it: its place in the pass. */
  by: PersistentVolumeClaim
  /** The volume as the claims after it find it (its claimRef naming that claim). */
  volume: PersistentVolume
}

export class SyncPass {
  /** Volume name → the first claim whose sync of the first round binds it. */
  private readonly taken = new Map<string, Taken>()
  /** Claim key → the volume its own sync of the first round binds. */
  private readonly bound = new Map<string, string>()
  /** The same for the second round, made when first asked for (see ClaimTurn.bestMatch). */
  private secondRound: Map<string, string> | undefined

  constructor(
    private readonly state: ClusterState,
    private readonly q: ControllerQueries,
  ) {
    // reconcile's first round, its claim syncs only: volume syncs come after every claim's and change
    // nothing a claim of that round reads.
    const cluster = new SimulatedCluster(state)
    const ctrl = new PersistentVolumeController(cluster, {
      gates: q.gates,
      plugins: q.plugins,
      enableDynamicProvisioning: q.enableDynamicProvisioning,
    })
    cluster.round = 1
    for (const slot of cluster.claims.filledSlots().sort((a, b) => compareClaims(filledObject(a), filledObject(b))))
      ctrl.syncClaimIn(slot)
    for (const [claim, volume] of bindings(cluster.actions, 1)) {
      if (!this.bound.has(claim)) this.bound.set(claim, volume)
      const by = cluster.claims.get(claim)
      const after = cluster.volumes.get(volume)
      if (by !== undefined && after !== undefined && !this.taken.has(volume))
        this.taken.set(volume, {by, volume: after})
    }
  }

  /** What happens before the sync of `claim` in the pass. */
  turnOf(claim: PersistentVolumeClaim): ClaimTurn {
    const key = claimKey(claim)
    const takenBefore = (name: string, later = false): Taken | undefined => {
      const t = this.taken.get(name)
      if (t === undefined || claimKey(t.by) === key) return undefined
      return later || compareClaims(t.by, claim) < 0 ? t : undefined
    }
    return {
      takenBy: (name, later) => {
        const t = takenBefore(name, later)
        return t === undefined ? undefined : claimKey(t.by)
      },
      volume: (name) => takenBefore(name)?.volume,
      bestMatch: (later) => {
        const name = (later ? this.secondRoundBindings() : this.bound).get(key)
        return name === undefined ? undefined : this.q.volume(name)
      },
    }
  }

  /**
   * The bindings of reconcile's second round: the sync after the one that assigns a claim the default
   * class. Run only when such a claim's match on the state as it is goes to another claim in the first.
   */
  private secondRoundBindings(): Map<string, string> {
    if (this.secondRound === undefined) {
      const r = reconcile(this.state, {
        maxRounds: 2,
        gates: this.q.gates,
        plugins: this.q.plugins,
        enableDynamicProvisioning: this.q.enableDynamicProvisioning,
      })
      this.secondRound = new Map()
      for (const [claim, volume] of bindings(r.actions, 2))
        if (!this.secondRound.has(claim)) this.secondRound.set(claim, volume)
    }
    return this.secondRound
  }
}

/** [claim key, volume name] of every volume a claim's sync of `round` binds (writes its claimRef), in order. */
function bindings(
  actions: ReadonlyArray<{action: string; object: {name: string}; round: number; sync: string}>,
  round: number,
): Array<[string, string]> {
  return actions
    .filter((a) => a.round === round && a.action === 'bind-volume' && a.sync.startsWith('pvc/'))
    .map((a) => [a.sync.slice('pvc/'.length), a.object.name])
}

/** reconcile's order of claims: by namespace, then name (not by "namespace/name" as one string). */
function compareClaims(a: PersistentVolumeClaim, b: PersistentVolumeClaim): number {
  return compareNames(a.metadata.namespace, b.metadata.namespace) || compareNames(a.metadata.name, b.metadata.name)
}
