// `pvctl reclaim pv/NAME [--for NS/CLAIM]` as one use-case: load the state once, decide the reclaim on it
// (engine/repair), and — live, without --dry-run, with consent — write it through the destruction guard,
// which reads again what the decision rests on and writes the volume conditional on its resourceVersion.
// With --sync the controller's sync of the pair follows.
import {present} from '../engine/api/invariant.js'
import type {PersistentVolume} from '../engine/api/model.js'
import type {Observed, VolumeAttachmentObject} from '../engine/explain/evidence.js'
import {
  checksForcedBy,
  type ClaimName,
  decideReclaim,
  overridingFlag,
  type ReclaimCheckName,
  type ReclaimDecision,
} from '../engine/repair/reclaim.js'
import {blockingChecks, buildReclaimReport, type ReclaimOutcome, type ReclaimReport} from '../engine/repair/report.js'
import {defaultVolumePluginMgr, type VolumePluginOptions} from '../engine/controller/volume-plugins.js'
import {refOfClaim, refOfVolume} from '../engine/simulation/plan.js'
import {ExitCode, UsageError} from '../errors.js'
import {reclaimPermissions, requirePermissions} from '../executor/permissions.js'
import {
  loadClusterState,
  type LoadedClusterState,
  type LoadStateUi,
  noticeCaveats,
  podsRead,
} from './load-cluster-state.js'
import {ForbiddenError, NotFoundError} from '../cluster/api-errors.js'
import {listAll} from '../cluster/live-loader.js'
import type {LiveSession} from './live-session.js'
import {volumeNotFound} from '../engine/api/not-found.js'
import {sourceText} from '../engine/repair/checks.js'
import {saidAsUsage} from './request-errors.js'
import {type ConsentUi, consented, type RepairOptions, syncAfterRepair} from './repair-steps.js'
import type {SyncUi} from './run-sync.js'

export interface ReclaimOptions extends RepairOptions {
  volumeName: string
  /** --for NS/CLAIM. */
  target?: ClaimName
  /** --force: override the checks that may be overridden. */
  force: boolean
  /** --not-owner NS/CLAIM: that claim, re-created under the volume's old claim name, is not the owner of its data. */
  notOwner?: ClaimName
}

export interface ReclaimUi extends LoadStateUi, ConsentUi<ReclaimReport> {
  /** For --sync: the sync's own UI. */
  syncUi: SyncUi
}

export interface ReclaimResult {
  report: ReclaimReport
  exitCode: number
  /** The report is the plan the user was shown and did not confirm. */
  declined?: boolean
  /** Set when the reclaim is refused (exit 2): the one line that says why. */
  refusal?: UsageError
  /** Notices to say after the report. */
  after: string[]
  /** The volume as read and as the reclaim writes it (-o diff). */
  edit: {before: PersistentVolume; after: PersistentVolume}
}

export async function runReclaim(opts: ReclaimOptions, ui: ReclaimUi): Promise<ReclaimResult> {
  const loaded = await loadClusterState(opts, ui)
  const result = await reclaimInLoadedState(loaded, opts, ui)
  if (!opts.sync || result.exitCode !== ExitCode.Ok) return result
  const done = result.report
  const targets = [
    refOfVolume(opts.volumeName),
    ...(done.for?.exists === true ? [refOfClaim(done.for.namespace, done.for.name)] : []),
  ]
  const synced = await syncAfterRepair(opts, targets, ui.syncUi)
  done.sync = synced.sync
  return {...result, exitCode: synced.exitCode, after: [...result.after, ...synced.after]}
}

/** What deciding and writing a reclaim needs of the options: no loading, no --sync. */
export type ReclaimRequest = Pick<
  ReclaimOptions,
  'volumeName' | 'target' | 'force' | 'notOwner' | 'dryRun' | 'yes' | 'sourceArgs' | keyof VolumePluginOptions
>

/**
 * The reclaim on a state loaded already (`pvctl reclaim`, and explain's interactive flow, which offers it
 * on the state it explained): decide, refuse, simulate (a snapshot), plan (--dry-run), or ask and write.
 */
export async function reclaimInLoadedState(
  loaded: LoadedClusterState,
  opts: ReclaimRequest,
  ui: Pick<ReclaimUi, 'confirm' | 'showPlan'>,
): Promise<ReclaimResult> {
  const after: string[] = []
  const later = {notice: (line: string) => void after.push(line)}
  noticeCaveats(loaded, later)
  const request = reclaimRequest(loaded, opts)
  const attachments = await attachmentsOf(loaded)
  const decision = present(
    decideReclaim({...request, state: loaded.state, attachments, pods: podsRead(loaded)}),
    'the volume named was found in the state',
  )
  const simulation = loaded.source === 'snapshot'
  const report = (outcome: ReclaimOutcome, d: ReclaimDecision = decision) =>
    buildReclaimReport(d, {dryRun: opts.dryRun, simulation, outcome, kubernetesVersion: loaded.version})
  const edit = {before: decision.volume, after: decision.edited}
  if (decision.already !== null) {
    // A re-run, or a run after a crash that followed the write: nothing to write, and nothing to refuse.
    return {report: report('already-done'), exitCode: ExitCode.Ok, after, edit}
  } else if (!decision.allowed) {
    const refused = report('refused')
    return {report: refused, exitCode: ExitCode.Usage, refusal: refusalOf(refused, opts.force), after, edit}
  } else if (simulation) {
    later.notice('the state came from a snapshot (-f): nothing was written; the reclaim is a simulation')
    return {report: report('simulated'), exitCode: ExitCode.Changes, after, edit}
  } else if (opts.dryRun) {
    return {report: report('planned'), exitCode: ExitCode.Changes, after, edit}
  }

  const {session} = loaded
  const planned = report('planned')
  const disowned = decision.checks.find((c) => c.name === 'OldNameFree' && c.forced)
  const question = `Reclaim pv/${opts.volumeName}${opts.target === undefined ? '' : ` for pvc/${opts.target.namespace}/${opts.target.name}`} on context ${session.contextName}${disowned === undefined ? '' : `, --not-owner: ${disowned.message}`}?`
  if (!(await consented(opts.yes, ui, planned, question, planned.dataSafety))) {
    later.notice('nothing written (not confirmed)')
    return {report: planned, exitCode: ExitCode.Changes, declined: true, after, edit}
  } else {
    // Consent given (typed, or --yes): the permissions, then the guarded write.
  }
  // Every call the guard makes, asked before the first of them: a missing one is named here, not found
  // halfway (a forbidden pod list after the volume was read again).
  const oldRef = decision.volume.spec.claimRef
  const oldClaim = oldRef == null ? undefined : {namespace: oldRef.namespace ?? '', name: oldRef.name ?? ''}
  await requirePermissions(
    session.api,
    reclaimPermissions(opts.volumeName, oldClaim),
    'grant them (deploy/repair-rbac.yaml is a role for the repairs)',
  )
  const {guardedReclaim, isRefusal} = await import('../executor/destruction-guard.js')
  const written = await guardedReclaim(liveReclaimIo(session), loaded.state, decision, request)
  if (isRefusal(written)) {
    later.notice(
      `not written: ${written.refused}; run pvctl reclaim --dry-run to decide again on the cluster as it is now`,
    )
    return {report: report(`not-written: double-check: ${written.refused}`), exitCode: ExitCode.Cluster, after, edit}
  } else if (written.done.already) {
    later.notice('nothing written: the volume was reclaimed by another writer since it was read')
    return {
      report: report('already-done', written.done.decision),
      exitCode: ExitCode.Ok,
      after,
      edit: {before: written.done.volume, after: written.done.volume},
    }
  }
  const done = report('written', written.done.decision)
  const writtenEdit = {before: written.done.decision.volume, after: written.done.volume}
  later.notice(
    `pv/${opts.volumeName} written (resourceVersion ${written.done.volume.metadata.resourceVersion ?? '?'}): ${done.next ?? ''}`,
  )
  return {report: done, exitCode: ExitCode.Ok, after, edit: writtenEdit}
}

/** The engine's request: the checks --force overrides are every overridable one. */
function reclaimRequest({state, gates}: Pick<LoadedClusterState, 'state' | 'gates'>, opts: ReclaimRequest) {
  if (!state.volumes.some((v) => v.metadata.name === opts.volumeName))
    throw saidAsUsage(volumeNotFound(state, opts.volumeName))
  const force = opts.force ? checksForcedBy('--force') : new Set<ReclaimCheckName>()
  return {
    volumeName: opts.volumeName,
    target: opts.target,
    force,
    notOwner: opts.notOwner,
    gates,
    plugins: defaultVolumePluginMgr(opts),
    source: sourceText(opts.sourceArgs),
  }
}

/**
 * The VolumeAttachments: the snapshot's (when it holds any), or the live cluster's, read now (forbidden or
 * not served: not read, and said so).
 */
async function attachmentsOf(loaded: LoadedClusterState): Promise<Observed<VolumeAttachmentObject>> {
  if (loaded.source === 'snapshot') {
    const items = loaded.evidence.volumeAttachments as unknown as VolumeAttachmentObject[]
    return items.length > 0
      ? {observed: true, items}
      : {observed: false, reason: 'the snapshot holds no VolumeAttachment objects'}
  }
  try {
    return {observed: true, items: await liveReclaimIo(loaded.session).listVolumeAttachments()}
  } catch (err) {
    // Said in the plan as not read; the guard reads them again before it writes, and there a list it cannot
    // read stops the write.
    if (err instanceof ForbiddenError || err instanceof NotFoundError) return {observed: false, reason: err.message}
    throw err
  }
}

/** The guard's reads and its one write, through the session's clients. */
function liveReclaimIo(session: LiveSession) {
  return {
    readVolume: (name: string) => session.api.readVolume(name),
    listClaims: () => listAll((p) => session.api.listClaims(undefined, p)),
    listPods: (namespace: string) => listAll((p) => session.api.listPods(namespace, p)),
    listVolumeAttachments: () => listAll((p) => session.evidence.listVolumeAttachments(p)),
    replaceVolume: session.api.replaceVolume.bind(session.api),
  }
}

/** The one line of a refusal: each blocking check, and which of them --force would override. */
function refusalOf(report: ReclaimReport, forced: boolean): UsageError {
  const blocking = blockingChecks(report)
  const overridable = blocking.filter((c) => c.overridable && overridingFlag(c.name) === '--force').map((c) => c.name)
  const hint =
    !forced && overridable.length > 0
      ? [
          `--force overrides ${overridable.join(', ')}${overridable.length < blocking.length ? ' (not the others)' : ''}`,
        ]
      : []
  return new UsageError(
    `pv/${report.volume.name} is not reclaimed: ${blocking.map((c) => `${c.name}: ${c.message}`).join('; ')}`,
    hint,
  )
}
