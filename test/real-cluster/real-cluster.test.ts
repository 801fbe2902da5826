// The end-to-end scenarios against a REAL cluster, opt-in: set PVCTL_E2E_KUBECONFIG to a kubeconfig
// (its current context is used) and run `npm run test:any-cluster`. Everything is created in a namespace, a
// StorageClass and PersistentVolumes of this run's own (labelled pvctl-e2e=<run>), pvctl is scoped to
// that label, and everything is deleted afterwards. The cluster's own PV controller may bind the
// objects before pvctl does: the scenarios assert convergence and agreement, not who wrote first.
import assert from 'node:assert/strict'
import {randomBytes} from 'node:crypto'
import {test} from 'node:test'

import {runCli} from '../cli/run-cli.js'

const kubeconfig = process.env.PVCTL_E2E_KUBECONFIG

if (kubeconfig === undefined || kubeconfig === '') {
  test(
    'real cluster end-to-end',
    {skip: 'PVCTL_E2E_KUBECONFIG is not set: the real-cluster suite did not run (set it to a kubeconfig to run it)'},
    () => {},
  )
} else {
  const k8s = await import('@kubernetes/client-node')
  const kc = new k8s.KubeConfig()
  kc.loadFromFile(kubeconfig)
  const core = kc.makeApiClient(k8s.CoreV1Api)
  const storage = kc.makeApiClient(k8s.StorageV1Api)
  const run = randomBytes(4).toString('hex')
  const ns = `pvctl-e2e-${run}`
  const klass = `pvctl-e2e-${run}`
  const labels = {'pvctl-e2e': run}
  const pvctl = (...args: string[]) => runCli(['sync', '--kubeconfig', kubeconfig, '-l', `pvctl-e2e=${run}`, ...args])

  const pv = (name: string, size: string, claimRef?: {name: string}) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {name: `${name}-${run}`, labels},
    spec: {
      capacity: {storage: size},
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: klass,
      hostPath: {path: `/tmp/pvctl-e2e-${run}-${name}`},
      ...(claimRef ? {claimRef: {namespace: ns, name: claimRef.name}} : {}),
    },
  })
  const pvc = (name: string, size: string) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {name, namespace: ns, labels},
    spec: {accessModes: ['ReadWriteOnce'], storageClassName: klass, resources: {requests: {storage: size}}},
  })

  test('real cluster: claims bind, pvctl agrees, and a second run has nothing to do', {timeout: 180_000}, async (t) => {
    t.after(async () => {
      for (const name of ['data', 'pinned'])
        await core.deleteNamespacedPersistentVolumeClaim({name, namespace: ns}).catch(() => {})
      for (const name of ['small', 'big', 'reserved'])
        await core.deletePersistentVolume({name: `${name}-${run}`}).catch(() => {})
      await storage.deleteStorageClass({name: klass}).catch(() => {})
      await core.deleteNamespace({name: ns}).catch(() => {})
    })
    await core.createNamespace({body: {metadata: {name: ns, labels}}})
    await storage.createStorageClass({
      body: {
        metadata: {name: klass, labels},
        provisioner: 'kubernetes.io/no-provisioner',
        volumeBindingMode: 'Immediate',
        reclaimPolicy: 'Retain',
      },
    })
    await core.createPersistentVolume({body: pv('small', '1Gi') as never})
    await core.createPersistentVolume({body: pv('big', '5Gi') as never})
    await core.createPersistentVolume({body: pv('reserved', '2Gi', {name: 'pinned'}) as never})
    await core.createNamespacedPersistentVolumeClaim({namespace: ns, body: pvc('data', '1Gi') as never})
    await core.createNamespacedPersistentVolumeClaim({namespace: ns, body: pvc('pinned', '1Gi') as never})

    const write = await pvctl('--yes', '-o', 'json')
    assert.ok(write.code === 0, `pvctl sync --yes: exit ${write.code}: ${write.stderr}`)

    // Whoever bound them (pvctl or the cluster's controller), the result is the controller's.
    let audit = await pvctl('--dry-run', '-o', 'json')
    for (let i = 0; i < 30 && audit.code !== 0; i++) {
      await new Promise((r) => setTimeout(r, 2000))
      audit = await pvctl('--dry-run', '-o', 'json')
    }
    assert.equal(audit.code, 0, audit.stdout)
    const data = await core.readNamespacedPersistentVolumeClaim({name: 'data', namespace: ns})
    const pinned = await core.readNamespacedPersistentVolumeClaim({name: 'pinned', namespace: ns})
    assert.equal(data.spec?.volumeName, `small-${run}`, 'the smallest matching volume')
    assert.equal(pinned.spec?.volumeName, `reserved-${run}`, 'the volume pre-bound to it')
    assert.equal(data.status?.phase, 'Bound')
    assert.equal(pinned.status?.phase, 'Bound')
  })
}
