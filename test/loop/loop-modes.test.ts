// Loop mode's other faces against the emulator: the dry-run audit stream, the refusal to write next to a
// live kube-controller-manager, the operability endpoints, --interval, JSON logs, and usage errors.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {microTime} from '../../src/loop/client-go/leader-election.js'
import {LoopMetrics} from '../../src/loop/loop-metrics.js'
import {defaultGatesAt} from '../../src/engine/api/feature-gates.js'
import {runCli} from '../cli/run-cli.js'
import {binderWrites, claim, cluster, dir, FAST, getClaim, Pvctl, volume, waitFor} from './loop-harness.js'

const DISABLED = '--controllers=*,-persistentvolume-binder-controller'
const {state: example} = await loadSnapshot('examples/cluster.yaml')
const exampleObjects = [...example.classes, ...example.volumes, ...example.claims, ...example.pods, ...example.nodes]

function kcmLease(renewed: Date, seconds: number): unknown {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {name: 'kube-controller-manager', namespace: 'kube-system'},
    spec: {
      holderIdentity: 'control-plane-0_5e1c',
      leaseDurationSeconds: seconds,
      acquireTime: microTime(renewed),
      renewTime: microTime(renewed),
    },
  }
}

test('--watch --dry-run writes nothing and streams each planned action once, as JSON lines', async () => {
  const {api, kubeconfig} = await cluster(exampleObjects)
  const pvctl = new Pvctl(kubeconfig(), ['--watch', '--dry-run', '--resync', '300ms', ...FAST, '-o', 'json', '-v', '4'])
  try {
    await pvctl.line(/Caches are synced/)
    // Several resyncs: every object is synced again, and the same plan is not printed again.
    await pvctl.line(/Resyncing PV controller/)
    const resyncs = () => pvctl.err.filter((l) => /"Resyncing PV controller"/.test(l)).length
    await waitFor('three resyncs', () => resyncs() >= 3, 5000)
    const lines = pvctl.out.map(
      (l) => JSON.parse(l) as {action: string; object: {name: string}; outcome: string; sync: string; time: string},
    )
    assert.ok(lines.length > 0 && lines.every((l) => l.outcome === 'planned' && typeof l.time === 'string'))
    const keys = lines.map((l) => `${l.sync} ${l.action} ${l.object.name}`)
    assert.equal(new Set(keys).size, keys.length, `no repeats:\n${keys.join('\n')}`)
    assert.ok(keys.includes('pvc/shop/orders bind-claim orders'), 'the bind the one-shot dry run plans too')
    assert.ok(keys.includes('pv/pv-0005 recycle pv-0005'))
    assert.equal(binderWrites(api), 0)
    assert.equal(api.countWrites({resource: 'leases'}), 0)
    // A change is news: the claim's plan changes, and is printed.
    const before = pvctl.out.length
    api.create(claim('shop', 'fresh', {storage: '1Gi', className: 'standard'}) as never)
    await waitFor(
      "the new claim's plan",
      () => pvctl.out.slice(before).some((l) => /"sync":"pvc\/shop\/fresh"/.test(l)) || undefined,
    )
  } finally {
    await pvctl.stop()
    await api.stop()
  }
})

test('a live kube-controller-manager Lease: no writes, an audit stream, and why; once it expires, pvctl writes', async () => {
  // 8 s: pvctl must start (and judge the Lease live) before it expires, on a machine also busy with other tests.
  const {api, kubeconfig} = await cluster([volume('pv-a'), claim('app', 'data'), kcmLease(new Date(), 8)])
  const pvctl = new Pvctl(kubeconfig(), ['--watch', '--yes', '--resync', '500ms', ...FAST])
  try {
    const why = await pvctl.line(/Not writing: running as an audit stream/)
    assert.match(
      why,
      /kube-controller-manager is running \(Lease kube-system\/kube-controller-manager held by control-plane-0_5e1c\)/,
    )
    assert.match(why, /--controllers=\*,-persistentvolume-binder-controller/)
    await pvctl.line(/bind-claim/, {stream: 'out'})
    assert.ok(
      pvctl.out.every((l) => /\bplanned\b/.test(l)),
      pvctl.out.join('\n'),
    )
    assert.equal(binderWrites(api), 0, 'nothing written while kube-controller-manager may bind')
    // The Lease is not renewed: at a resync after it expires, pvctl becomes the binder.
    await pvctl.line(/Writing as the PersistentVolume binder.*has expired/, {timeoutMs: 12000})
    await waitFor('the claim to be bound', () => getClaim(api, 'app', 'data')?.status?.phase === 'Bound', 5000)
  } finally {
    await pvctl.stop()
    await api.stop()
  }
})

test('--controllers disabling the built-in binder: pvctl writes next to a live kube-controller-manager', async () => {
  const {api, kubeconfig} = await cluster([volume('pv-a'), claim('app', 'data'), kcmLease(new Date(), 3600)])
  const pvctl = new Pvctl(kubeconfig(), ['--watch', '--yes', DISABLED, ...FAST])
  try {
    await pvctl.line(/Writing as the PersistentVolume binder.*--controllers says/)
    await waitFor('the claim to be bound', () => getClaim(api, 'app', 'data')?.status?.phase === 'Bound')
    assert.equal(api.countRequests({resource: 'leases'}), 0, 'the Lease is not even read')
  } finally {
    await pvctl.stop()
    await api.stop()
  }
})

test("/metrics (the controller's metric names, as the server's release names them), /healthz and /readyz; JSON logs", async () => {
  const {api, kubeconfig} = await cluster([
    volume('pv-a', {className: 'fast'}),
    volume('pv-b', {className: 'fast'}),
    volume('pv-c', {className: 'slow'}),
    claim('app', 'data', {className: 'fast'}),
  ])
  // A v1.36 control plane: its kube-controller-manager serves the renamed operation error counter beside the deprecated one.
  api.setVersion('v1.36.1')
  const pvctl = new Pvctl(kubeconfig(), [
    '--watch',
    '--yes',
    DISABLED,
    ...FAST,
    '--metrics-bind-address',
    '127.0.0.1:0',
    '--log-format',
    'json',
  ])
  try {
    const deciding = JSON.parse(await pvctl.line(/Deciding as Kubernetes/)) as {msg: string; source: string}
    assert.deepEqual(
      [deciding.msg, deciding.source],
      ['Deciding as Kubernetes v1.36', "the API server's /version, v1.36.1"],
    )
    const serving = JSON.parse(await pvctl.line(/Serving metrics/)) as {address: string; level: string; ts: string}
    assert.equal(serving.level, 'info')
    const base = `http://${serving.address}`
    await waitFor('the claim to be bound', () => getClaim(api, 'app', 'data')?.status?.phase === 'Bound')
    await waitFor('ready', async () => (await fetch(`${base}/readyz`)).status === 200)
    const text = await waitFor('the bound counts', async () => {
      const body = await (await fetch(`${base}/metrics`)).text()
      return body.includes(
        'pv_collector_bound_pvc_count{namespace="app",storage_class="fast",volume_attributes_class=""} 1',
      )
        ? body
        : undefined
    })
    for (const line of [
      'pv_collector_bound_pv_count{storage_class="fast"} 1',
      'pv_collector_unbound_pv_count{storage_class="fast"} 1',
      'pv_collector_unbound_pv_count{storage_class="slow"} 1',
      'workqueue_depth{name="claims"} 0',
      '# TYPE volume_operation_total_seconds histogram',
      '# HELP volume_operation_total_errors (Deprecated since 1.36.0) Total volume operation errors',
      '# TYPE volume_operation_total_errors counter',
      '# TYPE volume_operation_errors_total counter',
      '# TYPE workqueue_adds_total counter',
      'pvctl_writing 1',
    ]) {
      assert.ok(text.includes(line), `missing ${line}:\n${text}`)
    }
    assert.match(text, /pvctl_actions_total\{action="bind-claim",outcome="written"\} 1/)
    assert.equal((await fetch(`${base}/healthz`)).status, 200)
    assert.equal((await fetch(`${base}/nope`)).status, 404)
    for (const l of pvctl.err) assert.doesNotThrow(() => JSON.parse(l), l)
  } finally {
    await pvctl.stop()
    await api.stop()
  }
})

test('--interval: a full sync every interval', async () => {
  const {api, kubeconfig} = await cluster([volume('pv-a')])
  const pvctl = new Pvctl(kubeconfig(), ['--interval', '400ms', '--yes', DISABLED, ...FAST])
  try {
    await pvctl.line(/Starting periodic sync/)
    api.create(claim('app', 'data') as never)
    await waitFor(
      'the claim to be bound at the next interval',
      () => getClaim(api, 'app', 'data')?.status?.phase === 'Bound',
      5000,
    )
    assert.equal(api.countRequests({verb: 'watch'}), 0, 'no watches: lists every interval')
    await pvctl.line(/written\s+bind-claim\s+pvc\/app\/data/, {stream: 'out'})
  } finally {
    await pvctl.stop()
    await api.stop()
  }
})

const usage: Array<{args: string[]; stderr: RegExp}> = [
  {
    args: ['--watch'],
    stderr: /loop mode writes to the cluster for as long as it runs: pass --yes to consent, or --dry-run/,
  },
  {args: ['--watch', '--dry-run', '-o', 'diff'], stderr: /-o diff does not stream/},
  {
    args: ['--watch', '--dry-run', '-f', 'examples/cluster.yaml'],
    stderr: /--watch and --interval run against a live cluster/,
  },
  {args: ['--watch', '--dry-run', 'pvc/data'], stderr: /name none/},
  {args: ['--watch', '--interval', '1m', '--dry-run'], stderr: /cannot also be provided|--interval/},
  {args: ['--watch', '--dry-run', '--resync', 'soon'], stderr: /--resync: invalid duration "soon"/},
  {args: ['--watch', '--dry-run', '--relist-period', 'soon'], stderr: /--relist-period: invalid duration "soon"/},
  {args: ['--dry-run', '--relist-period', '1m'], stderr: /--relist-period/},
  {
    args: ['--watch', '--dry-run', '--leader-elect', '--leader-elect-renew-deadline', '20s'],
    stderr: /--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline/,
  },
  {args: ['--watch', '--dry-run', '--controllers', 'a b'], stderr: /--controllers: invalid entry/},
  {
    args: ['--watch', '--dry-run', '--metrics-bind-address', 'nowhere'],
    stderr: /--metrics-bind-address: invalid address/,
  },
]

for (const row of usage) {
  test(`usage: sync ${row.args.join(' ')} → exit 2`, async () => {
    const run = await runCli(['sync', '--kubeconfig', `${dir}/none.yaml`, ...row.args], {env: {HOME: dir}})
    assert.equal(run.code, 2, run.stderr)
    assert.match(run.stderr, row.stderr)
  })
}

test('the operation error counters of each release (pv metrics.go): renamed in v1.36, the old name hidden from v1.37', () => {
  const names = (minor: number) => {
    const metrics = new LoopMetrics(defaultGatesAt(minor))
    metrics.operationFailed('kubernetes.io/host-path', 'delete')
    return metrics
      .render()
      .split('\n')
      .filter((l) => /^volume_operation_(total_errors|errors_total)\{/.test(l))
  }
  assert.deepEqual(names(35), [
    'volume_operation_total_errors{plugin_name="kubernetes.io/host-path",operation_name="delete"} 1',
  ])
  assert.deepEqual(names(36), [
    'volume_operation_total_errors{plugin_name="kubernetes.io/host-path",operation_name="delete"} 1',
    'volume_operation_errors_total{plugin_name="kubernetes.io/host-path",operation_name="delete"} 1',
  ])
  assert.deepEqual(names(37), [
    'volume_operation_errors_total{plugin_name="kubernetes.io/host-path",operation_name="delete"} 1',
  ])
})
