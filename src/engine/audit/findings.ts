// The findings of `pvctl audit` (docs/codes.md, docs/output-contract.md "pvctl audit"): what is wrong with a
// state once the controller has done what it is about to do. Data only: the judge-*.ts files fill them.
import {VeleroRestoreNameLabel} from '../api/constants.js'

export const SEVERITIES = ['error', 'warning', 'info'] as const
export type Severity = (typeof SEVERITIES)[number]

/** Every finding code, its severity and meaning: docs/codes.md lists the same, a test holds them equal. */
export const FINDING_CODES = {
  ClaimLost: {
    severity: 'error',
    meaning:
      'A Bound claim lost its volume (volumeName empty, or the volume is gone): its data is no longer reachable through it.',
  },
  ClaimMisbound: {
    severity: 'error',
    meaning:
      'The claim names a volume whose claimRef holds another claim uid: two claims share one volume and this one lost.',
  },
  ClaimSyncError: {severity: 'error', meaning: 'The controller cannot sync the claim at all and retries forever.'},
  ClaimNoMatchingVolume: {
    severity: 'error',
    meaning:
      'A Pending claim with no class to provision from and no volume that matches: it never binds until a volume that fits is created or freed.',
  },
  ClaimStorageClassNotFound: {
    severity: 'error',
    meaning:
      'A Pending claim names a StorageClass that does not exist and no volume of that class fits it: it never binds until one does or the class is created.',
  },
  ClaimProvisioningNotSupported: {
    severity: 'error',
    meaning:
      "A Pending claim's class has a provisioner the controller cannot run (kubernetes.io/no-provisioner among them) and no volume fits it: it never binds until one is created.",
  },
  ClaimRequestedVolumeNotFound: {
    severity: 'error',
    meaning:
      'A Pending claim names (spec.volumeName) a volume that does not exist: it never binds until that volume is created.',
  },
  ClaimRequestedVolumeBoundElsewhere: {
    severity: 'error',
    meaning:
      'A Pending claim names a volume whose claimRef holds another claim (or an older claim of its name): it never binds while that claimRef stays.',
  },
  ClaimRequestedVolumeMismatch: {
    severity: 'error',
    meaning:
      'A Pending claim names a volume that does not satisfy it (size, access modes, class, mode): it never binds to it.',
  },
  ClaimWaitingForConsumer: {
    severity: 'info',
    meaning:
      'A Pending claim of a WaitForFirstConsumer class that no pod uses yet: expected, it binds when a pod is scheduled.',
  },
  ClaimWaitingForScheduling: {
    severity: 'info',
    meaning:
      "A Pending claim of a WaitForFirstConsumer class waits for its pod to be scheduled: expected, it binds on the pod's node.",
  },
  VolumeReleasedRetained: {
    severity: 'warning',
    meaning: 'A Released volume with reclaimPolicy Retain: its data is kept and nothing will ever happen to it.',
  },
  VolumeFailed: {
    severity: 'error',
    meaning: 'A volume in phase Failed (its status.message says why): the controller will not touch it again.',
  },
  VolumeClaimRefUidMismatch: {
    severity: 'warning',
    meaning:
      "A volume's claimRef names an existing claim, but with another uid: the claim was recreated and will not get this volume.",
  },
  ClaimConsumerBypassesScheduler: {
    severity: 'error',
    meaning:
      'A Pending claim of a WaitForFirstConsumer class is used by a pod that names its node itself (spec.nodeName): the scheduler never places that pod, nothing writes volume.kubernetes.io/selected-node, and the claim never binds.',
  },
  ClaimConsumerUnschedulable: {
    severity: 'warning',
    meaning:
      "A Pending claim of a WaitForFirstConsumer class waits for a pod the scheduler cannot place (its PodScheduled condition is Unschedulable, the scheduler's reason named).",
  },
  ClaimConsumerVolumeNodeConflict: {
    severity: 'error',
    meaning:
      "A Bound claim's volume may be mounted only on nodes (its required node affinity) that the node selection of a pod using it (nodeSelector, required node affinity) excludes: the scheduler never places the pod (judged only when Nodes were read).",
  },
  ClaimSelectedNodeGone: {
    severity: 'error',
    meaning:
      "A Pending claim's volume.kubernetes.io/selected-node names a node that does not exist: its volume is to be made for a node that is gone, and it never binds while the annotation stays (judged only when Nodes were read).",
  },
  ClaimDefaultClassSkipsVolume: {
    severity: 'warning',
    meaning:
      'A Pending claim has the default class (written by the DefaultStorageClass admission plugin into a claim created without one) while a volume without a class would bind it had it asked for none: it gets a new volume, or waits, instead of that one.',
  },
  ClaimProvisionedVolumeUnfit: {
    severity: 'error',
    meaning:
      "A Pending claim's provisioner made a volume for it (claimRef with the claim's uid) that cannot serve it (volume mode, access modes, size): the controller never binds them, and no other volume is made while it exists.",
  },
  ClaimProvisionerNotRunning: {
    severity: 'warning',
    meaning:
      'A Pending claim waits for an external provisioner that shows no sign of life (no Lease held, no recent event): nothing will provision it.',
  },
  ClaimTerminating: {
    severity: 'warning',
    meaning:
      'A claim being deleted is held by its kubernetes.io/pvc-protection finalizer: pods still use it (Terminating ones and their nodes named).',
  },
  ClaimResizeFailed: {
    severity: 'warning',
    meaning:
      "A claim's volume expansion failed (ControllerResizeError, NodeResizeError, a *ResizeFailed or *ResizeInfeasible status): it keeps its old size until the resize is fixed or reverted.",
  },
  ClaimResizePending: {
    severity: 'info',
    meaning:
      'A claim asks for more storage than it has and the resize is on its way (Resizing, FileSystemResizePending, *InProgress) or not started.',
  },
  VolumeTerminating: {
    severity: 'warning',
    meaning:
      'A volume being deleted is held by a finalizer: its owner and what it waits for are named, one finding per blocking finalizer.',
  },
  VolumeReleasedProvisionerNotRunning: {
    severity: 'warning',
    meaning:
      'A Released volume whose Delete is left to an external provisioner that shows no sign of life: its storage will not be freed.',
  },
  VolumeDeleteUnowned: {
    severity: 'warning',
    meaning:
      'A Released (or Failed) CSI volume with reclaimPolicy Delete that no provisioner made (no pv.kubernetes.io/provisioned-by): only a csi-provisioner that handles statically provisioned volumes deletes it, an older one never does; nothing shows one has acted on it.',
  },
  VolumeDeleteNodeGone: {
    severity: 'warning',
    meaning:
      'A Released volume with reclaimPolicy Delete left to an external provisioner whose required node affinity admits no node of the cluster: its storage was on a node that is gone, and no provisioner can delete it (judged only when Nodes were read).',
  },
  VolumeNodeAffinityMatchesNoNode: {
    severity: 'warning',
    meaning:
      'An Available volume whose required node affinity admits no node of the cluster: a pod using it could never be scheduled (judged only when Nodes were read).',
  },
  VolumeStorageClassNotFound: {
    severity: 'info',
    meaning:
      "An Available volume's storageClassName names no StorageClass: only a claim naming that class exactly binds it (judged only when StorageClasses were read).",
  },
  VolumeDeletionUnprotected: {
    severity: 'warning',
    meaning:
      'A Delete volume being deleted with no deletion-protection finalizer: the object can go before its storage is deleted, and the storage may leak.',
  },
  MultipleDefaultStorageClasses: {
    severity: 'warning',
    meaning: 'Several StorageClasses are marked default: the controller gives class-less claims the newest.',
  },
  NoDefaultStorageClass: {
    severity: 'warning',
    meaning:
      'Claims without a class wait for a default StorageClass and there is none: the retroactive default-class assignment has nothing to give them.',
  },
  StorageClassBindingModeUnset: {
    severity: 'warning',
    meaning:
      'A StorageClass without volumeBindingMode: the controller rejects it, and every claim of the class fails to sync.',
  },
  RestoredVolumeClaimMissing: {
    severity: 'warning',
    meaning:
      'A volume restored by Velero is pre-bound (claimRef without uid) to a claim that does not exist: it stays reserved for that claim.',
  },
  RestoredUidMismatch: {
    severity: 'warning',
    meaning:
      "A restored volume's claimRef (or a restored claim's volume's claimRef) holds another uid than the claim of that name: the pair will not bind.",
  },
  RestoredCloneBesideUnboundOriginal: {
    severity: 'warning',
    meaning:
      'Velero restored a velero-clone-* copy of a volume whose original is not bound: the original is left over beside the copy.',
  },
  ClusterUnreachable: {
    severity: 'error',
    meaning:
      'A cluster of the fleet (--context a,b, --all-contexts) could not be read: not reached, no answer, an answer pvctl cannot trust, or a context the kubeconfig cannot resolve. Nothing of it was audited.',
  },
  ClusterForbidden: {
    severity: 'error',
    meaning:
      "A cluster of the fleet refused the context's credentials (401) or a list audit needs (403). Nothing of it was audited.",
  },
} as const satisfies Record<string, {severity: Severity; meaning: string}>

export type FindingCode = keyof typeof FINDING_CODES

export interface FindingObject {
  /** Cluster: a kubeconfig context of a fleet audit, named by the context. */
  kind: 'PersistentVolumeClaim' | 'PersistentVolume' | 'StorageClass' | 'Cluster'
  namespace?: string
  name: string
}

export interface Finding {
  code: FindingCode
  severity: Severity
  object: FindingObject
  /** One sentence a person can act on. */
  message: string
  /** The fields the finding rests on, by name, as read (for a claim: explain's verdict among them). */
  evidence: Record<string, string | number | boolean | null | string[]>
  /** A pvctl command where pvctl can carry the fix out, else the exact kubectl command. */
  fix: string
}

/** A finding of `code`, its severity the code's. */
export function finding(
  code: FindingCode,
  object: FindingObject,
  message: string,
  evidence: Finding['evidence'],
  fix: string,
): Finding {
  return {code, severity: FINDING_CODES[code].severity, object, message, evidence, fix}
}

export {VeleroRestoreNameLabel}

/** Whether Velero restored the object (it carries velero.io/restore-name). */
export function isRestored(o: {metadata: {labels?: Record<string, string> | null}}): boolean {
  return (o.metadata.labels?.[VeleroRestoreNameLabel] ?? '') !== ''
}

/** The kubectl patch that frees a volume of its claimRef (its data kept): any claim can bind it. */
export function removeClaimRefFix(volume: string): string {
  return `kubectl patch pv ${volume} --type json -p '[{"op":"remove","path":"/spec/claimRef"}]'`
}

/** The kubectl patch that drops a claimRef's uid (and resourceVersion): the volume is pre-bound to the claim of that name. */
export function removeClaimRefUidFix(volume: string): string {
  return `kubectl patch pv ${volume} --type json -p '[{"op":"remove","path":"/spec/claimRef/uid"},{"op":"remove","path":"/spec/claimRef/resourceVersion"}]'`
}

/** One key per object (kind, namespace, name), as the report counts and silences objects. */
export function objectKey(o: FindingObject): string {
  return `${o.kind}/${o.namespace ?? ''}/${o.name}`
}

const SHORT_KINDS: Record<FindingObject['kind'], string> = {
  PersistentVolumeClaim: 'pvc',
  PersistentVolume: 'pv',
  StorageClass: 'storageclass',
  Cluster: 'cluster',
}

/** The object as the audit's outputs name it: pvc/NAMESPACE/NAME, pv/NAME, storageclass/NAME, cluster/CONTEXT. */
export function objectName(o: FindingObject): string {
  const short = SHORT_KINDS[o.kind]
  return o.namespace !== undefined ? `${short}/${o.namespace}/${o.name}` : `${short}/${o.name}`
}
