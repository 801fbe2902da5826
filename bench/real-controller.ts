// pvctl's loop mode beside the real PV controller (kube-controller-manager, persistentvolume-binder-controller
// alone), on the same real kube-apiserver and the same generated cluster (bench/generate-cluster.ts: N
// volumes and N claims), with the same client QPS and burst. Each run starts from the cluster as created
// (the API server emptied and the cluster created again between them), and a stand-in kubelet ends the
// recycler and cleanup pods either starts, as a kubelet would (test/real-cluster/stand-in-kubelet.ts):
//
//   to end state  from the controller's start (its process spawned) to its last write to a volume or
//                 claim, seen by a watch of this process; the run ends when the controller is quiescent
//                 (test/real-cluster/quiescence.ts: its work queues idle, two full resyncs since the
//                 last write)
//   CPU, RSS      the controller process's user + system CPU seconds up to its last write, and its peak RSS
//   latency       claims (each with a volume it fits) created one by one over a resync period once the
//                 controller is quiescent: the time from each create to the claim Bound, seen by the
//                 watch; p50, p99 and the largest
//   end states    compared as the differential compares them (test/real-cluster/differential.ts): where
//                 they differ, pvctl plans nothing on the controller's (after its latency claims), and the
//                 controller, run again on pvctl's, writes nothing, or they disagree
//
//   npm run build && npx tsx bench/real-controller.ts [--size 10000] [--version 1.31] [--qps 500 --burst 1000] [--out DIR]
//   (--out: both end states and the start as JSON in DIR)
//
// Needs Go (the control plane is built from the module proxy on first use; test/real-cluster/).
import {spawn} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {parseArgs} from 'node:util'

import * as k8s from '@kubernetes/client-node'

import {openLiveSession} from '../src/app/live-session.js'
import {planSync} from '../src/engine/simulation/plan-sync.js'
import {loadLiveState} from '../src/cluster/live-loader.js'
import {defaultFeatureGates} from '../src/engine/api/feature-gates.js'
import type {ClusterState, PersistentVolume, PersistentVolumeClaim} from '../src/engine/api/model.js'
import {startControlPlane, type ControlPlane} from '../test/real-cluster/control-plane.js'
import {
  differencesOf,
  endState,
  type EndState,
  isOperation,
  onlyOrderDependent,
} from '../test/real-cluster/differential.js'
import {goMissing, kubeBinaries, kubeRelease} from '../test/real-cluster/kube-binaries.js'
import {type Settling, waitForQuiescence} from '../test/real-cluster/quiescence.js'
import {type ApiClients, clients, seed, wipe} from '../test/real-cluster/seed.js'
import {standInKubelet} from '../test/real-cluster/stand-in-kubelet.js'
import {freePort} from './loop-sync.js'
import {generateCluster} from './generate-cluster.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = path.join(repoRoot, 'bin', 'run.js')

export interface ControllerRun {
  /** Seconds from the controller's start to its last write. */
  toEndState: number
  writes: number
  cpuSeconds: number
  peakRssMb: number
  latency: {p50: number; p99: number; max: number; claims: number}
}

export interface RealControllerResult {
  kubernetes: string
  volumes: number
  claims: number
  qps: number
  burst: number
  controller: ControllerRun
  pvctl: ControllerRun
  /** Differences between the two end states that are not order-dependent. */
  disagreements: string[]
  orderDependent: number
}

/** User + system CPU seconds and peak RSS (MB) of a process, from /proc. */
function usage(pid: number): {cpu: number; peakRssMb: number} {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return {cpu: (Number(fields[11]) + Number(fields[12])) / 100, peakRssMb: hwm === null ? NaN : Number(hwm[1]) / 1024}
}

/**
 * A watch of every volume and claim: how many changes, when the last one came, and when each claim was
 * first seen Bound. Relists (a 410, a closed watch) are client-node's informer's.
 */
class Watcher {
  changes = 0
  lastChangeAt = 0
  readonly volumes = new Set<string>()
  readonly claims = new Set<string>()
  readonly boundAt = new Map<string, number>()
  /** The object of each change, in order ("pv/NAME", "pvc/NS/NAME"). */
  readonly changed: string[] = []
  private readonly informers: Array<k8s.Informer<k8s.KubernetesObject>> = []

  constructor(private readonly kc: k8s.KubeConfig) {}

  async start(): Promise<void> {
    const core = this.kc.makeApiClient(k8s.CoreV1Api)
    const track = <T extends k8s.KubernetesObject>(
      informer: k8s.Informer<T>,
      names: Set<string>,
      onObject?: (o: T) => void,
    ) => {
      const key = (o: T) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`
      const changed = (o: T) => {
        this.changes++
        this.changed.push(
          `${names === this.volumes ? 'pv' : 'pvc'}${o.metadata?.namespace ? `/${o.metadata.namespace}` : ''}/${o.metadata?.name}`,
        )
        this.lastChangeAt = performance.now()
        onObject?.(o)
        return key(o)
      }
      informer.on('add', (o) => names.add(changed(o)))
      informer.on('update', (o) => void changed(o))
      informer.on('delete', (o) => names.delete(changed(o)))
      // client-node's informer stops on any error but a 410 (and emits an AbortError on stop()): restart it, unless stopped.
      informer.on('error', () => {
        if (!this.stopped) setTimeout(() => void informer.start(), 500)
      })
      this.informers.push(informer as unknown as k8s.Informer<k8s.KubernetesObject>)
      return informer.start()
    }
    await Promise.all([
      track(
        k8s.makeInformer(this.kc, '/api/v1/persistentvolumes', () => core.listPersistentVolume()),
        this.volumes,
      ),
      track(
        k8s.makeInformer(this.kc, '/api/v1/persistentvolumeclaims', () =>
          core.listPersistentVolumeClaimForAllNamespaces(),
        ),
        this.claims,
        (c: k8s.V1PersistentVolumeClaim) => {
          const name = `${c.metadata?.namespace}/${c.metadata?.name}`
          if (c.status?.phase === 'Bound' && !this.boundAt.has(name)) this.boundAt.set(name, performance.now())
        },
      ),
    ])
    this.changes = 0
  }

  private stopped = false

  async stop(): Promise<void> {
    this.stopped = true
    await Promise.all(this.informers.map((i) => i.stop().catch(() => {})))
  }

  settling(metrics: () => Promise<string>): Settling {
    return {
      metrics,
      observed: async () => ({fingerprint: String(this.changes), volumes: this.volumes.size, claims: this.claims.size}),
    }
  }
}

const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN

/** Claims created one by one over `periodMs`, each with a volume of its own it fits: creation to Bound. */
async function bindingLatency(
  api: ApiClients,
  watcher: Watcher,
  count: number,
  periodMs: number,
  prefix: string,
): Promise<ControllerRun['latency']> {
  const created = new Map<string, number>()
  for (let i = 0; i < count; i++) {
    const name = `${prefix}-${i}`
    await api.core.createPersistentVolume({
      body: {
        metadata: {name: `pv-${name}`},
        spec: {
          capacity: {storage: '1Gi'},
          accessModes: ['ReadWriteOnce'],
          storageClassName: 'latency',
          persistentVolumeReclaimPolicy: 'Retain',
          hostPath: {path: `/mnt/latency/${name}`},
        },
      },
    })
    const at = performance.now()
    await api.core.createNamespacedPersistentVolumeClaim({
      namespace: 'default',
      body: {
        metadata: {name},
        spec: {accessModes: ['ReadWriteOnce'], storageClassName: 'latency', resources: {requests: {storage: '1Gi'}}},
      },
    })
    created.set(`default/${name}`, at)
    await new Promise((r) => setTimeout(r, periodMs / count))
  }
  const deadline = Date.now() + 120_000
  while ([...created.keys()].some((k) => !watcher.boundAt.has(k)) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100))
  const latencies = [...created]
    .map(([k, at]) => ((watcher.boundAt.get(k) ?? Infinity) - at) / 1000)
    .sort((a, b) => a - b)
  return {
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    max: latencies[latencies.length - 1] ?? NaN,
    claims: count,
  }
}

interface Contender {
  name: string
  /** Starts the controller; resolves with its pid, its /metrics and how to stop it. */
  start(): Promise<{pid: number; metrics(): Promise<string>; stop(): Promise<void>}>
}

/** What the other side makes of a run's end state (after its latency claims): the writes it would make. */
type CrossCheck = (watcher: Watcher) => Promise<string[]>

async function runOne(
  plane: ControlPlane,
  api: ApiClients,
  state: ClusterState,
  contender: Contender,
  latencyClaims: number,
  crossCheck: CrossCheck,
  log: (line: string) => void,
): Promise<{run: ControllerRun; end: EndState; otherWrites: string[]}> {
  await wipe(api, {width: 32, deadlineMs: 600_000})
  const seeded = await seed(api, state, {width: 32})
  if (seeded.refused.length > 0)
    throw new Error(
      `the API server refused ${seeded.refused.length} objects, e.g. ${seeded.refused[0]?.object}: ${seeded.refused[0]?.message}`,
    )
  await api.storage.createStorageClass({
    body: {metadata: {name: 'latency'}, provisioner: 'kubernetes.io/no-provisioner'},
  })
  const kc = new k8s.KubeConfig()
  kc.loadFromFile(plane.kubeconfig)
  const watcher = new Watcher(kc)
  await watcher.start()
  log(`${contender.name}: starting on ${watcher.volumes.size} volumes and ${watcher.claims.size} claims`)
  // The recycler and cleanup pods both start end as a kubelet would end them: their operations finish.
  const stopKubelet = standInKubelet(api)
  const started = performance.now()
  const controller = await contender.start()
  const samples: Array<{t: number; cpu: number}> = []
  try {
    const sampling = watcher.settling(async () => {
      samples.push({t: performance.now(), cpu: usage(controller.pid).cpu})
      return controller.metrics()
    })
    await waitForQuiescence(sampling, {deadlineMs: 1_800_000, pollMs: 500})
    const writes = watcher.changes
    const lastWrite = watcher.lastChangeAt
    const cpuAtEnd = samples.find((s) => s.t >= lastWrite)?.cpu ?? usage(controller.pid).cpu
    const end = await currentEndState(api)
    log(
      `${contender.name}: ${writes} writes, the last ${((lastWrite - started) / 1000).toFixed(1)} s after its start; now the binding latency of ${latencyClaims} new claims`,
    )
    const latency = await bindingLatency(
      api,
      watcher,
      latencyClaims,
      15_000,
      `latency-${contender.name.replace(/[^a-z]/g, '')}`,
    )
    const run = {
      toEndState: (Math.max(lastWrite, started) - started) / 1000,
      writes,
      cpuSeconds: cpuAtEnd,
      peakRssMb: usage(controller.pid).peakRssMb,
      latency,
    }
    await controller.stop()
    return {run, end, otherWrites: await crossCheck(watcher)}
  } finally {
    await controller.stop()
    await stopKubelet()
    await watcher.stop()
  }
}

/** The writes pvctl plans on the cluster as it is (a dry run, in-process). */
async function pvctlPlansOn(kubeconfig: string): Promise<string[]> {
  const session = openLiveSession({kubeconfig, qps: 1000, burst: 1000})
  const plan = planSync(await loadLiveState(session.api, {}), {dryRun: true, gates: defaultFeatureGates})
  // A recycle, delete or provision the controller runs itself (no kubelet here finishes its pods): not a write.
  return plan.actions
    .filter((a) => !isOperation(a))
    .map(
      (a) =>
        `${a.action} ${a.object.kind === 'PersistentVolume' ? 'pv' : 'pvc'}/${a.object.namespace ? `${a.object.namespace}/` : ''}${a.object.name}`,
    )
}

/** The writes the real controller makes, run to quiescence on the cluster as it is. */
async function controllerWritesOn(
  plane: ControlPlane,
  watcher: Watcher,
  qps: number,
  burst: number,
): Promise<string[]> {
  const before = watcher.changed.length
  const manager = await plane.startControllerManager({qps, burst})
  try {
    await waitForQuiescence(
      watcher.settling(() => manager.metrics()),
      {deadlineMs: 600_000, pollMs: 500},
    )
  } finally {
    await manager.stop()
  }
  // A volume whose recycler or cleanup pod the other side left running: the controller finds the pod and
  // fails the attempt (Failed, VolumeFailedRecycle), as after its own restart; an operation handed over,
  // not a decision made otherwise.
  const pods = new Set(
    (await clients(plane.kubeconfig).core.listNamespacedPod({namespace: 'default'})).items.map(
      (p) => p.metadata?.name ?? '',
    ),
  )
  const handedOver = (o: string) =>
    o.startsWith('pv/') && ['recycler-for-', 'deleter-for-'].some((prefix) => pods.has(`${prefix}${o.slice(3)}`))
  return watcher.changed
    .slice(before)
    .filter((o) => !handedOver(o))
    .map((o) => `write ${o}`)
}

async function currentEndState(api: ApiClients): Promise<EndState> {
  const [volumes, claims] = await Promise.all([
    api.core.listPersistentVolume(),
    api.core.listPersistentVolumeClaimForAllNamespaces(),
  ])
  return endState(
    volumes.items as unknown as PersistentVolume[],
    claims.items as unknown as PersistentVolumeClaim[],
    [],
  )
}

/** The generated cluster as ClusterState (its List's items by kind). */
function stateOf(items: ReadonlyArray<{kind?: string}>): ClusterState {
  const of = (kind: string) => items.filter((o) => o.kind === kind) as never[]
  return {
    volumes: of('PersistentVolume'),
    claims: of('PersistentVolumeClaim'),
    classes: of('StorageClass'),
    pods: of('Pod'),
    nodes: of('Node'),
  }
}

export async function benchRealController(opts: {
  size: number
  version?: string
  qps?: number
  burst?: number
  latencyClaims?: number
  out?: string
  log?: (line: string) => void
}): Promise<RealControllerResult | {skipped: string}> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`))
  const missing = await goMissing()
  if (missing !== undefined) return {skipped: missing}
  const qps = opts.qps ?? 500
  const burst = opts.burst ?? 1000
  const binaries = await kubeBinaries(kubeRelease(opts.version ?? '1.31'), log)
  const plane = await startControlPlane(binaries, {log})
  try {
    const api = clients(plane.kubeconfig)
    const cluster = generateCluster(opts.size)
    const state = stateOf(cluster.list.items as Array<{kind?: string}>)
    const latencyClaims = opts.latencyClaims ?? 50
    const kcm: Contender = {
      name: 'kube-controller-manager',
      start: async () => {
        const m = await plane.startControllerManager({qps, burst})
        return {pid: m.pid, metrics: () => m.metrics(), stop: () => m.stop()}
      },
    }
    const pvctl: Contender = {
      name: 'pvctl loop mode',
      start: async () => {
        const port = await freePort()
        // --allow-mass-release: kube-controller-manager has no release budget; with pvctl's, the cluster's
        // orphaned volumes would be released over several 10-minute windows, not at once.
        const args = [
          'sync',
          '--watch',
          '--yes',
          '--allow-mass-release',
          '--kubeconfig',
          plane.kubeconfig,
          '--qps',
          String(qps),
          '--burst',
          String(burst),
          '--metrics-bind-address',
          `127.0.0.1:${port}`,
          '-o',
          'json',
        ]
        const child = spawn(process.execPath, [bin, ...args], {cwd: repoRoot, stdio: ['ignore', 'ignore', 'ignore']})
        const exited = new Promise<void>((resolve) => child.on('close', () => resolve()))
        return {
          pid: child.pid!,
          metrics: async () => (await fetch(`http://127.0.0.1:${port}/metrics`).catch(() => undefined))?.text() ?? '',
          stop: async () => {
            child.kill('SIGTERM')
            await exited
          },
        }
      },
    }
    const a = await runOne(plane, api, state, kcm, latencyClaims, () => pvctlPlansOn(plane.kubeconfig), log)
    const b = await runOne(
      plane,
      api,
      state,
      pvctl,
      latencyClaims,
      (watcher) => controllerWritesOn(plane, watcher, qps, burst),
      log,
    )
    // The two runs' objects differ only in uids (each run created the cluster anew): compare by name.
    const start = endState(state.volumes, state.claims, [])
    const differences = differencesOf(strip(a.end), strip(b.end))
    // Order-dependent: each side accepts the other's end state, and the differences are of that kind.
    const accepted = a.otherWrites.length === 0 && b.otherWrites.length === 0
    const orderDependent = accepted && onlyOrderDependent(strip(start), strip(a.end), strip(b.end), differences)
    if (opts.out !== undefined) {
      const asObject = (e: EndState) => ({volumes: Object.fromEntries(e.volumes), claims: Object.fromEntries(e.claims)})
      writeFileSync(path.join(opts.out, 'controller.json'), JSON.stringify(asObject(strip(a.end)), null, 1))
      writeFileSync(path.join(opts.out, 'pvctl.json'), JSON.stringify(asObject(strip(b.end)), null, 1))
      writeFileSync(path.join(opts.out, 'start.json'), JSON.stringify(asObject(strip(start)), null, 1))
    }
    return {
      kubernetes: binaries.release.kubernetes,
      volumes: cluster.counts.volumes,
      claims: cluster.counts.claims,
      qps,
      burst,
      controller: a.run,
      pvctl: b.run,
      disagreements: orderDependent
        ? []
        : [
            ...(accepted
              ? []
              : [
                  `pvctl plans ${a.otherWrites.length} writes on the controller's end state (${a.otherWrites.slice(0, 5).join(', ')}); the controller made ${b.otherWrites.length} on pvctl's (${b.otherWrites.slice(0, 5).join(', ')})`,
                ]),
            ...differences,
          ],
      orderDependent: orderDependent ? differences.length : 0,
    }
  } finally {
    await plane.stop()
  }
}

/** An end state without claim uids in claimRefs: two runs' clusters were created apart. */
function strip(s: EndState): EndState {
  return {
    ...s,
    volumes: new Map(
      [...s.volumes].map(([k, v]) => [
        k,
        {...v, claimRef: v.claimRef === null ? null : (v.claimRef.split(' ')[0] ?? null)},
      ]),
    ),
  }
}

export function describeRealController(r: RealControllerResult): string[] {
  const line = (name: string, x: ControllerRun) =>
    `  ${name.padEnd(24)} ${x.toEndState.toFixed(1).padStart(7)} s ${String(x.writes).padStart(7)} writes ${x.cpuSeconds.toFixed(1).padStart(6)} s CPU ${x.peakRssMb.toFixed(0).padStart(5)} MB peak RSS   binding p50 ${(x.latency.p50 * 1000).toFixed(0)} ms, p99 ${(x.latency.p99 * 1000).toFixed(0)} ms, max ${(x.latency.max * 1000).toFixed(0)} ms (${x.latency.claims} claims)`
  return [
    `real controller beside loop mode: Kubernetes ${r.kubernetes}, ${r.volumes} volumes + ${r.claims} claims, client QPS ${r.qps} burst ${r.burst}`,
    line('kube-controller-manager', r.controller),
    line('pvctl sync --watch --yes', r.pvctl),
    `  ratio (pvctl / controller): time to end state ${(r.pvctl.toEndState / r.controller.toEndState).toFixed(2)}×, CPU ${(r.pvctl.cpuSeconds / r.controller.cpuSeconds).toFixed(2)}×, peak RSS ${(r.pvctl.peakRssMb / r.controller.peakRssMb).toFixed(2)}×, binding p99 ${(r.pvctl.latency.p99 / r.controller.latency.p99).toFixed(2)}×`,
    `  end states: ${r.disagreements.length === 0 ? `the same${r.orderDependent > 0 ? ` but for ${r.orderDependent} order-dependent differences` : ''}` : `${r.disagreements.length} disagreements, e.g. ${r.disagreements.slice(0, 3).join('; ')}`}`,
  ]
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const {values} = parseArgs({
    options: {
      size: {type: 'string', default: '10000'},
      version: {type: 'string', default: '1.31'},
      qps: {type: 'string', default: '500'},
      burst: {type: 'string', default: '1000'},
      'latency-claims': {type: 'string', default: '50'},
      out: {type: 'string'},
    },
  })
  const r = await benchRealController({
    size: Number(values.size),
    version: values.version,
    qps: Number(values.qps),
    burst: Number(values.burst),
    latencyClaims: Number(values['latency-claims']),
    out: values.out,
  })
  if ('skipped' in r) process.stdout.write(`real controller: skipped: ${r.skipped}\n`)
  else process.stdout.write(`${describeRealController(r).join('\n')}\n`)
}
