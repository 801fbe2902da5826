// Annotation keys, finalizers and event reasons the PV controller uses, with their Go names so one grep
// finds them in both codebases (k8s.io/component-helpers/storage/volume, pkg/controller/volume/events).

/** AnnBindCompleted: the controller finished binding the claim (set on the claim). */
export const AnnBindCompleted = 'pv.kubernetes.io/bind-completed'
/** AnnBoundByController: the binding was made by the controller, not pre-bound by a user. */
export const AnnBoundByController = 'pv.kubernetes.io/bound-by-controller'
/** AnnSelectedNode: the scheduler picked a node and asks for provisioning there. */
export const AnnSelectedNode = 'volume.kubernetes.io/selected-node'
/** AnnDynamicallyProvisioned: the plugin that provisioned the volume. */
export const AnnDynamicallyProvisioned = 'pv.kubernetes.io/provisioned-by'
/** AnnMigratedTo: the CSI driver an in-tree volume or claim is migrated to. */
export const AnnMigratedTo = 'pv.kubernetes.io/migrated-to'
/** AnnStorageProvisioner: the provisioner the claim waits for (GA key). */
export const AnnStorageProvisioner = 'volume.kubernetes.io/storage-provisioner'
/** AnnBetaStorageProvisioner: the same, beta key, still written by v1.31. */
export const AnnBetaStorageProvisioner = 'volume.beta.kubernetes.io/storage-provisioner'
/** v1.BetaStorageClassAnnotation: takes precedence over spec.storageClassName. */
export const BetaStorageClassAnnotation = 'volume.beta.kubernetes.io/storage-class'
/** util.AnnPreResizeCapacity: the capacity to report on the claim while a filesystem resize is pending. */
export const AnnPreResizeCapacity = 'volume.alpha.kubernetes.io/pre-resize-capacity'
/** storageutil.IsDefaultStorageClassAnnotation and its beta form. */
export const IsDefaultStorageClassAnnotation = 'storageclass.kubernetes.io/is-default-class'
export const BetaIsDefaultStorageClassAnnotation = 'storageclass.beta.kubernetes.io/is-default-class'

/**
 * The labels a backup tool puts on every object it restores, each naming the restore: Velero's (OpenShift's
 * OADP restores through Velero). A claim that carries one was restored, not created anew.
 */
export const VeleroRestoreNameLabel = 'velero.io/restore-name'
export const RestoreLabels: readonly string[] = [VeleroRestoreNameLabel]

/** PVDeletionProtectionFinalizer: added by external provisioners. */
export const PVDeletionProtectionFinalizer = 'external-provisioner.volume.kubernetes.io/finalizer'
/** PVDeletionInTreeProtectionFinalizer: added by this controller to dynamically provisioned in-tree volumes. */
export const PVDeletionInTreeProtectionFinalizer = 'kubernetes.io/pv-controller'

/** The provisioner name of classes whose volumes are created statically (local volumes). */
export const NotSupportedProvisioner = 'kubernetes.io/no-provisioner'

/** Event reasons (pkg/controller/volume/events). */
export const Events = {
  FailedBinding: 'FailedBinding',
  VolumeMismatch: 'VolumeMismatch',
  VolumeFailedRecycle: 'VolumeFailedRecycle',
  VolumeRecycled: 'VolumeRecycled',
  RecyclerPod: 'RecyclerPod',
  VolumeDelete: 'VolumeDelete',
  VolumeFailedDelete: 'VolumeFailedDelete',
  ExternalProvisioning: 'ExternalProvisioning',
  ProvisioningFailed: 'ProvisioningFailed',
  ProvisioningCleanupFailed: 'ProvisioningCleanupFailed',
  ProvisioningSucceeded: 'ProvisioningSucceeded',
  WaitForFirstConsumer: 'WaitForFirstConsumer',
  WaitForPodScheduled: 'WaitForPodScheduled',
  ClaimLost: 'ClaimLost',
  ClaimMisbound: 'ClaimMisbound',
  VolumeUnknownReclaimPolicy: 'VolumeUnknownReclaimPolicy',
} as const
