// One measurement, in a fresh process (so every size starts from an empty heap), of the code the CLI runs
// (dist/, as built): prints one JSON line on stdout.
//
//   node --import tsx bench/measure.ts sync FILE          load, plan, render and the I/O floor of FILE
//   node --import tsx bench/measure.ts floor FILE         the strict floor of FILE: parse it, stringify its PVs and PVCs
//   node --import tsx bench/measure.ts compare FILE       plan time of pvctl's engine and of the literal controller
import {closeSync, openSync, readFileSync, writeSync} from 'node:fs'
import {readFile} from 'node:fs/promises'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist')

// The built modules, typed by their sources.
type Snapshot = typeof import('../src/cluster/snapshot.js')
type Sync = typeof import('../src/engine/simulation/plan-sync.js')
type ReportDoc = typeof import('../src/render/report-doc.js')
type Reconcile = typeof import('../src/engine/simulation/reconcile.js')
type Gates = typeof import('../src/engine/api/feature-gates.js')
type MatchIndex = typeof import('../src/engine/matching/volume-match-index.js')
type ScanIndex = typeof import('../src/engine/matching/volume-index.js')

async function load<T>(module: string): Promise<T> {
  return (await import(pathToFileURL(path.join(dist, module)).href)) as T
}

function seconds(since: number): number {
  return (performance.now() - since) / 1000
}

/** Length of the JSON of `value`, a list stringified a slice at a time (each slice one string). */
function stringifyInSlices(value: unknown, slice = 10_000): number {
  if (!Array.isArray(value)) return JSON.stringify(value, null, 2)?.length ?? 0
  let length = 0
  for (let i = 0; i < value.length; i += slice) length += JSON.stringify(value.slice(i, i + slice), null, 2).length
  return length
}

async function measureSync(file: string): Promise<Record<string, number | boolean>> {
  const {loadSnapshot} = await load<Snapshot>('cluster/snapshot.js')
  const {planSync} = await load<Sync>('engine/simulation/plan-sync.js')
  const {reportJsonChunks} = await load<ReportDoc>('render/report-doc.js')
  const {defaultFeatureGates} = await load<Gates>('engine/api/feature-gates.js')

  // The floor, part 1: read and JSON.parse the input (first, on an empty heap: the floor's best case).
  let t = performance.now()
  const items = (JSON.parse(await readFile(file, 'utf8')) as {items?: unknown[]}).items?.length ?? 0
  const floorParse = seconds(t)

  t = performance.now()
  const snapshot = await loadSnapshot(file)
  const loadTime = seconds(t)

  t = performance.now()
  const report = planSync(snapshot.state, {dryRun: true, gates: defaultFeatureGates})
  const planTime = seconds(t)

  // Render as the CLI does: the chunks of -o json, written to /dev/null as they come.
  const devNull = openSync('/dev/null', 'w')
  let outputBytes = 0
  let chunks = 0
  t = performance.now()
  for (const chunk of reportJsonChunks(report)) {
    outputBytes += writeSync(devNull, chunk)
    chunks++
  }
  const renderTime = seconds(t)
  closeSync(devNull)

  // The floor, part 2: JSON.stringify of the report, as printed (the document without `before`). Past
  // V8's 512 MiB string limit (160k + 160k) one string cannot hold it: then a string per top-level list.
  const {before: _before, ...document} = report
  t = performance.now()
  let floorBytes = 0
  let floorSliced = false
  try {
    floorBytes = JSON.stringify(document, null, 2).length
  } catch (err) {
    if (!(err instanceof RangeError)) throw err
    floorSliced = true
    for (const value of Object.values(document)) floorBytes += stringifyInSlices(value)
  }
  const floorStringify = seconds(t)

  return {
    load: loadTime,
    plan: planTime,
    render: renderTime,
    floorParse,
    floorStringify,
    floor: floorParse + floorStringify,
    outputBytes,
    chunks,
    floorBytes,
    floorSliced,
    rounds: report.rounds,
    converged: report.converged,
    actions: report.actions.length,
    events: report.events.length,
    binds: report.summary.binds,
    items,
    maxRssMB: process.resourceUsage().maxRSS / 1024,
  }
}

/**
 * The strict floor of a one-shot sync from FILE, alone in its process (a fresh heap, as the CLI's): read
 * and JSON.parse the file, then JSON.stringify, indented as -o json is, its PersistentVolumes and its
 * PersistentVolumeClaims. Any sync from the file parses it and prints those objects; nothing else is done.
 */
function measureFloor(file: string): Record<string, number> {
  let t = performance.now()
  const items = (JSON.parse(readFileSync(file, 'utf8')) as {items?: Array<{kind?: unknown}>}).items ?? []
  const parse = seconds(t)
  t = performance.now()
  const volumes = items.filter((o) => o.kind === 'PersistentVolume')
  const claims = items.filter((o) => o.kind === 'PersistentVolumeClaim')
  const bytes = JSON.stringify(volumes, null, 2).length + JSON.stringify(claims, null, 2).length
  const stringify = seconds(t)
  return {
    parse,
    stringify,
    floor: parse + stringify,
    bytes,
    volumes: volumes.length,
    claims: claims.length,
    maxRssMB: process.resourceUsage().maxRSS / 1024,
  }
}

/**
 * Seconds spent in the matching index's methods (finding a claim's volume, keeping the index current as
 * volumes are written), over all instances of the class, from the moment of the call on.
 */
function timeMethods(proto: object, methods: readonly string[]): () => number {
  let total = 0
  let depth = 0
  for (const name of methods) {
    const target = proto as Record<string, (...args: unknown[]) => unknown>
    const original = target[name]
    target[name] = function (this: unknown, ...args: unknown[]) {
      // The indexed constructor stores through store(): count the outermost call only.
      const started = depth === 0 ? performance.now() : 0
      depth++
      try {
        return original.apply(this, args)
      } finally {
        depth--
        if (depth === 0) total += performance.now() - started
      }
    }
  }
  return () => total / 1000
}

/** Runs of the indexed engine after its first, for the steady-state plan time (their median). */
const WARM_RUNS = 5

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

async function measureCompare(file: string): Promise<Record<string, number | boolean>> {
  const {loadSnapshot} = await load<Snapshot>('cluster/snapshot.js')
  const {reconcile} = await load<Reconcile>('engine/simulation/reconcile.js')
  const {defaultFeatureGates} = await load<Gates>('engine/api/feature-gates.js')
  const {IndexedVolumeIndex} = await load<MatchIndex>('engine/matching/volume-match-index.js')
  const {PersistentVolumeOrderedIndex} = await load<ScanIndex>('engine/matching/volume-index.js')
  const {state} = await loadSnapshot(file)
  const plan = (options: Parameters<Reconcile['reconcile']>[1]) => {
    const t = performance.now()
    return {result: reconcile(state, {gates: defaultFeatureGates, ...options}), seconds: seconds(t)}
  }

  // The first run in the process pays for compiling the engine (and for first touching the objects);
  // the scan, a hundred times longer, runs almost all of its time compiled. Engines are compared at
  // that steady state: the median of WARM_RUNS runs after the first, the first one reported beside it.
  // Those runs are not instrumented: the time spent matching is measured in one more run.
  const first = plan({matching: 'indexed'})
  const warm: number[] = []
  for (let i = 0; i < WARM_RUNS; i++) warm.push(plan({matching: 'indexed'}).seconds)
  const indexedMatching = timeMethods(IndexedVolumeIndex.prototype, ['findBestMatchForClaim', 'store', 'remove'])
  plan({matching: 'indexed'})
  // The literal controller: the scan, and every sync run in every round. Its instruments cost it nothing
  // measurable (a few milliseconds of a hundred seconds).
  const scanMatching = timeMethods(PersistentVolumeOrderedIndex.prototype, ['findBestMatchForClaim', 'store', 'remove'])
  const scan = plan({matching: 'scan', replayQuietSyncs: false})
  const indexedTime = median(warm)
  return {
    indexed: indexedTime,
    indexedCold: first.seconds,
    scan: scan.seconds,
    speedup: scan.seconds / indexedTime,
    coldSpeedup: scan.seconds / first.seconds,
    indexedMatching: indexedMatching(),
    scanMatching: scanMatching(),
    matchingSpeedup: scanMatching() / indexedMatching(),
    // The same plan; how many syncs ran differs by design (the engine replays the quiet ones).
    identical:
      JSON.stringify({...first.result, syncs: undefined}) === JSON.stringify({...scan.result, syncs: undefined}),
    rounds: first.result.rounds,
    actions: first.result.actions.length,
  }
}

const [mode, file] = process.argv.slice(2)
if ((mode !== 'sync' && mode !== 'floor' && mode !== 'compare') || file === undefined) {
  process.stderr.write('usage: measure.ts sync|floor|compare FILE\n')
  process.exit(2)
}
const result =
  mode === 'sync' ? await measureSync(file) : mode === 'floor' ? measureFloor(file) : await measureCompare(file)
process.stdout.write(JSON.stringify(result) + '\n')
