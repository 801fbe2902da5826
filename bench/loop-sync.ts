// Loop mode's full pass (docs/performance.md: at 100k + 100k, at start-up and at every resync, within
// 1.5× the strict floor measured in the same run; steady RSS under 1 GB): the generated cluster of N
// volumes and N claims is served by the API-server emulator, and `pvctl sync --watch --dry-run` (dist/,
// as built, in its own process) lists it and syncs every volume and claim once, then again at its first
// resync (--resync long enough for the start-up's list and pass). The start-up pass is timed from its log
// line "Caches are synced" (its lists done: the workers start then), the resync's from its
// pvctl_resync_started_timestamp_seconds (it queues every key of the caches and lists nothing), each to
// the moment its /metrics count a sync of every object (pvctl_syncs_total; polled sparingly: a scrape
// costs the CLI). Beside each, the CLI's CPU seconds over it (/proc/PID/stat), and its RSS after both
// (/proc/PID/status).
//
// The strict floor (bench/measure.ts floor: JSON.parse of the cluster as `kubectl get -o json` prints it,
// JSON.stringify of its PVs and PVCs, in a fresh process) is measured in each run just before its CLI
// starts: a pass judged in seconds reads slower on a slower machine, and machines of this kind differ by
// more than 2× in what both pay most, fresh memory (machine.ts). The target's 1.5× is what 2.5 s is on a
// machine whose strict floor takes 1.3–1.6 s (2.5 s ÷ 1.6 s, rounded down).
//
//   npm run build && npx tsx bench/loop-sync.ts                  10k + 10k
//   npx tsx bench/loop-sync.ts --size 100000 [--resync 15]     the targets' size (--resync 0: start-up only)
//   npx tsx bench/loop-sync.ts --size 100000 --runs 3          the medians of 3 runs, each run beside them
//   npx tsx bench/loop-sync.ts --size 100000 --cpu-prof DIR    the CLI's CPU profile in DIR (node --cpu-prof)
//
// The emulator runs in this process: it answers the lists, then sits idle (a dry run writes nothing).
import {spawn} from 'node:child_process'
import {createServer} from 'node:net'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {parseArgs} from 'node:util'

import {runMeasure} from './cli-run.js'
import {generateCluster, type GeneratedCluster, writeCluster} from './generate-cluster.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = path.join(repoRoot, 'bin', 'run.js')
const DEFAULT_RESYNC_S = 15

/** docs/performance.md's targets: a full pass at 100k + 100k within 1.5× the strict floor of the same run, loop mode's steady RSS under 1 GB. */
export const PASS_TARGET = {size: 100_000, strictFloorRatio: 1.5}
export const RSS_TARGET_MB = 1024

export interface PassMeasure {
  /** Seconds from the pass's start (caches synced; a resync's pass queued) to a sync of every object. */
  seconds: number
  /** CPU seconds (user + system) of the CLI over that time (see measurePasses for the resync's). */
  cpuSeconds: number
}

export interface LoopSyncResult {
  volumes: number
  claims: number
  /** The start-up pass: from "Caches are synced". */
  startup: PassMeasure
  /**
   * The first resync: from its start (pvctl_resync_started_timestamp_seconds) to a sync of every object;
   * undefined without /proc or before it came. Its keys are queued a slice at a time, its syncs run meanwhile.
   */
  resync: PassMeasure | undefined
  /** Of which after its last key was queued (pvctl_resync_queued_timestamp_seconds). */
  resyncAfterQueuedSeconds: number | undefined
  /** VmRSS of the CLI after the passes, MB (undefined without /proc). */
  rssMb: number | undefined
  /** VmRSS of the CLI after the start-up pass, MB. */
  startupRssMb: number | undefined
  /** The start-up pass's seconds (as `startup.seconds`). */
  seconds: number
  /** Milliseconds per sync of the start-up pass, on average. */
  perSyncMs: number
  /** The strict floor of the cluster's snapshot, seconds, measured just before the CLI started. */
  strictFloor: number
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const {port} = server.address() as {port: number}
      server.close(() => resolve(port))
    })
  })
}

interface Scrape {
  /** pvctl_syncs_total, all queues and results. */
  syncs: number
  /** pvctl_resync_queued_timestamp_seconds, ms (0: no resync yet). */
  resyncQueuedMs: number
  /** pvctl_resync_started_timestamp_seconds, ms (0: no resync yet). */
  resyncStartedMs: number
}

async function scrape(port: number): Promise<Scrape> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  let syncs = 0
  let resyncQueuedMs = 0
  let resyncStartedMs = 0
  for (const line of text.split('\n')) {
    if (line.startsWith('pvctl_syncs_total{')) syncs += Number(line.slice(line.lastIndexOf(' ') + 1))
    else if (line.startsWith('pvctl_resync_queued_timestamp_seconds '))
      resyncQueuedMs = Number(line.slice(line.lastIndexOf(' ') + 1)) * 1000
    else if (line.startsWith('pvctl_resync_started_timestamp_seconds '))
      resyncStartedMs = Number(line.slice(line.lastIndexOf(' ') + 1)) * 1000
  }
  return {syncs, resyncQueuedMs, resyncStartedMs}
}

/** User + system CPU seconds of a process (/proc/PID/stat, in clock ticks of 1/100 s); undefined without /proc. */
function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return undefined
  }
}

function rssMb(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m === null ? undefined : Number(m[1]) / 1024
  } catch {
    return undefined
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Polls /metrics until `done` holds. Each scrape costs the CLI a render of its metrics, in the thread that
 * syncs: the polls are spaced by the time the syncs left should take at the rate seen so far (at most
 * 250 ms, at least 50 ms), so that a pass is timed to ~50 ms with a handful of scrapes, not one every
 * 50 ms. A longer wait would overshoot a pass shorter than it: the first scrape of a pass, a few
 * milliseconds in, sees too few syncs to tell its rate.
 */
async function pollUntil(
  port: number,
  since: number,
  target: number,
  base: number,
  done: (s: Scrape) => boolean,
): Promise<Scrape> {
  for (;;) {
    const s = await scrape(port)
    if (done(s)) return s
    const elapsed = performance.now() - since
    const synced = s.syncs - base
    const left = target - s.syncs
    const wait = target === Infinity ? 50 : synced > 0 && left > 0 ? (left * elapsed) / synced / 2 : 200
    await sleep(Math.min(250, Math.max(50, wait)))
  }
}

export async function benchLoopSync(opts: {
  size: number
  resyncS?: number
  cpuProfDir?: string
  log?: (line: string) => void
}): Promise<LoopSyncResult> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`))
  const {startEmulator} = await import('../test/emulator/emulator.js')
  const cluster = generateCluster(opts.size)
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pvctl-loop-sync-'))
  let strictFloor: number
  try {
    strictFloor = await strictFloorOf(cluster, dir)
  } catch (err) {
    rmSync(dir, {recursive: true, force: true})
    throw err
  }
  const api = await startEmulator({tls: true, listItemTypeMeta: false, objects: cluster.list.items as never})
  try {
    const kubeconfig = path.join(dir, 'kubeconfig.yaml')
    writeFileSync(kubeconfig, api.kubeconfig({token: 'bench'}))
    const {volumes, claims} = cluster.counts
    log(`emulator up: ${volumes} volumes, ${claims} claims, ${cluster.counts.pods} pods`)
    const port = await freePort()
    // One resync after the start-up pass: its period longer than the start-up's list and pass should take.
    // 0: the start-up pass only (a resync after an hour, not waited for).
    const resyncS = opts.resyncS ?? defaultResyncS(opts.size)
    const args = [
      'sync',
      '--watch',
      '--dry-run',
      '--kubeconfig',
      kubeconfig,
      '--metrics-bind-address',
      `127.0.0.1:${port}`,
      '--resync',
      resyncS > 0 ? `${resyncS}s` : '1h',
      '-o',
      'json',
    ]
    // A profile is written when the CLI exits (SIGTERM, below): its start-up pass is the stretch after "Caches are synced".
    const profile =
      opts.cpuProfDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${path.resolve(opts.cpuProfDir)}`]
    const child = spawn(process.execPath, [...profile, bin, ...args], {
      cwd: repoRoot,
      env: {...process.env, HOME: dir},
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    const pid = child.pid!
    try {
      let err = ''
      const cachesSynced = new Promise<{t: number; cpu: number | undefined}>((resolve, reject) => {
        child.stderr.on('data', (b: Buffer) => {
          err += b.toString()
          if (err.includes('Caches are synced')) resolve({t: performance.now(), cpu: cpuSeconds(pid)})
        })
        void exited.then((code) =>
          reject(new Error(`pvctl exited (${code}) before its caches were synced:\n${err.trim()}`)),
        )
      })
      const synced = await cachesSynced
      const objects = volumes + claims
      const first = await pollUntil(port, synced.t, objects, 0, (s) => s.syncs >= objects)
      const startupEnd = {t: performance.now(), cpu: cpuSeconds(pid)}
      const startupRssMb = rssMb(pid)
      const startup = {
        seconds: (startupEnd.t - synced.t) / 1000,
        cpuSeconds: (startupEnd.cpu ?? NaN) - (synced.cpu ?? NaN),
      }
      if (resyncS <= 0)
        return {
          volumes,
          claims,
          startup,
          resync: undefined,
          resyncAfterQueuedSeconds: undefined,
          rssMb: startupRssMb,
          startupRssMb,
          seconds: startup.seconds,
          perSyncMs: (startup.seconds * 1000) / objects,
          strictFloor,
        }
      if (first.resyncStartedMs > 0)
        log('the resync came before the start-up pass had ended: its pass is timed from its start all the same')
      // The resync: timed from when the CLI began it (its gauge, wall-clock time) to every object synced again
      // with every key queued.
      await sleep(synced.t + resyncS * 1000 - performance.now())
      const started = await pollUntil(port, performance.now(), Infinity, first.syncs, (s) => s.resyncStartedMs > 0)
      const startedSeen = {t: performance.now(), cpu: cpuSeconds(pid), wallMs: Date.now()}
      const lateMs = startedSeen.wallMs - started.resyncStartedMs
      const last = await pollUntil(
        port,
        startedSeen.t - lateMs,
        2 * objects,
        objects,
        (s) => s.syncs >= 2 * objects && s.resyncQueuedMs >= s.resyncStartedMs,
      )
      const resyncEnd = {t: performance.now(), cpu: cpuSeconds(pid), wallMs: Date.now()}
      // CPU from the first scrape that saw the resync begun (at most ~50 ms into it: that much is not counted).
      const resync = {
        seconds: (resyncEnd.t - startedSeen.t + lateMs) / 1000,
        cpuSeconds: (resyncEnd.cpu ?? NaN) - (startedSeen.cpu ?? NaN),
      }
      const resyncAfterQueuedSeconds = (resyncEnd.wallMs - last.resyncQueuedMs) / 1000
      const rss = rssMb(pid)
      return {
        volumes,
        claims,
        startup,
        resync,
        resyncAfterQueuedSeconds,
        rssMb: rss,
        startupRssMb,
        seconds: startup.seconds,
        perSyncMs: (startup.seconds * 1000) / objects,
        strictFloor,
      }
    } finally {
      child.kill('SIGTERM')
      await exited
    }
  } finally {
    await api.stop()
    rmSync(dir, {recursive: true, force: true})
  }
}

/**
 * The strict floor of the cluster (bench/measure.ts floor), its snapshot written to `dir` for it and
 * removed after: measured before the emulator holds the cluster, on a machine otherwise as quiet.
 */
async function strictFloorOf(cluster: GeneratedCluster, dir: string): Promise<number> {
  const file = path.join(dir, 'cluster.json')
  writeCluster(file, cluster)
  try {
    const floor = await runMeasure('floor', file)
    if (floor.volumes !== cluster.counts.volumes || floor.claims !== cluster.counts.claims) {
      throw new Error(
        `the strict floor printed ${floor.volumes} volumes and ${floor.claims} claims of ${cluster.counts.volumes} and ${cluster.counts.claims}`,
      )
    } else {
      // It printed every volume and every claim of the snapshot.
    }
    return Number(floor.floor)
  } finally {
    rmSync(file, {force: true})
  }
}

/** Long enough for the start-up's list and pass at that size (15 s, the default period, at 75,000 and more). */
function defaultResyncS(size: number): number {
  return Math.min(DEFAULT_RESYNC_S, Math.max(3, Math.ceil(size / 5000)))
}

/** Whether the targets are met; `pass` undefined at a size other than the target's. */
export function judgeLoopSync(r: LoopSyncResult): {pass: boolean | undefined; rss: boolean | undefined} {
  const passes = [r.startup.seconds, r.resync?.seconds ?? Infinity]
  return {
    pass:
      r.volumes === PASS_TARGET.size && r.claims === PASS_TARGET.size
        ? passes.every((s) => s <= passLimit(r))
        : undefined,
    rss: r.rssMb === undefined ? undefined : r.rssMb < RSS_TARGET_MB,
  }
}

/** The longest pass the target allows in this run: its strict floor's share. */
function passLimit(r: LoopSyncResult): number {
  return PASS_TARGET.strictFloorRatio * r.strictFloor
}

const cpu = (p: PassMeasure) => (Number.isFinite(p.cpuSeconds) ? `, CPU ${p.cpuSeconds.toFixed(2)} s` : '')

export function describe(r: LoopSyncResult): string {
  const fits = r.seconds <= DEFAULT_RESYNC_S ? 'fits in' : 'does NOT fit in'
  const after =
    r.resyncAfterQueuedSeconds === undefined
      ? ''
      : ` (${r.resyncAfterQueuedSeconds.toFixed(2)} s of it after its keys were queued)`
  const resync =
    r.resync === undefined
      ? 'no resync measured'
      : `resync ${r.resync.seconds.toFixed(2)} s from its start${after}${cpu(r.resync)}`
  const judged = judgeLoopSync(r)
  const verdict = (ok: boolean | undefined, what: string) =>
    ok === undefined ? `not judged ${what}` : ok ? 'met' : 'NOT met'
  const ratio = (p: PassMeasure) => `${p.seconds.toFixed(2)} s = ${(p.seconds / r.strictFloor).toFixed(2)}×`
  return [
    `loop mode, every object synced once (start-up, or a resync) at ${r.volumes} + ${r.claims}: start-up ${r.startup.seconds.toFixed(2)} s${cpu(r.startup)}, ${resync}; ${r.perSyncMs.toFixed(3)} ms per sync; ${fits} the ${DEFAULT_RESYNC_S} s resync period`,
    `target: loop full pass at ${PASS_TARGET.size} + ${PASS_TARGET.size} within ${PASS_TARGET.strictFloorRatio}× the strict floor of the same run (${r.strictFloor.toFixed(2)} s: at most ${passLimit(r).toFixed(2)} s): start-up ${ratio(r.startup)}, ${r.resync === undefined ? 'resync not measured' : `resync ${ratio(r.resync)}`} — ${verdict(judged.pass, `at ${r.volumes} + ${r.claims}`)}`,
    `target: loop steady RSS under 1 GB: ${r.rssMb === undefined ? 'not measured' : `${r.rssMb.toFixed(0)} MB after the resync (${r.startupRssMb?.toFixed(0)} MB after the start-up)`} — ${verdict(judged.rss, 'without /proc')}`,
  ].join('\n')
}

/** The one-shot sync of the same bench run at the loop's size: planSync of every object (every round and the report), in seconds. */
export interface OneShotBeside {
  plan: number
}

/**
 * The passes beside the one-shot's plan of every object in the same run: how a pass of one sync per object
 * compares with the engine's rounds over the whole state, on the same machine.
 */
export function describeBesideOneShot(r: LoopSyncResult, oneShot: OneShotBeside): string {
  const ratio = (seconds: number) => `${(seconds / oneShot.plan).toFixed(2)}× the plan`
  const resync = r.resync === undefined ? '' : `; resync ${r.resync.seconds.toFixed(2)} s = ${ratio(r.resync.seconds)}`
  return `loop mode beside the one-shot sync's plan of this run at ${r.volumes} + ${r.claims} (${oneShot.plan.toFixed(2)} s): start-up ${r.startup.seconds.toFixed(2)} s = ${ratio(r.startup.seconds)}${resync}`
}

/**
 * Runs the bench `runs` times, one after the other: the machine's speed drifts from one minute to the
 * next, and a pass of a few seconds is timed in one run. Judged on the medians (medianOf).
 */
export async function benchLoopSyncRuns(opts: {
  size: number
  runs: number
  resyncS?: number
  cpuProfDir?: string
  log?: (line: string) => void
}): Promise<LoopSyncResult[]> {
  const results: LoopSyncResult[] = []
  for (let i = 0; i < opts.runs; i++) results.push(await benchLoopSync(opts))
  return results
}

/**
 * The runs' medians: the start-up pass and the resync each the median of the runs' (by wall time, with
 * that run's CPU), the strict floor the median of the runs' (as the one-shot's target takes it), the RSS
 * the highest.
 */
export function medianOf(runs: readonly LoopSyncResult[]): LoopSyncResult {
  if (runs.length === 0) throw new Error('no run to take the median of')
  const median = <T>(xs: T[], by: (x: T) => number): T =>
    xs.sort((a, b) => by(a) - by(b))[Math.floor((xs.length - 1) / 2)]
  const first = median([...runs], (r) => r.startup.seconds)
  const resyncs = runs.filter((r) => r.resync !== undefined)
  const resynced = resyncs.length === 0 ? undefined : median(resyncs, (r) => r.resync!.seconds)
  const highest = (f: (r: LoopSyncResult) => number | undefined) => {
    const xs = runs.map(f).filter((x): x is number => x !== undefined)
    return xs.length === 0 ? undefined : Math.max(...xs)
  }
  return {
    ...first,
    resync: resynced?.resync,
    resyncAfterQueuedSeconds: resynced?.resyncAfterQueuedSeconds,
    rssMb: highest((r) => r.rssMb),
    startupRssMb: highest((r) => r.startupRssMb),
    strictFloor: median(
      runs.map((r) => r.strictFloor),
      (x) => x,
    ),
  }
}

/** describe() of the medians, and each run's passes when there were several. */
export function describeRuns(runs: readonly LoopSyncResult[]): string {
  const each = runs.map(
    (r, i) =>
      `  run ${i + 1}: strict floor ${r.strictFloor.toFixed(2)} s, start-up ${r.startup.seconds.toFixed(2)} s${cpu(r.startup)}${r.resync === undefined ? '' : `, resync ${r.resync.seconds.toFixed(2)} s${cpu(r.resync)}`}`,
  )
  const medians = describe(medianOf(runs))
  return runs.length === 1 ? medians : [...each, `medians of ${runs.length} runs:`, medians].join('\n')
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const {values} = parseArgs({
    options: {
      size: {type: 'string', default: '10000'},
      resync: {type: 'string'},
      runs: {type: 'string', default: '1'},
      'cpu-prof': {type: 'string'},
    },
  })
  const runs = await benchLoopSyncRuns({
    size: Number(values.size),
    runs: Number(values.runs),
    resyncS: values.resync === undefined ? undefined : Number(values.resync),
    cpuProfDir: values['cpu-prof'],
  })
  process.stdout.write(`${describeRuns(runs)}\n`)
}
