// A claim of a host-path class, for the in-tree provisioner (--enable-hostpath-provisioner): one-shot sync
// (test/volume-plugins/live-plugins.test.ts) and loop mode (test/loop/loop-plugins.test.ts) provision it alike.
export const HOSTPATH_CLASS = {
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: {name: 'hostpath'},
  provisioner: 'kubernetes.io/host-path',
  reclaimPolicy: 'Delete',
  volumeBindingMode: 'Immediate',
}

export const SCRATCH_CLAIM = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: {name: 'scratch', namespace: 'shop', uid: '11111111-2222-3333-4444-555555555555'},
  spec: {accessModes: ['ReadWriteOnce'], resources: {requests: {storage: '3Gi'}}, storageClassName: 'hostpath'},
}

/** The name the provisioner gives the claim's volume: pvc-<claim uid>. */
export const SCRATCH_VOLUME = `pvc-${SCRATCH_CLAIM.metadata.uid}`
