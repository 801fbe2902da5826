// The documents of `pvctl explain` (docs/output-contract.md, "pvctl explain"): why a claim is or is not
// bound, and what the controller will do with a volume. Data only: the engine fills them, renderers print
// them, scripts read them as JSON. The contract's fields come first, in its order; the rest are additions
// of pvctl/v1alpha1 that the contract allows (new fields, never renamed ones).

import type {DecidedVersion} from '../api/kube-version.js'

export const EXPLAIN_API_VERSION = 'pvctl/v1alpha1'

/**
 * The contract's verdicts, plus `SyncError`: the controller's sync of the claim itself fails (a class
 * without volumeBindingMode, a volumeAttributesClassName with the gate off) and is retried forever. None
 * of the contract's verdicts says that, and saying one of them would contradict the engine.
 */
export const VERDICTS = [
  'Bound',
  'WillBind',
  'NoMatchingVolume',
  'ProvisioningNotSupported',
  'WillProvision',
  'ExternalProvisioning',
  'StorageClassNotFound',
  'WaitForFirstConsumer',
  'WaitForPodScheduled',
  'RequestedVolumeNotFound',
  'RequestedVolumeBoundElsewhere',
  'RequestedVolumeMismatch',
  'Lost',
  'Misbound',
  'SyncError',
] as const

export type Verdict = (typeof VERDICTS)[number]

/** Verdicts after which the claim is (or, after the next sync, will be) bound: `explain` exits 0. */
export const SETTLED_VERDICTS: ReadonlySet<Verdict> = new Set<Verdict>(['Bound', 'WillBind'])

/**
 * The contract's candidate reason codes, plus three for refusals it has no code for:
 * `VolumeAttributesClassMismatch` (the VolumeAttributesClass filter of FindMatchingVolume and
 * checkVolumeSatisfyClaim), `VolumeAttributesClassUnsupported` (the claim names a VolumeAttributesClass
 * while the gate is off: refused before any volume is looked at) and `NotConsidered` (the controller does
 * not match this claim against volumes at all: it names its volume).
 */
export const REASON_CODES = [
  'AccessModesMismatch',
  'CapacityTooSmall',
  'StorageClassMismatch',
  'VolumeModeMismatch',
  'SelectorMismatch',
  'BoundToOtherClaim',
  'PreBoundToOtherClaim',
  'VolumeBeingDeleted',
  'VolumeNotAvailable',
  'DelayBinding',
  'NodeAffinityMismatch',
  'VolumeAttributesClassMismatch',
  'VolumeAttributesClassUnsupported',
  'NotConsidered',
] as const

export type ReasonCode = (typeof REASON_CODES)[number]

export interface Reason {
  code: ReasonCode
  /** Concrete: "5Gi < requested 10Gi", "class 'slow' ≠ 'fast'", "labels lack tier=gold". */
  message: string
}

export interface Candidate {
  volume: string
  /** The controller's matcher would accept this volume for the claim (no reasons). */
  eligible: boolean
  reasons: Reason[]
  /** spec.capacity.storage as written, or null. */
  capacity: string | null
  /** The volume's class ("" for none). */
  storageClass: string
  phase: string | null
  /** "RWO,RWX", the access-mode index key. */
  accessModes: string
  /** "namespace/name" of spec.claimRef, or null. */
  claimRef: string | null
}

/** How the class in play was chosen. */
export type ClassSelection =
  /** The claim names a class that exists. */
  | 'Explicit'
  /** The claim names a class that does not exist. */
  | 'Missing'
  /** The claim asks for no class (storageClassName: ""): never provisioned, never given a default. */
  | 'NoClass'
  /**
   * The claim names no class and is matched as "" (volumes without a class). Only when none matches does
   * the controller give it the default class (Default), if there is one.
   */
  | 'Unset'
  /** The claim names no class and no volume matches: the next sync gives it the default class. */
  | 'Default'
  /** As Default, with several default classes: the newest wins. */
  | 'NewestDefault'

export interface StorageClassInPlay {
  /** The class the decision is made with ("" for none). */
  name: string
  selection: ClassSelection
  exists: boolean
  provisioner: string | null
  volumeBindingMode: string | null
  /** Every default class of the cluster, newest first, when there is more than one. */
  defaultClasses: string[]
  /** The next sync writes the default class into the claim before anything else happens. */
  assignedByNextSync: boolean
}

export interface ClaimRequest {
  storage: string | null
  accessModes: string[]
  volumeMode: string
  /** The claim's spec.storageClassName (or beta annotation); null when unset. */
  storageClassName: string | null
  /** The selector as labels.Selector prints it, or null. */
  selector: string | null
  /** spec.volumeName, or null. */
  volumeName: string | null
}

export interface ClaimPod {
  name: string
  /** spec.nodeName, or null while the pod is not scheduled. */
  node: string | null
  scheduled: boolean
  /** Failed, Succeeded, or deleted with nothing running: the controller ignores it. */
  terminated: boolean
  phase: string | null
}

/** What a note about the parties around the binder (parties.ts) is about: stable ids, as reason codes are. */
export const PARTY_NOTE_CODES = [
  'PodBypassesScheduler',
  'PodUnschedulable',
  'SelectedNodeGone',
  'DefaultClassFromAdmission',
  'ProvisionedVolumeUnfit',
  'PodVolumeNodeConflict',
] as const
export type PartyNoteCode = (typeof PARTY_NOTE_CODES)[number]

/**
 * What a party around the binder (the scheduler, an admission plugin, a provisioner) shows about the claim,
 * where the state shows it: what the controller's verdict leaves unsaid, never another verdict.
 */
export interface PartyNote {
  code: PartyNoteCode
  party: 'scheduler' | 'admission' | 'provisioner'
  /** The objects it rests on: pod/NS/NAME, pv/NAME, node/NAME. */
  objects: string[]
  message: string
}

/** One side of the binding as one object sees it. */
export interface ClaimRefPointer {
  namespace: string
  name: string
  /** null for a pre-binding (claimRef without uid). */
  uid: string | null
}

/**
 * The triangle of a claim that was bound: claim.spec.volumeName → volume, volume.spec.claimRef (with its
 * uid, which `kubectl get` never shows) → claim, and which of the two the controller believes.
 */
export interface BindingPointers {
  claimUid: string | null
  /** claim.spec.volumeName, or null. */
  claimVolumeName: string | null
  /** The volume it names, as found. */
  volume: {name: string; exists: boolean; claimRef: ClaimRefPointer | null; pointsBack: boolean} | null
  /** Other volumes whose claimRef names this claim (namespace/name), with whether the uid is this claim's. */
  volumesPointingHere: Array<{name: string; uidMatches: boolean}>
  /** The side the controller acts on: the volume's claimRef, the claim's volumeName, or neither. */
  authoritative: 'PersistentVolume' | 'PersistentVolumeClaim' | 'None'
  explanation: string
}

/** One event of an object (core/v1 Event), as `kubectl describe` lists them. */
export interface ObjectEvent {
  type: string
  reason: string
  message: string
  count: number
  /** When it last happened (series.lastObservedTime, lastTimestamp, eventTime or firstTimestamp). */
  lastSeen: string | null
  ageSeconds: number | null
  /** Who recorded it: reportingComponent, else source.component. */
  source: string
}

/** An object's events, newest first, or why they could not be seen (forbidden, not in the snapshot). */
export interface EventsSeen {
  available: boolean
  unavailableReason: string | null
  items: ObjectEvent[]
}

/**
 * Whether anything shows a controller outside kube-controller-manager running: `Active` (a Lease it holds,
 * or an event from it in the last 10 minutes), `NoSignOfLife` (its events and Leases could be read and
 * none shows it), `Unknown` (some could not be read, and what could shows nothing).
 */
export type LivenessVerdict = 'Active' | 'NoSignOfLife' | 'Unknown'

export interface ControllerLiveness {
  /** The provisioner name, or the CSI driver an attacher serves. */
  name: string
  role: 'provisioner' | 'attacher'
  verdict: LivenessVerdict
  /** A CSIDriver object of that name: the driver is installed (not proof that it runs). */
  csiDriver: 'Found' | 'NotFound' | 'Unknown'
  /** The Lease its leader election takes (the sidecars' naming rule), looked for in every namespace. */
  leaseName: string
  lease: {namespace: string; holder: string | null; held: boolean; renewedSecondsAgo: number | null} | null
  eventsVisible: boolean
  /** Its newest event, on any object. */
  lastEvent: (ObjectEvent & {object: string}) | null
  /** Its newest event on the object explained (or that object's VolumeAttachments). */
  actedOn: (ObjectEvent & {object: string}) | null
  /** The kinds that could not be read, with why. */
  unavailable: string[]
  /** The evidence in one line. */
  summary: string
}

export interface VolumeAttachmentInfo {
  name: string
  attacher: string
  node: string
  attached: boolean
  /** metadata.deletionTimestamp is set: the attacher is detaching it. */
  deleting: boolean
  /** status.attachError or detachError. */
  error: string | null
}

export interface AttachmentsSeen {
  available: boolean
  unavailableReason: string | null
  items: VolumeAttachmentInfo[]
}

export interface ClaimExplanation {
  apiVersion: typeof EXPLAIN_API_VERSION
  kind: 'ClaimExplanation'
  claim: {namespace: string; name: string}
  phase: string
  verdict: Verdict
  /** The volume the claim is bound to, or that the next sync binds it to (Bound, WillBind). */
  volume: string | null
  summary: string
  candidates: Candidate[]
  /**
   * Set only when the candidates are bounded (`--candidates N`, a List's default): how many volumes there
   * were to list, of which `candidates` holds the nearest. An extra field, beyond the contract's.
   */
  candidatesTotal?: number
  suggestions: string[]
  request: ClaimRequest
  storageClass: StorageClassInPlay
  /** volume.kubernetes.io/selected-node: the scheduler chose a node and asks for provisioning there. */
  selectedNode: string | null
  pods: ClaimPod[]
  pointers: BindingPointers | null
  /** The provisioner the claim waits for or will be provisioned by (WillProvision, ExternalProvisioning). */
  provisioner: string | null
  /** The controller's own error text (SyncError, ProvisioningNotSupported, StorageClassNotFound). */
  error: string | null
  /** The claim's events (live, or from a snapshot that holds Events). */
  events: EventsSeen
  /** ExternalProvisioning: what shows the provisioner running, and whether it has acted on this claim. */
  provisionerLiveness: ControllerLiveness | null
  /**
   * Set only when the verdict rests on a kind the snapshot did not hold (no StorageClass, Pod or Node at
   * all): what it may only mean. An extra field, beyond the contract's.
   */
  caveats?: string[]
  /**
   * Set only when a party around the binder shows something about the claim (parties.ts): a pod that
   * bypasses the scheduler, a class written by admission, a volume provisioned for the claim that cannot
   * serve it. An extra field, beyond the contract's.
   */
  notes?: PartyNote[]
}

/** A ClaimExplanation without its candidates (Explainer.claimBrief): what `pvctl audit` words a finding by. */
export type ClaimExplanationBrief = Omit<ClaimExplanation, 'candidates' | 'candidatesTotal'>

/**
 * The fields of a ClaimExplanation that the controller's decision on the claim gives by itself, without a
 * volume judged, a word written or a pod and claimRef looked up (Explainer.claimFacts): what `pvctl audit`
 * judges every claim by, asking for the rest (claimBrief) of the few whose finding reads it.
 */
export type ClaimExplanationFacts = Pick<
  ClaimExplanation,
  | 'claim'
  | 'phase'
  | 'verdict'
  | 'volume'
  | 'request'
  | 'storageClass'
  | 'selectedNode'
  | 'provisioner'
  | 'error'
  | 'provisionerLiveness'
  | 'notes'
>

/** What the controller does with a volume, as syncVolume decides it. */
export const VOLUME_STATES = ['Available', 'PreBound', 'Binding', 'Bound', 'Unbinding', 'Released', 'Failed'] as const
export type VolumeState = (typeof VOLUME_STATES)[number]

/** Volume states after which nothing is stuck: `explain pv/NAME` exits 0. */
export const SETTLED_VOLUME_STATES: ReadonlySet<VolumeState> = new Set<VolumeState>([
  'Available',
  'PreBound',
  'Binding',
  'Bound',
])

export interface ReclaimPlan {
  policy: string
  /**
   * What follows the release: `retain` (nothing), `recycle` or `delete` by an in-tree plugin, `external`
   * (an external provisioner or CSI driver deletes it; the controller waits), `fail` (the volume becomes or
   * stays Failed), `blocked` (a check keeps the operation from starting), `none` (migrated volume).
   */
  action: 'retain' | 'recycle' | 'delete' | 'external' | 'fail' | 'blocked' | 'none'
  /** The plugin or provisioner that does it, when there is one. */
  by: string | null
  detail: string
}

export interface FinalizerWait {
  name: string
  /** Who removes it. */
  owner: string
  /** What it waits for before it goes. */
  waitsFor: string
  /** Whether, in this state, it still holds the volume. */
  blocking: boolean
}

export interface VolumeExplanation {
  apiVersion: typeof EXPLAIN_API_VERSION
  kind: 'VolumeExplanation'
  volume: {name: string}
  phase: string | null
  state: VolumeState
  /** spec.claimRef, with whether that claim (same uid) exists. */
  claim: (ClaimRefPointer & {exists: boolean}) | null
  summary: string
  reclaim: ReclaimPlan | null
  /** status.message of a Failed volume, or the failure the next sync records. */
  failure: string | null
  /** Set when the volume is being deleted (metadata.deletionTimestamp). */
  terminating: {since: string; finalizers: FinalizerWait[]} | null
  /** Unbound claims whose next sync binds this volume, in the order the controller syncs them. */
  wantedBy: string[]
  suggestions: string[]
  events: EventsSeen
  /** The VolumeAttachments of this volume (spec.source.persistentVolumeName). */
  attachments: AttachmentsSeen
  /** The external controllers a finalizer or the reclaim waits for (attacher, provisioner), and whether they run. */
  controllers: ControllerLiveness[]
}

/** `explain` with no object named: every claim in scope whose verdict is not a healthy Bound, each explained. */
export interface ExplanationList {
  apiVersion: typeof EXPLAIN_API_VERSION
  kind: 'List'
  /** The Kubernetes release the explanations were decided as, and where pvctl learned it. */
  kubernetesVersion?: DecidedVersion
  items: ClaimExplanation[]
}

/** The document `pvctl explain` prints: the top level also names the release it was decided as. */
export type ExplainDocument =
  ((ClaimExplanation | VolumeExplanation) & {kubernetesVersion?: DecidedVersion}) | ExplanationList
