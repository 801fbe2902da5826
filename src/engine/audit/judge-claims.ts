// The findings about claims. PURE. A claim's verdict finding is read off explain's ClaimExplanation (the facts
// its decision gives, and its brief form where the finding words what blocks the claim), never decided again
// here; the others (being deleted, being resized) are about fields the controller does not decide on, and
// carry explain's verdict in their evidence all the same.
import type {ClaimExplanationBrief, ClaimExplanationFacts, PartyNoteCode, Verdict} from '../explain/model.js'
import {AnnSelectedNode} from '../api/constants.js'
import type {ClusterLookup} from '../explain/lookup.js'
import type {FeatureGates} from '../api/feature-gates.js'
import type {PersistentVolumeClaim, Pod} from '../api/model.js'
import {parseQuantity, compareQuantities, isValidQuantity} from '../api/quantity.js'
import {finding, type Finding, type FindingCode, type FindingObject} from './findings.js'
import type {ReclaimFix} from './reclaim-fix.js'
import type {RelinkFix} from './relink-fix.js'

/** The claim verdicts that are a finding, with its code; every other verdict is healthy or on its way. */
export const CLAIM_VERDICT_CODES: Partial<Record<Verdict, FindingCode>> = {
  Lost: 'ClaimLost',
  Misbound: 'ClaimMisbound',
  SyncError: 'ClaimSyncError',
  NoMatchingVolume: 'ClaimNoMatchingVolume',
  StorageClassNotFound: 'ClaimStorageClassNotFound',
  ProvisioningNotSupported: 'ClaimProvisioningNotSupported',
  RequestedVolumeNotFound: 'ClaimRequestedVolumeNotFound',
  RequestedVolumeBoundElsewhere: 'ClaimRequestedVolumeBoundElsewhere',
  RequestedVolumeMismatch: 'ClaimRequestedVolumeMismatch',
  WaitForFirstConsumer: 'ClaimWaitingForConsumer',
  WaitForPodScheduled: 'ClaimWaitingForScheduling',
}

/** The codes of explain's notes about the parties around the binder (PartyNote), in the order they win. */
const NOTE_CODES: ReadonlyArray<[PartyNoteCode, FindingCode]> = [
  ['PodBypassesScheduler', 'ClaimConsumerBypassesScheduler'],
  ['ProvisionedVolumeUnfit', 'ClaimProvisionedVolumeUnfit'],
  ['DefaultClassFromAdmission', 'ClaimDefaultClassSkipsVolume'],
  ['SelectedNodeGone', 'ClaimSelectedNodeGone'],
  ['PodUnschedulable', 'ClaimConsumerUnschedulable'],
  ['PodVolumeNodeConflict', 'ClaimConsumerVolumeNodeConflict'],
]

/**
 * Codes that stand for a verdict only with evidence beyond it, and the verdicts they stand for:
 * ExternalProvisioning is on its way unless explain's liveness evidence shows no sign of the provisioner; a
 * note about the parties around the binder (explain's PartyNote) says more than the verdict's own code.
 */
export const CLAIM_EVIDENCE_VERDICT_CODES: Partial<Record<FindingCode, readonly Verdict[]>> = {
  ClaimProvisionerNotRunning: ['ExternalProvisioning'],
  ClaimConsumerBypassesScheduler: ['WaitForFirstConsumer', 'WaitForPodScheduled'],
  ClaimConsumerUnschedulable: ['WaitForPodScheduled'],
  ClaimSelectedNodeGone: ['ExternalProvisioning', 'WillProvision', 'ProvisioningNotSupported'],
  ClaimDefaultClassSkipsVolume: [
    'WaitForFirstConsumer',
    'WaitForPodScheduled',
    'ExternalProvisioning',
    'WillProvision',
    'ProvisioningNotSupported',
  ],
  ClaimProvisionedVolumeUnfit: ['ExternalProvisioning', 'WillProvision', 'ProvisioningNotSupported'],
  ClaimConsumerVolumeNodeConflict: ['Bound'],
}

/**
 * The code a claim's decision stands for, with the evidence its facts carry but the liveness (which needs
 * the events): a note about a party around the binder, else its verdict's code.
 */
export function claimCode(e: Pick<ClaimExplanationFacts, 'verdict' | 'notes'>): FindingCode | undefined {
  const notes = e.notes ?? []
  return NOTE_CODES.find(([note]) => notes.some((n) => n.code === note))?.[1] ?? CLAIM_VERDICT_CODES[e.verdict]
}

/** kubernetes.io/pvc-protection: the pvc-protection controller's finalizer (pkg/controller/volume/pvcprotection). */
export const PVCProtectionFinalizer = 'kubernetes.io/pvc-protection'

/** What judging a claim reads besides its explanation. */
export interface ClaimContext {
  /** The state after the plan, looked up. */
  lookup: ClusterLookup
  /** The state holds Pods at all (a snapshot may not): otherwise no pod can be named. */
  podsRead: boolean
  /** ` -f FILE` and the like, for the pvctl commands a fix prints. */
  source: string
  /** `pvctl relink …` where relink's decision allows it. */
  relink: RelinkFix
  /** `pvctl reclaim pv/X --for NS/CLAIM` where reclaim's decision allows it. */
  reclaim: ReclaimFix
  /** explain's explanation of the claim without its candidates (Explainer.claimBrief), for the findings that read more than its facts. */
  explain: (claim: ClaimExplanationFacts['claim']) => ClaimExplanationBrief
  /** The gates of the release decided as: what a resize may still do (RecoverVolumeExpansionFailure). */
  gates: Pick<FeatureGates, 'RecoverVolumeExpansionFailure'>
}

export function judgeClaim(e: ClaimExplanationFacts, ctx: ClaimContext): Finding[] {
  const claim = ctx.lookup.claimNamed(e.claim.namespace, e.claim.name)
  const found = verdictFindings(e, ctx)
  if (claim !== undefined) {
    found.push(...terminating(e, claim, ctx), ...resizing(e, claim, ctx.gates))
    for (const f of found) Object.assign(f.evidence, usage(claim))
  } else {
    // explain explained a claim of this state: it is there (the lookup is of the same state).
  }
  return found
}

/**
 * What the claim's metadata and status say of its use, when they say it: its owners (a StatefulSet whose
 * persistentVolumeClaimRetentionPolicy deletes its claims owns them, GA from v1.32: such a claim is
 * managed, not left over), and since when no pod uses it (the Unused condition the pvc-protection
 * controller sets from v1.36, on by default from v1.37).
 */
function usage(claim: PersistentVolumeClaim): Finding['evidence'] {
  const evidence: Finding['evidence'] = {}
  const owners = (claim.metadata.ownerReferences ?? []) as Array<{kind?: string; name?: string}>
  if (owners.length > 0) evidence.ownedBy = owners.map((o) => `${o.kind ?? '?'}/${o.name ?? '?'}`)
  const unused = ((claim.status?.conditions ?? []) as Array<ClaimCondition & {lastTransitionTime?: string}>).find(
    (c) => c.type === 'Unused' && c.status === 'True',
  )
  if (unused !== undefined) evidence.unusedSince = unused.lastTransitionTime ?? null
  return evidence
}

function objectOf(e: ClaimExplanationFacts): FindingObject {
  return {kind: 'PersistentVolumeClaim', namespace: e.claim.namespace, name: e.claim.name}
}

/** What every claim finding's evidence starts with: explain's verdict and the fields it rests on. */
function baseEvidence(e: ClaimExplanationFacts): Finding['evidence'] {
  const evidence: Finding['evidence'] = {
    verdict: e.verdict,
    phase: e.phase,
    'spec.volumeName': e.request.volumeName,
    storageClass: e.storageClass.name,
  }
  if (e.error !== null) evidence.controllerError = e.error
  return evidence
}

function verdictFindings(e: ClaimExplanationFacts, ctx: ClaimContext): Finding[] {
  const code = claimCode(e)
  if (code === undefined && e.verdict !== 'ExternalProvisioning') {
    // Healthy or on its way (most claims of a cluster): no finding, and nothing to word.
    return []
  } else {
    // A finding, or ExternalProvisioning's liveness to weigh.
  }
  const {namespace, name} = e.claim
  const object = objectOf(e)
  const explain = `pvctl explain pvc/${name} -n ${namespace}${ctx.source}`
  const evidence = baseEvidence(e)
  if (code !== undefined && code !== CLAIM_VERDICT_CODES[e.verdict]) {
    // A party around the binder says more than the verdict: explain's summary leads with it.
    const brief = ctx.explain(e.claim)
    evidence.notes = (e.notes ?? []).map((n) => `${n.code}: ${n.message}`)
    evidence.suggestions = brief.suggestions
    return [finding(code, object, brief.summary, evidence, noteFix(code, e, explain))]
  } else if (e.verdict === 'ExternalProvisioning') {
    return provisionerFindings(e, object, evidence, explain)
  } else if (code === undefined) {
    return []
  } else {
    // The verdict's own code.
    return verdictCodeFindings(code, e, ctx, object, evidence, explain)
  }
}

/** An external provisioner's wait: a finding only when nothing shows the provisioner running. */
function provisionerFindings(
  e: ClaimExplanationFacts,
  object: FindingObject,
  evidence: Finding['evidence'],
  explain: string,
): Finding[] {
  const l = e.provisionerLiveness
  if (l !== null && l.verdict === 'NoSignOfLife' && l.actedOn === null) {
    evidence.provisioner = l.name
    evidence.liveness = l.verdict
    evidence.lease = l.leaseName
    evidence.csiDriver = l.csiDriver
    evidence.livenessEvidence = l.summary
    return [
      finding(
        'ClaimProvisionerNotRunning',
        object,
        `The claim waits for external provisioner '${l.name}', and nothing shows it running (${l.summary}): deploy or restart the CSI driver's controller with its csi-provisioner sidecar.`,
        evidence,
        explain,
      ),
    ]
  } else {
    // It runs, has acted on the claim, or whether it runs cannot be seen: the wait is not judged a fault.
    return []
  }
}

/** The finding of a verdict's own code: the fix each verdict of a stuck or lost claim points to. */
function verdictCodeFindings(
  code: FindingCode,
  e: ClaimExplanationFacts,
  ctx: ClaimContext,
  object: FindingObject,
  evidence: Finding['evidence'],
  explain: string,
): Finding[] {
  const {namespace, name} = e.claim
  switch (code) {
    case 'ClaimLost':
    case 'ClaimMisbound':
      return [
        lostFinding(
          code,
          ctx.explain(e.claim),
          evidence,
          ctx.relink({kind: 'PersistentVolumeClaim', namespace: e.claim.namespace, name: e.claim.name}),
        ),
      ]
    case 'ClaimWaitingForConsumer': {
      const unseen = ctx.podsRead
        ? ''
        : ' No Pods were read: whether a pod uses it, or names its node itself and so never lets it bind, could not be seen.'
      return [
        finding(
          code,
          object,
          `The claim waits for a pod that uses it (class ${e.storageClass.name} binds on first consumer); nothing to do unless a pod should exist.${unseen}`,
          evidence,
          explain,
        ),
      ]
    }
    case 'ClaimWaitingForScheduling': {
      const pods = ctx.explain(e.claim).pods.map((x) => x.name)
      return [
        finding(
          code,
          object,
          `The claim waits for its pod (${pods.join(', ')}) to be scheduled (class ${e.storageClass.name} binds on first consumer); look at the pod if it stays unscheduled.`,
          evidence,
          `kubectl get pods -n ${namespace} ${pods.join(' ')} -o wide`,
        ),
      ]
    }
    case 'ClaimRequestedVolumeBoundElsewhere': {
      // The volume it names names this claim's namespace/name with an old uid: the relink, where it holds;
      // it names a claim that is gone: the reclaim for this claim, where it holds. Both keep its data.
      const brief = ctx.explain(e.claim)
      evidence.suggestions = brief.suggestions
      const volume = e.request.volumeName ?? ''
      const fix =
        ctx.relink({kind: 'PersistentVolumeClaim', namespace, name}) ?? ctx.reclaim(volume, e.claim) ?? explain
      return [finding(code, object, brief.summary, evidence, fix)]
    }
    default: {
      // The Pending verdicts and SyncError: explain's summary says what blocks the claim, its suggestions the way out.
      const brief = ctx.explain(e.claim)
      evidence.suggestions = brief.suggestions
      return [finding(code, object, brief.summary, evidence, explain)]
    }
  }
}

/** The fix of a note's finding: the one command that does it, or explain, which says the change to make. */
function noteFix(code: FindingCode, e: ClaimExplanationFacts, explain: string): string {
  const {namespace, name} = e.claim
  const pod = e.notes
    ?.find((n) => n.code === 'PodUnschedulable')
    ?.objects[0]?.split('/')
    .at(-1)
  switch (code) {
    case 'ClaimSelectedNodeGone':
      return `kubectl annotate pvc ${name} -n ${namespace} ${AnnSelectedNode}-`
    case 'ClaimConsumerUnschedulable':
      return pod === undefined ? explain : `kubectl describe pod ${pod} -n ${namespace}`
    default:
      return explain
  }
}

/**
 * syncBoundClaim makes a claim Lost for one of three causes: spec.volumeName cleared, the volume gone, or
 * the volume's claimRef holding another uid (Misbound). The finding names the cause and what still points
 * at the claim's namespace/name, since that decides whether its data can be reached again.
 */
function lostFinding(
  code: 'ClaimLost' | 'ClaimMisbound',
  e: ClaimExplanationBrief,
  evidence: Finding['evidence'],
  relinked: string | undefined,
): Finding {
  const {namespace, name} = e.claim
  const key = `${namespace}/${name}`
  const p = e.pointers
  const here = p?.volumesPointingHere ?? []
  const sameUid = here.filter((v) => v.uidMatches).map((v) => v.name)
  evidence.volumesPointingHere = here.map((v) => v.name)
  evidence.claimUid = p?.claimUid ?? null
  let cause: string
  if (code === 'ClaimMisbound') {
    evidence.cause = 'ClaimRefUidMismatch'
    evidence.volume = p?.volume?.name ?? null
    evidence['volume.spec.claimRef'] = p?.volume?.claimRef
      ? `${p.volume.claimRef.namespace}/${p.volume.claimRef.name} uid ${p.volume.claimRef.uid ?? '<none>'}`
      : null
    const ref = p?.volume?.claimRef
    const volume = p?.volume?.name ?? e.request.volumeName
    cause =
      ref != null && ref.uid === null && `${ref.namespace}/${ref.name}` === key
        ? `volume ${volume}'s claimRef names this claim but lost its uid (a manifest re-applied over the volume drops it), so the controller takes it for another claim's`
        : `volume ${volume} is bound to another claim uid (its claimRef uid is not this claim's)`
  } else if (p?.claimVolumeName == null) {
    evidence.cause = 'VolumeNameCleared'
    cause = 'its spec.volumeName was cleared'
  } else {
    evidence.cause = 'VolumeGone'
    cause = `volume ${p.claimVolumeName} is gone`
  }
  let pointing: string
  let fix: string
  if (relinked !== undefined) {
    // relink's checks and proof hold: the volume that names this claim is given its uid (and the claim its
    // spec.volumeName where it lost it), and the controller binds them again.
    const volume = p?.claimVolumeName ?? here.at(0)?.name ?? p?.volume?.name ?? ''
    pointing = `volume ${volume} still names ${key}: relink them and the controller binds them again.`
    fix = relinked
  } else if (sameUid.length > 0 && p?.claimVolumeName == null) {
    // spec.volumeName may be set once while it is empty (PVC update validation): the binding closes again.
    pointing = `volume ${sameUid[0]} still points at ${key} with this claim's uid: set spec.volumeName to it and the controller binds them again.`
    fix = `kubectl patch pvc ${name} -n ${namespace} -p '{"spec":{"volumeName":"${sameUid[0]}"}}'`
  } else if (here.length > 0) {
    // Another uid, or pre-bound by name (after the plan a volume of this claim's uid is unbound or released
    // when the claim names another): a claim re-created under this name may get it.
    const names = here.map((v) => v.name)
    pointing = `volume${names.length > 1 ? 's' : ''} ${names.join(', ')} point${names.length > 1 ? '' : 's'} at ${key} but not at this claim's uid; delete the claim (pvctl explain pv/${names[0]} says whether a new claim of this name gets it).`
    fix = `kubectl delete pvc ${name} -n ${namespace}`
  } else {
    pointing =
      code === 'ClaimMisbound'
        ? `no other volume points at ${key}; delete it: only the claim object goes, the volume and its data stay with the other claim.`
        : `no volume points at ${key}: restore ${p?.claimVolumeName ?? 'its volume'} (its claimRef with this claim's uid) and they bind again, or delete the claim, whose data went with it.`
    fix = `kubectl delete pvc ${name} -n ${namespace}`
  }
  return finding(code, objectOf(e), `The claim is Lost: ${cause}; ${pointing}`, evidence, fix)
}

/** Being deleted and held by pvc-protection: the pods that still use it, as that controller counts them. */
function terminating(
  e: ClaimExplanationFacts,
  claim: PersistentVolumeClaim,
  {lookup, podsRead}: ClaimContext,
): Finding[] {
  const since = claim.metadata.deletionTimestamp
  const finalizers = claim.metadata.finalizers ?? []
  if (since == null || !finalizers.includes(PVCProtectionFinalizer)) return []
  const {namespace, name} = e.claim
  // The pvc-protection controller counts a pod that is scheduled and not finished (a Terminating pod too:
  // its node may still have the volume mounted); a pod never scheduled cannot have started with it.
  const holding = lookup
    .podsUsing(`${namespace}/${name}`)
    .filter((pod) => (pod.spec?.nodeName ?? '') !== '' && !isFinished(pod))
  const pods = holding.map(
    (pod) =>
      `${pod.metadata.name ?? ''} (${pod.metadata.deletionTimestamp != null ? 'Terminating' : (pod.status?.phase ?? 'Unknown')} on node ${pod.spec?.nodeName ?? ''})`,
  )
  const evidence = {...baseEvidence(e), 'metadata.deletionTimestamp': since, finalizers: [...finalizers], pods}
  const stuck = holding.filter((pod) => pod.metadata.deletionTimestamp != null)
  const running = holding.filter((pod) => pod.metadata.deletionTimestamp == null)
  let message: string
  let fix: string
  if (running.length > 0) {
    message = `Being deleted since ${since}, held by ${PVCProtectionFinalizer} while pods use it: ${pods.join(', ')}; it goes once they stop.`
    fix = `kubectl delete pod -n ${namespace} ${running.map((pod) => pod.metadata.name ?? '').join(' ')}`
  } else if (stuck.length > 0) {
    const nodes = [...new Set(stuck.map((pod) => pod.spec?.nodeName ?? ''))]
    message = `Being deleted since ${since}, held by ${PVCProtectionFinalizer} for Terminating pods ${pods.join(', ')}: if node ${nodes.join(', ')} is gone, force-delete them.`
    fix = `kubectl delete pod -n ${namespace} ${stuck.map((pod) => pod.metadata.name ?? '').join(' ')} --grace-period=0 --force`
  } else if (!podsRead) {
    message = `Being deleted since ${since}, held by ${PVCProtectionFinalizer}; no Pods were read, so the pods that still use it cannot be named: list them.`
    fix = `kubectl get pods -n ${namespace} -o wide`
  } else {
    message = `Being deleted since ${since}, held by ${PVCProtectionFinalizer} though no scheduled pod uses it: the pvc-protection controller removes it on its next sync; if it stays, check kube-controller-manager.`
    fix = `kubectl get pods -n ${namespace} -o wide`
  }
  return [finding('ClaimTerminating', objectOf(e), message, evidence, fix)]
}

function isFinished(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed'
}

interface ClaimCondition {
  type?: string
  status?: string
  message?: string
}

/** status.conditions types of a failed expansion, and of one on its way (k8s.io/api core/v1 PersistentVolumeClaimConditionType). */
const RESIZE_FAILED_CONDITIONS = new Set(['ControllerResizeError', 'NodeResizeError'])
const RESIZE_PENDING_CONDITIONS = new Set(['Resizing', 'FileSystemResizePending'])

/** A resize as status shows it: conditions, allocatedResourceStatuses, and the request against the capacity. */
function resizing(
  e: ClaimExplanationFacts,
  claim: PersistentVolumeClaim,
  gates: Pick<FeatureGates, 'RecoverVolumeExpansionFailure'>,
): Finding[] {
  if (claim.status?.phase !== 'Bound') return []
  const shown = (claim.status.conditions ?? []) as ClaimCondition[]
  const allocation =
    ((claim.status.allocatedResourceStatuses ?? {}) as Record<string, string | undefined>).storage ?? null
  const requested = claim.spec.resources?.requests?.storage ?? null
  const capacity = claim.status.capacity?.storage ?? null
  // Most Bound claims of a cluster: no condition, no allocation status, and what they asked for.
  if (shown.length === 0 && allocation === null && (requested === null || capacity === null || requested === capacity))
    return []
  const {namespace, name} = e.claim
  const conditions = shown.filter((c) => (c.status ?? 'True') === 'True')
  // The same text is the same quantity (most claims have what they asked for): nothing to parse.
  const larger =
    requested !== null &&
    capacity !== null &&
    requested !== capacity &&
    isValidQuantity(requested) &&
    isValidQuantity(capacity) &&
    compareQuantities(parseQuantity(requested), parseQuantity(capacity)) > 0
  const failed = conditions.filter((c) => RESIZE_FAILED_CONDITIONS.has(c.type ?? ''))
  const pending = conditions.filter((c) => RESIZE_PENDING_CONDITIONS.has(c.type ?? ''))
  const allocationFailed = allocation !== null && (allocation.endsWith('Failed') || allocation.endsWith('Infeasible'))
  const allocationPending = allocation !== null && (allocation.endsWith('InProgress') || allocation.endsWith('Pending'))
  // Made for a finding only: most Bound claims of a cluster are not being resized.
  const evidence = () => ({
    ...baseEvidence(e),
    'spec.resources.requests.storage': requested,
    'status.capacity.storage': capacity,
    'status.conditions': conditions.map((c) => `${c.type}${(c.message ?? '') !== '' ? `: ${c.message}` : ''}`),
    'status.allocatedResourceStatuses.storage': allocation,
  })
  const describe = `kubectl describe pvc ${name} -n ${namespace}`
  if (failed.length > 0 || allocationFailed) {
    const why =
      failed.map((c) => `${c.type}${(c.message ?? '') !== '' ? ` (${c.message})` : ''}`).join(', ') ||
      (allocation ?? '')
    // RecoverVolumeExpansionFailure (on from v1.32) lets the request be lowered again, to no less than the capacity.
    const undo = gates.RecoverVolumeExpansionFailure
      ? `, or the request is lowered back to no less than ${capacity ?? 'its capacity'}`
      : ''
    return [
      finding(
        'ClaimResizeFailed',
        objectOf(e),
        `Expanding the claim to ${requested ?? '?'} failed: ${why}; it stays at ${capacity ?? 'its old size'} until the cause is fixed${undo}.`,
        evidence(),
        describe,
      ),
    ]
  } else if (pending.length > 0 || allocationPending || larger) {
    const lowered = requested !== null && capacity !== null && !larger && requested !== capacity
    const state = lowered
      ? `the request was lowered after a failed expansion, and the resizer settles the allocation (${[...pending.map((c) => c.type ?? ''), ...(allocation === null ? [] : [allocation])].join(', ')})`
      : pending.some((c) => c.type === 'FileSystemResizePending')
        ? 'the volume grew; its file system grows when a pod mounts it on a node (or online, on the node that has it mounted)'
        : pending.length > 0 || allocationPending
          ? `the resizer is expanding the volume (${[...pending.map((c) => c.type ?? ''), ...(allocation === null ? [] : [allocation])].join(', ')})`
          : 'no condition shows a resizer working on it: check that the class allows expansion and its CSI driver runs csi-resizer'
    return [
      finding(
        'ClaimResizePending',
        objectOf(e),
        `The claim asks for ${requested ?? '?'} and has ${capacity ?? '?'}: ${state}.`,
        evidence(),
        describe,
      ),
    ]
  } else {
    // No resize shown: the request is what the claim has.
    return []
  }
}
