// Watch latency under load (a target of docs/performance.md): while loop mode's resync pass runs over
// N volumes + N claims (with --relist: the pass of a relist, its LISTs and merge included), a claim created at a random moment of it is bound within WATCH_LATENCY_TARGET_MS
// at p99 over MIN_TRIALS trials or more — its volume's write (claimRef) and its own (volumeName) held by
// the API server.
//
//   npm run build && npx tsx bench/watch-latency.ts                       100k + 100k, 50 trials
//   npx tsx bench/watch-latency.ts --size 10000 --trials 50 --resync 5
//   npx tsx bench/watch-latency.ts --relist                               passes of --relist-period 15s instead
//   npx tsx bench/watch-latency.ts --size 10000 --trials-json FILE        every trial's times, to break one down
//
// The emulator runs in its own process (`serve`, as an API server would: its LIST pages and JSON are not
// served from the bench's process) with N volumes bound to N claims, as the controller leaves them (every
// sync of a pass quiet), plus an Available volume of class `watch-latency` for every claim the passes may
// create. (The generated mix of bench/generate-cluster.ts is not served: its fixpoint still starts
// recyclers and deleters, whose pods no kubelet runs here, and loop mode would wait on them;
// bench/loop-sync.ts plans that mix dry.)
// `pvctl sync --watch --yes` (dist/, in a third process, --qps 1000 --burst 2000, events on) syncs it.
// The emulator's process times the passes (from the resync's start, pvctl_resync_started_timestamp_seconds,
// or a relist's LIST of claims, to both queues empty, read from pvctl's /metrics) and, in each pass after the first, creates PER_PASS claims of that class at
// uniformly random moments within the length of the pass before, one at a time; it sees each claim's
// writes arrive (its request log) and be held (polling its store every millisecond). A trial counts when
// its claim was created during its pass. The CLI carries event-loop-hook.mjs: its longest event-loop
// stall and its CPU time from the first timed pass to the end.
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {parseArgs} from 'node:util'

import type {PersistentVolume, PersistentVolumeClaim} from '../src/engine/api/model.js'
import {type Emulator, type RequestRecord, WRITE_VERBS} from '../test/emulator/emulator.js'
import {freePort} from './loop-sync.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = path.join(repoRoot, 'bin', 'run.js')
const hook = path.join(repoRoot, 'bench', 'event-loop-hook.mjs')
const self = fileURLToPath(import.meta.url)

/** docs/performance.md: a claim created during a resync pass is bound within this, at p99. */
export const WATCH_LATENCY_TARGET_MS = 1000
const PER_PASS = 5
/** The count of trials docs/performance.md asks for a p99. */
export const MIN_TRIALS = 50
const CLASS = 'watch-latency'
const NAMESPACE = 'watch-latency'

export interface WatchLatencyOptions {
  size: number
  /** Trials created during a pass (default 50). */
  trials?: number
  /** --resync, seconds (default 15, pvctl's and kube-controller-manager's). */
  resyncSeconds?: number
  /** Time the passes of --relist-period (at the same period; --resync 1h) instead of the resync's. */
  relist?: boolean
  log?: (line: string) => void
  /** Writes every trial (its times, epoch ms) to this file as JSON. */
  trialsJson?: string
}

export interface WatchLatencyResult {
  /** N: the bound volumes and claims served (the volumes also hold the spares). */
  size: number
  volumes: number
  claims: number
  /** Trials whose claim was created during a pass, and all trials. */
  trials: number
  created: number
  passes: number
  /** Which pass was timed. */
  pass: 'resync' | 'relist'
  /** Median length of a pass, seconds (its start to both queues empty). */
  passSeconds: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  /** Medians over the trials, from the claim's creation: its volume's write and its own arriving, both held. */
  parts: {toVolumeWriteMs: number; toClaimWriteMs: number; toHeldMs: number}
  /** pvctl's longest event-loop stall, and its p99, over the timed passes. */
  stallMaxMs: number
  stallP99Ms: number
  /** pvctl's CPU time (user + system) over the timed passes, seconds. */
  cliCpuSeconds: number
  /** os.loadavg()[0] at the start and at the end. */
  load: [number, number]
}

/** One claim created during a pass; times in epoch milliseconds (clock()). */
interface Trial {
  name: string
  /** The pass it was created in. */
  pass: number
  /** Created before its pass ended: a trial that counts. */
  inPass: boolean
  createdAt: number
  /** The first write of its volume, and of the claim, arrived at the emulator. */
  volumeWriteAt?: number
  claimWriteAt?: number
  /** Both writes held by the emulator (seen by its polling, every millisecond). */
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
  for (let n = 0; n < namespaces; n++)
    objects.push({apiVersion: 'v1', kind: 'Namespace', metadata: {name: `team-${n}`}, status: {phase: 'Active'}})
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
      spec: {
        ...trialVolume(pv).spec,
        storageClassName: 'standard',
        claimRef: {apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace, name, uid},
      },
      status: {phase: 'Bound'},
    })
    objects.push({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name,
        namespace,
        uid,
        annotations: {'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes'},
      },
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
    spec: {
      accessModes: ['ReadWriteOnce'],
      capacity: {storage: '1Gi'},
      csi: {driver: 'bench.csi', volumeHandle: name},
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: CLASS,
      volumeMode: 'Filesystem',
    },
    status: {phase: 'Available'},
  } as PersistentVolume
}

function trialClaim(name: string): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {name, namespace: NAMESPACE},
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: {requests: {storage: '1Gi'}},
      storageClassName: CLASS,
      volumeMode: 'Filesystem',
    },
    status: {phase: 'Pending'},
  }
}

/** workqueue_depth of both queues, from the Prometheus text. */
async function queueDepth(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  let depth = 0
  for (const line of text.split('\n'))
    if (line.startsWith('workqueue_depth{')) depth += Number(line.slice(line.lastIndexOf(' ') + 1))
  return depth
}

/** The passes that create trials, at most: twice those `wanted` needs, for passes that end before their trials. */
const trialPasses = (wanted: number) => 2 * Math.ceil(wanted / PER_PASS)

/** pvctl_resync_started_timestamp_seconds, epoch ms (0: no resync yet). */
async function resyncStarted(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  const line = text.split('\n').find((l) => l.startsWith('pvctl_resync_started_timestamp_seconds '))
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1)) * 1000
}

/** Epoch milliseconds with a fraction: comparable across the bench's processes (one machine, one clock). */
const clock = () => performance.timeOrigin + performance.now()

/** What the emulator's process measured of the passes and their trials. */
interface TrialsRun {
  trials: Trial[]
  passLengths: number[]
}

/**
 * Child `serve`: the emulator, serving the steady cluster. It writes the kubeconfig, says so on stdout,
 * and on `{"op":"run",...}` on stdin times the resync passes and their trials (it holds the request log
 * and the objects, so creating a claim and seeing its writes cost no round trip), answering with a
 * TrialsRun. It stops when stdin ends.
 */
async function serve(dir: string, size: number, spares: number): Promise<void> {
  const {startEmulator} = await import('../test/emulator/emulator.js')
  const cluster = steadyCluster(size, spares)
  const api = await startEmulator({tls: true, listItemTypeMeta: false, objects: cluster.objects as never})
  const kubeconfig = path.join(dir, 'kubeconfig.yaml')
  writeFileSync(kubeconfig, api.kubeconfig({token: 'bench'}))
  // When each trial object's first write arrived ("pv/NAME", "pvc/NAME"): the log's records are pushed
  // as requests arrive, before they are served.
  const arrivals = new Map<string, number>()
  const log = api.requests as RequestRecord[]
  const push = log.push.bind(log)
  log.push = (...records: RequestRecord[]) => {
    for (const r of records) {
      if (!r.name.startsWith('wl-') || !(WRITE_VERBS as readonly string[]).includes(r.verb)) continue
      const key = `${r.resource === 'persistentvolumes' ? 'pv' : 'pvc'}/${r.name}`
      if (!arrivals.has(key)) arrivals.set(key, clock())
    }
    return push(...records)
  }
  process.stdout.write(`${JSON.stringify({kubeconfig, volumes: cluster.volumes, claims: cluster.claims})}\n`)
  let input = ''
  process.stdin.on('data', (b: Buffer) => {
    input += b.toString()
    const nl = input.indexOf('\n')
    if (nl < 0) return
    const {port, wanted, pass} = JSON.parse(input.slice(0, nl)) as {
      port: number
      wanted: number
      pass: 'resync' | 'relist'
    }
    input = input.slice(nl + 1)
    void runTrials(api, arrivals, size, port, wanted, pass).then((run) =>
      process.stdout.write(`${JSON.stringify(run)}\n`),
    )
  })
  process.stdin.on('end', () => void api.stop().then(() => process.exit(0)))
}

/** The timed passes: in each after the first, PER_PASS claims created at random moments within it. */
async function runTrials(
  api: Emulator,
  arrivals: ReadonlyMap<string, number>,
  size: number,
  port: number,
  wanted: number,
  pass: 'resync' | 'relist',
): Promise<TrialsRun> {
  // A relist's pass begins with its LIST of claims; a resync's lists nothing, and is seen by its gauge
  // (polled every 20 ms while no pass runs, at the time the gauge says).
  const claimLists = () =>
    api.requests.filter(
      (r) => r.verb === 'list' && r.resource === 'persistentvolumeclaims' && !r.query.includes('continue='),
    ).length
  let lastStart = pass === 'resync' ? await resyncStarted(port) : claimLists()
  const nextPass = async (): Promise<number> => {
    for (;;) {
      const seen = pass === 'resync' ? await resyncStarted(port) : claimLists()
      if (seen !== lastStart) {
        lastStart = seen
        return pass === 'resync' ? seen : clock()
      }
      await sleep(pass === 'resync' ? 20 : 2)
    }
  }
  const trials: Trial[] = []
  const passLengths: number[] = []
  let created = 0
  // A pass at 100k is about a second: its end, to 200 ms, gives the next pass's trials moments within it.
  const every = Math.max(100, size / 500)
  const maxPasses = 1 + trialPasses(wanted)
  for (let pass = 0; pass < maxPasses && trials.filter((t) => t.inPass).length < wanted; pass++) {
    const start = await nextPass()
    const estimate = passLengths.at(-1)
    const offsets =
      estimate === undefined ? [] : Array.from({length: PER_PASS}, () => Math.random() * estimate).sort((a, b) => a - b)
    const ours: Trial[] = []
    let seenWork = false
    // pvctl renders /metrics synchronously, its collector counting every volume and claim again after
    // the cache has changed (at 100k, tens of ms): no scrape is sent while a trial waits for its writes,
    // and the queues are polled every `every` ms. Before each claim is created their depth is read
    // (the answer awaited first): the claim counts when it is created during the pass, that is, while
    // keys wait, or before any were seen (its LIST and merge).
    const outstanding = () => ours.some((t) => t.boundAt === undefined)
    let creatingDone = false
    const creating = (async () => {
      for (const at of offsets) {
        await sleep(Math.max(0, start + at - clock()))
        while (outstanding()) await sleep(1)
        const depth = await queueDepth(port)
        if (depth > 0) seenWork = true
        // Keys waiting, or none yet: the pass's LIST and merge are under way (its keys are queued as merged).
        const t: Trial = {name: `wl-${created++}`, pass, inPass: depth > 0 || !seenWork, createdAt: clock()}
        api.create(trialClaim(t.name) as never)
        ours.push(t)
      }
      creatingDone = true
    })()
    // Both writes held: the claim names a volume whose claimRef names the claim.
    const watching = (async () => {
      while (!creatingDone || outstanding()) {
        for (const t of ours) {
          if (t.boundAt !== undefined) continue
          const c = api.get('pvc', NAMESPACE, t.name) as unknown as PersistentVolumeClaim | undefined
          const v = c?.spec.volumeName
            ? (api.get('pv', null, c.spec.volumeName) as unknown as PersistentVolume | undefined)
            : undefined
          if (v?.spec.claimRef?.name === t.name && v.spec.claimRef.namespace === NAMESPACE) {
            t.boundAt = clock()
            t.claimWriteAt = arrivals.get(`pvc/${t.name}`)
            t.volumeWriteAt = arrivals.get(`pv/${v.metadata.name}`)
          }
        }
        await sleep(1)
      }
    })()
    // The pass's end, to `every` ms (the next pass's trials are spread over its length): both queues empty
    // after keys were seen waiting (the LIST before them leaves the queues empty; a pass too short to be
    // seen, at smoke sizes, ends after 5 s).
    let end: number
    for (;;) {
      await sleep(every)
      if (outstanding()) continue
      const depth = await queueDepth(port)
      if (depth > 0) seenWork = true
      else if (seenWork || clock() - start > 5000) {
        end = clock()
        break
      }
    }
    await creating
    passLengths.push(end - start)
    await watching
    trials.push(...ours)
    const line = `pass ${pass}: ${((end - start) / 1000).toFixed(2)} s, trials ${ours.map((t) => (t.inPass ? `${(t.boundAt! - t.createdAt).toFixed(0)} ms` : 'after')).join(', ') || 'none (the timing pass)'}`
    process.stdout.write(`${JSON.stringify({log: line})}\n`)
  }
  return {trials, passLengths}
}

/** Starts the `serve` child; resolves once the emulator is up. */
function startServer(
  dir: string,
  size: number,
  spares: number,
  log: (line: string) => void,
): Promise<{
  info: {kubeconfig: string; volumes: number; claims: number}
  run: (port: number, wanted: number, pass: 'resync' | 'relist') => Promise<TrialsRun>
  stop: () => Promise<void>
}> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', self, 'serve', dir, String(size), String(spares)], {
      cwd: repoRoot,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let err = ''
    let out = ''
    const answers: Array<(line: string) => void> = []
    child.stderr!.on('data', (b: Buffer) => (err += b.toString()))
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString()
      for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
        const line = out.slice(0, nl)
        out = out.slice(nl + 1)
        if (line.startsWith('{"log":')) log((JSON.parse(line) as {log: string}).log)
        else answers.shift()?.(line)
      }
    })
    const closed = new Promise<void>((done) => child.on('close', () => done()))
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`the emulator's process failed (exit ${code}): ${err.trim()}`))
    })
    answers.push((line) =>
      resolve({
        info: JSON.parse(line) as {kubeconfig: string; volumes: number; claims: number},
        run: (port, wanted, pass) =>
          new Promise((done) => {
            answers.push((answer) => done(JSON.parse(answer) as TrialsRun))
            child.stdin!.write(`${JSON.stringify({port, wanted, pass})}\n`)
          }),
        stop: async () => {
          child.stdin!.end()
          await closed
        },
      }),
    )
  })
}

export async function benchWatchLatency(opts: WatchLatencyOptions): Promise<WatchLatencyResult> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`))
  const wanted = opts.trials ?? 50
  const resyncSeconds = opts.resyncSeconds ?? 15
  const pass = opts.relist === true ? 'relist' : 'resync'
  const loadStart = os.loadavg()[0]
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pvctl-watch-latency-'))
  // A volume for every claim the passes may create: a claim left Pending would be waited for forever.
  const spares = PER_PASS * trialPasses(wanted)
  const server = await startServer(dir, opts.size, spares, log)
  try {
    const {kubeconfig, volumes, claims} = server.info
    log(`emulator up (its own process): ${volumes} volumes, ${claims} claims, all bound but ${spares} spare volumes`)
    const port = await freePort()
    const period = `${resyncSeconds}s`
    const args = ['sync', '--watch', '--yes', '--kubeconfig', kubeconfig, '--metrics-bind-address', `127.0.0.1:${port}`]
    args.push(...(pass === 'resync' ? ['--resync', period] : ['--resync', '1h', '--relist-period', period]))
    args.push('--qps', '1000', '--burst', '2000', '--controllers=*,-persistentvolume-binder-controller', '-o', 'json')
    const child = spawn(process.execPath, ['--import', pathToFileURL(hook).href, bin, ...args], {
      cwd: repoRoot,
      env: {...process.env, HOME: dir},
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let err = ''
    child.stderr.on('data', (b: Buffer) => (err += b.toString()))
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    let run: TrialsRun
    try {
      for (;;) {
        if (err.includes('Caches are synced')) break
        if (child.exitCode !== null)
          throw new Error(`pvctl exited (${child.exitCode}) before its caches were synced:\n${err.trim()}`)
        await sleep(50)
      }
      // The start-up pass: over when both queues are empty.
      while ((await queueDepth(port)) > 0) await sleep(100)
      log(`start-up pass done; timing ${pass} passes`)
      child.kill('SIGUSR2')
      run = await server.run(port, wanted, pass)
    } finally {
      child.kill('SIGTERM')
      await exited
    }
    const {trials, passLengths} = run
    if (opts.trialsJson !== undefined) writeFileSync(opts.trialsJson, JSON.stringify(trials, null, 1))
    const stall = /PVCTL_EVENT_LOOP_DELAY_MS max=([\d.]+) p99=([\d.]+) cpu=([\d.]+)/.exec(err)
    const inPass = trials.filter((t) => t.inPass)
    const ms = inPass.map((t) => t.boundAt! - t.createdAt).sort((a, b) => a - b)
    const sortedPasses = [...passLengths].sort((a, b) => a - b)
    const part = (f: (t: Trial) => number | undefined) =>
      percentile(
        inPass
          .map(f)
          .filter((x): x is number => x !== undefined && Number.isFinite(x))
          .sort((a, b) => a - b),
        50,
      )
    return {
      size: opts.size,
      pass,
      volumes,
      claims,
      trials: inPass.length,
      created: trials.length,
      passes: passLengths.length,
      passSeconds: percentile(sortedPasses, 50) / 1000,
      p50Ms: percentile(ms, 50),
      p99Ms: percentile(ms, 99),
      maxMs: ms.at(-1) ?? Number.NaN,
      parts: {
        toVolumeWriteMs: part((t) => t.volumeWriteAt! - t.createdAt),
        toClaimWriteMs: part((t) => t.claimWriteAt! - t.createdAt),
        toHeldMs: part((t) => t.boundAt! - t.createdAt),
      },
      stallMaxMs: stall ? Number(stall[1]) : Number.NaN,
      stallP99Ms: stall ? Number(stall[2]) : Number.NaN,
      cliCpuSeconds: stall ? Number(stall[3]) : Number.NaN,
      load: [loadStart, os.loadavg()[0]],
    }
  } finally {
    await server.stop()
    rmSync(dir, {recursive: true, force: true})
  }
}

/** The target beside its measure (judged at any size; docs/performance.md's is at 100k + 100k over 50 trials or more). */
export function describeWatchLatency(r: WatchLatencyResult): string[] {
  const met = r.trials >= MIN_TRIALS && r.p99Ms <= WATCH_LATENCY_TARGET_MS ? 'met' : 'NOT met'
  const p = r.parts
  return [
    `watch latency at ${r.volumes} + ${r.claims}: ${r.trials} claims created during ${r.passes - 1} ${r.pass} passes (${r.created - r.trials} more after their pass ended, not counted) of ${r.passSeconds.toFixed(2)} s (median); creation to both writes p50 ${r.p50Ms.toFixed(0)} ms, p99 ${r.p99Ms.toFixed(0)} ms, max ${r.maxMs.toFixed(0)} ms`,
    `  parts (medians, from the claim's creation): its volume's write arrives ${p.toVolumeWriteMs.toFixed(0)} ms, its own ${p.toClaimWriteMs.toFixed(0)} ms, both held ${p.toHeldMs.toFixed(0)} ms`,
    `  pvctl: CPU ${r.cliCpuSeconds.toFixed(1)} s over the timed passes; longest event-loop stall ${r.stallMaxMs.toFixed(0)} ms (p99 ${r.stallP99Ms.toFixed(0)} ms); load average ${r.load[0].toFixed(1)} → ${r.load[1].toFixed(1)}`,
    `target: watch latency at ${r.size} + ${r.size}, p99 within ${WATCH_LATENCY_TARGET_MS / 1000} s over ≥${MIN_TRIALS} trials: ${r.p99Ms.toFixed(0)} ms over ${r.trials} trials — ${met}`,
  ]
}

const [mode, ...rest] = process.argv.slice(2)
if (mode === 'serve') {
  await serve(rest[0]!, Number(rest[1]), Number(rest[2]))
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const {values} = parseArgs({
    options: {
      size: {type: 'string', default: '100000'},
      trials: {type: 'string', default: '50'},
      resync: {type: 'string', default: '15'},
      relist: {type: 'boolean', default: false},
      'trials-json': {type: 'string'},
    },
  })
  const r = await benchWatchLatency({
    size: Number(values.size),
    trials: Number(values.trials),
    resyncSeconds: Number(values.resync),
    relist: values.relist,
    trialsJson: values['trials-json'],
  })
  process.stdout.write(`${describeWatchLatency(r).join('\n')}\n`)
}
