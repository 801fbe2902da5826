// Loop mode carries the volume plugins out, as kube-controller-manager does: a Released volume of the
// Recycle policy is scrubbed by a recycler pod and made Available, one of the Delete policy is removed by
// a cleanup pod. The operation runs in the background (the seed's goroutine): the volume worker goes on
// meanwhile, and no sync starts the same operation again while it runs. The test plays the kubelet.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {HOSTPATH_CLASS, SCRATCH_CLAIM, SCRATCH_VOLUME} from '../e2e/hostpath-provisioning.js'
import {kubelet} from '../e2e/kubelet.js'
import {cluster, FAST, getClaim, getVolume, Pvctl, waitFor} from './loop-harness.js'

const DISABLED = '--controllers=*,-persistentvolume-binder-controller'
const {state: example} = await loadSnapshot('examples/cluster.yaml')
const exampleObjects = [...example.classes, ...example.volumes, ...example.claims, ...example.pods, ...example.nodes]

const pluginPods = (api: {list(resource: string): unknown[]}) =>
  (api.list('pods') as Array<{metadata: {name: string}}>)
    .map((p) => p.metadata.name)
    .filter((n) => /^(recycler|deleter)-for-/.test(n))
    .sort()

interface AuditLine {
  action: string
  object: {name: string}
  outcome: string
}

test('--watch --yes: the recycle and the delete run side by side in the background, each once, then their follow-up writes', async () => {
  const {api, kubeconfig} = await cluster(exampleObjects)
  const pvctl = new Pvctl(kubeconfig(), [
    '--watch',
    '--yes',
    DISABLED,
    '--resync',
    '300ms',
    ...FAST,
    '-o',
    'json',
    '--metrics-bind-address',
    '127.0.0.1:0',
    '-v',
    '4',
  ])
  let stopKubelet = () => {}
  try {
    // No kubelet yet: both pods wait. Had the first operation held the volume worker, the second volume's
    // sync (pv-0006, after pv-0005) would not have started its pod.
    await waitFor('both plugin pods', () => pluginPods(api).length === 2 || undefined, 20_000)
    assert.deepEqual(pluginPods(api), ['deleter-for-pv-0006', 'recycler-for-pv-0005'])
    // Three resyncs meanwhile sync both volumes again: the operations are running, neither starts twice.
    // (The resyncs start 300 ms apart, after the previous one ended: the pods wait at least 600 ms.)
    const third = await pvctl.resyncs(3)
    await pvctl.lineAt(/"Synced" sync="pv\/pv-0005"/, {from: third})
    await pvctl.lineAt(/"Synced" sync="pv\/pv-0006"/, {from: third})
    assert.equal(
      api.countRequests({verb: 'create', resource: 'pods'}),
      2,
      `each pod created once:\n${pvctl.out.join('\n')}\n${pvctl.err.join('\n')}`,
    )

    const seen: string[] = []
    stopKubelet = kubelet(api, 'Succeeded', seen)
    await waitFor(
      'pv-0005 recycled',
      () => getVolume(api, 'pv-0005')?.status?.phase === 'Available' || undefined,
      20_000,
    )
    assert.equal(getVolume(api, 'pv-0005')!.spec.claimRef, undefined)
    await waitFor('pv-0006 deleted', () => getVolume(api, 'pv-0006') === undefined || undefined, 20_000)
    await waitFor('the pods cleaned up', () => pluginPods(api).length === 0 || undefined, 20_000)
    // The audit line of an operation comes when its sync ends, after its follow-up writes.
    await pvctl.line(/"action":"recycle".*"outcome":"executed"/, {stream: 'out', timeoutMs: 20_000})
    await pvctl.line(/"action":"delete".*"outcome":"executed"/, {stream: 'out', timeoutMs: 20_000})
    const audit = pvctl.out.map((l) => JSON.parse(l) as AuditLine)
    const outcome = (action: string, name: string) =>
      audit.filter((a) => a.action === action && a.object.name === name).map((a) => a.outcome)
    const shown = `${pvctl.out.join('\n')}\n${pvctl.err.join('\n')}`
    assert.deepEqual(outcome('recycle', 'pv-0005'), ['executed'], shown)
    assert.deepEqual(outcome('delete', 'pv-0006'), ['executed'], shown)
    assert.deepEqual(seen.sort(), ['deleter-for-pv-0006', 'recycler-for-pv-0005'])
    // volume_operation_total_seconds of the delete counts from its start, the cleanup pod's wait included:
    // at least the two resync periods between the first and the third resync the pod waited through.
    const address = (/address="([^"]+)"/.exec(await pvctl.line(/Serving metrics/)) ?? [])[1]
    const sum = await waitFor('the delete in the metrics', async () => {
      const m = /^volume_operation_total_seconds_sum\{plugin_name="[^"]*",operation_name="delete"\} (\S+)$/m.exec(
        await (await fetch(`http://${address}/metrics`)).text(),
      )
      return m === null ? undefined : Number(m[1])
    })
    assert.ok(sum >= 2 * 0.3, `the delete took ${sum} s, but its pod waited through three resyncs 300 ms apart`)
  } finally {
    stopKubelet()
    await pvctl.stop()
    await api.stop()
  }
})

test('SIGTERM while a recycler pod runs: pvctl stops at once, leaving the pod for the next run to adopt', async () => {
  const {api, kubeconfig} = await cluster(exampleObjects)
  const pvctl = new Pvctl(kubeconfig(), ['--watch', '--yes', DISABLED, ...FAST, '-o', 'json'])
  try {
    await waitFor('the recycler pod', () => pluginPods(api).includes('recycler-for-pv-0005') || undefined)
    // No kubelet runs the pod: pvctl exits only because it stops waiting for it, and says so.
    pvctl.kill('SIGTERM')
    assert.equal(await pvctl.exited, 0, pvctl.err.join('\n'))
    const audit = pvctl.out.map((l) => JSON.parse(l) as AuditLine)
    assert.match(audit.find((a) => a.action === 'recycle')?.outcome ?? '', /^not-executed: interrupted/)
    assert.ok(pluginPods(api).includes('recycler-for-pv-0005'), 'the pod is left running')
    assert.equal(getVolume(api, 'pv-0005')?.status?.phase, 'Released', 'nothing written after the interruption')
  } finally {
    await pvctl.stop()
    await api.stop()
  }
})

test('--watch --dry-run plans the operations and starts no pod', async () => {
  const {api, kubeconfig} = await cluster(exampleObjects)
  const pvctl = new Pvctl(kubeconfig(), ['--watch', '--dry-run', '--resync', '300ms', ...FAST, '-o', 'json', '-v', '4'])
  try {
    await pvctl.line(/"action":"recycle".*"outcome":"planned"/, {stream: 'out'})
    await pvctl.line(/"action":"delete".*"outcome":"planned"/, {stream: 'out'})
    // Two resyncs plan both volumes again: still no pod.
    const second = await pvctl.resyncs(2)
    await pvctl.lineAt(/"Synced \(planned only\)" sync="pv\/pv-0005"/, {from: second})
    await pvctl.lineAt(/"Synced \(planned only\)" sync="pv\/pv-0006"/, {from: second})
    assert.equal(api.countRequests({verb: 'create', resource: 'pods'}), 0)
  } finally {
    await pvctl.stop()
    await api.stop()
  }
})

test('--interval --yes: each pass carries the operations out, as one-shot sync does', async () => {
  const {api, kubeconfig} = await cluster(exampleObjects)
  const seen: string[] = []
  const stopKubelet = kubelet(api, 'Succeeded', seen)
  const pvctl = new Pvctl(kubeconfig(), ['--interval', '500ms', '--yes', DISABLED, ...FAST, '-o', 'json'])
  try {
    await waitFor('pv-0005 recycled', () => getVolume(api, 'pv-0005')?.status?.phase === 'Available' || undefined)
    await waitFor('pv-0006 deleted', () => getVolume(api, 'pv-0006') === undefined || undefined)
    assert.deepEqual(seen.sort(), ['deleter-for-pv-0006', 'recycler-for-pv-0005'])
  } finally {
    stopKubelet()
    await pvctl.stop()
    await api.stop()
  }
})

test('--watch --yes --enable-hostpath-provisioner: a claim of a host-path class gets a provisioned volume, bound to it', async () => {
  const {api, kubeconfig} = await cluster([HOSTPATH_CLASS, SCRATCH_CLAIM])
  const pvctl = new Pvctl(kubeconfig(), [
    '--watch',
    '--yes',
    DISABLED,
    '--enable-hostpath-provisioner',
    '--resync',
    '300ms',
    ...FAST,
    '-o',
    'json',
    '-v',
    '4',
  ])
  try {
    const name = SCRATCH_VOLUME
    await waitFor(
      'the claim bound to its provisioned volume',
      () => getClaim(api, 'shop', 'scratch')?.status?.phase === 'Bound' || undefined,
      20_000,
    )
    assert.equal(getClaim(api, 'shop', 'scratch')!.spec.volumeName, name)
    const pv = getVolume(api, name)!
    assert.equal(pv.spec.claimRef?.name, 'scratch')
    assert.equal(pv.metadata.annotations?.['pv.kubernetes.io/provisioned-by'], 'kubernetes.io/host-path')
    // Provisioned once, whatever the resyncs meanwhile.
    const second = await pvctl.resyncs(2)
    await pvctl.lineAt(/"Synced" sync="pvc\/shop\/scratch"/, {from: second})
    assert.equal(api.countRequests({verb: 'create', resource: 'persistentvolumes'}), 1)
  } finally {
    await pvctl.stop()
    await api.stop()
  }
})
