// The admission plugins and protection controllers the emulator plays (admission.ts), pinned against the
// real thing: the same rows run against the emulator and, under `npm run test:real-cluster`, against a
// real kube-apiserver whose kube-controller-manager runs the protection controllers.
import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, test} from 'node:test'

import * as k8s from '@kubernetes/client-node'

import {noRealCluster, realCluster} from '../real-cluster/live.js'
import {type ApiClients, clients, wipe} from '../real-cluster/seed.js'
import {tempDir} from '../temp-dir.js'
import {startEmulator} from './emulator.js'

const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch)

interface Target {
  api: ApiClients
  stop(): Promise<void>
}

async function emulator(): Promise<Target> {
  const api = await startEmulator({tls: true, listItemTypeMeta: false})
  const file = path.join(tempDir('admission'), 'kubeconfig.yaml')
  writeFileSync(file, api.kubeconfig())
  return {api: clients(file), stop: () => api.stop()}
}

async function real(): Promise<Target> {
  const cluster = realCluster()
  await wipe(cluster.api)
  return {api: cluster.api, stop: async () => wipe(cluster.api)}
}

const claim = (name: string, spec: Record<string, unknown> = {}, annotations?: Record<string, string>) => ({
  metadata: {name, ...(annotations ? {annotations} : {})},
  spec: {accessModes: ['ReadWriteOnce'], resources: {requests: {storage: '1Gi'}}, ...spec},
})
const volume = (name: string) => ({
  metadata: {name},
  spec: {capacity: {storage: '1Gi'}, accessModes: ['ReadWriteOnce'], hostPath: {path: `/data/${name}`}},
})

/** Until the object is gone (a controller acts in its own time in a cluster); false after 30 s. */
async function gone(read: () => Promise<unknown>): Promise<boolean> {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    const exists = await read().then(
      () => true,
      (e: unknown) => {
        if (e instanceof k8s.ApiException && e.code === 404) return false
        throw e
      },
    )
    if (!exists) return true
    await new Promise((r) => setTimeout(r, 100))
  }
  return false
}

/** An object's creationTimestamp as the server stamped it, in ms (client-node reads it as a Date). */
const stamp = (o: {metadata?: {creationTimestamp?: Date}}): number => o.metadata?.creationTimestamp?.getTime() ?? 0

const targets: Array<{name: string; start: () => Promise<Target>; skip: string | false}> = [
  {name: 'the emulator', start: emulator, skip: false},
  {name: 'a real kube-apiserver', start: real, skip: noRealCluster},
]

for (const target of targets) {
  describe(`admission and protection, on ${target.name}`, {skip: target.skip}, () => {
    test(
      'DefaultStorageClass: a claim with no class gets the newest default class; an explicit class, "" or the beta annotation stay',
      {timeout: 60_000},
      async () => {
        const {api, stop} = await target.start()
        try {
          const created = (name: string) =>
            api.storage.createStorageClass({
              body: {
                metadata: {name, annotations: {'storageclass.kubernetes.io/is-default-class': 'true'}},
                provisioner: 'kubernetes.io/no-provisioner',
              },
            })
          const older = await created('older')
          // creationTimestamp has seconds precision: the newer class must be stamped a second later by the
          // server's clock. Created until the server says so (a class of the same second is taken back).
          for (;;) {
            const newer = await created('newer')
            if (stamp(newer) > stamp(older)) break
            await api.storage.deleteStorageClass({name: 'newer'})
            await new Promise((r) => setTimeout(r, 50))
          }
          await api.core.createNamespacedPersistentVolumeClaim({namespace: 'default', body: claim('plain')})
          await api.core.createNamespacedPersistentVolumeClaim({
            namespace: 'default',
            body: claim('none', {storageClassName: ''}),
          })
          await api.core.createNamespacedPersistentVolumeClaim({
            namespace: 'default',
            body: claim('beta', {}, {'volume.beta.kubernetes.io/storage-class': 'older'}),
          })
          const classOf = async (name: string) =>
            (await api.core.readNamespacedPersistentVolumeClaim({namespace: 'default', name})).spec?.storageClassName
          assert.equal(await classOf('plain'), 'newer')
          assert.equal(await classOf('none'), '')
          assert.equal(await classOf('beta'), undefined)
        } finally {
          await stop()
        }
      },
    )

    test(
      'StorageObjectInUseProtection: a created volume and claim carry their protection finalizers; deleted while unused, they go',
      {timeout: 60_000},
      async () => {
        const {api, stop} = await target.start()
        try {
          const pv = await api.core.createPersistentVolume({body: volume('pv-p')})
          const pvc = await api.core.createNamespacedPersistentVolumeClaim({
            namespace: 'default',
            body: claim('c-p', {storageClassName: ''}),
          })
          assert.deepEqual(pv.metadata?.finalizers, ['kubernetes.io/pv-protection'])
          assert.deepEqual(pvc.metadata?.finalizers, ['kubernetes.io/pvc-protection'])
          await api.core.deletePersistentVolume({name: 'pv-p'})
          await api.core.deleteNamespacedPersistentVolumeClaim({namespace: 'default', name: 'c-p'})
          assert.ok(await gone(() => api.core.readPersistentVolume({name: 'pv-p'})), 'the unbound volume went')
          assert.ok(
            await gone(() => api.core.readNamespacedPersistentVolumeClaim({namespace: 'default', name: 'c-p'})),
            'the unused claim went',
          )
        } finally {
          await stop()
        }
      },
    )

    test(
      'a Bound volume being deleted stays (Terminating) until it is no longer Bound',
      {timeout: 60_000},
      async () => {
        const {api, stop} = await target.start()
        try {
          await api.core.createPersistentVolume({body: volume('pv-b')})
          await api.core.patchPersistentVolumeStatus({name: 'pv-b', body: {status: {phase: 'Bound'}}}, mergePatch)
          const marked = await api.core.deletePersistentVolume({name: 'pv-b'})
          assert.ok(
            (marked as {metadata?: {deletionTimestamp?: unknown}}).metadata?.deletionTimestamp,
            'marked for deletion',
          )
          const held = await api.core.readPersistentVolume({name: 'pv-b'})
          assert.deepEqual(held.metadata?.finalizers, ['kubernetes.io/pv-protection'])
          await api.core.patchPersistentVolumeStatus({name: 'pv-b', body: {status: {phase: 'Released'}}}, mergePatch)
          assert.ok(await gone(() => api.core.readPersistentVolume({name: 'pv-b'})), 'released, it went')
        } finally {
          await stop()
        }
      },
    )
  })
}
