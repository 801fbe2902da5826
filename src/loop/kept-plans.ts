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
// One plan per object synced, in a slot its caller holds (loop mode: the memo of the object's key in its
// work queue, which the worker has at hand without a look-up), dropped with the object.
import type {ClusterState, StorageClass} from '../engine/api/model.js'
import type {ReconcileResult} from '../engine/simulation/reconcile.js'

/** A fingerprint: uids and resourceVersions (strings the objects hold already), counts, tokens. */
type Fingerprint = unknown[]

export interface KeptPlan {
  fingerprint: Fingerprint
  plan: ReconcileResult
}

/** Where the kept plan of one object lies. */
export interface KeptSlot {
  kept: KeptPlan | undefined
}

export class KeptPlans {
  /** The classes of the last sync and their token: the same token while they stay the same objects. */
  private classes: {list: readonly StorageClass[] | undefined; members: Fingerprint; token: object} = {
    list: undefined,
    members: [],
    token: {},
  }
  replayed = 0
  planned = 0

  /** The plan of the sync over `state`: the one kept in `slot` if the sync reads what it read then, else run() (kept there). */
  plan(
    slot: KeptSlot,
    state: ClusterState,
    running: ReadonlySet<string>,
    writing: boolean,
    run: () => ReconcileResult,
  ): ReconcileResult {
    if (running.size > 0) {
      // The engine reads which operations run: such a sync (rare, while a plugin's pod runs) is not kept.
      slot.kept = undefined
      this.planned++
      return keptPart(run())
    } else {
      const classes = this.classesToken(state.classes)
      const kept = slot.kept
      if (kept !== undefined && matches(kept.fingerprint, state, writing, classes)) {
        // Compared where it lies, without building the new fingerprint: most syncs of a resync end here.
        this.replayed++
        return kept.plan
      } else {
        const plan = keptPart(run())
        slot.kept = {fingerprint: fingerprintOf(state, writing, classes), plan}
        this.planned++
        return plan
      }
    }
  }

  private classesToken(classes: readonly StorageClass[]): object {
    // The slices share one list of classes while the store holds the same ones (sync-slice.ts).
    if (classes === this.classes.list) return this.classes.token
    const members: Fingerprint = [classes.length]
    for (const c of classes) push(members, c)
    if (!sameFingerprint(members, this.classes.members)) this.classes = {list: classes, members, token: {}}
    else {
      // The same classes (relisted): the same token, and the kept plans of every sync stand.
      this.classes.list = classes
    }
    return this.classes.token
  }
}

function fingerprintOf(state: ClusterState, writing: boolean, classes: object): Fingerprint {
  // Made at its length, two entries an object: one is kept per object of the cluster, and pushing
  // would grow (copy) each and leave it with room to spare.
  const f: Fingerprint = new Array(
    6 + 2 * (state.volumes.length + state.claims.length + state.pods.length + state.nodes.length),
  )
  f[0] = writing
  f[1] = classes
  f[2] = state.volumes.length
  f[3] = state.claims.length
  f[4] = state.pods.length
  f[5] = state.nodes.length
  let i = 6
  for (const o of state.volumes) i = put(f, i, o)
  for (const o of state.claims) i = put(f, i, o)
  for (const o of state.pods) i = put(f, i, o)
  for (const o of state.nodes) i = put(f, i, o)
  return f
}

/** push's two entries at `i`; returns the index after them. */
function put(f: Fingerprint, i: number, o: {metadata: {uid?: string; resourceVersion?: string}}): number {
  const {uid, resourceVersion} = o.metadata
  if (uid !== undefined && uid !== '' && resourceVersion !== undefined && resourceVersion !== '') {
    f[i] = uid
    f[i + 1] = resourceVersion
  } else {
    // No version to go by: the very object.
    f[i] = o
    f[i + 1] = null
  }
  return i + 2
}

/**
 * fingerprintOf(state, writing, classes) equals `f`, walked in the same order. Where it does, `f` takes the
 * slice's own strings (equal, but of the objects held now: a relist's new objects), so that a kept
 * fingerprint holds nothing of objects the caches have let go; where it does not, `f` is replaced whole.
 */
function matches(f: Fingerprint, state: ClusterState, writing: boolean, classes: object): boolean {
  if (
    f[0] !== writing ||
    f[1] !== classes ||
    f[2] !== state.volumes.length ||
    f[3] !== state.claims.length ||
    f[4] !== state.pods.length ||
    f[5] !== state.nodes.length
  )
    return false
  let i = 6
  for (const list of [state.volumes, state.claims, state.pods, state.nodes] as ReadonlyArray<
    ReadonlyArray<{metadata: {uid?: string; resourceVersion?: string}}>
  >) {
    for (const o of list) {
      const {uid, resourceVersion} = o.metadata
      const versioned = uid !== undefined && uid !== '' && resourceVersion !== undefined && resourceVersion !== ''
      if (versioned ? f[i] !== uid || f[i + 1] !== resourceVersion : f[i] !== o || f[i + 1] !== null) return false
      if (versioned) {
        f[i] = uid
        f[i + 1] = resourceVersion
      } else {
        // The very object: nothing to take.
      }
      i += 2
    }
  }
  return true
}

function push(f: Fingerprint, o: {metadata: {uid?: string; resourceVersion?: string}}): void {
  const {uid, resourceVersion} = o.metadata
  if (uid !== undefined && uid !== '' && resourceVersion !== undefined && resourceVersion !== '')
    f.push(uid, resourceVersion)
  else f.push(o, null) // no version to go by: the very object
}

function sameFingerprint(a: Fingerprint, b: Fingerprint): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** The plan of a sync that has nothing to do or say (shared: never changed by who reads it). */
const NOTHING: ReconcileResult = Object.freeze({
  rounds: 1,
  converged: true,
  actions: Object.freeze([]) as unknown as ReconcileResult['actions'],
  events: Object.freeze([]) as unknown as ReconcileResult['events'],
  errors: Object.freeze([]) as unknown as ReconcileResult['errors'],
  volumes: Object.freeze([]) as unknown as ReconcileResult['volumes'],
  claims: Object.freeze([]) as unknown as ReconcileResult['claims'],
  before: Object.freeze({
    volumes: Object.freeze([]),
    claims: Object.freeze([]),
  }) as unknown as ReconcileResult['before'],
  syncs: Object.freeze({run: 1, replayed: 0}),
  operationsStarted: Object.freeze([]) as unknown as string[],
  operationPlugins: Object.freeze({}),
})

/**
 * What a sync reads of its plan (the audit stream, metrics, the executor): its actions, events, errors
 * and operations started, and the objects after it only where a create-volume action needs the volume it
 * creates. The rest (every object of the slice after the plan, and before it) is not kept for each object.
 */
function keptPart(plan: ReconcileResult): ReconcileResult {
  if (
    plan.actions.length === 0 &&
    plan.events.length === 0 &&
    plan.errors.length === 0 &&
    plan.operationsStarted.length === 0 &&
    plan.converged &&
    plan.rounds === 1
  ) {
    // Most syncs (a bound pair, a volume waiting for its claim): one plan kept for them all.
    return NOTHING
  } else {
    // A plan of its own.
  }
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
    operationPlugins: plan.operationPlugins,
  }
}
