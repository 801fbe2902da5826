// `pvctl reclaim pv/NAME [--for NS/CLAIM]`: the manual reclamation the Kubernetes documentation leaves to
// administrators ("manually reclaim the volume"), decided from the controller's own rules. PURE.
//
// A Released (or Failed) volume keeps its claimRef, uid included, for ever: the controller never binds it
// again (findMatchingVolume skips a volume whose claimRef names another claim). The edit that lets it:
//   - no target: spec.claimRef removed, and the bound-by-controller annotation with it, as the controller's
//     own unbindVolume does: the next syncVolume makes the volume Available to any claim that matches;
//   - a target claim: spec.claimRef {kind, apiVersion, namespace, name}, no uid and no resourceVersion, the
//     pre-binding a user writes (and Velero restores): the next syncUnboundClaim of that claim binds it.
// Before the edit is offered, every check below is judged on the state; after it, the controller's plan on
// the edited state is the proof: the edit is offered only if that plan does what it promises and does not
// destroy the volume. A claim that may own the data stops the hand-over: the old claim, a claim of its name
// again (re-created or restored), a claim that names the volume, a restored claim that points at it. A
// volume found as the reclaim leaves it (a re-run, or a run after a crash that followed the write) is
// already reclaimed: nothing to judge, nothing to write. Nothing here writes: the live write and its
// re-read are the executor's guard's.
import type {FeatureGates} from '../api/feature-gates.js'
import {AnnBoundByController} from '../api/constants.js'
import {
  claimKey,
  claimRefKey,
  type ClusterState,
  type ObjectReference,
  type PersistentVolume,
  type PersistentVolumeClaim,
} from '../api/model.js'
import {copyForWrite, isPodTerminated} from '../api/storage-helpers.js'
import {defaultVolumePluginMgr, type VolumePluginMgr} from '../controller/volume-plugins.js'
import {ControllerQueries} from '../explain/controller-queries.js'
import type {Observed, VolumeAttachmentObject} from '../explain/evidence.js'
import {explainClaim} from '../explain/explainer.js'
import {type ClusterLookup, clusterLookup} from '../explain/lookup.js'
import {diffJson} from '../simulation/json-patch.js'
import type {Action, JsonPatchOp} from '../simulation/plan.js'
import {refOfClaim, refOfVolume} from '../simulation/plan.js'
import {reconcile, type ReconcileResult} from '../simulation/reconcile.js'
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
import {relinkWay, type RelinkTarget} from './relink.js'

/**
 * The checks, each with whether it may be overridden, and by which flag (--force unless `flag` says
 * otherwise; docs/usage.md lists them).
 */
export const RECLAIM_CHECKS = {
  VolumeReleased: {
    overridable: false,
    meaning: 'the volume is Released or Failed: its claim is gone and the controller will not bind it again',
  },
  VolumeNotDeleting: {overridable: false, meaning: 'the volume is not being deleted'},
  OldClaimGone: {overridable: false, meaning: 'the claim of spec.claimRef (namespace, name and uid) no longer exists'},
  OldNameFree: {
    overridable:
      'only a claim re-created under that name that names no volume and was not restored, and only if it is not the owner of the data',
    flag: '--not-owner',
    meaning:
      "no other claim has spec.claimRef's namespace and name (any uid): a claim of the old name may be the data's owner come back",
  },
  NoOtherClaim: {
    overridable: false,
    meaning:
      'no claim but the --for claim names the volume in spec.volumeName: a claim that does asks for this volume, its data with it',
  },
  NoRestoredOwner: {
    overridable: false,
    meaning:
      "no claim restored from a backup (label velero.io/restore-name) points at the volume: names it in spec.volumeName, or has spec.claimRef's namespace and name",
  },
  OldClaimUnused: {
    overridable: 'only when no such pod is on a node',
    meaning: 'no pod that is not terminated mounts the old claim (in its namespace)',
  },
  VolumeDetached: {overridable: true, meaning: 'no VolumeAttachment names the volume (it is attached to no node)'},
  ReclaimPolicyKeepsData: {
    overridable: false,
    meaning:
      'neither the controller nor an external provisioner will recycle or delete the volume (reclaimPolicy Retain, or a plugin that cannot)',
  },
  TargetClaimFree: {
    overridable: false,
    meaning: 'the claim of --for is not bound to, and does not name, another volume',
  },
  TargetClaimFits: {
    overridable: false,
    meaning: "the claim of --for fits the volume: the controller's checks, with explain's reasons",
  },
  Proof: {
    overridable: false,
    meaning: "the controller's plan on the edited state does what the reclaim promises and destroys nothing",
  },
} as const

export type ReclaimCheckName = keyof typeof RECLAIM_CHECKS

/** The flag that overrides a check where it may be overridden. */
export function overridingFlag(name: ReclaimCheckName): string {
  const c = RECLAIM_CHECKS[name]
  return 'flag' in c ? c.flag : '--force'
}

/** The checks a flag overrides: each overridable one whose overriding flag it is. */
export function checksForcedBy(flag: string): Set<ReclaimCheckName> {
  const forced = (c: ReclaimCheckName) => RECLAIM_CHECKS[c].overridable !== false && overridingFlag(c) === flag
  return new Set((Object.keys(RECLAIM_CHECKS) as ReclaimCheckName[]).filter(forced))
}

/** A reclaim's check; --force (or its `flag`) may override it where `overridable` (for this state: what was read decides). */
export type ReclaimCheck = RepairCheck<ReclaimCheckName>

/** A check as judged, before --force: whether nothing read stops it, and whether what it judges was `read`. */
type Judged = Omit<ReclaimCheck, 'forced' | 'result'> & {read: boolean}

/**
 * Whether the state's pods are all the cluster's: live they were listed; a snapshot that holds no Pod was
 * taken without them (`kubectl get pv,pvc -o yaml`), and then no pod's absence is known.
 */
export type PodsRead = {observed: true} | {observed: false; reason: string}

export type {ClaimName}

export interface ReclaimInput {
  state: ClusterState
  volumeName: string
  /** --for NS/CLAIM: pre-bind to that claim; none: make the volume Available. */
  target?: ClaimName
  /** The checks --force overrides (only overridable ones are, and never one that has a flag of its own). */
  force: ReadonlySet<ReclaimCheckName>
  /**
   * --not-owner NS/CLAIM: that claim, re-created under the volume's old claim name, is not the owner of the
   * volume's data (OldNameFree is overridden for it, and for no other).
   */
  notOwner?: ClaimName
  /** The VolumeAttachments (live, or the snapshot's), or why they could not be read. */
  attachments: Observed<VolumeAttachmentObject>
  /** Whether the state's pods were read, or why not. */
  pods: PodsRead
  gates: FeatureGates
  plugins?: VolumePluginMgr
  /** Where the state came from, as flags (` -f FILE`, ` --context NAME`), for the commands a refusal names. */
  source?: string
  /**
   * How many decisions this one is made inside (a refusal names the repair of a claim it speaks of, or the
   * reclaim once the sync released the volume: each that repair's own decision). Past MAX_NESTED, a refusal
   * names no command.
   */
  nested?: number
}

/** How deep the decisions behind a refusal's commands go: a reclaim for another claim, once its volume is released. */
const MAX_NESTED = 2

export interface ReclaimDecision {
  /** The volume as read. */
  volume: PersistentVolume
  /** The volume as the reclaim writes it. */
  edited: PersistentVolume
  /** From the volume as read to the edited one (RFC 6902). */
  patch: JsonPatchOp[]
  target: (ClaimName & {exists: boolean}) | null
  checks: ReclaimCheck[]
  /** Every check holds or was forced, the proof included: the edit may be written. */
  allowed: boolean
  /** What the controller does next with the volume, from the plan on the edited state (null: not planned). */
  next: string | null
  /** The plan on the edited state's writes to the volume and the claim it binds (null: not planned). */
  nextActions: Action[] | null
  /**
   * The volume is already as the reclaim leaves it (a re-run, or a run after a crash that followed the
   * write): what was found, "already reclaimed: …"; nothing is judged or written. Null otherwise.
   */
  already: string | null
  /**
   * The reclaim as advice prints it, where this decision (or the one on the state after the step it needs)
   * allows it: `pvctl reclaim pv/X [--for NS/CLAIM]`, or, for a volume the controller's next sync releases,
   * `pvctl sync pv/X && pvctl reclaim …` (the reclaim decided on the state that sync leaves). Null otherwise.
   */
  way: string | null
}

/** `pvctl reclaim pv/X [--for NS/CLAIM]` with the flags that read the state. */
export function reclaimCommand(volumeName: string, target: ClaimName | undefined, source = ''): string {
  return `pvctl reclaim pv/${volumeName}${target === undefined ? '' : ` --for ${target.namespace}/${target.name}`}${source}`
}

/**
 * Decides a reclaim; undefined when the state has no such volume. Every check is judged (an operator
 * wants all the reasons, not the first); the proof only when the others hold or were forced.
 */
export function decideReclaim(input: ReclaimInput): ReclaimDecision | undefined {
  const {state, volumeName, target} = input
  const volume = state.volumes.find((v) => v.metadata.name === volumeName)
  if (volume === undefined) {
    return undefined
  } else {
    // The volume exists: judge it.
  }
  const plugins = input.plugins ?? defaultVolumePluginMgr()
  const targetClaim =
    target === undefined
      ? undefined
      : state.claims.find((c) => c.metadata.namespace === target.namespace && c.metadata.name === target.name)
  const targetFound = target === undefined ? null : {...target, exists: targetClaim !== undefined}
  const done = alreadyReclaimed(volume, target, targetClaim)
  if (done !== undefined) {
    // Nothing to write: what the controller does next with the volume as it is.
    return alreadyReclaimedDecision(input, plugins, volume, targetClaim, targetFound, done)
  } else {
    // Not yet reclaimed: judge the edit.
  }
  const edited = reclaimedVolume(volume, target)
  const editedState: ClusterState = {...state, volumes: state.volumes.map((v) => (v === volume ? edited : v))}
  const lookup = clusterLookup(state)
  // The controller's plan for the volume as it is: what it is about to do to it (release, recycle, delete).
  const unedited = reconcile(state, {gates: input.gates, plugins, targets: [refOfVolume(volumeName)]})
  const ways = waysOf(input, plugins)
  const command = reclaimCommand(volumeName, target, input.source)
  // Released by the next sync: the reclaim decided on the state that sync leaves, for the steps in order.
  const afterSync =
    volumeAction(unedited.actions, volumeName, releases) === undefined || ways === undefined
      ? undefined
      : decideReclaim({
          ...input,
          state: {...state, volumes: unedited.volumes, claims: unedited.claims},
          nested: ways.nested,
        })
  const syncFirst =
    afterSync?.allowed === true ? `pvctl sync pv/${volumeName}${input.source ?? ''} && ${command}` : null
  const judged: Judged[] = [
    releasedCheck(volume, unedited, input.source ?? '', afterSync, syncFirst),
    deletingCheck(volume),
    oldClaimCheck(lookup, volume),
    oldNameCheck(lookup, volume, target, input.notOwner, ways),
    otherClaimCheck(lookup, volume, target, ways),
    restoredOwnerCheck(state, volume, target, ways),
    oldClaimPodsCheck(lookup, input.pods, volume),
    attachmentsCheck(input.attachments, volumeName),
    policyCheck(new ControllerQueries(state, {gates: input.gates, plugins}), volume, unedited),
    ...(target === undefined ? [] : targetChecks(editedState, edited, target, targetClaim, input.gates, plugins)),
  ]
  const checks = overriddenChecks(judged, input, volume)
  const base = {volume, edited, patch: diffJson(volume, edited), target: targetFound, already: null}
  if (!checks.every((c) => c.ok || c.forced)) {
    return {...base, checks, allowed: false, next: null, nextActions: null, way: syncFirst}
  } else {
    // Every check holds or was forced: the plan on the edited state is the proof.
  }
  const proof = proveReclaim(reconcile(editedState, {gates: input.gates, plugins}), volumeName, target, targetClaim)
  const proved = proof.problem === undefined
  const proofCheck: ReclaimCheck = {
    name: 'Proof',
    result: proved ? 'ok' : 'blocked',
    ok: proved,
    overridable: false,
    forced: false,
    message: proof.problem ?? `the plan on the edited state: ${proof.next}`,
  }
  return {
    ...base,
    checks: [...checks, proofCheck],
    allowed: proofCheck.ok,
    next: proof.next,
    nextActions: proof.actions,
    way: proofCheck.ok ? command : null,
  }
}

/** The decision on a volume already as the reclaim leaves it: nothing to write, and what the controller does next. */
function alreadyReclaimedDecision(
  input: ReclaimInput,
  plugins: VolumePluginMgr,
  volume: PersistentVolume,
  targetClaim: PersistentVolumeClaim | undefined,
  targetFound: ReclaimDecision['target'],
  done: string,
): ReclaimDecision {
  const {state, volumeName, target} = input
  const plan = proveReclaim(reconcile(state, {gates: input.gates, plugins}), volumeName, target, targetClaim)
  const boundAlready = volume.status?.phase === 'Bound' && targetClaim?.spec.volumeName === volumeName
  const next = plan.actions.length === 0 || boundAlready ? '' : `: ${plan.next}`
  return {
    volume,
    edited: volume,
    patch: [],
    target: targetFound,
    checks: [],
    allowed: false,
    next: plan.next,
    nextActions: plan.actions,
    already: `already reclaimed: ${done}${next}`,
    way: null,
  }
}

/** The judged checks, each forced where its flag overrides it and it fails. */
function overriddenChecks(judged: Judged[], input: ReclaimInput, volume: PersistentVolume): ReclaimCheck[] {
  const notOwner = input.notOwner === undefined ? undefined : `${input.notOwner.namespace}/${input.notOwner.name}`
  return judged.map(({name, ok, overridable, message, read}): ReclaimCheck => {
    // OldNameFree is overridden by --not-owner naming the claim of the old name; every other by --force.
    const override =
      name === 'OldNameFree'
        ? notOwner !== undefined && notOwner === oldName(volume)
        : input.force.has(name) && overridingFlag(name) === '--force'
    const forced = !ok && overridable && override
    return {name, result: repairCheckResult({ok, read, forced}), ok, overridable, forced, message}
  })
}

/**
 * What a refusal's messages need to name the repairs of the claims they speak of, each by that repair's own
 * decision on the state: undefined past MAX_NESTED (the messages then name no command).
 */
interface Ways {
  /** The reclaim of the volume for `target`, as advice prints it, or the checks that refuse it. */
  reclaim: (target: ClaimName) => RepairWay
  /** The relink of the volume or the claim, as advice prints it, or the checks that refuse it. */
  relink: (target: RelinkTarget) => RepairWay
  nested: number
}

function waysOf(input: ReclaimInput, plugins: VolumePluginMgr): Ways | undefined {
  const nested = (input.nested ?? 0) + 1
  if (nested > MAX_NESTED) return undefined
  return {
    nested,
    reclaim: (target) => {
      const d = decideReclaim({...input, target, notOwner: undefined, force: new Set(), nested})
      return {way: d?.way ?? undefined, refusedBy: refusedBy(d?.checks ?? [])}
    },
    relink: (target) =>
      relinkWay({state: input.state, target, gates: input.gates, plugins, source: input.source}) ?? {
        way: undefined,
        refusedBy: [],
      },
  }
}

/**
 * Whether the volume is already as the reclaim leaves it, in words: without --for, it has no claimRef;
 * with --for, its claimRef names that claim, with no uid (the pre-binding the reclaim writes) or with the
 * claim's own (the controller bound them since). Undefined when it is not.
 */
function alreadyReclaimed(
  volume: PersistentVolume,
  target: ClaimName | undefined,
  claim: PersistentVolumeClaim | undefined,
): string | undefined {
  const name = volume.metadata.name ?? ''
  const ref = volume.spec.claimRef
  const phase = volume.status?.phase ?? 'no phase'
  if (target === undefined) {
    return ref != null
      ? undefined
      : phase === 'Available'
        ? `${name} has no claimRef and is Available for any matching claim`
        : `${name} has no claimRef (${phase})`
  } else if (ref == null || ref.namespace !== target.namespace || ref.name !== target.name) {
    return undefined
  } else if ((ref.uid ?? '') === '') {
    return `${name} is pre-bound to ${target.namespace}/${target.name} (${phase}, no uid)`
  } else if (claim !== undefined && claim.metadata.uid === ref.uid) {
    return `${name} is bound to ${target.namespace}/${target.name} (${phase}, uid ${ref.uid})`
  } else {
    // Named by a claim of that name under another uid: an earlier claim's volume, not this reclaim's work.
    return undefined
  }
}

/**
 * The edited volume: claimRef removed (unbindVolume's edit, the bound-by-controller annotation with it), or
 * a pre-binding to the target by namespace and name, with no uid and no resourceVersion.
 */
export function reclaimedVolume(volume: PersistentVolume, target: ClaimName | undefined): PersistentVolume {
  const edited = copyForWrite(volume)
  if (target === undefined) {
    delete edited.spec.claimRef
  } else {
    // In the order kubectl prints a claimRef, so that a diff of the edit reads field against field.
    const ref: ObjectReference = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      name: target.name,
      namespace: target.namespace,
    }
    edited.spec.claimRef = ref
  }
  const annotations = edited.metadata.annotations
  if (annotations != null && AnnBoundByController in annotations) {
    // The copy's own annotations (copyForWrite), a JSON object rather than a Map: its key is dropped in place.
    Reflect.deleteProperty(annotations, AnnBoundByController)
    if (Object.keys(annotations).length === 0) delete edited.metadata.annotations
    else {
      // Other annotations stay.
    }
  } else {
    // The binding was a user's pre-binding: no annotation to drop.
  }
  return edited
}

function check(
  name: ReclaimCheckName,
  ok: boolean,
  message: string,
  overridable: boolean = RECLAIM_CHECKS[name].overridable === true,
): Judged {
  return {name, ok, overridable, message, read: true}
}

/**
 * A check whose objects were not read: it does not stop the reclaim (on a snapshot there is nothing to read
 * them from, and live the guard reads them again before it writes), and it is never `ok`.
 */
function notRead(name: ReclaimCheckName, message: string): Judged {
  return {...check(name, true, message), read: false}
}

/**
 * A volume the next sync releases is reclaimed after that sync: the steps in order where the reclaim is
 * allowed on the state it leaves (`syncFirst`), else what still refuses it then (`afterSync`).
 */
function releasedCheck(
  volume: PersistentVolume,
  unedited: ReconcileResult,
  source: string,
  afterSync: ReclaimDecision | undefined,
  syncFirst: string | null,
): Judged {
  const name = volume.metadata.name ?? ''
  const phase = volume.status?.phase ?? '<none>'
  if (phase === 'Released' || phase === 'Failed') {
    return check('VolumeReleased', true, `${name} is ${phase}`)
  } else if (volumeAction(unedited.actions, name, releases) !== undefined) {
    const releasing = `${name} is ${phase}, and the next sync releases it (its claim is gone)`
    const still = refusedBy(afterSync?.checks ?? [])
    return check(
      'VolumeReleased',
      false,
      syncFirst !== null
        ? `${releasing}: sync it first, then reclaim it: ${syncFirst}`
        : `${releasing}: pvctl sync pv/${name}${source} releases it${still.length === 0 ? '' : `; reclaim still refuses it then (${still.join(', ')})`}`,
    )
  } else {
    return check('VolumeReleased', false, `${name} is ${phase}: only a Released or Failed volume is reclaimed`)
  }
}

function deletingCheck(volume: PersistentVolume): Judged {
  return check('VolumeNotDeleting', ...volumeDeleting(volume))
}

function oldClaimCheck(lookup: ClusterLookup, volume: PersistentVolume): Judged {
  const ref = volume.spec.claimRef
  if (ref == null) {
    return check('OldClaimGone', true, 'the volume has no claimRef')
  } else {
    // Look for the claim it names.
  }
  const key = claimRefKey(ref)
  const claim = lookup.claimNamed(ref.namespace ?? '', ref.name ?? '')
  if (claim === undefined) {
    return check('OldClaimGone', true, `claim ${key} is gone`)
  } else if ((ref.uid ?? '') === '' || claim.metadata.uid === ref.uid) {
    const policy = volume.spec.persistentVolumeReclaimPolicy ?? 'Retain'
    const stays =
      policy === 'Retain'
        ? 'the volume keeps its data: reclaimPolicy Retain'
        : `with reclaimPolicy ${policy} the volume's data goes with it: set Retain first`
    return check(
      'OldClaimGone',
      false,
      `claim ${key} still exists (uid ${claim.metadata.uid ?? '<none>'}): the volume is still its; delete the claim first if its data is to go to another (${stays})`,
    )
  } else {
    return check(
      'OldClaimGone',
      true,
      `claim ${key} of uid ${ref.uid} is gone (a claim of that name has uid ${claim.metadata.uid ?? '<none>'}: OldNameFree)`,
    )
  }
}

/** The namespace/name of the volume's claimRef, or undefined without one. */
function oldName(volume: PersistentVolume): string | undefined {
  const ref = volume.spec.claimRef
  return ref == null ? undefined : claimRefKey(ref)
}

const claimName = (c: PersistentVolumeClaim): ClaimName => ({
  namespace: c.metadata.namespace ?? '',
  name: c.metadata.name ?? '',
})

/** The names of the checks that refuse a repair (not ok, not forced). */
const refusedBy = (checks: ReadonlyArray<RepairCheck<string>>) =>
  checks.filter((c) => !c.ok && !c.forced).map((c) => c.name)

const isTarget = (claim: PersistentVolumeClaim, target: ClaimName | undefined) =>
  target !== undefined && claim.metadata.namespace === target.namespace && claim.metadata.name === target.name

/**
 * The relink that gives the volume back to the claim of its old name, as relink's decision allows it: by
 * the claim where that claim names the volume (spec.volumeName decides its pair), else by the volume (whose
 * claimRef names the claim). Refused (or past MAX_NESTED): which of relink's checks refuse it now.
 */
function relinkBack(
  claim: PersistentVolumeClaim,
  volumeName: string,
  ways: Ways | undefined,
  reunites: string,
): string {
  const target: RelinkTarget =
    (claim.spec.volumeName ?? '') === volumeName
      ? {kind: 'PersistentVolumeClaim', namespace: claim.metadata.namespace ?? '', name: claim.metadata.name ?? ''}
      : {kind: 'PersistentVolume', name: volumeName}
  return wayText(ways?.relink(target), reunites, 'a relink')
}

/** A repair's way and what it does (`gives it the volume`), or, refused, which of its checks refuse it now. */
function wayText(found: RepairWay | undefined, does: string, repair: string): string {
  if (found?.way !== undefined) return `${found.way} ${does}`
  const refused =
    found === undefined || found.refusedBy.length === 0 ? '' : ` (refused as things are: ${found.refusedBy.join(', ')})`
  return `${repair} ${does} once its checks hold${refused}`
}

/**
 * A claim of the old claim's namespace and name under another uid: restored, or naming the volume, it is
 * the data's owner come back (relink reunites them); re-created naming no volume, it may be: the reclaim
 * goes on only where --not-owner says it is not.
 */
function oldNameCheck(
  lookup: ClusterLookup,
  volume: PersistentVolume,
  target: ClaimName | undefined,
  notOwner: ClaimName | undefined,
  ways: Ways | undefined,
): Judged {
  const ref = volume.spec.claimRef
  const name = volume.metadata.name ?? ''
  if (ref == null) {
    return check('OldNameFree', true, 'the volume has no claimRef')
  } else {
    // Look for any claim of that namespace and name.
  }
  const key = claimRefKey(ref)
  const claim = lookup.claimNamed(ref.namespace ?? '', ref.name ?? '')
  const uid = claim?.metadata.uid ?? '<none>'
  const named = claim?.spec.volumeName ?? ''
  const restore = claim === undefined ? null : restoredBy(claim)
  if (claim === undefined) {
    return check('OldNameFree', true, `no claim is named ${key}`)
  } else if ((ref.uid ?? '') === '' || claim.metadata.uid === ref.uid) {
    return check(
      'OldNameFree',
      true,
      `pvc/${key} is the claim of the claimRef itself (uid ${uid}): OldClaimGone judges it`,
    )
  } else if (isTarget(claim, target)) {
    return check(
      'OldNameFree',
      true,
      `pvc/${key} (uid ${uid}; the volume held ${ref.uid}) is the --for claim: the volume goes back to its name`,
    )
  } else if (named !== '' && named !== name) {
    return check('OldNameFree', true, `pvc/${key} (uid ${uid}) names volume ${named}: it does not ask for this one`)
  } else if (restore !== null || named === name) {
    const how = [
      ...(restore === null ? [] : [`restored by ${restore}`]),
      ...(named === name ? [`names ${name}`] : []),
    ].join(', ')
    return check(
      'OldNameFree',
      false,
      `pvc/${key} is back (uid ${uid}; the volume held ${ref.uid}), ${how}: it is the data's owner; ${relinkBack(claim, name, ways, 'reunites them')}`,
    )
  } else {
    // Re-created under the old name, naming no volume: its owner coming back, or a new claim of an old name.
  }
  const disowned = notOwner !== undefined && `${notOwner.namespace}/${notOwner.name}` === key
  const other =
    notOwner !== undefined && !disowned
      ? ` (--not-owner names ${notOwner.namespace}/${notOwner.name}, not this claim)`
      : ''
  return disowned
    ? check(
        'OldNameFree',
        false,
        `pvc/${key} was re-created (uid ${uid}; the volume held ${ref.uid}) and names no volume: --not-owner says it is not the owner of the data`,
        true,
      )
    : check(
        'OldNameFree',
        false,
        `pvc/${key} was re-created (uid ${uid}; the volume held ${ref.uid}) and names no volume: it may be the data's owner come back; if it is, ${relinkBack(claim, name, ways, 'gives the volume back to it')}; if it is not, add --not-owner ${key}${other}`,
        true,
      )
}

/** A claim that names the volume in spec.volumeName asks for it, its data with it: only the --for claim may. */
function otherClaimCheck(
  lookup: ClusterLookup,
  volume: PersistentVolume,
  target: ClaimName | undefined,
  ways: Ways | undefined,
): Judged {
  const name = volume.metadata.name ?? ''
  const old = oldName(volume)
  // The old claim itself (the claimRef's uid) is OldClaimGone's.
  const ref = volume.spec.claimRef
  const own = (c: PersistentVolumeClaim) =>
    ref != null && (ref.uid ?? '') !== '' && c.metadata.uid === ref.uid && claimKey(c) === old
  const others = lookup.claimsNaming(name).filter((c) => !isTarget(c, target) && !own(c))
  if (others.length === 0) {
    return check(
      'NoOtherClaim',
      true,
      `no claim${target === undefined ? '' : ` but pvc/${target.namespace}/${target.name}`} names ${name} (spec.volumeName)`,
    )
  } else {
    const each = others.map((c) => {
      const key = claimKey(c)
      const found = key !== old ? ways?.reclaim(claimName(c)) : undefined
      const way =
        key === old
          ? `it has the old claim's name: ${relinkBack(c, name, ways, 'reunites them')}`
          : found?.way !== undefined
            ? `to give it the volume: ${found.way}`
            : `it asks for the volume, its data with it: ${wayText(found, 'gives it the volume', 'a reclaim for it')}`
      return `pvc/${key} (${c.status?.phase ?? 'Pending'}) names ${name} in spec.volumeName: ${way}`
    })
    return check('NoOtherClaim', false, each.join('; '))
  }
}

/**
 * A claim restored from a backup that points at the volume (names it, or has the old claim's namespace and
 * name and names no other volume) is the data's owner: the repair is the one that reunites them.
 */
function restoredOwnerCheck(
  state: ClusterState,
  volume: PersistentVolume,
  target: ClaimName | undefined,
  ways: Ways | undefined,
): Judged {
  const name = volume.metadata.name ?? ''
  const old = oldName(volume)
  const pointing = (c: PersistentVolumeClaim) => {
    const named = c.spec.volumeName ?? ''
    return named === name || (named === '' && claimKey(c) === old)
  }
  const restored = state.claims.flatMap((c) => {
    const by = restoredBy(c)
    return by !== null && !isTarget(c, target) && pointing(c) ? [{c, by}] : []
  })
  if (restored.length === 0) {
    return check('NoRestoredOwner', true, `no restored claim points at ${name}`)
  } else {
    const each = restored.map(({c, by}) => {
      const key = claimKey(c)
      const how = (c.spec.volumeName ?? '') === name ? `names ${name}` : `has the name of ${name}'s claimRef`
      const way =
        key === old
          ? relinkBack(c, name, ways, 'reunites them')
          : wayText(ways?.reclaim(claimName(c)), 'gives it the volume', 'a reclaim for it')
      return `pvc/${key}, restored by ${by} (uid ${c.metadata.uid ?? '<none>'}), ${how}: it is the data's owner; ${way}`
    })
    return check('NoRestoredOwner', false, each.join('; '))
  }
}

function oldClaimPodsCheck(lookup: ClusterLookup, read: PodsRead, volume: PersistentVolume): Judged {
  const ref = volume.spec.claimRef
  if (ref == null) {
    return check('OldClaimUnused', true, 'no claim, no pod')
  } else {
    // The pods of the old claim's namespace and name (PodPVCIndexFunc), whatever their claim's uid.
  }
  const key = claimRefKey(ref)
  if (!read.observed) {
    return notRead('OldClaimUnused', `Pods not read (${read.reason})`)
  } else {
    // Read: look for the old claim's.
  }
  const pods = lookup.podsUsing(key).filter((p) => !isPodTerminated(p))
  if (pods.length === 0) {
    return check('OldClaimUnused', true, `no pod mounts ${key}`)
  } else {
    // A pod on a node may still write to the volume: never overridden. One that no node runs may be.
  }
  const onNode = pods.filter((p) => (p.spec?.nodeName ?? '') !== '')
  const names = pods.map((p) => {
    const node = p.spec?.nodeName ?? ''
    return `${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}${node === '' ? ' (not scheduled)' : ` (on ${node})`}`
  })
  return check(
    'OldClaimUnused',
    false,
    `pod${pods.length === 1 ? '' : 's'} ${names.join(', ')} still use${pods.length === 1 ? 's' : ''} ${key}`,
    onNode.length === 0,
  )
}

function attachmentsCheck(attachments: Observed<VolumeAttachmentObject>, name: string): Judged {
  if (!attachments.observed) {
    return notRead('VolumeDetached', `VolumeAttachments not read (${attachments.reason})`)
  } else {
    // Read: look for this volume's.
  }
  const mine = attachments.items
    .filter((va) => va.spec?.source?.persistentVolumeName === name)
    .map((va) => `${va.metadata.name ?? ''} (node ${va.spec?.nodeName ?? '<none>'})`)
  return mine.length === 0
    ? check('VolumeDetached', true, 'no VolumeAttachment names it')
    : check('VolumeDetached', false, `VolumeAttachment ${mine.join(', ')} still attaches it`)
}

const KEEP_THE_DATA = 'to keep its data, set persistentVolumeReclaimPolicy: Retain first'

function policyCheck(q: ControllerQueries, volume: PersistentVolume, unedited: ReconcileResult): Judged {
  const name = volume.metadata.name ?? ''
  const policy = volume.spec.persistentVolumeReclaimPolicy ?? ''
  const acting = volumeAction(unedited.actions, name, destroys)
  if (acting !== undefined) {
    return check(
      'ReclaimPolicyKeepsData',
      false,
      `reclaimPolicy ${policy}: the next sync will ${acting.action} it (${acting.reason}); ${KEEP_THE_DATA}`,
    )
  } else if (policy === 'Delete' && q.isVolumeReleased(volume)) {
    const found = q.findDeletablePlugin(volume)
    return found.error === undefined && found.plugin === undefined
      ? check(
          'ReclaimPolicyKeepsData',
          false,
          `reclaimPolicy Delete: its external provisioner deletes the storage; ${KEEP_THE_DATA}`,
        )
      : check(
          'ReclaimPolicyKeepsData',
          true,
          `reclaimPolicy Delete, which the controller cannot carry out (${found.error ?? 'no deleter'}); reclaimed, the volume keeps the policy`,
        )
  } else if (policy === 'Retain') {
    return check('ReclaimPolicyKeepsData', true, 'reclaimPolicy Retain: nothing recycles or deletes it')
  } else {
    // Recycle or Delete that the controller does not carry out now (its plan shows none).
    return check(
      'ReclaimPolicyKeepsData',
      true,
      `reclaimPolicy ${policy || '<none>'}: the controller plans no recycle or delete of it now; reclaimed, the volume keeps the policy`,
    )
  }
}

function targetChecks(
  editedState: ClusterState,
  edited: PersistentVolume,
  target: ClaimName,
  claim: PersistentVolumeClaim | undefined,
  gates: FeatureGates,
  plugins: VolumePluginMgr,
): Judged[] {
  const key = `${target.namespace}/${target.name}`
  const name = edited.metadata.name ?? ''
  const named = claim?.spec.volumeName ?? ''
  if (claim === undefined) {
    return [check('TargetClaimFree', true, `pvc/${key} does not exist yet: the volume waits for it, pre-bound`)]
  } else if (named !== '' && named !== name) {
    const bound = claim.status?.phase === 'Bound' ? `is Bound to ${named}` : `names volume ${named} (spec.volumeName)`
    return [check('TargetClaimFree', false, `pvc/${key} ${bound}`)]
  } else {
    // Free, or asking for this volume: judge the fit as the controller's next sync of the claim will.
  }
  const e = explainClaim(editedState, target.namespace, target.name, {gates, plugins})
  if (e === undefined) throw new Error(`invariant: pvc/${key} exists, so the edited state explains it`)
  const fits = (e.verdict === 'WillBind' || e.verdict === 'Bound') && e.volume === name
  const reasons = e.candidates.find((c) => c.volume === name)?.reasons ?? []
  const why =
    reasons.length > 0 ? reasons.map((r) => `${r.code}: ${r.message}`).join('; ') : `${e.verdict}: ${e.summary}`
  return [
    check('TargetClaimFree', true, `pvc/${key} is ${claim.status?.phase ?? 'Pending'} and names no other volume`),
    check('TargetClaimFits', fits, fits ? `pvc/${key} fits ${name}` : `pvc/${key} does not fit ${name}: ${why}`),
  ]
}

/** What the plan on the edited state does with the volume, and why it breaks the reclaim's promise if it does. */
function proveReclaim(
  plan: ReconcileResult,
  volumeName: string,
  target: ClaimName | undefined,
  claim: PersistentVolumeClaim | undefined,
): {next: string; problem?: string; actions: Action[]} {
  const claimRef = target === undefined ? undefined : refOfClaim(target.namespace, target.name)
  const after = plan.volumes.find((v) => v.metadata.name === volumeName)
  const ref = after?.spec.claimRef
  const boundTo =
    ref != null && (ref.uid ?? '') !== ''
      ? plan.claims.find(
          (c) => claimKey(c) === claimRefKey(ref) && c.metadata.uid === ref.uid && c.spec.volumeName === volumeName,
        )
      : undefined
  const touched = (a: Action) =>
    (a.object.kind === 'PersistentVolume' && a.object.name === volumeName) ||
    (a.object.kind === 'PersistentVolumeClaim' &&
      boundTo !== undefined &&
      a.object.namespace === boundTo.metadata.namespace &&
      a.object.name === boundTo.metadata.name)
  const actions = plan.actions.filter(touched)
  const next =
    after === undefined
      ? `deletes ${volumeName}`
      : boundTo !== undefined
        ? `the next sync binds pvc/${claimKey(boundTo)} to ${volumeName}`
        : `the next sync makes ${volumeName} ${after.status?.phase ?? '<no phase>'}${ref != null ? `, pre-bound to ${claimRefKey(ref)}` : ''}`
  const destroyed = actions.find(destroys)
  const phase = after?.status?.phase
  if (after === undefined || destroyed !== undefined || phase === 'Released' || phase === 'Failed') {
    return {
      next,
      actions,
      problem: `the plan on the edited state would not keep the volume: ${destroyed?.reason ?? next}; nothing is written`,
    }
  } else if (!plan.converged) {
    return {
      next,
      actions,
      problem: `the plan on the edited state does not converge in ${plan.rounds} rounds; nothing is written`,
    }
  } else if (claim !== undefined && (boundTo === undefined || claimKey(boundTo) !== claimKey(claim))) {
    return {
      next,
      actions,
      problem: `the plan on the edited state does not bind pvc/${claimKey(claim)} to ${volumeName} (${next}); nothing is written`,
    }
  } else if (
    claimRef !== undefined &&
    claim === undefined &&
    (phase !== 'Available' || ref == null || claimRefKey(ref) !== `${claimRef.namespace}/${claimRef.name}`)
  ) {
    return {
      next,
      actions,
      problem: `the plan on the edited state does not leave ${volumeName} Available and pre-bound to ${claimRef.namespace}/${claimRef.name} (${next}); nothing is written`,
    }
  } else if (target === undefined && boundTo === undefined && phase !== 'Available') {
    return {
      next,
      actions,
      problem: `the plan on the edited state does not make ${volumeName} Available (${next}); nothing is written`,
    }
  } else {
    return {next, actions}
  }
}
