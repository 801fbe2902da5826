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
//
// One run is a SyncExecution: its rounds (run), each round's units (runUnit), each unit's attempts
// (attemptPlan), and one method per kind of step (carryOut's switch), with what the run has done so far
// in its fields.
import {ApiError, ConflictError, NotFoundError} from '../cluster/api-errors.js'
import type {ClusterApi} from '../cluster/live-api.js'
import type {WorkloadApi} from '../cluster/workload-api.js'
import type {FeatureGates} from '../engine/api/feature-gates.js'
import type {ClusterState, PersistentVolume, PersistentVolumeClaim} from '../engine/api/model.js'
import {getPersistentVolumeClaimClass} from '../engine/api/storage-helpers.js'
import {present} from '../engine/api/invariant.js'
import type {VolumeOperations} from '../engine/controller/volume-operations.js'
import type {VolumePluginMgr} from '../engine/controller/volume-plugins.js'
import {
  type Action,
  isOperation,
  type JsonPatchOp,
  type ObjectRef,
  operationKey,
  type OperationType,
  type PlannedEvent,
  refKey,
  refOfClaim,
  refOfVolume,
  type SyncError,
} from '../engine/simulation/plan.js'
import {reconcile, type ReconcileResult, type ReconcileScope} from '../engine/simulation/reconcile.js'
import type {LiveVolumePlugins} from '../volume-plugins/live-plugins.js'
import {PodRunInterrupted} from '../volume-plugins/pod-runner.js'
import {applyPatch} from '../engine/simulation/apply-patch.js'
import {DestructionGuard, type Guarded, isRefusal, type Refusal, type ReleaseBudget} from './destruction-guard.js'
import {EventRecorder} from './event-recorder.js'
import {LiveState, namedBy, refOfSync, touchedBy} from './live-state.js'
import {runConcurrently, type Unit, unitsOf} from './units.js'

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

type OperationAction = Action & {action: OperationType}

/**
 * The outcome of a plugin operation carried out live, replayed to the engine as its (synchronous)
 * VolumeOperations port, so that the engine plans the controller's follow-up writes.
 */
function replay(outcomes: Map<string, unknown>): VolumeOperations {
  const get = <T>(action: OperationType, object: ObjectRef, otherwise: T): T => {
    const key = operationKey({action, object})
    return outcomes.has(key) ? (outcomes.get(key) as T) : otherwise
  }
  return {
    recycle: (_p, volume) =>
      get<string | undefined>('recycle', refOfVolume(volume.metadata.name ?? ''), 'not carried out in this run'),
    delete: (_p, volume) =>
      get('delete', refOfVolume(volume.metadata.name ?? ''), {deleteError: 'not carried out in this run'}),
    provision: (_p, o) =>
      get('provision', refOfClaim(o.claim.metadata.namespace ?? '', o.claim.metadata.name ?? ''), {
        provisionError: 'not carried out in this run',
      }),
  }
}

/** What one attempt at a unit works with: its plan, what the plan touches, the rv each object must still have. */
interface Attempt {
  unit: Unit
  plan: ReconcileResult
  touched: Set<string>
  /** The rv each object must still have: the one the plan read; after this attempt's own write, the one it got. */
  expected: Map<string, string | undefined>
}

/**
 * Where a step leaves its unit's attempt:
 *   next     on to the next action
 *   halt     interrupted: the rest is reported not written
 *   guarded  the guard stopped this action (reported so): the rest, which decided on what the guard
 *            refuted, is reported not written
 *   replan   an operation was carried out, or the guard found the claim the plan took as gone: plan the
 *            unit again, the engine deciding on what is now known
 */
type Step = 'next' | 'halt' | 'guarded' | 'replan'

export async function executeSync(
  api: ClusterApi,
  initial: ClusterState,
  opts: ExecuteOptions,
): Promise<ExecuteResult> {
  return new SyncExecution(api, initial, opts).run()
}

/** One run of the executor, and everything it has done so far. */
class SyncExecution {
  private readonly state: LiveState
  private readonly recorder: EventRecorder
  private readonly guard: DestructionGuard
  private readonly maxRetries: number
  private readonly done: ExecutedAction[] = []
  private readonly events: PlannedEvent[] = []
  private readonly errors: SyncError[] = []
  /** Operations reported once (carried out, skipped, interrupted): not tried again in this run. */
  private readonly reportedOperations = new Set<string>()
  private readonly refusals: ExecuteResult['refusals'] = []
  private readonly refusedSyncs = new Set<string>()
  private failed = false
  private writes = 0
  /** The writes known so far: those done and those the last round planned. */
  private known = 0

  constructor(
    private readonly api: ClusterApi,
    initial: ClusterState,
    private readonly opts: ExecuteOptions,
  ) {
    this.state = new LiveState(initial, opts.restate !== undefined)
    this.recorder = new EventRecorder(api, opts.now ?? (() => new Date()))
    this.guard = new DestructionGuard(api, opts.budget)
    this.maxRetries = opts.maxConflictRetries ?? 3
  }

  /** Rounds until one writes nothing (or maxRounds, a failure, an abort). */
  async run(): Promise<ExecuteResult> {
    let rounds = 0
    let converged = false
    while (rounds < this.opts.maxRounds && !this.aborted()) {
      rounds++
      const plan = rounds === 1 && this.opts.firstPlan !== undefined ? this.opts.firstPlan : this.planRound()
      const pending = this.pendingUnits(plan)
      this.known = this.writes + plan.actions.filter((a) => !isOperation(a)).length
      this.opts.onProgress?.(this.writes, this.known)
      if (pending.length === 0) {
        converged = true
        if (rounds === 1) this.events.push(...plan.events)
        break
      }
      const writesBefore = this.writes
      await runConcurrently(
        pending,
        this.opts.concurrency,
        (unit) => this.runUnit(unit),
        () => this.aborted(),
      )
      if (this.failed) break
      if (this.writes === writesBefore) {
        // Only planned operations or events were left: nothing more this run can write.
        converged = true
        break
      }
    }
    return {
      rounds,
      // A destructive step stopped is one the controller would still take: not converged.
      converged: converged && this.refusals.length === 0,
      aborted: this.aborted(),
      actions: this.done,
      events: mergeEvents(this.events),
      errors: this.errors,
      failed: this.failed,
      refusals: this.refusals,
      state: this.state.snapshot(),
    }
  }

  private aborted(): boolean {
    return this.opts.signal?.aborted === true
  }

  /** Plans every sync in scope against the current state. */
  private planRound(): ReconcileResult {
    const {gates, pluginMgr, scope, targets, runningOperations} = this.opts
    return reconcile(this.state.snapshot(), {
      gates,
      plugins: pluginMgr,
      scope,
      targets,
      maxRounds: 1,
      runningOperations,
    })
  }

  /** The units of a round's plan, but for what this run has settled already. */
  private pendingUnits(plan: ReconcileResult): Unit[] {
    return unitsOf(
      plan.actions.filter(
        // A sync the guard stopped is not tried again in this run: the report says so, and a re-run plans it on what it reads then.
        (a) => !this.refusedSyncs.has(a.sync) && (!isOperation(a) || !this.reportedOperations.has(operationKey(a))),
      ),
      this.state,
    )
  }

  /** Plans one sync against the current state. */
  private planUnit(sync: string, outcomes: Map<string, unknown>): ReconcileResult {
    return reconcile(this.state.snapshot(), {
      gates: this.opts.gates,
      plugins: this.opts.pluginMgr,
      targets: [refOfSync(sync)],
      maxRounds: 1,
      runningOperations: this.opts.runningOperations,
      ...(outcomes.size > 0 ? {operations: replay(outcomes)} : {}),
    })
  }

  /**
   * Carries out one sync, holding `unit.objects`; 'requeue' when a re-plan reaches objects it does
   * not hold (then it holds them too once it runs again, and has written nothing of that plan).
   */
  private async runUnit(unit: Unit): Promise<'done' | 'requeue'> {
    for (;;) {
      const plan = this.planUnit(unit.sync, unit.outcomes)
      const touched = touchedBy(unit.sync, plan.actions, this.state)
      if ([...touched].some((o) => !unit.objects.has(o))) {
        // The state moved since the round was planned (an earlier unit has not finished, or another
        // writer): this plan may need an object another unit holds, and would decide on what that
        // unit is changing. Wait for it, as the controller's own order would have it.
        for (const o of touched) unit.objects.add(o)
        return 'requeue'
      } else {
        // Everything this plan reads by name or writes is held by this unit alone.
      }
      this.errors.push(...plan.errors)
      if ((await this.attemptPlan({unit, plan, touched, expected: new Map()})) === 'done') return 'done'
    }
  }

  /**
   * Carries out a unit's plan, action by action, in the plan's order; 'replan' when the unit is to be
   * planned again (after a conflict, a 404, an operation carried out, a claim the guard found).
   */
  private async attemptPlan(attempt: Attempt): Promise<'done' | 'replan'> {
    const actions = attempt.plan.actions
    let i = 0
    let step: Step = 'next'
    try {
      for (; i < actions.length; i++) {
        if (this.aborted()) break
        step = await this.carryOut(actions[i], attempt)
        if (step !== 'next') break
      }
    } catch (err) {
      if ((err instanceof ConflictError || err instanceof NotFoundError) && attempt.unit.attempt < this.maxRetries) {
        attempt.unit.attempt++
        await this.reread(attempt.touched)
        return 'replan'
      }
      this.fail(actions, i, attempt.unit, err)
      return 'done'
    }
    if (step === 'replan') return 'replan'
    if (step === 'guarded') i++
    this.reportNotReached(actions.slice(i), attempt.unit)
    // The unit completed: its events happened.
    if (i === actions.length && step !== 'guarded') await this.recordEvents(attempt.plan.events)
    return 'done'
  }

  /** One action of a unit's plan, by its type: a new type does not compile until it is handled here. */
  private carryOut(action: Action, attempt: Attempt): Promise<Step> {
    const type = action.action
    switch (type) {
      case 'recycle':
      case 'delete':
      case 'provision':
        return this.operation(action as OperationAction, attempt)
      case 'create-volume':
        return this.createVolume(action, attempt.plan)
      case 'delete-volume':
        return this.deleteVolumeObject(action)
      case 'bind-volume':
      case 'bind-claim':
      case 'set-volume-phase':
      case 'set-claim-phase':
      case 'unbind-volume':
      case 'assign-storage-class':
      case 'set-provisioner':
      case 'set-migration-annotation':
      case 'add-finalizer':
      case 'remove-finalizer':
      case 'reschedule-provisioning':
        return this.writeObject(action, attempt)
      default:
        return unhandled(type)
    }
  }

  /** A plugin's operation: carried out once in a run, then replayed to the engine, which plans what follows. */
  private async operation(action: OperationAction, attempt: Attempt): Promise<Step> {
    const {outcomes, reportedHere} = attempt.unit
    const key = operationKey(action)
    if (outcomes.has(key)) {
      // Carried out already in this unit: the engine now plans what follows it.
      if (!reportedHere.has(key)) {
        reportedHere.add(key)
        this.done.push({...action, outcome: 'executed'})
      }
      return 'next'
    }
    if (this.reportedOperations.has(key)) return 'next'
    const ran = await this.runOperation(action, attempt.plan.operationPlugins[key])
    this.reportedOperations.add(key)
    if ('skipped' in ran) {
      this.done.push({...action, outcome: ran.skipped})
      // Interrupted: the unit did not complete, and nothing after the operation is written.
      return this.aborted() ? 'halt' : 'next'
    }
    outcomes.set(key, ran.outcome)
    return 'replan'
  }

  /** Runs a plugin operation for real with the plugin the engine chose; skipped when pvctl cannot or may not, or was interrupted. */
  private async runOperation(
    action: OperationAction,
    plugin: string | undefined,
  ): Promise<{outcome: unknown} | {skipped: Outcome}> {
    const plugins = this.opts.plugins
    if (plugins === undefined || this.opts.workload === undefined)
      return {skipped: 'not-executed: volume plugins are not enabled'}
    if (action.action === 'provision') return this.provision(plugins, action, plugin)
    if (!this.opts.destructive) return {skipped: 'not-executed: destroying data needs --yes or a typed confirmation'}
    const volume = this.state.get(action.object) as PersistentVolume | undefined
    if (volume === undefined || plugin === undefined || !plugins.supports(action.action, plugin))
      return {skipped: 'not-executed: pvctl has no such plugin'}
    try {
      const ran: Guarded<unknown> =
        action.action === 'recycle'
          ? await this.guard.recycle(plugins, plugin, volume, this.opts.signal)
          : await this.guard.deleteStorage(plugins, plugin, volume, this.opts.signal)
      if (isRefusal(ran)) return {skipped: `not-executed: ${this.refused(action, ran)}`}
      else return {outcome: ran.done}
    } catch (err) {
      // Not an outcome for the engine: it would plan VolumeFailedRecycle for work still under way.
      if (err instanceof PodRunInterrupted) return {skipped: `not-executed: ${err.message}`}
      else throw err
    }
  }

  private async provision(
    plugins: LiveVolumePlugins,
    action: Action,
    plugin: string | undefined,
  ): Promise<{outcome: unknown} | {skipped: Outcome}> {
    const claim = this.state.get(action.object)
    // The class as the controller reads it (the beta annotation first).
    const className = claim === undefined ? '' : getPersistentVolumeClaimClass(claim)
    const storageClass = this.state.base.classes.find((c) => c.metadata.name === className)
    if (
      claim === undefined ||
      storageClass === undefined ||
      plugin === undefined ||
      !plugins.supports('provision', plugin)
    ) {
      return {skipped: 'not-executed: pvctl has no such provisioner'}
    }
    return {outcome: await plugins.provision(plugin, {pvName: `pvc-${claim.metadata.uid}`, claim, storageClass})}
  }

  /** A PV object a plugin's operation created (the in-tree provisioner's). */
  private async createVolume(action: Action, plan: ReconcileResult): Promise<Step> {
    const workload = this.workloadFor(action)
    const created = present(
      plan.volumes.find((v) => v.metadata.name === action.object.name),
      'the plan holds the volume it provisioned',
    )
    const {resourceVersion: _rv, ...metadata} = created.metadata
    this.state.set(action.object, await workload.createVolume({...created, metadata}))
    return this.written(action)
  }

  /** A PV object deleted after its storage: through the guard, which reads it again first. */
  private async deleteVolumeObject(action: Action): Promise<Step> {
    const workload = this.workloadFor(action)
    const current = this.state.get(action.object) as PersistentVolume | undefined
    const deleted =
      current === undefined
        ? {refused: `volume ${action.object.name} is gone`, volumeGone: true}
        : await this.guard.deleteVolumeObject(workload, current)
    if (isRefusal(deleted)) {
      this.done.push({...action, outcome: `not-written: ${this.refused(action, deleted)}`})
      return 'guarded'
    }
    this.state.set(action.object, undefined)
    return this.written(action)
  }

  private workloadFor(action: Action): WorkloadApi {
    if (this.opts.workload === undefined) throw new Error(`${action.action} needs the workload API`)
    return this.opts.workload
  }

  private written(action: Action): Step {
    this.writes++
    this.done.push({...action, outcome: 'written'})
    return 'next'
  }

  /** A PUT of the controller's write, conditional on the resourceVersion this attempt expects. */
  private async writeObject(action: Action, attempt: Attempt): Promise<Step> {
    const key = refKey(action.object)
    const rv = attempt.expected.has(key) ? attempt.expected.get(key) : action.resourceVersion
    const stopped = await this.write(action, rv)
    if (stopped !== undefined) {
      if (stopped.claim !== undefined && attempt.unit.attempt < this.maxRetries) {
        // The claim the plan took as gone exists (syncVolume's double-check found it in the API
        // server): the controller goes on with the claim found. Re-plan on it, as after a conflict.
        attempt.unit.attempt++
        this.adopt(action, stopped)
        return 'replan'
      }
      this.done.push({...action, outcome: `not-written: ${this.refused(action, stopped)}`})
      return 'guarded'
    }
    attempt.expected.set(key, this.state.get(action.object)?.metadata.resourceVersion)
    this.writes++
    this.done.push({...action, outcome: attempt.unit.attempt === 0 ? 'written' : 'conflict-replanned'})
    this.opts.onProgress?.(this.writes, Math.max(this.known, this.writes))
    return 'next'
  }

  /** Returns the refusal when the guard stopped a Released write (nothing was written). */
  private async write(action: Action, expectedRv: string | undefined): Promise<Refusal | undefined> {
    const current = this.state.get(action.object)
    if (current === undefined) {
      throw new NotFoundError(
        `${refKey(action.object)} is gone`,
        {verb: 'update', resource: action.object.kind},
        404,
        'NotFound',
      )
    }
    if (expectedRv !== undefined && current.metadata.resourceVersion !== expectedRv) {
      // Another unit of this run wrote the object since this unit was planned.
      throw new ConflictError(
        `${refKey(action.object)} changed since it was planned`,
        {verb: 'update', resource: action.object.kind},
        409,
        'Conflict',
      )
    }
    const desired = applyPatch(current, withoutServerStamps(action.patch))
    let saved: PersistentVolume | PersistentVolumeClaim
    if (action.object.kind === 'PersistentVolume' && action.subresource === 'status') {
      // Through the guard: a write that makes the volume Released double-checks its claim first.
      const guarded = await this.guard.replaceVolumeStatus(current as PersistentVolume, desired as PersistentVolume)
      if (isRefusal(guarded)) return guarded
      saved = guarded.done
    } else if (action.object.kind === 'PersistentVolume') {
      saved = await this.api.replaceVolume(desired as PersistentVolume)
    } else {
      saved =
        action.subresource === 'status'
          ? await this.api.replaceClaimStatus(desired)
          : await this.api.replaceClaim(desired)
    }
    this.state.set(action.object, saved)
    return undefined
  }

  /** A write failed for good: the failure and the rest of the unit reported; anything but an API error is thrown on. */
  private fail(actions: readonly Action[], at: number, unit: Unit, err: unknown): void {
    this.failed = true
    const reason =
      err instanceof ConflictError
        ? `conflict persisted after ${unit.attempt} re-plans: ${err.message}`
        : (err as Error).message
    this.done.push({...actions[at], outcome: `failed: ${reason}`})
    for (const rest of actions.slice(at + 1)) if (!isOperation(rest)) this.done.push({...rest, outcome: 'not-written'})
    if (!(err instanceof ApiError)) throw err
  }

  /** The actions of a unit's plan it did not reach (interrupted, or stopped by the guard). */
  private reportNotReached(rest: readonly Action[], unit: Unit): void {
    for (const action of rest) {
      const key = operationKey(action)
      if (!isOperation(action)) {
        this.done.push({...action, outcome: this.aborted() ? 'not-written: interrupted' : 'not-written'})
      } else if (unit.outcomes.has(key) && !unit.reportedHere.has(key)) {
        // Carried out, then aborted before its follow-up writes: the report still says it ran.
        unit.reportedHere.add(key)
        this.done.push({...action, outcome: 'executed'})
      } else {
        // Reported when it was skipped or interrupted, or never reached.
      }
    }
  }

  /** A completed unit's events: reported, and posted as core/v1 Events unless --no-events. */
  private async recordEvents(events: readonly PlannedEvent[]): Promise<void> {
    for (const e of events) {
      this.events.push(e)
      if (this.opts.events) {
        const obj = this.state.get(e.object)
        await this.recorder
          .record(e, {uid: obj?.metadata.uid, resourceVersion: obj?.metadata.resourceVersion})
          .catch((err: unknown) => {
            this.errors.push({
              object: e.object,
              message: `recording event ${e.reason}: ${err instanceof Error ? err.message : String(err)}`,
            })
          })
      }
    }
  }

  /**
   * Reads these objects again, and the objects they now name (a claim's volumeName, a volume's claimRef),
   * until the re-read names nothing new: a re-plan decides on each of them, and one the list showed
   * otherwise (a claim bound meanwhile to a volume pvctl read unbound) would have it decide on a stale
   * picture. With `restate`, re-plans over the state it makes of them.
   */
  private async reread(refs: Iterable<string>): Promise<void> {
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
          const obj =
            ref.kind === 'PersistentVolume'
              ? await this.api.readVolume(ref.name)
              : await this.api.readClaim(present(ref.namespace, "a claim's sync key has its namespace"), ref.name)
          this.state.set(ref, obj)
          found.push(obj)
          const other = namedBy(key, this.state)
          if (other !== undefined) named.push(other)
        } catch (err) {
          if (err instanceof NotFoundError) this.state.set(ref, undefined)
          else throw err
        }
      }
      next = named.filter((key) => !seen.has(key))
    }
    if (this.opts.restate !== undefined) this.state.rebase(this.opts.restate(found))
  }

  /** What the guard read when it stopped a step of `action`'s volume, put into the state: the next plan is made on it. */
  private adopt(action: Action, r: Refusal): void {
    const volumeRef: ObjectRef = {kind: 'PersistentVolume', name: action.object.name}
    const fresh: Array<PersistentVolume | PersistentVolumeClaim> = []
    if (r.volumeGone) this.state.set(volumeRef, undefined)
    if (r.volume !== undefined) {
      this.state.set(volumeRef, r.volume)
      fresh.push(r.volume)
    }
    if (r.claim !== undefined) {
      this.state.set(
        {kind: 'PersistentVolumeClaim', namespace: r.claim.metadata.namespace, name: r.claim.metadata.name ?? ''},
        r.claim,
      )
      fresh.push(r.claim)
    }
    if (this.opts.restate !== undefined && fresh.length > 0) this.state.rebase(this.opts.restate(fresh))
  }

  /** A destructive step the guard stopped: its fresh objects adopted, the refusal recorded; the outcome's text. */
  private refused(action: Action, r: Refusal): string {
    this.adopt(action, r)
    this.refusals.push({object: action.object, action: action.action, reason: r.refused})
    this.refusedSyncs.add(action.sync)
    this.errors.push({object: action.object, message: `${action.action} stopped by the double-check: ${r.refused}`})
    return `double-check: ${r.refused}`
  }
}

/** The compile-time end of an exhaustive switch over action types. */
function unhandled(type: never): never {
  throw new Error(`the executor has no step for ${String(type)} actions`)
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
    } else if (
      op.path === '/status' &&
      op.op !== 'remove' &&
      typeof op.value === 'object' &&
      op.value !== null &&
      stamp in op.value
    ) {
      const {[stamp]: _stamp, ...status} = op.value as Record<string, unknown>
      return [{...op, value: status}]
    } else {
      return [op]
    }
  })
}
