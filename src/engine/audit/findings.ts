// The findings of `pvctl audit` (docs/codes.md, docs/output-contract.md "pvctl audit"): what is wrong with a
// state once the controller has done what it is about to do. Data only: judge.ts fills them.

export const SEVERITIES = ['error', 'warning', 'info'] as const
export type Severity = (typeof SEVERITIES)[number]

/** Every finding code, its severity and meaning: docs/codes.md lists the same, a test holds them equal. */
export const FINDING_CODES = {
  ClaimLost: {severity: 'error', meaning: 'A Bound claim lost its volume (volumeName empty, or the volume is gone): its data is no longer reachable through it.'},
  ClaimMisbound: {severity: 'error', meaning: 'The claim names a volume whose claimRef holds another claim uid: two claims share one volume and this one lost.'},
  ClaimSyncError: {severity: 'error', meaning: 'The controller cannot sync the claim at all and retries forever.'},
  ClaimNoMatchingVolume: {severity: 'warning', meaning: 'A Pending claim with no class to provision from and no volume that matches: nothing will bind it.'},
  ClaimStorageClassNotFound: {severity: 'warning', meaning: 'A Pending claim names a StorageClass that does not exist.'},
  ClaimProvisioningNotSupported: {severity: 'warning', meaning: "A Pending claim's class has a provisioner the controller cannot run."},
  ClaimRequestedVolumeNotFound: {severity: 'warning', meaning: 'A Pending claim names (spec.volumeName) a volume that does not exist.'},
  ClaimRequestedVolumeBoundElsewhere: {severity: 'warning', meaning: 'A Pending claim names a volume already bound to another claim.'},
  ClaimRequestedVolumeMismatch: {severity: 'warning', meaning: 'A Pending claim names a volume that does not satisfy it (size, access modes, class, mode).'},
  ClaimWaitingForConsumer: {severity: 'info', meaning: 'A Pending claim of a WaitForFirstConsumer class that no pod uses yet: expected, it binds when a pod is scheduled.'},
  ClaimWaitingForScheduling: {severity: 'info', meaning: 'A Pending claim of a WaitForFirstConsumer class waits for its pod to be scheduled: expected, it binds on the pod\'s node.'},
  VolumeReleasedRetained: {severity: 'warning', meaning: 'A Released volume with reclaimPolicy Retain: its data is kept and nothing will ever happen to it.'},
  VolumeFailed: {severity: 'error', meaning: 'A volume in phase Failed (its status.message says why): the controller will not touch it again.'},
  VolumeClaimRefUidMismatch: {severity: 'warning', meaning: "A volume's claimRef names an existing claim, but with another uid: the claim was recreated and will not get this volume."},
  MultipleDefaultStorageClasses: {severity: 'warning', meaning: 'Several StorageClasses are marked default: the controller gives class-less claims the newest.'},
} as const satisfies Record<string, {severity: Severity; meaning: string}>

export type FindingCode = keyof typeof FINDING_CODES

export interface FindingObject {
  kind: 'PersistentVolumeClaim' | 'PersistentVolume' | 'StorageClass'
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

/** One key per object (kind, namespace, name), as the report counts and silences objects. */
export function objectKey(o: FindingObject): string {
  return `${o.kind}/${o.namespace ?? ''}/${o.name}`
}

/** The object as the audit's outputs name it: pvc/NAMESPACE/NAME, pv/NAME, storageclass/NAME. */
export function objectName(o: FindingObject): string {
  const short = o.kind === 'PersistentVolumeClaim' ? 'pvc' : o.kind === 'PersistentVolume' ? 'pv' : 'storageclass'
  return o.namespace !== undefined ? `${short}/${o.namespace}/${o.name}` : `${short}/${o.name}`
}
