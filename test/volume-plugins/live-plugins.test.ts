// The pods and PVs the live plugins make, as Kubernetes makes them.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import type {WorkloadApi} from '../../src/cluster/workload-api.js'
import {hostPathDeleteRefusal} from '../../src/engine/controller/volume-plugins.js'
import {LiveVolumePlugins} from '../../src/volume-plugins/live-plugins.js'
import {
  hostPathCleanupPod,
  recyclerPod,
  SCRUB_COMMAND,
  timeoutForVolume,
} from '../../src/volume-plugins/pod-templates.js'
import {pv, pvc, sc} from '../engine/builders.js'

const timeouts: Array<{name: string; capacity: string; minimum: number; increment: number; want: number}> = [
  {name: 'below the minimum: the minimum (NFS)', capacity: '1Gi', minimum: 300, increment: 30, want: 300},
  {name: '30 s per GiB above it (NFS, 50Gi)', capacity: '50Gi', minimum: 300, increment: 30, want: 1500},
  {name: 'host-path, 10Gi', capacity: '10Gi', minimum: 60, increment: 30, want: 300},
  {name: 'a fraction of a GiB counts for nothing', capacity: '1536Mi', minimum: 0, increment: 30, want: 30},
]
for (const row of timeouts) {
  test(`CalculateTimeoutForVolume: ${row.name}`, () => {
    assert.equal(timeoutForVolume(row.minimum, row.increment, pv('v', {capacity: row.capacity})), row.want)
  })
}

test('the recycler pod: Kubernetes template, the volume source at /scrub, the deadline', () => {
  const pod = recyclerPod(pv('pv-9'), {nfs: {server: 's', path: '/e', readOnly: false}}, 360)
  assert.equal(pod.metadata.name, 'recycler-for-pv-9')
  assert.equal(pod.metadata.namespace, 'default')
  const spec = pod.spec as Record<string, any>
  assert.equal(spec.activeDeadlineSeconds, 360)
  assert.equal(spec.restartPolicy, 'Never')
  assert.deepEqual(spec.volumes, [{name: 'vol', nfs: {server: 's', path: '/e', readOnly: false}}])
  assert.deepEqual(spec.containers[0].args, ['-c', SCRUB_COMMAND])
  assert.deepEqual(spec.containers[0].volumeMounts, [{name: 'vol', mountPath: '/scrub'}])
})

test('the host-path cleanup pod removes the directory from its mounted parent', () => {
  const pod = hostPathCleanupPod(pv('pv-1'), '/tmp/data/pv-1', 60)
  const spec = pod.spec as Record<string, any>
  assert.deepEqual(spec.volumes, [{name: 'parent', hostPath: {path: '/tmp/data', type: 'Directory'}}])
  assert.match(spec.containers[0].args[1], /rm -rf -- "\/parent\/pv-1"/)
})

const noApi = {} as WorkloadApi
test("host-path delete refuses a path without /tmp/.+ in it, as the in-tree deleter's Delete does", async () => {
  const plugins = new LiveVolumePlugins(noApi)
  for (const path of ['/var/lib/data', '/tmp', '/tmp/', '/tmpfoo/x']) {
    const r = await plugins.delete('kubernetes.io/host-path', pv('v', {source: {hostPath: {path}}}))
    assert.deepEqual(r, {deleteError: `host_path deleter only supports /tmp/.+ but received provided ${path}`})
  }
  // Go's regexp.MatchString("/tmp/.+", path) is not anchored: these pass its check.
  for (const path of ['/tmp/x', '/var/tmp/x', '/data/tmp/pv-1'])
    assert.equal(hostPathDeleteRefusal(pv('v', {source: {hostPath: {path}}})), undefined, path)
})

test('host-path provisioning: the claim size and modes, a path named after the claim, the class policy', async () => {
  const plugins = new LiveVolumePlugins(noApi)
  const claim = pvc('c', 'uid-7', {request: '3Gi', modes: ['ReadWriteOnce']})
  const r = await plugins.provision('kubernetes.io/host-path', {
    pvName: 'pvc-uid-7',
    claim,
    storageClass: {...sc('hp', 'kubernetes.io/host-path'), reclaimPolicy: 'Retain'},
  })
  assert.deepEqual(r.volume?.spec, {
    persistentVolumeReclaimPolicy: 'Retain',
    accessModes: ['ReadWriteOnce'],
    capacity: {storage: '3Gi'},
    hostPath: {path: '/tmp/hostpath_pv/uid-7', type: 'DirectoryOrCreate'},
  })
  const block = await plugins.provision('kubernetes.io/host-path', {
    pvName: 'x',
    claim: pvc('b', 'u', {volumeMode: 'Block'}),
    storageClass: sc('hp', 'kubernetes.io/host-path'),
  })
  assert.match(block.provisionError ?? '', /does not support block volume provisioning/)
})
