// `pvctl relink pvc/NAME | pv/NAME | --all`: re-close the pointers of a pair that a restore or a re-created
// claim broke, decided from the controller's own rules. PURE.
//
// The pair: a volume whose spec.claimRef names a claim by namespace and name, and that claim. Its pointers
// are broken when
//   - the claimRef holds another uid than the claim's: syncVolume takes the claim for gone and releases the
//     volume; syncUnboundClaim leaves a claim that names the volume Pending ("already bound to a different
//     claim"); syncBoundClaim turns a claim that completed binding Lost (Misbound) — clearing the uid, as
//     Velero does for the claims it re-creates unbound, does not help there: only the claim's own uid does;
//   - a claim that completed binding has lost its spec.volumeName while the volume still names it:
//     syncBoundClaim turns it Lost whatever the volume says.
// The edit: the volume's claimRef {kind, apiVersion, namespace, name, uid: the claim's uid now}, no
// resourceVersion; and, for a claim that completed binding with no spec.volumeName, spec.volumeName set
// (the API server lets it be set once while empty). The volume is written first: if the claim's write
// never comes, the next relink finds the volume already pointing at the claim and writes the claim alone.
// Every check is judged on the state; then the controller's plan on the edited state is the proof: the
// edit is offered only if that plan binds exactly this pair and writes nothing else.
// No check is overridable: each guards the volume's data or another claim's binding.
import type {FeatureGates} from '../api/feature-gates.js'
import {AnnBindCompleted} from '../api/constants.js'
import {
  claimKey,
  claimRefKey,
  type ClusterState,
  type ObjectReference,
  type PersistentVolume,
  type PersistentVolumeClaim,
} from '../api/model.js'
import {claimNotFound, volumeNotFound} from '../api/not-found.js'
import {copyForWrite, hasAnnotation} from '../api/storage-helpers.js'
import {defaultVolumePluginMgr, type VolumePluginMgr} from '../controller/volume-plugins.js'
import {diffJson} from '../simulation/json-patch.js'
import type {Action, JsonPatchOp, ObjectRef} from '../simulation/plan.js'
import {refOfClaim, refOfVolume} from '../simulation/plan.js'
import {reconcile, type ReconcileResult} from '../simulation/reconcile.js'
import {type ClusterLookup, clusterLookup} from '../explain/lookup.js'
import {
  type ClaimName,
  type RepairCheck,
  repairCheckResult,
  type RepairWay,
  restoredBy,
  volumeAction,
  volumeDeleting,
} from './checks.js'
import {destroys, releases} from '../simulation/plan.js'

/** The checks (docs/usage.md lists them); none is overridable. */
export const RELINK_CHECKS = {
  PairNamed: {
    overridable: false,
    meaning:
      "the volume's spec.claimRef names the claim by namespace and name, and the claim's spec.volumeName is that volume or empty",
  },
  VolumeExists: {
    overridable: false,
    meaning:
      'the volume the claim names exists (a Lost claim whose volume is gone is not relinked: restore the volume, or recreate the claim)',
  },
  ClaimExists: {overridable: false, meaning: 'the claim the volume names exists'},
  PointersBroken: {
    overridable: false,
    meaning:
      'what is broken: the claimRef holds another uid (or none, while the claim completed binding to the volume), or a claim that completed binding lost its spec.volumeName (a pair whose pointers close is relinked already: nothing is judged or written)',
  },
  NoOtherClaim: {overridable: false, meaning: 'no other claim names the volume in spec.volumeName'},
  VolumeNotDeleting: {overridable: false, meaning: 'the volume is not being deleted'},
  ClaimNotDeleting: {overridable: false, meaning: 'the claim is not being deleted'},
  VolumeKept: {
    overridable: false,
    meaning:
      'the controller is not about to recycle or delete the volume, and no external provisioner may delete it (a volume that is, or is about to be, Released keeps its data only with reclaimPolicy Retain)',
  },
  Proof: {
    overridable: false,
    meaning: "the controller's plan on the edited state binds exactly this pair and writes nothing else",
  },
} as const

export type RelinkCheckName = keyof typeof RELINK_CHECKS
export type RelinkCheck = RepairCheck<RelinkCheckName>

/** What to relink: a volume (its claim is the one its claimRef names) or a claim (its volume, or the one volume naming it). */
export type RelinkTarget =
  {kind: 'PersistentVolume'; name: string} | {kind: 'PersistentVolumeClaim'; namespace: string; name: string}

export interface RelinkInput {
  state: ClusterState
  target: RelinkTarget
  gates: FeatureGates
  plugins?: VolumePluginMgr
  /**
   * The state indexed (clusterLookup(state)), when the caller decides many relinks on one state: audit asks
   * for every Released volume and Lost claim, and a scan of the cluster for each would make it quadratic.
   */
  lookup?: ClusterLookup
  /** Where the state came from, as flags (` -f FILE`, ` --context NAME`), for the commands a refusal or a way names. */
  source?: string
}

/** One write of a relink, in the order written (the volume first). */
export interface RelinkWrite {
  object: ObjectRef
  before: PersistentVolume | PersistentVolumeClaim
  after: PersistentVolume | PersistentVolumeClaim
  /** From before to after (RFC 6902). */
  patch: JsonPatchOp[]
}

export interface RelinkDecision {
  target: RelinkTarget
  /** The pair's volume by name, and whether it exists; null when no volume could be named. */
  volume: {name: string; object: PersistentVolume | null} | null
  /** The pair's claim by namespace and name, and the object if it exists; null when no claim could be named. */
  claim: (ClaimName & {object: PersistentVolumeClaim | null}) | null
  writes: RelinkWrite[]
  checks: RelinkCheck[]
  /** Every check holds, the proof included: the writes may be made. */
  allowed: boolean
  /** What the controller does next with the pair, from the plan on the edited state (null: not planned). */
  next: string | null
  /** The plan on the edited state's writes (null: not planned). */
  nextActions: Action[] | null
  /**
   * The pair closes already (a re-run, or a run after a crash that followed the writes): what was found,
   * "already relinked: …"; nothing is judged or written. Null otherwise.
   */
  already: string | null
}

/**
 * Decides a relink; undefined when the state has no such target object. Every check is judged (an operator
 * wants all the reasons); the proof only when the others hold.
 */
export function decideRelink(input: RelinkInput): RelinkDecision | undefined {
  const {state, target} = input
  const lookup = input.lookup ?? clusterLookup(state)
  const pair = pairOf(lookup, target)
  if (pair === undefined) return undefined
  const plugins = input.plugins ?? defaultVolumePluginMgr()
  const {volume, claim} = pair
  const base = {
    target,
    volume: pair.volumeName === null ? null : {name: pair.volumeName, object: volume ?? null},
    claim: pair.claimName === null ? null : {...pair.claimName, object: claim ?? null},
    already: null,
  }
  const refused = (checks: RelinkCheck[]): RelinkDecision => ({
    ...base,
    writes: [],
    checks,
    allowed: false,
    next: null,
    nextActions: null,
  })
  const checks: RelinkCheck[] = [pair.named]
  if (volume === undefined || claim === undefined || !pair.named.ok) {
    return refused([...checks, ...existenceChecks(pair)])
  } else {
    // Both ends exist and name each other: judge the pair.
  }
  const writes = relinkWrites(volume, claim)
  const targets = [
    refOfVolume(volume.metadata.name ?? ''),
    refOfClaim(claim.metadata.namespace ?? '', claim.metadata.name ?? ''),
  ]
  const unedited = reconcile(state, {gates: input.gates, plugins, targets})
  if (writes.length === 0) {
    // The pointers close: nothing to write; what the controller does next with the pair as it is.
    return {...base, writes, checks: [], allowed: false, ...alreadyRelinked(unedited, volume, claim)}
  } else {
    // A pointer is broken: judge the relink.
  }
  checks.push(
    ...existenceChecks(pair),
    brokenCheck(volume, claim, writes),
    otherClaimCheck(lookup, volume, claim),
    check('VolumeNotDeleting', ...volumeDeleting(volume)),
    claim.metadata.deletionTimestamp == null
      ? check('ClaimNotDeleting', true, 'not being deleted')
      : check(
          'ClaimNotDeleting',
          false,
          `pvc/${claimKey(claim)} is being deleted (since ${claim.metadata.deletionTimestamp})`,
        ),
    keptCheck(volume, unedited),
  )
  if (!checks.every((c) => c.ok)) {
    return refused(checks)
  } else {
    // Every check holds: the plan on the edited state is the proof.
  }
  const edited = editedState(state, writes)
  const proof = proveRelink(reconcile(edited, {gates: input.gates, plugins, targets}), volume, claim)
  const proofCheck = check(
    'Proof',
    proof.problem === undefined,
    proof.problem ?? `the plan on the edited state: ${proof.next}`,
  )
  return {
    ...base,
    writes,
    checks: [...checks, proofCheck],
    allowed: proofCheck.ok,
    next: proof.next,
    nextActions: proof.actions,
  }
}

/**
 * The relink as advice prints it (RepairWay): its command where its decision allows it; where only
 * VolumeKept refuses it (a volume the controller would recycle or delete once released), reclaimPolicy
 * Retain set first and then the relink, decided again on the state with Retain. Undefined: no such target.
 */
export function relinkWay(input: RelinkInput): RepairWay | undefined {
  const d = decideRelink(input)
  if (d === undefined) return undefined
  const blocking = d.checks.filter((c) => !c.ok).map((c) => c.name)
  const command = relinkCommand(input.target, input.source)
  if (d.allowed) {
    return {way: command, refusedBy: []}
  } else if (
    d.already !== null ||
    d.volume?.object == null ||
    blocking.length === 0 ||
    blocking.some((name) => name !== 'VolumeKept')
  ) {
    return {way: undefined, refusedBy: blocking}
  } else {
    // Only the reclaim policy stands in the way: decided again as it is once Retain is set.
  }
  const volume = d.volume.object
  const retained = copyForWrite(volume)
  retained.spec.persistentVolumeReclaimPolicy = 'Retain'
  const state = {...input.state, volumes: input.state.volumes.map((v) => (v === volume ? retained : v))}
  const after = decideRelink({...input, state, lookup: undefined})
  return after?.allowed === true
    ? {way: `${retainPatch(volume.metadata.name ?? '')} && ${command}`, refusedBy: blocking}
    : {way: undefined, refusedBy: blocking}
}

/**
 * The pairs a relink decides: the one named (`target`; not found: kubectl's error, a RequestError), or with
 * `all` every candidate (relinkCandidates), those of `allNamespace` alone when it is given.
 */
export function relinkTargets(
  state: ClusterState,
  opts: {target?: RelinkTarget; allNamespace?: string; owners?: readonly ClaimName[]},
): {targets: RelinkTarget[]; held: HeldPair[]} {
  const t = opts.target
  if (t === undefined && opts.allNamespace !== undefined) {
    const ns = opts.allNamespace
    const volumes = new Map(state.volumes.map((v) => [v.metadata.name ?? '', v]))
    const inNamespace = (c: RelinkTarget) =>
      (c.kind === 'PersistentVolumeClaim' ? c.namespace : volumes.get(c.name)?.spec.claimRef?.namespace) === ns
    const all = relinkCandidates(state, opts.owners)
    return {targets: all.targets.filter(inNamespace), held: all.held.filter((h) => inNamespace(h.target))}
  } else if (t === undefined) {
    return relinkCandidates(state, opts.owners)
  } else if (t.kind === 'PersistentVolume' && !state.volumes.some((v) => v.metadata.name === t.name)) {
    throw volumeNotFound(state, t.name)
  } else if (
    t.kind === 'PersistentVolumeClaim' &&
    !state.claims.some((c) => c.metadata.namespace === t.namespace && c.metadata.name === t.name)
  ) {
    throw claimNotFound(state, t.namespace, t.name)
  } else {
    return {targets: [t], held: []}
  }
}

/** A pair --all leaves to the operator, and why. */
export interface HeldPair {
  target: RelinkTarget
  reason: string
}

/**
 * The pairs a relink may close, each once by its volume, or by its claim where the claim's side is all that
 * is broken: every volume whose claimRef names an existing claim of another uid, and every claim that
 * completed binding, lost its spec.volumeName and is named by exactly one volume with its own uid. A claim
 * re-created under the old name (another uid, no spec.volumeName, not restored, never bound) may be a new claim and not
 * the data's owner, as reclaim's OldNameFree weighs it: --all leaves its pair out (`held`) unless `owners`
 * names it; relinked by name (pv/NAME, pvc/NAME), it is the operator's choice.
 */
export function relinkCandidates(
  state: ClusterState,
  owners: readonly ClaimName[] = [],
): {targets: RelinkTarget[]; held: HeldPair[]} {
  const claims = new Map(state.claims.map((c) => [claimKey(c), c]))
  const owner = new Set(owners.map((o) => `${o.namespace}/${o.name}`))
  const held: HeldPair[] = []
  const byVolume: RelinkTarget[] = []
  const naming = new Map<string, PersistentVolume[]>()
  for (const v of state.volumes) {
    const ref = v.spec.claimRef
    if (ref == null) continue
    const key = claimRefKey(ref)
    naming.set(key, [...(naming.get(key) ?? []), v])
    const claim = claims.get(key)
    const target: RelinkTarget = {kind: 'PersistentVolume', name: v.metadata.name ?? ''}
    if (
      claim !== undefined &&
      uidBroken(ref.uid ?? '', claim, v.metadata.name ?? '') &&
      recreated(claim) &&
      !owner.has(key)
    ) {
      held.push({
        target,
        reason: `pvc/${key} was re-created under the name pv/${target.name}'s claimRef holds (uid ${claim.metadata.uid ?? '<none>'}; the volume held ${ref.uid ?? '<none>'}), names no volume and was not restored: it may be a new claim, not the owner of the data; if it is the owner, relink it by name (${relinkCommand(target)}) or add --owner ${key}`,
      })
    } else if (claim !== undefined && uidBroken(ref.uid ?? '', claim, v.metadata.name ?? '')) {
      byVolume.push(target)
    } else {
      // Pre-bound by name, bound to the claim of its uid, or naming a claim that is gone: not a relink's.
    }
  }
  const byClaim: RelinkTarget[] = state.claims
    .filter((c) => hasAnnotation(c.metadata, AnnBindCompleted) && (c.spec.volumeName ?? '') === '')
    .filter((c) => (naming.get(claimKey(c)) ?? []).filter((v) => v.spec.claimRef?.uid === c.metadata.uid).length === 1)
    .map((c) => ({kind: 'PersistentVolumeClaim', namespace: c.metadata.namespace ?? '', name: c.metadata.name ?? ''}))
  return {targets: [...byVolume, ...byClaim], held}
}

/**
 * A claim of an old name that nothing ties to the volume: no spec.volumeName, no restore label, and never
 * bound (a claim that completed binding and lost its spec.volumeName is the pair's own, broken).
 */
function recreated(claim: PersistentVolumeClaim): boolean {
  return (
    (claim.spec.volumeName ?? '') === '' &&
    restoredBy(claim) === null &&
    !hasAnnotation(claim.metadata, AnnBindCompleted)
  )
}

/** "pvctl relink pv/NAME" or "pvctl relink pvc/NAME -n NS": the command of a target, as audit and explain print it. */
export function relinkCommand(target: RelinkTarget, source = ''): string {
  return target.kind === 'PersistentVolume'
    ? `pvctl relink pv/${target.name}${source}`
    : `pvctl relink pvc/${target.name} -n ${target.namespace}${source}`
}

/** The state with the writes made. */
export function editedState(state: ClusterState, writes: readonly RelinkWrite[]): ClusterState {
  const replaced = new Map(writes.map((w) => [w.before, w.after]))
  return {
    ...state,
    volumes: state.volumes.map((v) => (replaced.get(v) as PersistentVolume | undefined) ?? v),
    claims: state.claims.map((c) => replaced.get(c) ?? c),
  }
}

/**
 * The claimRef's uid (`refUid`) keeps the volume from the claim it names: another uid; or none while the
 * claim completed binding to this volume (a manifest re-applied over the volume dropped the uid), which
 * syncBoundClaim takes for another claim's, as a pre-binding is only for a claim not bound yet.
 */
function uidBroken(refUid: string, claim: PersistentVolumeClaim, volumeName: string): boolean {
  if (refUid !== '') return refUid !== claim.metadata.uid
  return hasAnnotation(claim.metadata, AnnBindCompleted) && claim.spec.volumeName === volumeName
}

/** The volume's claimRef with the claim's uid, no resourceVersion; a bind-completed claim's spec.volumeName set. Volume first. */
export function relinkWrites(volume: PersistentVolume, claim: PersistentVolumeClaim): RelinkWrite[] {
  const writes: RelinkWrite[] = []
  const ref = volume.spec.claimRef
  if (ref != null && uidBroken(ref.uid ?? '', claim, volume.metadata.name ?? '')) {
    const after = copyForWrite(volume)
    // In the order kubectl prints a claimRef, so that a diff of the edit reads field against field.
    const relinked: ObjectReference = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      name: claim.metadata.name,
      namespace: claim.metadata.namespace,
      uid: claim.metadata.uid,
    }
    after.spec.claimRef = relinked
    writes.push({
      object: refOfVolume(volume.metadata.name ?? ''),
      before: volume,
      after,
      patch: diffJson(volume, after),
    })
  } else {
    // Pre-bound by name (no uid) or already the claim's uid: the volume's side closes.
  }
  if (hasAnnotation(claim.metadata, AnnBindCompleted) && (claim.spec.volumeName ?? '') === '') {
    const after = copyForWrite(claim)
    after.spec.volumeName = volume.metadata.name
    writes.push({
      object: refOfClaim(claim.metadata.namespace ?? '', claim.metadata.name ?? ''),
      before: claim,
      after,
      patch: diffJson(claim, after),
    })
  } else {
    // A claim that never completed binding is bound by its next sync (syncUnboundClaim finds the volume
    // that names it); one that names the volume already closes its side.
  }
  return writes
}

function check(name: RelinkCheckName, ok: boolean, message: string): RelinkCheck {
  // Every relink check reads the volume and the claim it judges, and none is overridable: ok or blocked.
  return {
    name,
    result: repairCheckResult({ok, read: true, forced: false}),
    ok,
    overridable: false,
    forced: false,
    message,
  }
}

type VolumeTarget = Extract<RelinkTarget, {kind: 'PersistentVolume'}>
type ClaimTarget = Extract<RelinkTarget, {kind: 'PersistentVolumeClaim'}>

interface Pair {
  volumeName: string | null
  volume: PersistentVolume | undefined
  claimName: ClaimName | null
  claim: PersistentVolumeClaim | undefined
  named: RelinkCheck
}

/** The pair of a target, and whether its two ends name each other; undefined when the target object does not exist. */
function pairOf(lookup: ClusterLookup, target: RelinkTarget): Pair | undefined {
  if (target.kind === 'PersistentVolume') {
    return pairOfVolume(lookup, target)
  } else {
    return pairOfClaim(lookup, target)
  }
}

/** The pair of a volume: the claim its claimRef names, and whether that claim names it back. */
function pairOfVolume(lookup: ClusterLookup, target: VolumeTarget): Pair | undefined {
  const volume = lookup.volumeByName(target.name)
  if (volume === undefined) return undefined
  const ref = volume.spec.claimRef
  if (ref == null) {
    return {
      volumeName: target.name,
      volume,
      claimName: null,
      claim: undefined,
      named: check(
        'PairNamed',
        false,
        `pv/${target.name} has no claimRef: there is no pair to relink (pvctl reclaim pv/${target.name} --for NS/CLAIM gives it to a claim)`,
      ),
    }
  } else {
    // The claim of the pair is the one the claimRef names.
  }
  const claimName = {namespace: ref.namespace ?? '', name: ref.name ?? ''}
  const claim = lookup.claimNamed(ref.namespace ?? '', ref.name ?? '')
  const named = claim?.spec.volumeName ?? ''
  return {
    volumeName: target.name,
    volume,
    claimName,
    claim,
    named:
      named !== '' && named !== target.name
        ? check(
            'PairNamed',
            false,
            `pvc/${claimRefKey(ref)} names volume ${named}, not ${target.name} (spec.volumeName cannot be changed once set): relink pvc/${claimName.name} -n ${claimName.namespace} instead, or recreate the claim`,
          )
        : check(
            'PairNamed',
            true,
            `pv/${target.name} names pvc/${claimRefKey(ref)}${claim === undefined ? '' : named === '' ? ', which names no volume' : ', which names it back'}`,
          ),
  }
}

/** The pair of a claim: the volume it names, or else the one volume that names it. */
function pairOfClaim(lookup: ClusterLookup, target: ClaimTarget): Pair | undefined {
  const claim = lookup.claimNamed(target.namespace, target.name)
  if (claim === undefined) return undefined
  const key = claimKey(claim)
  const claimName = {namespace: target.namespace, name: target.name}
  const volumeName = claim.spec.volumeName ?? ''
  if (volumeName !== '') {
    const volume = lookup.volumeByName(volumeName)
    const ref = volume?.spec.claimRef
    const back = ref == null ? undefined : claimRefKey(ref)
    return {
      volumeName,
      volume,
      claimName,
      claim,
      named:
        volume === undefined || back === key
          ? check(
              'PairNamed',
              true,
              `pvc/${key} names volume ${volumeName}${volume === undefined ? '' : ', which names it back'}`,
            )
          : check(
              'PairNamed',
              false,
              `pvc/${key} names volume ${volumeName}, whose claimRef ${back === undefined ? 'is empty' : `names ${back}`}: the volume is not this claim's to relink${back === undefined ? ` (the claim asks for it; whether the next sync binds them, pvctl explain pvc/${target.name} -n ${target.namespace} says)` : ''}`,
            ),
    }
  } else {
    // No spec.volumeName: the pair's volume is the one volume that names this claim.
  }
  const naming = lookup.volumesClaiming(key)
  if (naming.length === 1) {
    const volume = naming[0]
    return {
      volumeName: volume.metadata.name ?? '',
      volume,
      claimName,
      claim,
      named: check('PairNamed', true, `pv/${volume.metadata.name ?? ''} names pvc/${key}, which names no volume`),
    }
  } else {
    const why =
      naming.length === 0
        ? 'no volume names it (spec.claimRef)'
        : `several volumes name it (${naming.map((v) => v.metadata.name ?? '').join(', ')}): relink one of them by pv/NAME`
    return {
      volumeName: null,
      volume: undefined,
      claimName,
      claim,
      named: check('PairNamed', false, `pvc/${key} names no volume and ${why}`),
    }
  }
}

/**
 * The two ends exist; a missing one is refused with what the operator can do instead. (A volume is missing
 * only when a claim names it, a claim only when a volume does: the other end is then known.)
 */
function existenceChecks({volumeName: v, volume, claimName: c, claim}: Pair): RelinkCheck[] {
  const found: RelinkCheck[] = []
  if (v !== null)
    found.push(
      volume !== undefined
        ? check('VolumeExists', true, `pv/${v} exists`)
        : check('VolumeExists', false, volumeGone(v, namingEnd(c))),
    )
  else {
    // No volume could be named: PairNamed says why.
  }
  if (c !== null)
    found.push(
      claim !== undefined
        ? check('ClaimExists', true, `pvc/${claimKey(claim)} exists (uid ${claim.metadata.uid ?? '<none>'})`)
        : check('ClaimExists', false, claimGone(c, namingEnd(v))),
    )
  else {
    // No claim could be named: PairNamed says why.
  }
  return found
}

/** The name of the end that names a missing one: known, as only a named end can be missing. */
function namingEnd<T>(name: T | null): T {
  if (name === null) throw new Error('invariant: an end of a pair is missing, and the other end does not name it')
  return name
}

function volumeGone(v: string, {namespace, name}: ClaimName): string {
  return `volume ${v}, which pvc/${namespace}/${name} names, does not exist (spec.volumeName cannot be changed once set): restore the PV object (kubectl apply -f ${v}.yaml, or velero restore create --from-backup BACKUP --include-resources persistentvolumes), then run pvctl relink pvc/${name} -n ${namespace}; or recreate the claim without spec.volumeName (kubectl delete pvc ${name} -n ${namespace}, then apply it again)`
}

function claimGone({namespace, name}: ClaimName, v: string): string {
  return `claim ${namespace}/${name}, which pv/${v} names, does not exist: recreate it with spec.volumeName: ${v} (kubectl apply -f ${name}.yaml), then run pvctl relink pv/${v}; or give the volume to another claim (pvctl reclaim pv/${v} --for NS/CLAIM)`
}

/** What a broken pair's writes mend (decideRelink judges a pair whose pointers close as already relinked). */
function brokenCheck(
  volume: PersistentVolume,
  claim: PersistentVolumeClaim,
  writes: readonly RelinkWrite[],
): RelinkCheck {
  const uid = volume.spec.claimRef?.uid ?? ''
  const broken: string[] = []
  if (writes.some((w) => w.object.kind === 'PersistentVolume')) {
    broken.push(
      uid === ''
        ? `the claimRef has no uid while the claim completed binding to it (a manifest re-applied over the volume?): the controller takes the volume for another claim's and the claim for Lost`
        : `the claimRef holds uid ${uid}, the claim has ${claim.metadata.uid ?? '<none>'}`,
    )
  }
  if (writes.some((w) => w.object.kind === 'PersistentVolumeClaim'))
    broken.push('the claim completed binding and lost its spec.volumeName')
  return check('PointersBroken', true, broken.join('; '))
}

/** Whether an action or event is on the pair: the volume `name` or the claim `key` (namespace/name). */
function ofPair(name: string, key: string): (a: {object: ObjectRef}) => boolean {
  return (a) =>
    a.object.kind === 'PersistentVolume'
      ? a.object.name === name
      : `${a.object.namespace ?? ''}/${a.object.name}` === key
}

/** A pair whose pointers close, in words: "already relinked: …", and what the controller does next with it. */
function alreadyRelinked(
  plan: ReconcileResult,
  volume: PersistentVolume,
  claim: PersistentVolumeClaim,
): {already: string; next: string; nextActions: Action[]} {
  const name = volume.metadata.name ?? ''
  const key = claimKey(claim)
  const ref = volume.spec.claimRef
  const ours = ofPair(name, key)
  const actions = plan.actions.filter(ours)
  const closed = `pv/${name} and pvc/${key} name each other (${(ref?.uid ?? '') === '' ? 'claimRef without uid' : `uid ${ref?.uid}`})`
  const v = plan.volumes.find((x) => x.metadata.name === name)
  const c = plan.claims.find((x) => claimKey(x) === key)
  const phases = `pv/${name} ${v?.status?.phase ?? 'deleted'} and pvc/${key} ${c?.status?.phase ?? 'deleted'}`
  const bound = v?.status?.phase === 'Bound' && c?.status?.phase === 'Bound' && c.spec.volumeName === name
  // What the sync does with them is the plan's to say, not a promise: a pair that points at each other may
  // still not bind (a volume made for the claim that does not fit it).
  const why = bound
    ? ''
    : `: pvctl explain pvc/${claim.metadata.name ?? ''} -n ${claim.metadata.namespace ?? ''} says why`
  const next =
    actions.length === 0
      ? `the controller leaves ${phases}${why}`
      : bound
        ? `the next sync binds pvc/${key} to ${name}`
        : `the next sync leaves ${phases}${why}`
  return {already: `already relinked: ${closed}: ${next}`, next, nextActions: actions}
}

function otherClaimCheck(lookup: ClusterLookup, volume: PersistentVolume, claim: PersistentVolumeClaim): RelinkCheck {
  const name = volume.metadata.name ?? ''
  const others = lookup.claimsNaming(name).filter((c) => c !== claim)
  if (others.length === 0) {
    return check('NoOtherClaim', true, `no other claim names ${name}`)
  } else {
    const which = others.map((c) => `pvc/${claimKey(c)} (${c.status?.phase ?? 'Pending'})`).join(', ')
    const lost = others.map((c) => `deleting pvc/${claimKey(c)} ${whatDeletingLoses(c, volume, claim)}`).join('; ')
    return check(
      'NoOtherClaim',
      false,
      `${which} name${others.length === 1 ? 's' : ''} ${name} too: one claim keeps the volume; ${lost}`,
    )
  }
}

/** The kubectl command that sets a volume's reclaimPolicy to Retain. */
export const retainPatch = (name: string) =>
  `kubectl patch pv ${name} -p '{"spec":{"persistentVolumeReclaimPolicy":"Retain"}}'`

/**
 * What deleting `other`, a claim that names the volume the pair's claimRef gives to `claim`, loses: never the
 * volume's data (the volume is not its: deleting it releases nothing), only the claim object, and where it
 * is in use or was bound, the pods' way to the volume through it.
 */
function whatDeletingLoses(
  other: PersistentVolumeClaim,
  volume: PersistentVolume,
  claim: PersistentVolumeClaim,
): string {
  const name = volume.metadata.name ?? ''
  const bound =
    hasAnnotation(other.metadata, AnnBindCompleted) || other.status?.phase === 'Bound' || other.status?.phase === 'Lost'
  return bound
    ? `loses that claim object and its pods' access to ${name}, not ${name}'s data (its claimRef names pvc/${claimKey(claim)}: the volume stays, and is relinked to it)`
    : `loses only that claim object: it never bound, so it holds no data (${name} keeps its data for pvc/${claimKey(claim)})`
}

const RETAIN_FIRST = (name: string) => `set persistentVolumeReclaimPolicy: Retain first (${retainPatch(name)})`

function keptCheck(volume: PersistentVolume, unedited: ReconcileResult): RelinkCheck {
  const name = volume.metadata.name ?? ''
  const policy = volume.spec.persistentVolumeReclaimPolicy ?? 'Retain'
  const phase = volume.status?.phase ?? '<none>'
  const acting = volumeAction(unedited.actions, name, destroys)
  if (acting !== undefined) {
    return check(
      'VolumeKept',
      false,
      `reclaimPolicy ${policy}: the next sync will ${acting.action} it (${acting.reason}); ${RETAIN_FIRST(name)}`,
    )
  } else if ((phase === 'Released' || phase === 'Failed') && policy !== 'Retain') {
    return check(
      'VolumeKept',
      false,
      `${name} is ${phase} with reclaimPolicy ${policy}: its reclaim may run before the relink is seen; ${RETAIN_FIRST(name)}`,
    )
  } else if (volumeAction(unedited.actions, name, releases) !== undefined && policy !== 'Retain') {
    // Released, the volume is its reclaim policy's: a deleter or recycler of the controller's, or an
    // external provisioner, may act before the relink is seen.
    return check(
      'VolumeKept',
      false,
      `as things are, the next sync releases ${name} (its claim taken for gone), and reclaimPolicy ${policy} then reclaims it; ${RETAIN_FIRST(name)}`,
    )
  } else if (volumeAction(unedited.actions, name, releases) !== undefined) {
    return check(
      'VolumeKept',
      true,
      `as things are, the next sync releases ${name} (reclaimPolicy ${policy}, its claim taken for gone); relinked, it binds instead`,
    )
  } else {
    return check(
      'VolumeKept',
      true,
      `${name} is ${phase}, reclaimPolicy ${policy}: the controller plans no recycle or delete of it`,
    )
  }
}

/** What the plan on the edited state does with the pair, and why it breaks the relink's promise if it does. */
function proveRelink(
  plan: ReconcileResult,
  volume: PersistentVolume,
  claim: PersistentVolumeClaim,
): {next: string; problem?: string; actions: Action[]} {
  const name = volume.metadata.name ?? ''
  const key = claimKey(claim)
  const ours = ofPair(name, key)
  const actions = plan.actions.filter(ours)
  const others = plan.actions.filter((a) => !ours(a))
  const v = plan.volumes.find((x) => x.metadata.name === name)
  const c = plan.claims.find((x) => claimKey(x) === key)
  const boundPair =
    v?.status?.phase === 'Bound' &&
    v.spec.claimRef?.uid === claim.metadata.uid &&
    c?.status?.phase === 'Bound' &&
    c.spec.volumeName === name
  const next = boundPair
    ? `the next sync binds pvc/${key} to ${name}`
    : `the next sync leaves pv/${name} ${v?.status?.phase ?? 'deleted'} and pvc/${key} ${c?.status?.phase ?? 'deleted'}`
  const why = plan.events
    .filter(ours)
    .map((e) => `${e.reason}: ${e.message}`)
    .join('; ')
  const destroying = actions.find(destroys)
  if (destroying !== undefined) {
    return {
      next,
      actions,
      problem: `the plan on the edited state would not keep the volume: ${destroying.reason}; nothing is written`,
    }
  } else if (!plan.converged) {
    return {
      next,
      actions,
      problem: `the plan on the edited state does not converge in ${plan.rounds} rounds; nothing is written`,
    }
  } else if (!boundPair) {
    return {
      next,
      actions,
      problem: `the plan on the edited state does not bind pvc/${key} to ${name} (${next}${why === '' ? '' : `; ${why}`}); nothing is written`,
    }
  } else if (others.length > 0) {
    return {
      next,
      actions,
      problem: `the plan on the edited state writes more than the pair: ${others.map((a) => `${a.action} ${a.object.name}`).join(', ')}; nothing is written`,
    }
  } else {
    return {next, actions}
  }
}
