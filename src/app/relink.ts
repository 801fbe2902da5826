// `pvctl relink pvc/NAME | pv/NAME | --all` as one use-case: load the state once, decide each pair on it
// (engine/repair), and — live, without --dry-run, with consent — write each through the guard, which reads
// the volume and the claim again, decides again on them, and PUTs the volume, then the claim, conditional
// on the resourceVersions just read. With --sync the controller's sync of the pairs follows.
import {present} from '../engine/api/invariant.js'
import type {ClusterState, PersistentVolume, PersistentVolumeClaim} from '../engine/api/model.js'
import {defaultVolumePluginMgr} from '../engine/controller/volume-plugins.js'
import {type ClaimName, sourceText} from '../engine/repair/checks.js'
import {
  decideRelink,
  relinkCommand,
  type RelinkDecision,
  type RelinkInput,
  relinkTargets,
  type RelinkTarget,
} from '../engine/repair/relink.js'
import {buildRelinkReport, relinkPair, type RelinkPair, type RelinkReport} from '../engine/repair/relink-report.js'
import {blockingChecks, type RepairOutcome} from '../engine/repair/report.js'
import {refOfClaim, refOfVolume, type ObjectRef} from '../engine/simulation/plan.js'
import {listAll} from '../cluster/live-loader.js'
import {ExitCode, UsageError} from '../errors.js'
import {relinkPermissions, requirePermissions} from '../executor/permissions.js'
import {loadClusterState, type LoadStateUi, noticeCaveats} from './load-cluster-state.js'
import type {LiveSession} from './live-session.js'
import {asked} from './request-errors.js'
import {type ConsentUi, consented, type RepairOptions, syncAfterRepair} from './repair-steps.js'
import type {SyncUi} from './run-sync.js'

export interface RelinkOptions extends RepairOptions {
  /** The pair named (pv/NAME or pvc/NAME -n NS); undefined with --all. */
  target?: RelinkTarget
  all: boolean
  /** With --all and -n: only the pairs whose claim is in this namespace (the cluster is read whole either way). */
  allNamespace?: string
  /** With --all: the claims re-created under a volume's old claim name that are the owners of its data (--owner). */
  owners?: readonly ClaimName[]
}

export interface RelinkUi extends LoadStateUi, ConsentUi<RelinkReport> {
  /** For --sync: the sync's own UI. */
  syncUi: SyncUi
}

export interface RelinkResult {
  report: RelinkReport
  exitCode: number
  /** The report is the plan the user was shown and did not confirm. */
  declined?: boolean
  /** Set when the relink is refused (exit 2): the one line that says why. */
  refusal?: UsageError
  /** Notices to say after the report. */
  after: string[]
  /** Each object as read and as written (-o diff), in the order written. */
  edits: Array<{before: PersistentVolume | PersistentVolumeClaim; after: PersistentVolume | PersistentVolumeClaim}>
}

export async function runRelink(opts: RelinkOptions, ui: RelinkUi): Promise<RelinkResult> {
  const loaded = await loadClusterState(opts, ui)
  const after: string[] = []
  const later = {notice: (line: string) => void after.push(line)}
  noticeCaveats(loaded, later)
  const request = {gates: loaded.gates, plugins: defaultVolumePluginMgr(opts), source: sourceText(opts.sourceArgs)}
  const named = asked(() => relinkTargets(loaded.state, opts))
  for (const h of named.held) later.notice(`${relinkCommand(h.target)}: left out of --all: ${h.reason}`)
  const decisions = named.targets.map((target) =>
    present(decideRelink({...request, state: loaded.state, target}), 'relinkTargets names pairs of the state'),
  )
  const allowed = decisions.filter((d) => d.allowed)
  const simulation = loaded.source === 'snapshot'
  const report = (outcome: RepairOutcome, pairs: RelinkPair[] = decisions.map((d) => relinkPair(d, outcome))) =>
    buildRelinkReport(pairs, {dryRun: opts.dryRun, simulation, all: opts.all, kubernetesVersion: loaded.version})
  const edits = allowed.flatMap((d) => d.writes.map((w) => ({before: w.before, after: w.after})))
  const already = decisions.filter((d) => d.already !== null)
  if (already.length > 0 && already.length === decisions.length) {
    // A re-run, or a run after a crash that followed the writes: nothing to write, and nothing to refuse.
    return {report: report('already-done'), exitCode: ExitCode.Ok, after, edits}
  } else if (allowed.length === 0 && !opts.all) {
    const refused = report('refused')
    return {report: refused, exitCode: ExitCode.Usage, refusal: refusalOf(refused.pairs[0]), after, edits}
  } else if (allowed.length === 0) {
    later.notice(
      decisions.length === 0
        ? 'no pair to relink: every volume and claim that name each other close'
        : `no relinkable pair: ${decisions.length} refused (their checks say why)`,
    )
    return {report: report('refused'), exitCode: ExitCode.Ok, after, edits}
  } else if (simulation) {
    later.notice('the state came from a snapshot (-f): nothing was written; the relink is a simulation')
    return {report: report('simulated'), exitCode: ExitCode.Changes, after, edits}
  } else if (opts.dryRun) {
    return {report: report('planned'), exitCode: ExitCode.Changes, after, edits}
  } else {
    // Live, and allowed: consent, the permissions, then the guarded writes.
  }

  const {session} = loaded
  const planned = report('planned')
  const pairsText = allowed
    .map(allowedPair)
    .map(({claim, volume}) => `pvc/${claim.namespace}/${claim.name} and pv/${volume}`)
    .join(', ')
  if (
    !(await consented(
      opts.yes,
      ui,
      planned,
      `Relink ${pairsText} on context ${session.contextName}?`,
      planned.dataSafety,
    ))
  ) {
    later.notice('nothing written (not confirmed)')
    return {report: planned, exitCode: ExitCode.Changes, declined: true, after, edits}
  } else {
    // Consent given (typed, or --yes).
  }
  // Every call the guard makes, asked before the first of them: a missing one is named here, before any write.
  const wanted = relinkPermissions(
    allowed.map((d) => ({...allowedPair(d), writes: d.writes.map((w) => w.object.kind)})),
  )
  await requirePermissions(session.api, wanted, 'grant them (deploy/repair-rbac.yaml is a role for the repairs)')
  const {pairs, edits: writtenEdits, failed} = await writeGuarded(session, loaded.state, decisions, request, later)
  const done = report('written', pairs)
  if (failed || !opts.sync)
    return {report: done, exitCode: failed ? ExitCode.Cluster : ExitCode.Ok, after, edits: writtenEdits}
  const targets: ObjectRef[] = allowed
    .map(allowedPair)
    .flatMap(({claim, volume}) => [refOfVolume(volume), refOfClaim(claim.namespace, claim.name)])
  const synced = await syncAfterRepair(opts, targets, ui.syncUi)
  done.sync = synced.sync
  after.push(...synced.after)
  return {report: done, exitCode: synced.exitCode, after, edits: writtenEdits}
}

/**
 * Writes each allowed pair through the guard, one pair at a time in the order decided (a refused one is
 * reported refused), and says through `later` what became of each.
 */
async function writeGuarded(
  session: LiveSession,
  state: ClusterState,
  decisions: readonly RelinkDecision[],
  request: Omit<RelinkInput, 'state' | 'target'>,
  later: {notice: (line: string) => void},
): Promise<{pairs: RelinkPair[]; edits: RelinkResult['edits']; failed: boolean}> {
  const {guardedRelink, isRefusal} = await import('../executor/destruction-guard.js')
  const pairs: RelinkPair[] = []
  const writtenEdits: RelinkResult['edits'] = []
  let failed = false
  for (const d of decisions) {
    if (!d.allowed) {
      pairs.push(relinkPair(d, 'refused'))
      continue
    } else {
      // Allowed: written through the guard, one pair at a time.
    }
    const written = await guardedRelink(liveRelinkIo(session), state, d, request)
    if (isRefusal(written)) {
      failed = true
      later.notice(
        `${relinkPair(d, 'planned').command}: not written: ${written.refused}; run it with --dry-run to decide again on the cluster as it is now`,
      )
      pairs.push(relinkPair(d, `not-written: double-check: ${written.refused}`))
    } else if (written.done.already) {
      pairs.push(relinkPair(written.done.decision, 'already-done'))
      later.notice(
        `${relinkPair(d, 'planned').command}: nothing written: the pair was relinked by another writer since it was read`,
      )
    } else {
      const done = relinkPair(written.done.decision, 'written')
      pairs.push(done)
      written.done.decision.writes.forEach((w, i) =>
        writtenEdits.push({before: w.before, after: written.done.written[i]}),
      )
      later.notice(
        `${written.done.written.map((o) => `${o.kind === 'PersistentVolume' ? 'pv' : `pvc/${o.metadata.namespace ?? ''}`}/${o.metadata.name ?? ''} written (resourceVersion ${o.metadata.resourceVersion ?? '?'})`).join(', ')}: ${done.next ?? ''}`,
      )
    }
  }
  return {pairs, edits: writtenEdits, failed}
}

/** The guard's reads and writes, through the session's clients. */
function liveRelinkIo(session: LiveSession) {
  return {
    readVolume: (name: string) => session.api.readVolume(name),
    readClaim: (namespace: string, name: string) => session.api.readClaim(namespace, name),
    listClaims: () => listAll((p) => session.api.listClaims(undefined, p)),
    replaceVolume: session.api.replaceVolume.bind(session.api),
    replaceClaim: session.api.replaceClaim.bind(session.api),
  }
}

/** The one line of a refusal: each blocking check. */
function refusalOf(pair: RelinkPair): UsageError {
  return new UsageError(
    `${pair.command.replace(/^pvctl relink /, '')} is not relinked: ${blockingChecks(pair)
      .map((c) => `${c.name}: ${c.message}`)
      .join('; ')}`,
  )
}

/** The volume and claim of an allowed relink: a decision is allowed only when it names both. */
function allowedPair(d: RelinkDecision): {volume: string; claim: NonNullable<RelinkDecision['claim']>} {
  return {
    volume: present(d.volume, 'an allowed relink names its volume').name,
    claim: present(d.claim, 'an allowed relink names its claim'),
  }
}
