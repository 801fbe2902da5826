// `npm run bench`: generated clusters of each size through the built CLI and, in a fresh process each,
// through the same code in-process, timed part by part; then pvctl's engine beside the literal controller
// (the scan of FindMatchingVolume, every sync run in every round).
//
//   npm run bench                                   sizes 10k and 100k, the scan comparison at 20k
//   npm run bench -- --size 100000                  one size (repeat --size for more)
//   npm run bench -- --size 160000                  a report past V8's 512 MiB string limit (printed in chunks)
//   npm run bench -- --reference-size 0             no scan comparison
//   npm run bench -- --smoke                        1k, everything once, no targets judged (CI)
//   npm run bench -- --live-size 0                  no live list (bench/live-list.ts; 100k by default)
//   npm run bench -- --live-oneshot-size 0          no live sync and audit beside the file (bench/live-oneshot.ts; 100k by default)
//   npm run bench -- --loop-size 0                  no loop-mode full sync (bench/loop-sync.ts; 100k by default)
//   npm run bench -- --watch-size 0                 no watch latency under a resync pass (bench/watch-latency.ts; 100k by default)
//   npm run bench -- --watch-trials 100             its trials (claims created during a pass; default 50)
//   npm run bench -- --real-size 0                  no loop mode beside the real PV controller (bench/real-controller.ts; 10k by default, where Go is installed)
//   npm run bench -- --json results.json            the numbers as JSON too, written at the end (the sizes, then the live, loop and watch benches)
//   npm run bench -- --runs 3                       each size measured 3 times (default 5; 1 with --smoke)
//
// "N" volumes means N PersistentVolumes and N claims (bench/generate-cluster.ts). For each size:
//   load    loadSnapshot (read, JSON.parse, checks)        plan    planSync (reconcile + the report)
//   render  -o json, its chunks written to /dev/null       floor   JSON.parse of the input + JSON.stringify of the report
//           (one string per list past 512 MiB)
//   strict floor  in a process of its own (a fresh heap, as the CLI's): JSON.parse of the input + JSON.stringify
//           of its PVs and of its PVCs, nothing else (the sync targets: SYNC_TARGET_RATIO, SYNC_TARGET_RSS_MB)
//   cli     wall time of `pvctl sync -f FILE --dry-run -o json > /dev/null`, and its peak RSS
//   audit   wall time and peak RSS of `pvctl audit -f FILE -o json > /dev/null`, right after each cli run,
//           and its ratio to that run's cli time (the audit targets: AUDIT_TARGET_RATIO, AUDIT_TARGET_RSS_MB)
//   explain wall time and peak RSS of `pvctl explain -A -f FILE -o json > /dev/null` (every pending claim), once
// Before the sizes, start-up: `pvctl --help` and, when `npm run release` made this machine's single-file
// executable, its `--help` beside the npm install's on the same Node.js (SINGLE_FILE_HELP_RATIO).
import {spawnSync} from 'node:child_process'
import {closeSync, existsSync, mkdtempSync, openSync, rmSync, statSync, writeSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {nodeRuntime} from '../scripts/node-runtime.js'
import {RELEASE_NODE, TARGETS} from '../scripts/release.js'
import {runCli, runMeasure} from './cli-run.js'
import {generateCluster, type GeneratedCluster, writeCluster} from './generate-cluster.js'
import {describeFreshMemory, type FreshMemory, freshMemory, machine} from './machine.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = path.join(repoRoot, 'bin', 'run.js')

/** At 100k + 100k, `pvctl sync --dry-run -o json` from a file takes at most this many times the strict floor's time… */
export const SYNC_TARGET_RATIO = 2.5
/** …and peaks under this RSS. */
export const SYNC_TARGET_RSS_MB = 1024

/** docs/performance.md: at 100k + 100k, audit takes at most this many times sync --dry-run's time in the same run… */
export const AUDIT_TARGET_RATIO = 1.3
/** …and peaks under this RSS. */
export const AUDIT_TARGET_RSS_MB = 1536

/** docs/performance.md: the single-file release's `--help` within this many times the npm install's, both on the release's Node.js. */
export const SINGLE_FILE_HELP_RATIO = 1.5

export interface BenchOptions {
  sizes: number[]
  /** Size of the scan comparison; 0 for none. */
  referenceSize: number
  /** Judge the targets (not at smoke size). */
  judge: boolean
  /** Measurements of each size (in-process and CLI, taken in turn; default 1); the table shows their medians. */
  runs?: number
  dir?: string
  keep?: boolean
  log?: (line: string) => void
}

export interface SizeResult {
  volumes: number
  claims: number
  inputMB: number
  load: number
  plan: number
  render: number
  floor: number
  floorParse: number
  floorStringify: number
  /** The strict floor (parse + stringify of the PVs and PVCs, in a fresh process): median of the runs. */
  strictFloor: number
  strictFloorParse: number
  strictFloorStringify: number
  cli: number
  cliMaxRssMB: number
  inProcessMaxRssMB: number
  rounds: number
  converged: boolean
  actions: number
  outputMB: number
  /** How many pieces -o json was written in (none of them the whole report). */
  outputChunks: number
  /** `pvctl audit -o json`: the median wall time, the highest peak RSS. */
  audit: number
  auditMaxRssMB: number
  /** The median over the runs of audit's time ÷ the time of the sync (`cli`) run just before it. */
  auditRatio: number
  /** `pvctl explain -A -o json`, once: every claim not Bound, the nearest candidates of each. */
  explain: number
  explainMaxRssMB: number
}

export interface ReferenceResult {
  volumes: number
  /** reconcile() with each engine: the indexed one at its steady state (median of runs after the first). */
  indexed: number
  scan: number
  speedup: number
  /** The indexed engine's first run in the process (compiling as it goes), and the scan's time over it. */
  indexedCold: number
  coldSpeedup: number
  /** Of which: time in the matching index (finding volumes, keeping the index current). */
  indexedMatching: number
  scanMatching: number
  matchingSpeedup: number
  identical: boolean
}

export interface BenchResult {
  machine: string
  /** What a page of fresh memory costs this machine (machine.ts): what most sets it apart from another of its kind. */
  freshMemory: FreshMemory
  help: number
  /** `node -e ""` in the same environment: Node's own start-up, part of `help`. */
  nodeStartup: number
  /** When `npm run release` made this machine's executable: its `--help`, and the npm install's on the same Node.js. */
  singleFile?: {executable: string; node: string; help: number; npmHelp: number}
  sizes: SizeResult[]
  reference?: ReferenceResult
}

/** Median wall time of a command, of 10 runs after a warm-up, in this environment. */
function medianTime(command: string, args: string[]): number {
  const times: number[] = []
  for (let i = 0; i < 11; i++) {
    const started = performance.now()
    const r = spawnSync(command, args, {cwd: repoRoot, stdio: 'ignore'})
    if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${r.status})`)
    if (i > 0) times.push((performance.now() - started) / 1000)
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]
}

/**
 * `pvctl --help`, and `node -e ""` alike: what Node itself takes before pvctl's first line
 * (NODE_EXTRA_CA_CERTS, when set, is a bundle of certificates Node parses at start-up: ~100 ms on the
 * sandbox this was written on, whose environment sets it).
 */
function startupTimes(): {help: number; node: number} {
  return {help: medianTime(process.execPath, [bin, '--help']), node: medianTime(process.execPath, ['-e', ''])}
}

/**
 * The single-file executable of `npm run release` (release/linux-ARCH/pvctl), when there is one: its
 * `--help` beside the npm install's run by the same Node.js (the release's, from the npm registry).
 */
function singleFileStartup(): BenchResult['singleFile'] {
  const target = TARGETS.find((t) => t.nodeArch === process.arch)
  const executable = path.join(repoRoot, 'release', target?.name ?? 'none', 'pvctl')
  if (process.platform !== 'linux' || !existsSync(executable)) return undefined
  const node = nodeRuntime(RELEASE_NODE, process.arch)
  const npmHelp = medianTime(node, [bin, '--help'])
  const help = medianTime(executable, ['--help'])
  return {executable: path.relative(repoRoot, executable), node: RELEASE_NODE, help, npmHelp}
}

export async function runBench(opts: BenchOptions): Promise<BenchResult> {
  const log = opts.log ?? ((line: string) => process.stdout.write(line + '\n'))
  if (!existsSync(path.join(repoRoot, 'dist', 'commands')))
    throw new Error('the CLI is not built: run `npm run build` first')
  const dir = opts.dir ?? mkdtempSync(path.join(os.tmpdir(), 'pvctl-bench-'))
  const startup = startupTimes()
  const result: BenchResult = {
    machine: machine(),
    freshMemory: freshMemory(),
    help: startup.help,
    nodeStartup: startup.node,
    singleFile: singleFileStartup(),
    sizes: [],
  }
  log(`machine: ${result.machine}`)
  log(describeFreshMemory(result.freshMemory))
  const extraCerts = process.env.NODE_EXTRA_CA_CERTS ? ', NODE_EXTRA_CA_CERTS set' : ''
  log(
    `pvctl --help: ${ms(result.help)} (median of 10), of which Node's own start-up (node -e ""${extraCerts}): ${ms(result.nodeStartup)}`,
  )
  log(singleFileLine(result.singleFile))
  try {
    for (const size of opts.sizes) {
      const cluster = generateCluster(size)
      const file = path.join(dir, `cluster-${size}.json`)
      const bytes = writeCluster(file, cluster)
      log(
        `${size} volumes, ${cluster.counts.claims} claims, ${cluster.counts.pods} pods: ${(bytes / 1e6).toFixed(0)} MB of JSON`,
      )
      // In turn, so that a slow spell of the machine falls on both sides: the medians, the highest RSS.
      const measured: Array<Record<string, number | boolean>> = []
      const floors: Array<Record<string, number | boolean>> = []
      const clis: Array<{seconds: number; maxRssMB: number}> = []
      // Each right after the sync of its run: the ratio of the two is taken within a minute.
      const audits: Array<{seconds: number; maxRssMB: number}> = []
      const runs = opts.runs ?? 1
      for (let run = 1; run <= runs; run++) {
        measured.push(await runMeasure('sync', file))
        floors.push(await runMeasure('floor', file))
        const printed = floors.at(-1)!
        if (printed.volumes !== cluster.counts.volumes || printed.claims !== cluster.counts.claims) {
          throw new Error(
            `the strict floor printed ${printed.volumes} volumes and ${printed.claims} claims of ${cluster.counts.volumes} and ${cluster.counts.claims}`,
          )
        } else {
          // It printed what sync prints: every volume and every claim of the file.
        }
        clis.push(await runCli(['sync', '-f', file, '--dry-run', '-o', 'json']))
        audits.push(await runCli(['audit', '-f', file, '-o', 'json']))
        const [m, strict, cli, audit] = [measured.at(-1)!, Number(floors.at(-1)!.floor), clis.at(-1)!, audits.at(-1)!]
        if (runs > 1) {
          log(
            `  run ${run}: floor ${s(Number(m.floor))}, strict floor ${s(strict)}, cli ${s(cli.seconds)} = ${(cli.seconds / Number(m.floor)).toFixed(2)}× floor, ${(cli.seconds / strict).toFixed(2)}× strict floor, peak RSS ${cli.maxRssMB.toFixed(0)} MB` +
              ` | audit ${s(audit.seconds)} = ${(audit.seconds / cli.seconds).toFixed(2)}× cli, peak RSS ${audit.maxRssMB.toFixed(0)} MB`,
          )
        }
      }
      const m = medianOf(measured)
      const strict = medianOf(floors)
      const cli = {seconds: median(clis.map((c) => c.seconds)), maxRssMB: Math.max(...clis.map((c) => c.maxRssMB))}
      const audit = {
        seconds: median(audits.map((a) => a.seconds)),
        maxRssMB: Math.max(...audits.map((a) => a.maxRssMB)),
        ratio: median(audits.map((a, i) => a.seconds / clis[i].seconds)),
      }
      const explain = await runCli(['explain', '-A', '-f', file, '-o', 'json'])
      const row: SizeResult = {
        volumes: cluster.counts.volumes,
        claims: cluster.counts.claims,
        inputMB: bytes / 1e6,
        load: Number(m.load),
        plan: Number(m.plan),
        render: Number(m.render),
        floor: Number(m.floor),
        floorParse: Number(m.floorParse),
        floorStringify: Number(m.floorStringify),
        strictFloor: Number(strict.floor),
        strictFloorParse: Number(strict.parse),
        strictFloorStringify: Number(strict.stringify),
        cli: cli.seconds,
        cliMaxRssMB: cli.maxRssMB,
        inProcessMaxRssMB: Number(m.maxRssMB),
        rounds: Number(m.rounds),
        converged: Boolean(m.converged),
        actions: Number(m.actions),
        outputMB: Number(m.outputBytes) / 1e6,
        outputChunks: Number(m.chunks),
        audit: audit.seconds,
        auditMaxRssMB: audit.maxRssMB,
        auditRatio: audit.ratio,
        explain: explain.seconds,
        explainMaxRssMB: explain.maxRssMB,
      }
      result.sizes.push(row)
      log(
        `  load ${s(row.load)}  plan ${s(row.plan)}  render ${s(row.render)}  | floor ${s(row.floor)} (parse ${s(row.floorParse)} + stringify ${s(row.floorStringify)})` +
          `  | strict floor ${s(row.strictFloor)} (parse ${s(row.strictFloorParse)} + stringify ${s(row.strictFloorStringify)})` +
          `  | cli ${s(row.cli)} = ${(row.cli / row.floor).toFixed(2)}× floor, ${(row.cli / row.strictFloor).toFixed(2)}× strict floor, peak RSS ${row.cliMaxRssMB.toFixed(0)} MB` +
          `  | ${row.rounds} rounds, ${row.actions} actions, ${row.outputMB.toFixed(0)} MB of report in ${row.outputChunks} chunks`,
      )
      log(
        `  audit -o json ${s(row.audit)}, ${row.auditRatio.toFixed(2)}× the sync of the same run (medians), peak RSS ${row.auditMaxRssMB.toFixed(0)} MB`,
      )
      log(`  explain -A -o json ${s(row.explain)}, peak RSS ${row.explainMaxRssMB.toFixed(0)} MB`)
      if (!opts.keep) rmSync(file)
    }
    if (opts.referenceSize > 0) {
      const cluster = generateCluster(opts.referenceSize)
      const file = path.join(dir, `cluster-${opts.referenceSize}.json`)
      writeCluster(file, cluster)
      const m = await runMeasure('compare', file)
      result.reference = {
        volumes: opts.referenceSize,
        indexed: Number(m.indexed),
        scan: Number(m.scan),
        speedup: Number(m.speedup),
        indexedCold: Number(m.indexedCold),
        coldSpeedup: Number(m.coldSpeedup),
        indexedMatching: Number(m.indexedMatching),
        scanMatching: Number(m.scanMatching),
        matchingSpeedup: Number(m.matchingSpeedup),
        identical: Boolean(m.identical),
      }
      const r = result.reference
      log(
        `scan comparison at ${opts.referenceSize} × ${opts.referenceSize}: plan ${s(r.indexed)} indexed (first run ${s(r.indexedCold)}), ${s(r.scan)} scan (${r.speedup.toFixed(1)}×, ${r.coldSpeedup.toFixed(1)}× the first run); ` +
          `of which matching ${s(r.indexedMatching)} and ${s(r.scanMatching)} (${r.matchingSpeedup.toFixed(0)}×); identical plans: ${r.identical ? 'yes' : 'NO'}`,
      )
      if (!opts.keep) rmSync(file)
    }
  } finally {
    if (!opts.keep && opts.dir === undefined) rmSync(dir, {recursive: true, force: true})
  }
  log('')
  log(table(result))
  if (opts.judge) for (const line of judge(result)) log(line)
  return result
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Each number's median over the runs (the other fields are the same in every run). */
function medianOf(runs: ReadonlyArray<Record<string, number | boolean>>): Record<string, number | boolean> {
  const out: Record<string, number | boolean> = {...runs[0]}
  for (const [key, value] of Object.entries(out))
    if (typeof value === 'number') out[key] = median(runs.map((r) => Number(r[key])))
  return out
}

function s(seconds: number): string {
  return `${seconds.toFixed(2)} s`
}

function ms(seconds: number): string {
  return `${(seconds * 1000).toFixed(0)} ms`
}

/** The tables of docs/performance.md. */
export function table(r: BenchResult): string {
  const lines = [
    '| volumes + claims | input | load | plan | render | I/O floor | strict floor | `pvctl sync -f … -o json` | ÷ floor | ÷ strict floor | peak RSS |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...r.sizes.map(
      (x) =>
        `| ${x.volumes.toLocaleString('en')} + ${x.claims.toLocaleString('en')} | ${x.inputMB.toFixed(0)} MB | ${s(x.load)} | ${s(x.plan)} | ${s(x.render)} | ${s(x.floor)} | ${s(x.strictFloor)} | ${s(x.cli)} | ${(x.cli / x.floor).toFixed(2)}× | ${(x.cli / x.strictFloor).toFixed(2)}× | ${x.cliMaxRssMB.toFixed(0)} MB |`,
    ),
  ]
  lines.push(
    '',
    '| volumes + claims | `pvctl audit -f … -o json` | `pvctl sync --dry-run -f … -o json`, same runs | ratio | peak RSS |',
    '| ---: | ---: | ---: | ---: | ---: |',
  )
  for (const x of r.sizes)
    lines.push(
      `| ${x.volumes.toLocaleString('en')} + ${x.claims.toLocaleString('en')} | ${s(x.audit)} | ${s(x.cli)} | ${x.auditRatio.toFixed(2)}× | ${x.auditMaxRssMB.toFixed(0)} MB |`,
    )
  lines.push('', '| volumes + claims | `pvctl explain -A -f … -o json` | peak RSS |', '| ---: | ---: | ---: |')
  for (const x of r.sizes)
    lines.push(
      `| ${x.volumes.toLocaleString('en')} + ${x.claims.toLocaleString('en')} | ${s(x.explain)} | ${x.explainMaxRssMB.toFixed(0)} MB |`,
    )
  if (r.reference !== undefined) {
    const x = r.reference
    const n = x.volumes.toLocaleString('en')
    lines.push(
      '',
      `| ${n} + ${n} | pvctl's engine | literal controller (scan) | speed-up |`,
      '| --- | ---: | ---: | ---: |',
    )
    lines.push(`| plan (reconcile), steady state | ${s(x.indexed)} | ${s(x.scan)} | ${x.speedup.toFixed(0)}× |`)
    lines.push(
      `| plan, the engine's first run in the process (compiling as it goes) | ${s(x.indexedCold)} | | ${x.coldSpeedup.toFixed(0)}× |`,
    )
    lines.push(
      `| of which matching (find + index upkeep) | ${s(x.indexedMatching)} | ${s(x.scanMatching)} | ${x.matchingSpeedup.toFixed(0)}× |`,
    )
    lines.push(`| same plan | yes | ${x.identical ? 'yes' : 'NO'} | |`)
  }
  return lines.join('\n')
}

/** The targets, judged on this run: one-shot sync's and audit's, at 100k + 100k and more; the single file's start-up. */
function judge(r: BenchResult): string[] {
  const startup = r.singleFile === undefined ? [] : [singleFileTarget(r.singleFile)]
  return [
    ...startup,
    ...r.sizes.filter((x) => x.volumes >= 100_000).flatMap((x) => [...syncTargets(x), ...auditTargets(x)]),
  ]
}

function singleFileLine(x: BenchResult['singleFile']): string {
  if (x === undefined)
    return 'pvctl --help, single file: no release/ executable for this machine (npm run release makes one)'
  return `pvctl --help, single file (${x.executable}): ${ms(x.help)}; the npm install on its Node.js ${x.node}: ${ms(x.npmHelp)} (medians of 10)`
}

export function singleFileTarget(x: NonNullable<BenchResult['singleFile']>): string {
  const ratio = x.help / x.npmHelp
  return `target: the single file's --help within ${SINGLE_FILE_HELP_RATIO}× of the npm install's: ${ms(x.help)} ÷ ${ms(x.npmHelp)} = ${ratio.toFixed(2)}× — ${ratio <= SINGLE_FILE_HELP_RATIO ? 'met' : 'NOT met'}`
}

/** One-shot sync's targets, each beside its measure: the medians of the runs, the highest peak RSS. */
export function syncTargets(x: SizeResult): string[] {
  const size = `${x.volumes} + ${x.claims}`
  const ratio = x.cli / x.strictFloor
  return [
    `target: sync --dry-run -o json at ${size} within ${SYNC_TARGET_RATIO}× of the strict floor: ${s(x.cli)} ÷ ${s(x.strictFloor)} = ${ratio.toFixed(2)}× — ${ratio <= SYNC_TARGET_RATIO ? 'met' : 'NOT met'}`,
    `target: sync at ${size} under ${(SYNC_TARGET_RSS_MB / 1024).toFixed(0)} GB peak RSS: ${x.cliMaxRssMB.toFixed(0)} MB — ${x.cliMaxRssMB < SYNC_TARGET_RSS_MB ? 'met' : 'NOT met'}`,
  ]
}

/** Audit's targets, each beside its measure. */
export function auditTargets(x: SizeResult): string[] {
  const size = `${x.volumes} + ${x.claims}`
  return [
    `target: audit at ${size} within ${AUDIT_TARGET_RATIO}× of sync --dry-run in the same run: ${x.auditRatio.toFixed(2)}× — ${x.auditRatio <= AUDIT_TARGET_RATIO ? 'met' : 'NOT met'}`,
    `target: audit at ${size} under ${(AUDIT_TARGET_RSS_MB / 1024).toFixed(1)} GB peak RSS: ${x.auditMaxRssMB.toFixed(0)} MB — ${x.auditMaxRssMB < AUDIT_TARGET_RSS_MB ? 'met' : 'NOT met'}`,
  ]
}

function parseArgs(argv: string[]): BenchOptions {
  const sizes: number[] = []
  let referenceSize = 20_000
  let judgeTargets = true
  let smoke = false
  let keep = false
  let dir: string | undefined
  let json: string | undefined
  let live = 100_000
  let liveOneshot = 100_000
  let loop = 100_000
  let watch = 100_000
  let trials = 50
  let real = 10_000
  let runs: number | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    const value = () => {
      const v = argv[++i]
      if (v === undefined) throw new Error(`${arg} needs a value`)
      return v
    }
    if (arg === '--size') sizes.push(positive(value(), arg))
    else if (arg === '--reference-size') referenceSize = Number(value())
    else if (arg === '--smoke') smoke = true
    else if (arg === '--keep') keep = true
    else if (arg === '--dir') dir = value()
    else if (arg === '--json') json = value()
    else if (arg === '--live-size') live = Number(value())
    else if (arg === '--live-oneshot-size') liveOneshot = Number(value())
    else if (arg === '--loop-size') loop = Number(value())
    else if (arg === '--watch-size') watch = Number(value())
    else if (arg === '--watch-trials') trials = positive(value(), arg)
    else if (arg === '--real-size') real = Number(value())
    else if (arg === '--runs') runs = positive(value(), arg)
    else throw new Error(`unknown argument ${arg}`)
  }
  if (smoke) {
    judgeTargets = false
    // test/e2e/live-list-bench.test.ts, live-oneshot-bench.test.ts, loop-sync-bench.test.ts and watch-latency-bench.test.ts run those at smoke size.
    live = 0
    liveOneshot = 0
    loop = 0
    watch = 0
    real = 0
    if (sizes.length === 0) sizes.push(1000)
    referenceSize = Math.min(referenceSize, 1000)
  } else if (sizes.length === 0) {
    sizes.push(10_000, 100_000)
  } else {
    // Sizes as given.
  }
  jsonOut = json
  liveSize = live
  liveOneshotSize = liveOneshot
  loopSize = loop
  watchSize = watch
  watchTrials = trials
  realSize = real
  return {sizes, referenceSize, judge: judgeTargets, dir, keep, runs: runs ?? (smoke ? 1 : 5)}
}

function positive(v: string, flag: string): number {
  const n = Number(v)
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag}: not a positive integer: ${v}`)
  return n
}

let jsonOut: string | undefined
let liveSize = 0
let liveOneshotSize = 0
let loopSize = 0
let watchSize = 0
let watchTrials = 50
let realSize = 0

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const opts = parseArgs(process.argv.slice(2))
    const result = await runBench(opts)
    // --json: the sizes' numbers, and those of the benches below as each ends.
    const measured: Record<string, unknown> = {...result}
    if (result.reference !== undefined && !result.reference.identical) process.exitCode = 1
    if (liveSize > 0) {
      // The live list beside the file, at pvctl's defaults.
      const {benchLiveList} = await import('./live-list.js')
      const flow = {chunkSize: 500, qps: 5, burst: 10}
      const r = await benchLiveList({volumes: liveSize, runs: 3, flow})
      measured.liveList = r
      process.stdout.write(
        `live list of ${r.volumes} volumes (--chunk-size 500 --qps 5 --burst 10): ${r.live.toFixed(2)} s, file ${r.file.toFixed(2)} s: ${r.ratio.toFixed(2)}× the file\n`,
      )
    }
    if (liveOneshotSize > 0) {
      // sync --dry-run -o json and audit -o json on the live cluster beside the same on the file, each target beside its measure.
      // Live reports that differ from the file's are wrong answers, as unidentical plans are (exit 1).
      const {benchLiveOneshot, describeLiveOneshot, reportsMatch} = await import('./live-oneshot.js')
      const r = await benchLiveOneshot({size: liveOneshotSize, runs: 3})
      measured.liveOneshot = r
      process.stdout.write(`${describeLiveOneshot(r).join('\n')}\n`)
      if (!reportsMatch(r)) process.exitCode = 1
    }
    if (loopSize > 0) {
      // Loop mode syncing every object once, as at start-up and at every resync.
      // The medians of the runs (at most 3: a run at 100k takes a minute, most of it the resync's wait).
      const {benchLoopSyncRuns, describeBesideOneShot, describeRuns, medianOf} = await import('./loop-sync.js')
      const runs = await benchLoopSyncRuns({size: loopSize, runs: Math.min(3, opts.runs ?? 1)})
      const medians = medianOf(runs)
      measured.loopSync = {...medians, runs}
      process.stdout.write(`${describeRuns(runs)}\n`)
      // Beside the one-shot of the same size, if this run measured it: the pass on this machine's scale.
      const oneShot = result.sizes.find((x) => x.volumes === loopSize)
      if (oneShot !== undefined) process.stdout.write(`${describeBesideOneShot(medians, oneShot)}\n`)
    }
    if (watchSize > 0) {
      // A claim created during a resync pass: creation to its bind's writes, beside the 1 s target.
      const {benchWatchLatency, describeWatchLatency} = await import('./watch-latency.js')
      const r = await benchWatchLatency({size: watchSize, trials: watchTrials})
      measured.watchLatency = r
      process.stdout.write(`${describeWatchLatency(r).join('\n')}\n`)
    }
    if (realSize > 0) {
      // Loop mode beside kube-controller-manager's PV controller, on a real kube-apiserver (needs Go).
      const {benchRealController, describeRealController} = await import('./real-controller.js')
      const r = await benchRealController({size: realSize})
      measured.realController = r
      process.stdout.write(
        'skipped' in r ? `real controller: skipped: ${r.skipped}\n` : `${describeRealController(r).join('\n')}\n`,
      )
    }
    if (jsonOut !== undefined) {
      const fd = openSync(jsonOut, 'w')
      writeSync(fd, JSON.stringify(measured, null, 2) + '\n')
      closeSync(fd)
    }
  } catch (err) {
    process.stderr.write(`bench: ${(err as Error).message}\n`)
    process.exitCode = 2
  }
}
