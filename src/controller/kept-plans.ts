// Plans kept per sync, and replayed while the sync reads the same objects. The engine is pure: a sync's
// plan is a function of the state it is given (its slice: engine/simulation/sync-slice.ts) and of the
// loop's options, which a loop never changes (gates, volume plugins, one round, the scan). So a sync
// whose slice holds the same objects, in the same order, each at the same uid and resourceVersion, gives
// the plan it gave before: a resync's pass over a cluster that has not changed plans nothing new, and
// is answered without the engine. What the fingerprint holds:
//
//   the writing mode    planning only or writing (the plan does not depend on it; kept apart anyway)
//   the classes         every class, as a token shared by the syncs while the classes stay the same
//   the slice           its volumes, claims, pods and nodes, in order: each object's uid and
//                       resourceVersion (the API server's promise: the same version is the same
//                       object), or the object itself where it has none of either
//
// The slice is the one the sync built: for a claim to match, the volumes it may match, so that a new
// volume it would pick, or a change to one it would, is a new fingerprint. A sync while operations run
// in the background (the goroutinemap, which the engine reads) is planned afresh and not kept.
// One entry per object synced, dropped with the object (forget).
import type {ClusterState, StorageClass} from '../engine/api/model.js'
import type {ReconcileResult} from '../engine/simulation/reconcile.js'

/** A fingerprint: uids and resourceVersions (strings the objects hold already), counts, tokens. */
type Fingerprint = unknown[]

interface Kept {
  fingerprint: Fingerprint
  plan: ReconcileResult
}

export class KeptPlans {
  private readonly plans = new Map<string, Kept>()
  /** The classes of the last sync and their token: the same token while they stay the same objects. */
  private classes: {members: Fingerprint; token: object} = {members: [], token: {}}
  replayed = 0
  planned = 0

  /** The plan of `sync` over `state`: the kept one if the sync reads what it read then, else run() (kept). */
  plan(sync: string, state: ClusterState, running: ReadonlySet<string>, writing: boolean, run: () => ReconcileResult): ReconcileResult {
    if (running.size > 0) {
      // The engine reads which operations run: such a sync (rare, while a plugin's pod runs) is not kept.
      this.plans.delete(sync)
      this.planned++
      return keptPart(run())
    } else {
      const fingerprint = this.fingerprint(state, writing)
      const kept = this.plans.get(sync)
      if (kept !== undefined && sameFingerprint(kept.fingerprint, fingerprint)) {
        this.replayed++
        return kept.plan
      } else {
        const plan = keptPart(run())
        this.plans.set(sync, {fingerprint, plan})
        this.planned++
        return plan
      }
    }
  }

  /** The object of this sync is gone. */
  forget(sync: string): void {
    this.plans.delete(sync)
  }

  get size(): number {
    return this.plans.size
  }

  private fingerprint(state: ClusterState, writing: boolean): Fingerprint {
    const f: Fingerprint = [writing, this.classesToken(state.classes), state.volumes.length, state.claims.length, state.pods.length, state.nodes.length]
    for (const o of state.volumes) push(f, o)
    for (const o of state.claims) push(f, o)
    for (const o of state.pods) push(f, o)
    for (const o of state.nodes) push(f, o)
    return f
  }

  private classesToken(classes: readonly StorageClass[]): object {
    const members: Fingerprint = [classes.length]
    for (const c of classes) push(members, c)
    if (!sameFingerprint(members, this.classes.members)) this.classes = {members, token: {}}
    else {
      // The same classes: the same token, and the kept plans of every sync stand.
    }
    return this.classes.token
  }
}

function push(f: Fingerprint, o: {metadata: {uid?: string; resourceVersion?: string}}): void {
  const {uid, resourceVersion} = o.metadata
  if (uid !== undefined && uid !== '' && resourceVersion !== undefined && resourceVersion !== '') f.push(uid, resourceVersion)
  else f.push(o, null) // no version to go by: the very object
}

function sameFingerprint(a: Fingerprint, b: Fingerprint): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * What a sync reads of its plan (the audit stream, metrics, the executor): its actions, events, errors
 * and operations started, and the objects after it only where a create-volume action needs the volume it
 * creates. The rest (every object of the slice after the plan, and before it) is not kept for each object.
 */
function keptPart(plan: ReconcileResult): ReconcileResult {
  const creates = plan.actions.some((a) => a.action === 'create-volume')
  return {
    rounds: plan.rounds,
    converged: plan.converged,
    actions: plan.actions,
    events: plan.events,
    errors: plan.errors,
    volumes: creates ? plan.volumes : [],
    claims: [],
    before: {volumes: [], claims: []},
    syncs: plan.syncs,
    operationsStarted: plan.operationsStarted,
  }
}
