// Writes the controller's plan to a live cluster.
//
// The executor runs the controller's loop for real: a round plans every sync in scope (the same
// engine as the dry run), then carries each sync out as one unit of work. A unit is re-planned against
// the freshest state just before it runs, and its writes go out in the controller's order (volume,
// volume status, claim, claim status), each a PUT conditional on the resourceVersion the plan read.
// A 409 Conflict or a 404 re-reads the unit's objects and re-plans the unit, at most
// `maxConflictRetries` times; nothing is ever written from a stale read. Units that touch disjoint
// objects run concurrently (`concurrency`); units that share one run in plan order. A unit holds the
// objects the round plan gave it; a re-plan that reaches further (the state moved since the round was
// planned) is put back in the queue holding those too, so it never writes an object another running
// unit holds, and waits for the earlier units that share it. An abort stops issuing writes; in-flight
// ones finish, and a plugin's pod is no longer waited for (it is left for a re-run to adopt).
// Every destructive step (a volume written Released, a recycler or cleanup pod, a PV DELETE) goes through
// the destruction guard, which re-reads from the API server what the step rests on (destruction-guard.ts).
import {ApiError, ConflictError, NotFoundError} from '../cluster/api-errors.js'
import type {ClusterApi} from '../cluster/live-api.js'
import type {FeatureGates} from '../engine/api/feature-gates.js'
import {claimKey, type ClusterState, type PersistentVolume, type PersistentVolumeClaim} from '../engine/api/model.js'
import {type Action, type ObjectRef, type PlannedEvent, refKey, type SyncError} from '../engine/simulation/plan.js'
import {reconcile, type ReconcileResult, type ReconcileScope} from '../engine/simulation/reconcile.js'
import {getPersistentVolumeClaimClass} from '../engine/api/storage-helpers.js'
import type {WorkloadApi} from '../cluster/workload-api.js'
import type {VolumeOperations} from '../engine/controller/volume-operations.js'
import type {VolumePluginMgr} from '../engine/controller/volume-plugins.js'
import type {LiveVolumePlugins} from '../volume-plugins/live-plugins.js'
import {PodRunInterrupted} from '../volume-plugins/pod-runner.js'
import {applyPatch} from './apply-patch.js'
import type {JsonPatchOp} from '../engine/simulation/plan.js'
import {DestructionGuard, type Guarded, isRefusal, type Refusal, type ReleaseBudget} from './destruction-guard.js'
import {EventRecorder} from './event-recorder.js'

export type Outcome =
  | 'written'
  | 'executed'
  | 'conflict-replanned'
  | 'not-written'
  | `not-written: ${string}`
  | `not-executed: ${string}`
  | `failed: ${string}`

export interface ExecutedAction extends Action {
  outcome: Outcome
}

export interface ExecuteOptions {
  gates: FeatureGates
  scope?: ReconcileScope
  targets?: readonly ObjectRef[]
  maxRounds: number
  concurrency: number
  maxConflictRetries?: number
  events: boolean
  signal?: AbortSignal
  now?: () => Date
  /** Called after every write attempt: writes done so far, writes known so far. */
  onProgress?: (done: number, known: number) => void
  /** The volume plugins pvctl carries out; without them recycle/delete/provision stay planned. */
  plugins?: LiveVolumePlugins
  /** Creates and deletes PV objects for the plugins' follow-up writes. */
  workload?: WorkloadApi
  /** Consent to destroy data: recycle and delete run only with it. */
  destructive?: boolean
  /** The engine's plugin set (default: kube-controller-manager's). */
  pluginMgr?: VolumePluginMgr
  /** Operations carried out elsewhere meanwhile (loop mode's in the background): not planned here. */
  runningOperations?: ReadonlySet<string>
  /**
   * The first round's plan, when the caller has made it already: reconcile of `initial` with these options
   * (one round). Loop mode plans a sync to see whether it starts an operation, and passes that plan on.
   */
  firstPlan?: ReconcileResult
  /**
   * The state a unit is re-planned over after a conflict, given the objects just re-read. Loop mode gives
   * a sync only the objects it reads (engine/simulation/sync-slice.ts), and a re-read object may lead the sync to
   * others (a claimRef or volumeName changed, a class assigned): it makes the slice again. Objects this
   * run has read or written since it began keep their versions. Default: the state so far.
   */
  restate?: (reread: ReadonlyArray<PersistentVolume | PersistentVolumeClaim>) => ClusterState
  /**
   * How many volumes may be released, recycled or deleted (destruction-guard.ts); loop mode keeps one
   * across its syncs. Default: none counted.
   */
  budget?: ReleaseBudget
}

export interface ExecuteResult {
  rounds: number
  converged: boolean
  aborted: boolean
  actions: ExecutedAction[]
  events: PlannedEvent[]
  errors: SyncError[]
  /** A write failed for a reason other than a conflict that re-planning resolved. */
  failed: boolean
  /**
   * Destructive steps the double-checks stopped (destruction-guard.ts): the cluster was not as planned, or
   * the run reached its release budget. Their objects were read again; a re-run plans on them.
   */
  refusals: Array<{object: ObjectRef; action: string; reason: string}>
  state: ClusterState
}

const OPERATIONS = new Set(['recycle', 'delete', 'provision'])
type Operation = 'recycle' | 'delete' | 'provision'

/**
 * The outcome of a plugin operation carried out live, replayed to the engine as its (synchronous)
 * VolumeOperations port, so that the engine plans the controller's follow-up writes.
 */
function replay(outcomes: Map<string, unknown>): VolumeOperations {
  const get = <T>(op: Operation, name: string, otherwise: T): T => (outcomes.has(`${op}:${name}`) ? (outcomes.get(`${op}:${name}`) as T) : otherwise)
  return {
    recycle: (_p, volume) => get<string | undefined>('recycle', `pv/${volume.metadata.name}`, 'not carried out in this run'),
    delete: (_p, volume) => get('delete', `pv/${volume.metadata.name}`, {deleteError: 'not carried out in this run'}),
    provision: (_p, o) => get('provision', `pvc/${o.claim.metadata.namespace}/${o.claim.metadata.name}`, {provisionError: 'not carried out in this run'}),
  }
}

/** The live objects, kept current with every read and write, as the controller's cache is. */
class LiveState {
  readonly volumes = new Map<string, PersistentVolume>()
  readonly claims = new Map<string, PersistentVolumeClaim>()
  /**
   * What this run has read or written (undefined: found gone), by ref key: newer than any base. Kept only
   * when the state may be rebased (loop mode's one sync), not for the writes of a whole cluster.
   */
  private readonly own: Map<string, PersistentVolume | PersistentVolumeClaim | undefined> | undefined

  constructor(
    public base: ClusterState,
    rebased: boolean,
  ) {
    this.own = rebased ? new Map() : undefined
    this.load(base)
  }

  /** Starts again from another base, keeping what this run has read or written. */
  rebase(base: ClusterState): void {
    this.base = base
    this.volumes.clear()
    this.claims.clear()
    this.load(base)
    for (const [key, obj] of this.own!) this.put(refOfSync(key), obj)
  }

  snapshot(): ClusterState {
    return {...this.base, volumes: [...this.volumes.values()], claims: [...this.claims.values()]}
  }

  get(ref: ObjectRef): PersistentVolume | PersistentVolumeClaim | undefined {
    return ref.kind === 'PersistentVolume' ? this.volumes.get(ref.name) : this.claims.get(`${ref.namespace}/${ref.name}`)
  }

  set(ref: ObjectRef, obj: PersistentVolume | PersistentVolumeClaim | undefined): void {
    this.own?.set(refKey(ref), obj)
    this.put(ref, obj)
  }

  private load(base: ClusterState): void {
    for (const v of base.volumes) this.volumes.set(v.metadata.name ?? '', v)
    for (const c of base.claims) this.claims.set(claimKey(c), c)
  }

  private put(ref: ObjectRef, obj: PersistentVolume | PersistentVolumeClaim | undefined): void {
    const key = ref.kind === 'PersistentVolume' ? ref.name : `${ref.namespace}/${ref.name}`
    const map = (ref.kind === 'PersistentVolume' ? this.volumes : this.claims) as Map<string, PersistentVolume | PersistentVolumeClaim>
    if (obj === undefined) map.delete(key)
    else map.set(key, obj)
  }
}

function refOfSync(sync: string): ObjectRef {
  if (sync.startsWith('pv/')) return {kind: 'PersistentVolume', name: sync.slice(3)}
  const [namespace, name] = sync.slice(4).split('/')
  return {kind: 'PersistentVolumeClaim', namespace, name}
}

/**
 * The object a sync reads by name: the claim's volume (spec.volumeName), the volume's claim
 * (spec.claimRef). Its decisions depend on it, so a unit holds it as it holds what it writes.
 */
function namedBy(sync: string, state: LiveState): string | undefined {
  const ref = refOfSync(sync)
  if (ref.kind === 'PersistentVolume') {
    const claimRef = state.volumes.get(ref.name)?.spec.claimRef
    return claimRef?.name ? `pvc/${claimRef.namespace ?? ''}/${claimRef.name}` : undefined
  } else {
    const volumeName = state.claims.get(`${ref.namespace}/${ref.name}`)?.spec.volumeName
    return volumeName ? `pv/${volumeName}` : undefined
  }
}

/** What a plan of one sync touches: the sync's object, the object it names, every object written. */
function touchedBy(sync: string, actions: readonly Action[], state: LiveState): Set<string> {
  const named = namedBy(sync, state)
  return new Set([sync, ...(named !== undefined ? [named] : []), ...actions.map((a) => refKey(a.object))])
}

/** A sync carried out as one unit of work, and what it keeps across re-plans and trips through the queue. */
interface Unit {
  sync: string
  /** Position in the round plan: units that share objects run in this order. */
  order: number
  /** The objects the unit holds while it runs; grows when a re-plan reaches further. */
  objects: Set<string>
  /** Re-plans after a conflict so far. */
  attempt: number
  /** Outcomes of the plugin operations this unit carried out, replayed to the engine. */
  outcomes: Map<string, unknown>
  reportedHere: Set<string>
}

/** The units of a round: the actions of each sync, in plan order. */
function unitsOf(actions: readonly Action[], state: LiveState): Unit[] {
  const bySync = new Map<string, Action[]>()
  for (const a of actions) bySync.set(a.sync, [...(bySync.get(a.sync) ?? []), a])
  return [...bySync].map(([sync, own], order) => ({
    sync,
    order,
    objects: touchedBy(sync, own, state),
    attempt: 0,
    outcomes: new Map<string, unknown>(),
    reportedHere: new Set<string>(),
  }))
}

export async function executeSync(api: ClusterApi, initial: ClusterState, opts: ExecuteOptions): Promise<ExecuteResult> {
  const state = new LiveState(initial, opts.restate !== undefined)
  const recorder = new EventRecorder(api, opts.now ?? (() => new Date()))
  const maxRetries = opts.maxConflictRetries ?? 3
  const done: ExecutedAction[] = []
  const events: PlannedEvent[] = []
  const errors: SyncError[] = []
  const reportedOperations = new Set<string>()
  const refusals: ExecuteResult['refusals'] = []
  const refusedSyncs = new Set<string>()
  const guard = new DestructionGuard(api, opts.budget)
  let failed = false
  let writes = 0
  let known = 0
  let rounds = 0
  let converged = false

  const aborted = () => opts.signal?.aborted === true

  /** Plans one sync against the current state. */
  const planUnit = (sync: string, outcomes: Map<string, unknown>) =>
    reconcile(state.snapshot(), {
      gates: opts.gates,
      plugins: opts.pluginMgr,
      targets: [refOfSync(sync)],
      maxRounds: 1,
      runningOperations: opts.runningOperations,
      ...(outcomes.size > 0 ? {operations: replay(outcomes)} : {}),
    })

  /** Runs a plugin operation for real; skipped when pvctl cannot or may not, or was interrupted. */
  const runOperation = async (action: Action): Promise<{outcome: unknown} | {skipped: string}> => {
    const op = action.action as Operation
    if (opts.plugins === undefined || opts.workload === undefined) return {skipped: 'not-executed: volume plugins are not enabled'}
    if (op !== 'provision' && !opts.destructive) return {skipped: 'not-executed: destroying data needs --yes or a typed confirmation'}
    if (op === 'provision') {
      const claim = state.get(action.object) as PersistentVolumeClaim | undefined
      // The class as the controller reads it (the beta annotation first).
      const className = claim === undefined ? '' : getPersistentVolumeClaimClass(claim)
      const klass = state.base.classes.find((c) => c.metadata.name === className)
      if (claim === undefined || klass === undefined || !opts.plugins.supports('provision', klass.provisioner ?? '')) {
        return {skipped: 'not-executed: pvctl has no such provisioner'}
      }
      return {outcome: await opts.plugins.provision(klass.provisioner ?? '', {pvName: `pvc-${claim.metadata.uid}`, claim, storageClass: klass})}
    }
    const volume = state.get(action.object) as PersistentVolume | undefined
    const plugin =
      volume?.spec.hostPath != null ? 'kubernetes.io/host-path' : volume?.spec.nfs != null ? 'kubernetes.io/nfs' : volume?.spec.local != null ? 'kubernetes.io/local-volume' : ''
    if (volume === undefined || !opts.plugins.supports(op, plugin)) return {skipped: 'not-executed: pvctl has no such plugin'}
    try {
      const ran: Guarded<unknown> =
        op === 'recycle' ? await guard.recycle(opts.plugins, plugin, volume, opts.signal) : await guard.deleteStorage(opts.plugins, plugin, volume, opts.signal)
      if (isRefusal(ran)) return {skipped: `not-executed: ${refused(action, ran)}`}
      else return {outcome: ran.done}
    } catch (err) {
      // Not an outcome for the engine: it would plan VolumeFailedRecycle for work still under way.
      if (err instanceof PodRunInterrupted) return {skipped: `not-executed: ${err.message}`}
      else throw err
    }
  }

  /**
   * Reads these objects again, and the objects they now name (a claim's volumeName, a volume's claimRef),
   * until the re-read names nothing new: a re-plan decides on each of them, and one the list showed
   * otherwise (a claim bound meanwhile to a volume pvctl read unbound) would have it decide on a stale
   * picture. With `restate`, re-plans over the state it makes of them.
   */
  const reread = async (refs: Iterable<string>) => {
    const found: Array<PersistentVolume | PersistentVolumeClaim> = []
    const seen = new Set<string>()
    let next = [...refs]
    while (next.length > 0) {
      const named: string[] = []
      for (const key of next) {
        if (seen.has(key)) continue
        seen.add(key)
        const ref = refOfSync(key)
        try {
          const obj = ref.kind === 'PersistentVolume' ? await api.readVolume(ref.name) : await api.readClaim(ref.namespace!, ref.name)
          state.set(ref, obj)
          found.push(obj)
          const other = namedBy(key, state)
          if (other !== undefined) named.push(other)
        } catch (err) {
          if (err instanceof NotFoundError) state.set(ref, undefined)
          else throw err
        }
      }
      next = named.filter((key) => !seen.has(key))
    }
    if (opts.restate !== undefined) state.rebase(opts.restate(found))
  }

  /** What the guard read when it stopped a step of `action`'s volume, put into the state: the next plan is made on it. */
  const adopt = (action: Action, r: Refusal): void => {
    const volumeRef: ObjectRef = {kind: 'PersistentVolume', name: action.object.name}
    const fresh: Array<PersistentVolume | PersistentVolumeClaim> = []
    if (r.volumeGone) state.set(volumeRef, undefined)
    if (r.volume !== undefined) {
      state.set(volumeRef, r.volume)
      fresh.push(r.volume)
    }
    if (r.claim !== undefined) {
      state.set({kind: 'PersistentVolumeClaim', namespace: r.claim.metadata.namespace, name: r.claim.metadata.name ?? ''}, r.claim)
      fresh.push(r.claim)
    }
    if (opts.restate !== undefined && fresh.length > 0) state.rebase(opts.restate(fresh))
  }

  /** A destructive step the guard stopped: its fresh objects adopted, the refusal recorded; the outcome's text. */
  const refused = (action: Action, r: Refusal): string => {
    adopt(action, r)
    refusals.push({object: action.object, action: action.action, reason: r.refused})
    refusedSyncs.add(action.sync)
    errors.push({object: action.object, message: `${action.action} stopped by the double-check: ${r.refused}`})
    return `double-check: ${r.refused}`
  }

  /** Returns the refusal when the guard stopped a Released write (nothing was written). */
  const write = async (action: Action, expectedRv: string | undefined): Promise<Refusal | undefined> => {
    const current = state.get(action.object)
    if (current === undefined) {
      throw new NotFoundError(`${refKey(action.object)} is gone`, {verb: 'update', resource: action.object.kind}, 404, 'NotFound')
    }
    if (expectedRv !== undefined && current.metadata.resourceVersion !== expectedRv) {
      // Another unit of this run wrote the object since this unit was planned.
      throw new ConflictError(`${refKey(action.object)} changed since it was planned`, {verb: 'update', resource: action.object.kind}, 409, 'Conflict')
    }
    const desired = applyPatch(current, withoutServerStamps(action.patch))
    let saved: PersistentVolume | PersistentVolumeClaim
    if (action.object.kind === 'PersistentVolume' && action.subresource === 'status') {
      // Through the guard: a write that makes the volume Released double-checks its claim first.
      const guarded = await guard.replaceVolumeStatus(current as PersistentVolume, desired as PersistentVolume)
      if (isRefusal(guarded)) return guarded
      saved = guarded.done
    } else if (action.object.kind === 'PersistentVolume') {
      saved = await api.replaceVolume(desired as PersistentVolume)
    } else {
      saved = action.subresource === 'status' ? await api.replaceClaimStatus(desired as PersistentVolumeClaim) : await api.replaceClaim(desired as PersistentVolumeClaim)
    }
    state.set(action.object, saved)
    return undefined
  }

  /**
   * Carries out one sync, holding `unit.objects`; 'requeue' when a re-plan reaches objects it does
   * not hold (then it holds them too once it runs again, and has written nothing of that plan).
   */
  const runUnit = async (unit: Unit): Promise<'done' | 'requeue'> => {
    const {sync, outcomes, reportedHere} = unit
    for (;;) {
      const plan = planUnit(sync, outcomes)
      const actions = plan.actions
      const touched = touchedBy(sync, actions, state)
      if ([...touched].some((o) => !unit.objects.has(o))) {
        // The state moved since the round was planned (an earlier unit has not finished, or another
        // writer): this plan may need an object another unit holds, and would decide on what that
        // unit is changing. Wait for it, as the controller's own order would have it.
        for (const o of touched) unit.objects.add(o)
        return 'requeue'
      } else {
        // Everything this plan reads by name or writes is held by this unit alone.
      }
      let replan = false
      let stoppedByGuard = false
      errors.push(...plan.errors)
      // The rv each object must still have: the one this plan read; after our own write, the one we got.
      const expected = new Map<string, string | undefined>()
      let i = 0
      try {
        for (; i < actions.length; i++) {
          const action = actions[i]
          if (aborted()) break
          if (OPERATIONS.has(action.action)) {
            const opKey = `${action.action}:${refKey(action.object)}`
            if (outcomes.has(opKey)) {
              // Carried out already in this unit: the engine now plans what follows it.
              if (!reportedHere.has(opKey)) {
                reportedHere.add(opKey)
                done.push({...action, outcome: 'executed'})
              }
              continue
            }
            if (reportedOperations.has(opKey)) continue
            const ran = await runOperation(action)
            if ('skipped' in ran) {
              reportedOperations.add(opKey)
              done.push({...action, outcome: ran.skipped as Outcome})
              // Interrupted: the unit did not complete, and nothing after the operation is written.
              if (aborted()) break
              else continue
            }
            outcomes.set(opKey, ran.outcome)
            reportedOperations.add(opKey)
            replan = true
            break
          }
          if (action.action === 'create-volume' || action.action === 'delete-volume') {
            if (opts.workload === undefined) throw new Error(`${action.action} needs the workload API`)
            if (action.action === 'create-volume') {
              const created = plan.volumes.find((v) => v.metadata.name === action.object.name)!
              const {resourceVersion: _rv, ...metadata} = created.metadata
              state.set(action.object, await opts.workload.createVolume({...created, metadata}))
            } else {
              const current = state.get(action.object) as PersistentVolume | undefined
              const deleted = current === undefined ? {refused: `volume ${action.object.name} is gone`, volumeGone: true} : await guard.deleteVolumeObject(opts.workload, current)
              if (isRefusal(deleted)) {
                done.push({...action, outcome: `not-written: ${refused(action, deleted)}`})
                // The rest of the unit is reported not written below: it decided on what the guard refuted.
                i++
                stoppedByGuard = true
                break
              }
              state.set(action.object, undefined)
            }
            writes++
            done.push({...action, outcome: 'written'})
            continue
          }
          const key = refKey(action.object)
          const rv = expected.has(key) ? expected.get(key) : action.resourceVersion
          const stopped = await write(action, rv)
          if (stopped !== undefined) {
            if (stopped.claim !== undefined && unit.attempt < maxRetries) {
              // The claim the plan took as gone exists (syncVolume's double-check found it in the API
              // server): the controller goes on with the claim found. Re-plan on it, as after a conflict.
              unit.attempt++
              adopt(action, stopped)
              replan = true
              break
            }
            done.push({...action, outcome: `not-written: ${refused(action, stopped)}`})
            i++
            stoppedByGuard = true
            break
          }
          expected.set(key, state.get(action.object)?.metadata.resourceVersion)
          writes++
          done.push({...action, outcome: unit.attempt === 0 ? 'written' : 'conflict-replanned'})
          opts.onProgress?.(writes, Math.max(known, writes))
        }
      } catch (err) {
        if ((err instanceof ConflictError || err instanceof NotFoundError) && unit.attempt < maxRetries) {
          unit.attempt++
          await reread(touched)
          continue
        }
        failed = true
        const reason = err instanceof ConflictError ? `conflict persisted after ${unit.attempt} re-plans: ${err.message}` : (err as Error).message
        done.push({...actions[i], outcome: `failed: ${reason}`})
        for (const rest of actions.slice(i + 1)) if (!OPERATIONS.has(rest.action)) done.push({...rest, outcome: 'not-written'})
        if (!(err instanceof ApiError)) throw err
        return 'done'
      }
      if (replan) continue
      for (const rest of actions.slice(i)) {
        const opKey = `${rest.action}:${refKey(rest.object)}`
        if (!OPERATIONS.has(rest.action)) {
          done.push({...rest, outcome: aborted() ? 'not-written: interrupted' : 'not-written'})
        } else if (outcomes.has(opKey) && !reportedHere.has(opKey)) {
          // Carried out, then aborted before its follow-up writes: the report still says it ran.
          reportedHere.add(opKey)
          done.push({...rest, outcome: 'executed'})
        } else {
          // Reported when it was skipped or interrupted, or never reached.
        }
      }
      if (i === actions.length && !stoppedByGuard) {
        // The unit completed: its events happened.
        for (const e of plan.events) {
          events.push(e)
          if (opts.events) {
            const obj = state.get(e.object)
            await recorder.record(e, {uid: obj?.metadata.uid, resourceVersion: obj?.metadata.resourceVersion}).catch((err: Error) => {
              errors.push({object: e.object, message: `recording event ${e.reason}: ${err.message}`})
            })
          }
        }
      }
      return 'done'
    }
  }

  while (rounds < opts.maxRounds && !aborted()) {
    rounds++
    const plan =
      rounds === 1 && opts.firstPlan !== undefined
        ? opts.firstPlan
        : reconcile(state.snapshot(), {gates: opts.gates, plugins: opts.pluginMgr, scope: opts.scope, targets: opts.targets, maxRounds: 1, runningOperations: opts.runningOperations})
    const pending = unitsOf(
      plan.actions.filter(
        // A sync the guard stopped is not tried again in this run: the report says so, and a re-run plans it on what it reads then.
        (a) => !refusedSyncs.has(a.sync) && (!OPERATIONS.has(a.action) || !reportedOperations.has(`${a.action}:${refKey(a.object)}`)),
      ),
      state,
    )
    known = writes + plan.actions.filter((a) => !OPERATIONS.has(a.action)).length
    opts.onProgress?.(writes, known)
    if (pending.length === 0) {
      converged = true
      if (rounds === 1) events.push(...plan.events)
      break
    }
    const writesBefore = writes
    await runConcurrently(pending, opts.concurrency, runUnit, aborted)
    if (failed) break
    if (writes === writesBefore) {
      // Only planned operations or events were left: nothing more this run can write.
      converged = true
      break
    }
  }

  return {
    rounds,
    // A destructive step stopped is one the controller would still take: not converged.
    converged: converged && refusals.length === 0,
    aborted: aborted(),
    actions: done,
    events: mergeEvents(events),
    errors,
    failed,
    refusals,
    state: state.snapshot(),
  }
}

/**
 * Runs units in plan order, up to `limit` at once, never two that share an object at the same time
 * (they run in plan order instead: a unit waits for every earlier unit that shares an object with it).
 * A unit that comes back 'requeue' has released its objects and waits again, in its place in the plan
 * order, for the objects it now holds; it holds more each time, so it runs in the end.
 */
async function runConcurrently<U extends {objects: Set<string>; order: number}>(
  units: readonly U[],
  limit: number,
  run: (u: U) => Promise<'done' | 'requeue'>,
  stop: () => boolean,
): Promise<void> {
  const waiting = [...units].sort((a, b) => a.order - b.order)
  const running = new Set<{unit: U; promise: Promise<void>}>()
  const busy = new Set<string>()
  const blocked = (u: U, index: number) => [...u.objects].some((o) => busy.has(o)) || waiting.slice(0, index).some((w) => [...w.objects].some((o) => u.objects.has(o)))
  const requeue = (u: U) => {
    const at = waiting.findIndex((w) => w.order > u.order)
    waiting.splice(at === -1 ? waiting.length : at, 0, u)
  }
  while (waiting.length > 0 || running.size > 0) {
    if (!stop()) {
      for (let i = 0; i < waiting.length && running.size < Math.max(1, limit); ) {
        const u = waiting[i]
        if (blocked(u, i)) {
          i++
          continue
        }
        waiting.splice(i, 1)
        // A copy: a unit that grows its set releases what it held, not what it would have held.
        const held = [...u.objects]
        for (const o of held) busy.add(o)
        const entry = {
          unit: u,
          promise: run(u).then((result) => {
            for (const o of held) busy.delete(o)
            running.delete(entry)
            if (result === 'requeue') requeue(u)
            else return
          }, (err: unknown) => {
            for (const o of held) busy.delete(o)
            running.delete(entry)
            throw err
          }),
        }
        running.add(entry)
      }
    } else {
      waiting.length = 0
    }
    if (running.size === 0) break
    await Promise.race([...running].map((r) => r.promise))
  }
}

function mergeEvents(events: readonly PlannedEvent[]): PlannedEvent[] {
  const merged = new Map<string, PlannedEvent>()
  for (const e of events) {
    const key = `${refKey(e.object)}\u0000${e.type}\u0000${e.reason}\u0000${e.message}`
    const existing = merged.get(key)
    if (existing !== undefined) existing.count += e.count
    else merged.set(key, {...e})
  }
  return [...merged.values()]
}

/**
 * The plan's patch without what the API server writes itself: a simulated phase change carries the
 * status.lastPhaseTransitionTime the server would stamp, and the real server stamps its own time on the
 * write that changes the phase (a client's differing value would be kept instead).
 */
function withoutServerStamps(patch: readonly JsonPatchOp[]): readonly JsonPatchOp[] {
  const stamp = 'lastPhaseTransitionTime'
  return patch.flatMap((op): JsonPatchOp[] => {
    if (op.path === `/status/${stamp}`) {
      return []
    } else if (op.path === '/status' && op.op !== 'remove' && typeof op.value === 'object' && op.value !== null && stamp in op.value) {
      const {[stamp]: _stamp, ...status} = op.value as Record<string, unknown>
      return [{...op, value: status}]
    } else {
      return [op]
    }
  })
}
