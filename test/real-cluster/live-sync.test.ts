// `pvctl sync` against a real kube-apiserver (etcd, validation, the default admission plugins, status
// subresources, real resourceVersions): the bundled example as the API server holds it after its own
// admission, planned with --dry-run (nothing written), written with --yes, and then in sync.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {PersistentVolume, PersistentVolumeClaim} from '../../src/engine/api/model.js'
import type {VolumeOperations} from '../../src/engine/controller/volume-operations.js'
import {reconcile} from '../../src/engine/simulation/reconcile.js'
import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {example, noRealCluster, PVCTL, realCluster, snapshotFile, standInKubelet} from './live.js'

/** Plugins that succeed, as the stand-in kubelet completes every pod. */
const succeeding: VolumeOperations = {
  recycle: () => undefined,
  delete: () => ({}),
  provision: () => ({provisionError: 'no provisioner'}),
}

/** What the controller writes of an object. */
function written(o: PersistentVolume | PersistentVolumeClaim): unknown {
  const ref = o.spec.claimRef as {namespace?: string; name?: string; uid?: string} | undefined
  return {
    name: `${o.metadata.namespace ?? ''}/${o.metadata.name}`,
    annotations: o.metadata.annotations ?? {},
    claimRef: ref ? {namespace: ref.namespace, name: ref.name, uid: ref.uid} : null,
    volumeName: (o.spec as {volumeName?: string}).volumeName ?? null,
    phase: o.status?.phase,
  }
}

test(
  'real kube-apiserver: sync --dry-run writes nothing; --yes reaches the state the simulation predicts; then nothing is left to do',
  {skip: noRealCluster, timeout: 180_000},
  async () => {
    const cluster = realCluster()
    await cluster.fresh(await example('cluster'))
    const before = cluster.writesBy(PVCTL).length
    const dry = await cluster.pvctl('sync', '--dry-run', '-o', 'json')
    assert.equal(dry.code, 1, dry.stderr)
    assert.deepEqual(cluster.writesBy(PVCTL).slice(before), [], 'a dry run writes nothing')

    // The prediction, from the state as the API server holds it (its admission added finalizers, defaults).
    const {state} = await loadSnapshot(await snapshotFile(cluster, 'start.json'))
    const sim = reconcile(state, {gates: defaultFeatureGates, operations: succeeding})
    const stopKubelet = standInKubelet(cluster.api)
    try {
      const run = await cluster.pvctl('sync', '--yes', '-o', 'json')
      assert.equal(run.code, 0, run.stderr)
      const report = JSON.parse(run.stdout) as {actions: Array<{outcome: string}>}
      assert.ok(
        report.actions.length > 0 &&
          report.actions.every((a) => /^(written|executed|conflict-replanned)$/.test(a.outcome)),
        run.stdout,
      )
    } finally {
      await stopKubelet()
    }
    const volumes = (await cluster.api.core.listPersistentVolume()).items as unknown as PersistentVolume[]
    const claims = (await cluster.api.core.listPersistentVolumeClaimForAllNamespaces())
      .items as unknown as PersistentVolumeClaim[]
    const byName = (a: {name: string}, b: {name: string}) => a.name.localeCompare(b.name)
    assert.deepEqual(
      [...volumes, ...claims].map(written).sort(byName as never),
      [...sim.volumes, ...sim.claims].map(written).sort(byName as never),
    )

    const again = await cluster.pvctl('sync', '--dry-run', '-o', 'json')
    assert.equal(again.code, 0, again.stdout)
  },
)

test(
  'real kube-apiserver: its DefaultStorageClass admission writes the default class into a new claim, and pvctl binds it to a volume of that class',
  {skip: noRealCluster, timeout: 60_000},
  async () => {
    const cluster = realCluster()
    await cluster.fresh({
      classes: [
        {
          apiVersion: 'storage.k8s.io/v1',
          kind: 'StorageClass',
          metadata: {name: 'house', annotations: {'storageclass.kubernetes.io/is-default-class': 'true'}},
          provisioner: 'kubernetes.io/no-provisioner',
          volumeBindingMode: 'Immediate',
        },
      ],
      volumes: [
        {
          apiVersion: 'v1',
          kind: 'PersistentVolume',
          metadata: {name: 'pv-house'},
          spec: {
            capacity: {storage: '1Gi'},
            accessModes: ['ReadWriteOnce'],
            storageClassName: 'house',
            persistentVolumeReclaimPolicy: 'Retain',
            hostPath: {path: '/data/pv-house'},
          },
          status: {phase: 'Available'},
        },
      ],
      claims: [
        {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: {name: 'plain', namespace: 'default'},
          spec: {accessModes: ['ReadWriteOnce'], resources: {requests: {storage: '1Gi'}}},
        },
      ],
    })
    assert.equal(
      (await cluster.claim('default', 'plain'))?.spec.storageClassName,
      'house',
      'the admission plugin set the class',
    )
    const run = await cluster.pvctl('sync', '--yes')
    assert.equal(run.code, 0, run.stderr)
    const claim = await cluster.claim('default', 'plain')
    assert.equal(claim?.spec.volumeName, 'pv-house')
    assert.equal(claim?.status?.phase, 'Bound')
    assert.equal((await cluster.volume('pv-house'))?.spec.claimRef?.uid, claim?.metadata.uid)
  },
)
