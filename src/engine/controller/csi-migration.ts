// CSI migration as the controller sees it at the version decided as: csimigration.PluginManager.IsMigrationEnabledForPlugin,
// csi-translation-lib's GetCSINameFromInTreeName, and the two annealing functions of
// pv_controller_base.go (updateMigrationAnnotations, modifyDeletionFinalizers).
import {
  AnnBetaStorageProvisioner,
  AnnDynamicallyProvisioned,
  AnnMigratedTo,
  AnnStorageProvisioner,
  PVDeletionInTreeProtectionFinalizer,
  PVDeletionProtectionFinalizer,
} from '../api/constants.js'
import type {FeatureGates} from '../api/feature-gates.js'
import type {PersistentVolume} from '../api/model.js'
import {hasAnnotation} from '../api/storage-helpers.js'

// In-tree plugin → CSI driver (csi-translation-lib/plugins).
const csiDriverOfInTreePlugin: Readonly<Record<string, string>> = {
  'kubernetes.io/aws-ebs': 'ebs.csi.aws.com',
  'kubernetes.io/gce-pd': 'pd.csi.storage.gke.io',
  'kubernetes.io/azure-file': 'file.csi.azure.com',
  'kubernetes.io/azure-disk': 'disk.csi.azure.com',
  'kubernetes.io/cinder': 'cinder.csi.openstack.org',
  'kubernetes.io/vsphere-volume': 'csi.vsphere.vmware.com',
  'kubernetes.io/portworx-volume': 'pxd.portworx.com',
  'kubernetes.io/rbd': 'rbd.csi.ceph.com',
}

/** What the controller asks of CSI migration (csimigration.PluginManager + the CSI name translator). */
export interface MigrationPolicy {
  isMigrationEnabledForPlugin(pluginName: string): boolean
  getCSINameFromInTreeName(pluginName: string): string | undefined
}

export class CSIMigration implements MigrationPolicy {
  constructor(private readonly gates: FeatureGates) {}

  /**
   * IsMigrationEnabledForPlugin: GA (locked on) for the cloud plugins; gated for Azure File (v1.29, locked
   * on), Portworx (on from v1.31, locked from v1.33, ungated from v1.36) and RBD (deprecated and off; the
   * plugin and its gate are gone from v1.31). A removed gate stands at the value it was removed with.
   */
  isMigrationEnabledForPlugin(pluginName: string): boolean {
    switch (pluginName) {
      case 'kubernetes.io/aws-ebs':
      case 'kubernetes.io/gce-pd':
      case 'kubernetes.io/azure-disk':
      case 'kubernetes.io/cinder':
      case 'kubernetes.io/vsphere-volume':
        return true
      case 'kubernetes.io/azure-file':
        return this.gates.CSIMigrationAzureFile
      case 'kubernetes.io/portworx-volume':
        return this.gates.CSIMigrationPortworx
      case 'kubernetes.io/rbd':
        return this.gates.CSIMigrationRBD
      default:
        return false
    }
  }

  /** GetCSINameFromInTreeName; undefined stands for the Go error "could not find CSI Driver name". */
  getCSINameFromInTreeName(pluginName: string): string | undefined {
    return csiDriverOfInTreePlugin[pluginName]
  }
}

/** What updateMigrationAnnotations does to pv.kubernetes.io/migrated-to: set it to a driver, or remove it. */
export type MigrationAnnotationChange = {op: 'set'; driver: string} | {op: 'remove'}

/**
 * The change updateMigrationAnnotations would make to the annotations, or undefined for none, without
 * making it: the controller asks first and copies the object only when there is a change. Claims read
 * the provisioner from the storage-provisioner annotation (GA, then beta), volumes from provisioned-by.
 */
export function migrationAnnotationChange(
  migration: MigrationPolicy,
  ann: Readonly<Record<string, string>> | null | undefined,
  claim: boolean,
): MigrationAnnotationChange | undefined {
  if (ann == null) {
    // No annotations, so no provisioner and nothing known about migration: no change.
    return undefined
  }
  const provisionerKey = claim ? AnnStorageProvisioner : AnnDynamicallyProvisioned
  let provisioner: string | undefined = Object.prototype.hasOwnProperty.call(ann, provisionerKey)
    ? ann[provisionerKey]
    : undefined
  if (provisioner === undefined) {
    if (claim) {
      provisioner = Object.prototype.hasOwnProperty.call(ann, AnnBetaStorageProvisioner)
        ? ann[AnnBetaStorageProvisioner]
        : undefined
      if (provisioner === undefined) return undefined
    } else {
      // Volume statically provisioned.
      return undefined
    }
  }
  const migratedToDriver = ann[AnnMigratedTo] ?? ''
  if (migration.isMigrationEnabledForPlugin(provisioner)) {
    const csiDriverName = migration.getCSINameFromInTreeName(provisioner)
    if (csiDriverName === undefined) {
      // Migration on but no driver name: the Go code logs and leaves the annotations alone.
      return undefined
    }
    if (migratedToDriver !== csiDriverName) {
      return {op: 'set', driver: csiDriverName}
    } else {
      return undefined
    }
  } else {
    if (migratedToDriver !== '') {
      // The annotation exists but the driver is not migrated (any more): a rollback.
      return {op: 'remove'}
    } else {
      return undefined
    }
  }
}

/**
 * updateMigrationAnnotations: sets or removes pv.kubernetes.io/migrated-to on a copy of the annotations
 * according to the provisioner recorded in them (see migrationAnnotationChange). Mutates `ann` (a copy
 * the caller owns); returns whether it changed.
 */
export function updateMigrationAnnotations(
  migration: MigrationPolicy,
  ann: Record<string, string> | null | undefined,
  claim: boolean,
): boolean {
  if (ann == null) {
    // No annotations so we can't get the provisioner and don't know whether this is migrated - no change.
    return false
  } else {
    const change = migrationAnnotationChange(migration, ann, claim)
    if (change === undefined) return false
    applyMigrationAnnotationChange(ann, change)
    return true
  }
}

/** Makes a change migrationAnnotationChange found, on annotations the caller owns. */
export function applyMigrationAnnotationChange(ann: Record<string, string>, change: MigrationAnnotationChange): void {
  if (change.op === 'set') {
    ann[AnnMigratedTo] = change.driver
  } else {
    // Go's delete(ann, AnnMigratedTo): the annotations are a JSON object, changed in place.
    Reflect.deleteProperty(ann, AnnMigratedTo)
  }
}

/**
 * modifyDeletionFinalizers: the finalizers a dynamically provisioned volume should carry under
 * HonorPVReclaimPolicy — the in-tree finalizer exactly when an in-tree, non-migrated volume has the
 * Delete policy, never the external provisioner's finalizer on such a volume (a migration rollback).
 */
export function modifyDeletionFinalizers(
  migration: MigrationPolicy,
  gates: FeatureGates,
  volume: PersistentVolume,
): {finalizers: string[] | null | undefined; modified: boolean} {
  if (!gates.HonorPVReclaimPolicy) {
    return {finalizers: volume.metadata.finalizers, modified: false}
  }
  if (!hasAnnotation(volume.metadata, AnnDynamicallyProvisioned)) {
    // The deletion protection finalizer is only supported for dynamically provisioned volumes.
    return {finalizers: volume.metadata.finalizers, modified: false}
  }
  let modified = false
  let out: string[] = volume.metadata.finalizers != null ? [...volume.metadata.finalizers] : []
  const provisioner = volume.metadata.annotations?.[AnnDynamicallyProvisioned] ?? ''
  if (migration.isMigrationEnabledForPlugin(provisioner)) {
    // Migration is on: the in-tree finalizer goes, the CSI provisioner owns deletion now.
    if (out.includes(PVDeletionInTreeProtectionFinalizer)) {
      out = removeString(out, PVDeletionInTreeProtectionFinalizer)
      modified = true
    }
    return {finalizers: out, modified}
  }
  if (!provisioner.startsWith('kubernetes.io/')) {
    // Not an in-tree plugin: an external provisioner manages its own finalizer.
    return {finalizers: volume.metadata.finalizers, modified: false}
  }
  const policy = volume.spec.persistentVolumeReclaimPolicy
  if (policy === 'Delete' && !out.includes(PVDeletionInTreeProtectionFinalizer)) {
    out.push(PVDeletionInTreeProtectionFinalizer)
    modified = true
  } else if ((policy === 'Retain' || policy === 'Recycle') && out.includes(PVDeletionInTreeProtectionFinalizer)) {
    // The policy changed away from Delete: the protection no longer applies.
    out = removeString(out, PVDeletionInTreeProtectionFinalizer)
    modified = true
  }
  if (out.includes(PVDeletionProtectionFinalizer)) {
    out = removeString(out, PVDeletionProtectionFinalizer)
    modified = true
  }
  return {finalizers: out, modified}
}

/** slice.RemoveString: every occurrence; nil when nothing is left, as the Go helper returns. */
function removeString(list: string[], s: string): string[] {
  return list.filter((item) => item !== s)
}
