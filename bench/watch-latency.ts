// Watch latency under load (the scale issue's first target): while loop mode's resync pass runs over
// N volumes + N claims, a claim created at a random moment of it is bound within WATCH_LATENCY_TARGET_MS
// at p99 — its volume's write (claimRef) and its own (volumeName) seen by the API server.
//
//   npm run build && npx tsx bench/watch-latency.ts                       100k + 100k, 50 trials
//   npx tsx bench/watch-latency.ts --size 10000 --trials 50 --resync 5
//
// The emulator (in this process) serves N volumes bound to N claims, as the controller leaves them (every
// sync of a pass quiet), plus one Available volume of class `watch-latency` per trial. (The generated mix
// of bench/generate-cluster.ts is not served: its fixpoint still starts recyclers and deleters, whose pods
// no kubelet runs here, and loop mode would wait on them; bench/loop-sync.ts plans that mix dry.)
// `pvctl sync --watch --yes` (dist/, in its own process, --qps 1000 --burst 2000, events on) syncs it;
// the first resync pass is timed (from its LIST of claims to both queues empty), and in each later one
// PER_PASS claims of that class are created at uniformly random moments within the length of the pass
// before. A trial counts when its claim was created before its pass ended. The CLI carries
// event-loop-hook.mjs: the longest event-loop stall from the first timed pass to the end.
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {parseArgs} from 'node:util'

import type {PersistentVolume, PersistentVolumeClaim} from '../src/engine/api/model.js'
import {freePort} from './loop-sync.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = path.join(repoRoot, 'bin', 'run.js')
const hook = path.join(repoRoot, 'bench', 'event-loop-hook.mjs')

/** docs/performance.md: a claim created during a resync pass is bound within this, at p99. */
export const WATCH_LATENCY_TARGET_MS = 1000
const PER_PASS = 5
const CLASS = 'watch-latency'
const NAMESPACE = 'watch-latency'

export interface WatchLatencyOptions {
  size: number
  /** Trials created during a pass (default 50). */
  trials?: number
  /** --resync, seconds (default 15, pvctl's and kube-controller-manager's). */
  resyncSeconds?: number
  log?: (line: string) => void
}

export interface WatchLatencyResult {
  volumes: number
  claims: number
  /** Trials whose claim was created during a pass, and all trials. */
  trials: number
  created: number
  passes: number
  /** Median length of a resync pass, seconds (its LIST of claims to both queues empty). */
  passSeconds: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  /** pvctl's longest event-loop stall, and its p99, over the timed passes. */
  stallMaxMs: number
  stallP99Ms: number
  /** os.loadavg()[0] at the start and at the end. */
  load: [number, number]
}

interface Trial {
  name: string
  pass: number
  createdAt: number
  boundAt?: number
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

/**
 * N volumes bound to N claims, every pair as the controller leaves it (a steady state: each sync of the
 * pass is a quiet one, as in a cluster between changes), and one Available volume per trial.
 */
function steadyCluster(size: number, spares: number): {objects: unknown[]; volumes: number; claims: number} {
  const objects: unknown[] = []
  const namespaces = Math.max(1, Math.ceil(size / 1000))
  for (let n = 0; n < namespaces; n++) objects.push({apiVersion: 'v1', kind: 'Namespace', metadata: {name: `team-${n}`}, status: {phase: 'Active'}})
  objects.push({apiVersion: 'v1', kind: 'Namespace', metadata: {name: NAMESPACE}, status: {phase: 'Active'}})
  for (let i = 0; i < size; i++) {
    const namespace = `team-${i % namespaces}`
    const name = `data-${i}`
    const uid = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`
    const pv = `pv-${i}`
    objects.push({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: {name: pv, annotations: {'pv.kubernetes.io/bound-by-controller': 'yes'}},
      spec: {...trialVolume(pv).spec, storageClassName: 'standard', claimRef: {apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace, name, uid}},
      status: {phase: 'Bound'},
    })
    objects.push({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {name, namespace, uid, annotations: {'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes'}},
      spec: {...trialClaim(name).spec, storageClassName: 'standard', volumeName: pv},
      status: {phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: {storage: '1Gi'}},
    })
  }
  for (let i = 0; i < spares; i++) objects.push(trialVolume(`wl-pv-${i}`))
  return {objects, volumes: size + spares, claims: size}
}

function trialVolume(name: string): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {name},
    spec: {accessModes: ['ReadWriteOnce'], capacity: {storage: '1Gi'}, csi: {driver: 'bench.csi', volumeHandle: name}, persistentVolumeReclaimPolicy: 'Retain', storageClassName: CLASS, volumeMode: 'Filesystem'},
    status: {phase: 'Available'},
  } as PersistentVolume
}

function trialClaim(name: string): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {name, namespace: NAMESPACE},
    spec: {accessModes: ['ReadWriteOnce'], resources: {requests: {storage: '1Gi'}}, storageClassName: CLASS, volumeMode: 'Filesystem'},
    status: {phase: 'Pending'},
  }
}

/** workqueue_depth of both queues, from the Prometheus text. */
async function queueDepth(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  let depth = 0
  for (const line of text.split('\n')) if (line.startsWith('workqueue_depth{')) depth += Number(line.slice(line.lastIndexOf(' ') + 1))
  return depth
}

export async function benchWatchLatency(opts: WatchLatencyOptions): Promise<WatchLatencyResult> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`))
  const wanted = opts.trials ?? 50
  const resyncSeconds = opts.resyncSeconds ?? 15
  const loadStart = os.loadavg()[0]
  const {startEmulator} = await import('../test/emulator/emulator.js')
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pvctl-watch-latency-'))
  // Volumes for twice the trials: passes that end before their trials are created are run again.
  const cluster = steadyCluster(opts.size, 2 * wanted)
  const api = await startEmulator({tls: true, listItemTypeMeta: false, objects: cluster.objects as never})
  try {
    const kubeconfig = path.join(dir, 'kubeconfig.yaml')
    writeFileSync(kubeconfig, api.kubeconfig({token: 'bench'}))
    log(`emulator up: ${cluster.volumes} volumes, ${cluster.claims} claims, all bound but ${2 * wanted} spare volumes`)
    const port = await freePort()
    const args = ['sync', '--watch', '--yes', '--kubeconfig', kubeconfig, '--metrics-bind-address', `127.0.0.1:${port}`, '--resync', `${resyncSeconds}s`]
    args.push('--qps', '1000', '--burst', '2000', '--controllers=*,-persistentvolume-binder-controller', '-o', 'json')
    const child = spawn(process.execPath, ['--import', pathToFileURL(hook).href, bin, ...args], {cwd: repoRoot, env: {...process.env, HOME: dir}, stdio: ['ignore', 'ignore', 'pipe']})
    let err = ''
    child.stderr.on('data', (b: Buffer) => (err += b.toString()))
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    const trials: Trial[] = []
    const passLengths: number[] = []
    try {
      for (;;) {
        if (err.includes('Caches are synced')) break
        if (child.exitCode !== null) throw new Error(`pvctl exited (${child.exitCode}) before its caches were synced:\n${err.trim()}`)
        await sleep(50)
      }
      // The start-up pass: over when both queues are empty.
      while ((await queueDepth(port)) > 0) await sleep(100)
      log('start-up pass done; timing resync passes')
      child.kill('SIGUSR2')
      const claimLists = () => api.requests.filter((r) => r.verb === 'list' && r.resource === 'persistentvolumeclaims' && !r.query.includes('continue=')).length
      let lists = claimLists()
      let created = 0
      const maxPasses = 1 + 2 * Math.ceil(wanted / PER_PASS)
      for (let pass = 0; pass < maxPasses && trials.filter((t) => t.pass >= 0).length < wanted; pass++) {
        // The pass begins with the resync's LIST of claims.
        while (claimLists() === lists) await sleep(2)
        lists = claimLists()
        const start = performance.now()
        const estimate = passLengths.at(-1)
        const offsets = estimate === undefined ? [] : Array.from({length: PER_PASS}, () => Math.random() * estimate).sort((a, b) => a - b)
        const ours: Trial[] = []
        const creating = (async () => {
          for (const at of offsets) {
            await sleep(Math.max(0, start + at - performance.now()))
            const t: Trial = {name: `wl-${created++}`, pass, createdAt: performance.now()}
            api.create(trialClaim(t.name) as never)
            ours.push(t)
          }
        })()
        // Both writes seen: the claim names a volume whose claimRef names the claim.
        let allCreated = false
        void creating.then(() => (allCreated = true))
        const watching = (async () => {
          while (!allCreated || ours.some((t) => t.boundAt === undefined)) {
            for (const t of ours) {
              if (t.boundAt !== undefined) continue
              const c = api.get('pvc', NAMESPACE, t.name) as unknown as PersistentVolumeClaim | undefined
              const v = c?.spec.volumeName ? (api.get('pv', null, c.spec.volumeName) as unknown as PersistentVolume | undefined) : undefined
              if (v?.spec.claimRef?.name === t.name && v.spec.claimRef.namespace === NAMESPACE) t.boundAt = performance.now()
            }
            await sleep(1)
          }
        })()
        let seenWork = false
        for (;;) {
          const depth = await queueDepth(port)
          if (depth > 0) seenWork = true
          else if (seenWork) break
          await sleep(50)
        }
        const end = performance.now()
        await creating
        passLengths.push(end - start)
        for (const t of ours) if (t.createdAt > end) t.pass = -1 // created after the pass ended: not counted
        await watching
        trials.push(...ours)
        log(`pass ${pass}: ${((end - start) / 1000).toFixed(2)} s, trials ${ours.map((t) => (t.pass < 0 ? 'after' : `${(t.boundAt! - t.createdAt).toFixed(0)} ms`)).join(', ') || 'none (the timing pass)'}`)
      }
    } finally {
      child.kill('SIGTERM')
      await exited
    }
    const stall = /PVCTL_EVENT_LOOP_DELAY_MS max=([\d.]+) p99=([\d.]+)/.exec(err)
    const inPass = trials.filter((t) => t.pass >= 0)
    const ms = inPass.map((t) => t.boundAt! - t.createdAt).sort((a, b) => a - b)
    const sortedPasses = [...passLengths].sort((a, b) => a - b)
    return {
      volumes: cluster.volumes,
      claims: cluster.claims,
      trials: inPass.length,
      created: trials.length,
      passes: passLengths.length,
      passSeconds: percentile(sortedPasses, 50) / 1000,
      p50Ms: percentile(ms, 50),
      p99Ms: percentile(ms, 99),
      maxMs: ms.at(-1) ?? Number.NaN,
      stallMaxMs: stall ? Number(stall[1]) : Number.NaN,
      stallP99Ms: stall ? Number(stall[2]) : Number.NaN,
      load: [loadStart, os.loadavg()[0]],
    }
  } finally {
    await api.stop()
    rmSync(dir, {recursive: true, force: true})
  }
}

/** The target beside its measure (judged at any size; the issue's is 100k + 100k over 50 trials or more). */
export function describeWatchLatency(r: WatchLatencyResult): string[] {
  const met = r.trials > 0 && r.p99Ms <= WATCH_LATENCY_TARGET_MS ? 'met' : 'NOT met'
  return [
    `watch latency at ${r.volumes} + ${r.claims}: ${r.trials} claims created during ${r.passes - 1} resync passes (${r.created - r.trials} more after their pass ended, not counted) of ${r.passSeconds.toFixed(2)} s (median); creation to both writes p50 ${r.p50Ms.toFixed(0)} ms, p99 ${r.p99Ms.toFixed(0)} ms, max ${r.maxMs.toFixed(0)} ms; pvctl's longest event-loop stall ${r.stallMaxMs.toFixed(0)} ms (p99 ${r.stallP99Ms.toFixed(0)} ms); load average ${r.load[0].toFixed(1)} → ${r.load[1].toFixed(1)}`,
    `target: a claim created during a resync pass at ${r.volumes} + ${r.claims} bound within ${WATCH_LATENCY_TARGET_MS / 1000} s at p99: ${r.p99Ms.toFixed(0)} ms over ${r.trials} trials — ${met}`,
  ]
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const {values} = parseArgs({options: {size: {type: 'string', default: '100000'}, trials: {type: 'string', default: '50'}, resync: {type: 'string', default: '15'}}})
  const r = await benchWatchLatency({size: Number(values.size), trials: Number(values.trials), resyncSeconds: Number(values.resync)})
  process.stdout.write(`${describeWatchLatency(r).join('\n')}\n`)
}
