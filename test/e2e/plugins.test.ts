// Volume plugins carried out live against the emulator: a recycler pod scrubs an NFS volume (the test
// plays the kubelet and completes or fails the pod), a host-path volume is deleted through a cleanup
// pod, a claim of a host-path class gets a provisioned, bound volume, and nothing destroys data without
// consent.
import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {loadSnapshot} from '../../src/cluster/snapshot.js'
import type {PersistentVolume, PersistentVolumeClaim} from '../../src/engine/api/model.js'
import {runCli} from '../cli/run-cli.js'
import {type Emulator, startEmulator} from '../emulator/emulator.js'
import {HOSTPATH_CLASS, SCRATCH_CLAIM} from './hostpath-provisioning.js'
import {kubelet} from './kubelet.js'
import {tempDir} from '../temp-dir.js'

const dir = tempDir('plugins')
const {state: example} = await loadSnapshot('examples/cluster.yaml')

async function cluster(extra: object[] = []): Promise<{api: Emulator; kubeconfig: string}> {
  const api = await startEmulator({
    tls: true,
    listItemTypeMeta: false,
    objects: structuredClone([
      ...example.classes,
      ...example.volumes,
      ...example.claims,
      ...example.pods,
      ...example.nodes,
      ...extra,
    ]) as never,
  })
  const kubeconfig = path.join(dir, `kubeconfig-${api.port}.yaml`)
  writeFileSync(kubeconfig, api.kubeconfig())
  return {api, kubeconfig}
}

const pvctl = (kubeconfig: string, ...args: string[]) =>
  runCli(['sync', '--kubeconfig', kubeconfig, ...args], {env: {HOME: dir}})
const volume = (api: Emulator, name: string) => api.get('pv', null, name) as unknown as PersistentVolume | undefined

test('Recycle: a recycler pod scrubs the NFS volume, which is Available again; Delete: a cleanup pod removes the host-path volume', async () => {
  const {api, kubeconfig} = await cluster()
  const pods: string[] = []
  const stop = kubelet(api, 'Succeeded', pods)
  try {
    const run = await pvctl(kubeconfig, '--yes', '-o', 'json')
    assert.equal(run.code, 0, run.stderr)
    const report = JSON.parse(run.stdout)
    const outcome = (action: string, name: string) =>
      report.actions.find(
        (a: {action: string; object: {name: string}}) => a.action === action && a.object.name === name,
      )?.outcome
    assert.equal(outcome('recycle', 'pv-0005'), 'executed')
    assert.equal(outcome('delete', 'pv-0006'), 'executed')
    assert.deepEqual(pods.sort(), ['deleter-for-pv-0006', 'recycler-for-pv-0005'])

    const recycled = volume(api, 'pv-0005')!
    assert.equal(recycled.status?.phase, 'Available')
    assert.equal(recycled.spec.claimRef, undefined)
    assert.equal(volume(api, 'pv-0006'), undefined, 'the deleted volume is gone')
    assert.equal((api.list('pods', 'default') as unknown[]).length, 0, 'the plugin pods were cleaned up')

    const again = await pvctl(kubeconfig, '--dry-run', '-o', 'json')
    assert.equal(again.code, 0, again.stdout)
  } finally {
    stop()
    await api.stop()
  }
})

test('a recycler pod that fails marks the volume Failed with the reason; the next run retries', async () => {
  const {api, kubeconfig} = await cluster()
  const pods: string[] = []
  const stop = kubelet(api, 'Failed', pods)
  try {
    const run = await pvctl(kubeconfig, '--yes', '-o', 'json')
    assert.equal(run.code, 0, run.stderr)
    const failed = volume(api, 'pv-0005')!
    assert.equal(failed.status?.phase, 'Failed')
    assert.match(
      failed.status?.message ?? '',
      /^Recycle failed: pod default\/recycler-for-pv-0005 failed: scrub found files/,
    )
  } finally {
    stop()
    await api.stop()
  }
})

test('with --enable-hostpath-provisioner, a claim of a host-path class gets a provisioned volume, bound to it', async () => {
  const {api, kubeconfig} = await cluster([HOSTPATH_CLASS, SCRATCH_CLAIM])
  const stop = kubelet(api, 'Succeeded', [])
  try {
    const run = await pvctl(kubeconfig, '--yes', '-o', 'json', '--enable-hostpath-provisioner')
    assert.equal(run.code, 0, run.stderr)
    const bound = api.get('pvc', 'shop', 'scratch') as unknown as PersistentVolumeClaim
    const uid = bound.metadata.uid
    const pv = volume(api, `pvc-${uid}`)!
    assert.ok(pv, 'the provisioned volume exists')
    assert.equal(pv.spec.claimRef?.name, 'scratch')
    assert.deepEqual(pv.spec.hostPath, {path: `/tmp/hostpath_pv/${uid}`, type: 'DirectoryOrCreate'})
    assert.equal(pv.metadata.annotations?.['pv.kubernetes.io/provisioned-by'], 'kubernetes.io/host-path')
    // The controller's finalizer, and the API server's admission's (StorageObjectInUseProtection).
    assert.deepEqual(pv.metadata.finalizers, ['kubernetes.io/pv-controller', 'kubernetes.io/pv-protection'])
    assert.equal(bound.spec.volumeName, `pvc-${uid}`)
    assert.equal(bound.status?.phase, 'Bound')
  } finally {
    stop()
    await api.stop()
  }
})

test('without consent nothing is recycled or deleted', async () => {
  const {api, kubeconfig} = await cluster()
  try {
    const run = await pvctl(kubeconfig)
    assert.equal(run.code, 2)
    assert.match(run.stderr, /refusing to write without confirmation/)
    assert.equal(api.countWrites({resource: 'pods'}), 0)
    assert.equal(volume(api, 'pv-0006')?.status?.phase, 'Bound')
  } finally {
    await api.stop()
  }
})

test('--recycler-pod-template replaces the recycler pod, not the volume it scrubs', async () => {
  const {api, kubeconfig} = await cluster()
  const pods: Array<{
    metadata: {name: string}
    spec: {containers: Array<{image: string}>; volumes: Array<Record<string, unknown>>}
  }> = []
  const stop = kubelet(api, 'Succeeded', [], (pod) => pods.push(pod as never))
  try {
    const template = path.join(dir, 'recycler.yaml')
    writeFileSync(
      template,
      `apiVersion: v1\nkind: Pod\nmetadata: {name: ignored, namespace: scrubbers}\nspec:\n  restartPolicy: Never\n  volumes: [{name: vol}]\n  containers:\n  - {name: scrub, image: registry.example.internal/scrubber:2, command: [/scrub.sh], volumeMounts: [{name: vol, mountPath: /scrub}]}\n`,
    )
    const run = await pvctl(kubeconfig, '--yes', '--recycler-pod-template', template, '-o', 'json')
    assert.equal(run.code, 0, run.stderr)
    const recycler = pods.find((p) => p.metadata.name === 'recycler-for-pv-0005')
    assert.ok(recycler, JSON.stringify(pods.map((p) => p.metadata.name)))
    assert.equal(recycler.spec.containers[0].image, 'registry.example.internal/scrubber:2')
    assert.deepEqual(recycler.spec.volumes[0], {
      name: 'vol',
      nfs: {server: 'nfs.example.internal', path: '/exports/media', readOnly: false},
    })
  } finally {
    stop()
    await api.stop()
  }
})

test('a Delete volume of an external provisioner is left Released for it, and no pod touches it', async () => {
  const external = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {name: 'pv-ebs', annotations: {'pv.kubernetes.io/provisioned-by': 'ebs.csi.aws.com'}},
    spec: {
      capacity: {storage: '4Gi'},
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Delete',
      csi: {driver: 'ebs.csi.aws.com', volumeHandle: 'vol-0abc'},
      claimRef: {namespace: 'shop', name: 'gone', uid: 'u-gone', kind: 'PersistentVolumeClaim', apiVersion: 'v1'},
    },
    status: {phase: 'Bound'},
  }
  const {api, kubeconfig} = await cluster([external])
  const pods: string[] = []
  const stop = kubelet(api, 'Succeeded', pods)
  try {
    const run = await pvctl(kubeconfig, '--yes', '-o', 'json')
    assert.equal(run.code, 0, run.stderr)
    assert.equal(volume(api, 'pv-ebs')?.status?.phase, 'Released')
    assert.ok(!pods.some((p) => p.endsWith('pv-ebs')))
    const report = JSON.parse(run.stdout)
    assert.deepEqual(
      report.actions
        .filter((a: {object: {name: string}}) => a.object.name === 'pv-ebs')
        .map((a: {action: string}) => a.action),
      ['set-volume-phase'],
    )
  } finally {
    stop()
    await api.stop()
  }
})

const localVolume = {
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: {name: 'pv-local'},
  spec: {
    capacity: {storage: '100Gi'},
    accessModes: ['ReadWriteOnce'],
    persistentVolumeReclaimPolicy: 'Delete',
    storageClassName: 'local',
    local: {path: '/mnt/disks/ssd1'},
    nodeAffinity: {
      required: {
        nodeSelectorTerms: [{matchExpressions: [{key: 'kubernetes.io/hostname', operator: 'In', values: ['node-a']}]}],
      },
    },
    claimRef: {namespace: 'shop', name: 'gone', uid: 'u-gone-local', kind: 'PersistentVolumeClaim', apiVersion: 'v1'},
  },
  status: {phase: 'Bound'},
}

test('a local Delete volume: Failed as in a cluster by default; with --local-volume-deleter a pod on its node empties it', async () => {
  for (const withDeleter of [false, true]) {
    const {api, kubeconfig} = await cluster([localVolume])
    const pods: Array<{metadata: {name: string}; spec: Record<string, any>}> = []
    const stop = kubelet(api, 'Succeeded', [], (pod) => pods.push(pod as never))
    try {
      const run = await pvctl(kubeconfig, '--yes', '-o', 'json', ...(withDeleter ? ['--local-volume-deleter'] : []))
      assert.equal(run.code, 0, run.stderr)
      if (!withDeleter) {
        assert.equal(volume(api, 'pv-local')?.status?.phase, 'Failed')
        assert.match(volume(api, 'pv-local')?.status?.message ?? '', /no volume plugin matched/)
      } else {
        assert.equal(volume(api, 'pv-local'), undefined, 'deleted')
        const pod = pods.find((p) => p.metadata.name === 'deleter-for-pv-local')!
        assert.deepEqual(
          pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution,
          localVolume.spec.nodeAffinity.required,
        )
        assert.deepEqual(pod.spec.volumes, [{name: 'vol', hostPath: {path: '/mnt/disks/ssd1', type: 'Directory'}}])
      }
    } finally {
      stop()
      await api.stop()
    }
  }
})
