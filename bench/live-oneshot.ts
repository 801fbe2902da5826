// The live one-shot commands against the same commands on a snapshot file (docs/performance.md, a target): N volumes and N
// claims (bench/generate-cluster.ts, with its classes, pods and nodes) are served by the API-server
// emulator over HTTPS, and the built CLI (bin/run.js on dist/) is timed, stdout to /dev/null, for
//   sync --dry-run -o json --kubeconfig K     beside     sync --dry-run -o json -f FILE
//   audit -o json --kubeconfig K              beside     audit -o json -f FILE
// where FILE is what `kubectl get sc,pv,pvc,pods,nodes -A -o json` prints of the objects the emulator
// serves (a List, items typed, 4-space indent), so both sides read the same objects. The live side runs at
// pvctl's defaults (--chunk-size 500 --qps 5 --burst 10). The emulator runs in its own process, as an API
// server would: its work is not charged to the CLI, but it shares the machine's cores.
//
//   npm run build && npx tsx bench/live-oneshot.ts              100k + 100k, 3 runs of each
//   npx tsx bench/live-oneshot.ts --size 10000 --runs 1 --dir /tmp/x       its files under /tmp/x
//   PVCTL_BENCH_KEEP=1 npx tsx bench/live-oneshot.ts --size 300            the file and the four reports kept
//
// Each run times the four commands in turn (live sync, file sync, live audit, file audit), so that a slow
// spell of the machine falls on both sides; the medians of wall and CPU time, the highest peak RSS. Then,
// untimed, each command once more with its report kept: the live report and the file's must be the same
// bytes but for the lines that name the source (audit's fix commands say `--kubeconfig K` or `-f FILE`).
// Prints each target beside its measure; exits 1 when one is not met or the reports differ.
import {spawn, type ChildProcess} from 'node:child_process'
import {createReadStream, existsSync, mkdtempSync, rmSync, statSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {createInterface} from 'node:readline'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {parseArgs} from 'node:util'

import {type CliRun, runCli} from './cli-run.js'
import {generateCluster, writeCluster} from './generate-cluster.js'
import {SERVER_VERSION} from '../test/emulator/discovery.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const self = fileURLToPath(import.meta.url)

/** Issue 24: the live command within this many times the same command on the file. */
export const TARGET_RATIO = 1.5

/**
 * The kinds pvctl reads, in the order `kubectl get sc,pv,pvc,pods,nodes,csidrivers,leases,events -A -o json`
 * lists them: the state, then the evidence audit judges liveness by. A live audit reads that evidence; a
 * snapshot without it says it cannot see it, and the two reports would differ for want of the same objects.
 */
const KINDS = [
  'storageclasses',
  'persistentvolumes',
  'persistentvolumeclaims',
  'pods',
  'nodes',
  'csidrivers',
  'leases',
  'events',
] as const

const SEEN = '2026-01-15T10:05:00Z'

/**
 * The evidence of a cluster whose CSI driver is installed and whose controller is down: its CSIDriver, the
 * controller manager's Lease (kube-system holds one in every cluster; not the provisioner's), and the PV
 * controller's event on a claim it hands to the provisioner. Every timestamp is fixed, long past, so that
 * no message reads an age that moves between the runs.
 */
function evidenceObjects(claim: {namespace: string; name: string; uid: string}): object[] {
  return [
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSIDriver',
      metadata: {name: 'ebs.csi.aws.com', uid: 'csidriver-ebs', creationTimestamp: SEEN},
      spec: {attachRequired: true, podInfoOnMount: false},
    },
    {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {name: 'kube-controller-manager', namespace: 'kube-system', uid: 'lease-kcm', creationTimestamp: SEEN},
      spec: {
        holderIdentity: 'control-plane-0_5d1f',
        leaseDurationSeconds: 15,
        acquireTime: '2026-01-15T10:00:00.000000Z',
        renewTime: '2026-01-15T10:05:00.000000Z',
        leaseTransitions: 0,
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name: `${claim.name}.1810a1b2c3d4e5f6`,
        namespace: claim.namespace,
        uid: 'event-0',
        creationTimestamp: SEEN,
      },
      involvedObject: {
        kind: 'PersistentVolumeClaim',
        namespace: claim.namespace,
        name: claim.name,
        uid: claim.uid,
        apiVersion: 'v1',
      },
      reason: 'ExternalProvisioning',
      message:
        "Waiting for a volume to be created either by the external provisioner 'ebs.csi.aws.com' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
      source: {component: 'persistentvolume-controller'},
      count: 1,
      firstTimestamp: SEEN,
      lastTimestamp: SEEN,
      type: 'Normal',
    },
  ]
}

interface ServerInfo {
  kubeconfig: string
  file: string
  volumes: number
  claims: number
  pods: number
}

/** Child `serve`: the emulator with the generated cluster; writes the kubeconfig and the List file, then says so. */
async function serve(dir: string, size: number): Promise<void> {
  const {startEmulator} = await import('../test/emulator/emulator.js')
  const cluster = generateCluster(size)
  // listItemTypeMeta false: items without apiVersion/kind, as the real apiserver sends them.
  const items = cluster.list.items as Array<{
    kind: string
    metadata: {name: string; namespace?: string; uid?: string}
    spec?: {storageClassName?: string}
  }>
  const waiting =
    items.find((o) => o.kind === 'PersistentVolumeClaim' && o.spec?.storageClassName === 'ebs') ??
    items.find((o) => o.kind === 'PersistentVolumeClaim')
  const claim = {
    namespace: waiting?.metadata.namespace ?? 'default',
    name: waiting?.metadata.name ?? 'data',
    uid: waiting?.metadata.uid ?? '',
  }
  const api = await startEmulator({
    tls: true,
    listItemTypeMeta: false,
    objects: [...items, ...evidenceObjects(claim)] as never,
  })
  const kubeconfig = path.join(dir, 'kubeconfig.yaml')
  writeFileSync(kubeconfig, api.kubeconfig({token: 'bench'}))
  // The file holds the objects as the emulator stores them (resourceVersions included), not as generated.
  const served = KINDS.flatMap((kind) => api.list(kind))
  const file = path.join(dir, 'cluster.json')
  writeCluster(file, {
    list: {apiVersion: 'v1', kind: 'List', metadata: {resourceVersion: ''}, items: served},
    counts: cluster.counts,
  })
  const info: ServerInfo = {
    kubeconfig,
    file,
    volumes: cluster.counts.volumes,
    claims: cluster.counts.claims,
    pods: cluster.counts.pods,
  }
  process.stdout.write(`${JSON.stringify(info)}\n`)
  // Until the parent goes away.
  process.stdin.resume()
  process.stdin.on('end', () => void api.stop().then(() => process.exit(0)))
}

/** Starts the `serve` child; resolves once the emulator is up, with a function that stops it. */
function startServer(dir: string, size: number): Promise<{info: ServerInfo; stop: () => Promise<void>}> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', self, 'serve', dir, String(size)], {
      cwd: repoRoot,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    let started = false
    const closed = new Promise<void>((done) => child.on('close', () => done()))
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString()
      if (started || !out.includes('\n')) return
      started = true
      resolve({
        info: JSON.parse(out.slice(0, out.indexOf('\n'))) as ServerInfo,
        stop: async () => {
          child.stdin!.end()
          await closed
        },
      })
    })
    child.stderr!.on('data', (b: Buffer) => (err += b.toString()))
    child.on('error', reject)
    child.on('close', (code) => {
      if (!started) reject(new Error(`the emulator did not start (exit ${code}): ${err.trim()}`))
    })
  })
}

export interface ReportComparison {
  /** Lines of the two reports. */
  lines: number
  /** Lines that differ as printed. */
  differing: number
  /** Lines that differ once the source's flags (`--kubeconfig K`, `-f FILE`) are read as one word: must be 0. */
  differingBeyondSource: number
  /** The first of those, for the log. */
  firstDifference?: {line: number; live: string; file: string}
}

/**
 * The two reports line by line (streamed: a report at 100k is hundreds of MB). A line may differ only by
 * naming its source: the live run's flags and the file run's are each replaced by one placeholder.
 */
/** An RFC 3339 time as the API server writes it (status.lastPhaseTransitionTime). */
const STAMP = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g

export async function compareReports(
  live: string,
  file: string,
  liveSource: string,
  fileSource: string,
): Promise<ReportComparison> {
  const a = createInterface({input: createReadStream(live), crlfDelay: Infinity})[Symbol.asyncIterator]()
  const b = createInterface({input: createReadStream(file), crlfDelay: Infinity})[Symbol.asyncIterator]()
  const result: ReportComparison = {lines: 0, differing: 0, differingBeyondSource: 0}
  for (;;) {
    const [x, y] = await Promise.all([a.next(), b.next()])
    if (x.done === true && y.done === true) return result
    result.lines++
    // The times the simulated API server stamps on phase changes are each run's own clock: not compared.
    const l = x.done === true ? '<end of report>' : x.value.replace(STAMP, '<time>')
    const f = y.done === true ? '<end of report>' : y.value.replace(STAMP, '<time>')
    if (l === f) continue
    result.differing++
    if (l.replaceAll(liveSource, '<source>') === f.replaceAll(fileSource, '<source>')) continue
    result.differingBeyondSource++
    result.firstDifference ??= {line: result.lines, live: l.slice(0, 200), file: f.slice(0, 200)}
  }
}

const median = (xs: readonly number[]) => {
  const sorted = [...xs].sort((p, q) => p - q)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export interface Side {
  /** Medians over the runs. */
  seconds: number
  cpu: number
  /** The highest over the runs. */
  maxRssMB: number
}

export interface CommandResult {
  command: 'sync' | 'audit'
  /** The pvctl arguments but the source. */
  args: readonly string[]
  live: Side
  file: Side
  /** live ÷ file, of the wall medians. */
  ratio: number
  /** The median of each run's live ÷ file (the two timed one after the other). */
  pairedRatio: number
  cpuRatio: number
  comparison: ReportComparison
}

export interface LiveOneshotResult {
  volumes: number
  claims: number
  pods: number
  fileMB: number
  runs: number
  /** The 1-minute load average before and after the timed runs. */
  load: [number, number]
  commands: CommandResult[]
}

const COMMANDS = [
  {command: 'sync', args: ['sync', '--dry-run', '-o', 'json']},
  {command: 'audit', args: ['audit', '-o', 'json']},
] as const

export async function benchLiveOneshot(opts: {
  size: number
  runs: number
  dir?: string
  log?: (line: string) => void
}): Promise<LiveOneshotResult> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`))
  if (!existsSync(path.join(repoRoot, 'dist', 'commands')))
    throw new Error('the CLI is not built: run `npm run build` first')
  const dir = mkdtempSync(path.join(opts.dir ?? os.tmpdir(), 'pvctl-live-oneshot-'))
  try {
    const server = await startServer(dir, opts.size)
    try {
      const {kubeconfig, file, volumes, claims, pods} = server.info
      const fileMB = statSync(file).size / 2 ** 20
      // Both told the emulator's release (a snapshot says none): their reports then differ by their source only.
      const release = ['--kube-version', SERVER_VERSION.gitVersion]
      const live = ['--kubeconfig', kubeconfig]
      const fromFile = ['-f', file]
      log(
        `emulator up: ${volumes} volumes, ${claims} claims, ${pods} pods; the same as a List file of ${fileMB.toFixed(0)} MB; live at --chunk-size 500 --qps 5 --burst 10`,
      )
      const load: [number, number] = [os.loadavg()[0]!, 0]
      const runs = COMMANDS.map(() => ({live: [] as CliRun[], file: [] as CliRun[]}))
      for (let run = 1; run <= opts.runs; run++) {
        const line: string[] = []
        for (const [i, c] of COMMANDS.entries()) {
          const l = await runCli([...c.args, ...release, ...live])
          const f = await runCli([...c.args, ...release, ...fromFile])
          runs[i]!.live.push(l)
          runs[i]!.file.push(f)
          line.push(`${c.command} live ${describeRun(l)}, file ${describeRun(f)}`)
        }
        log(`run ${run}: ${line.join(' | ')}`)
      }
      load[1] = os.loadavg()[0]!
      const commands: CommandResult[] = []
      for (const [i, c] of COMMANDS.entries()) {
        const liveOut = path.join(dir, `${c.command}-live.json`)
        const fileOut = path.join(dir, `${c.command}-file.json`)
        await runCli([...c.args, ...release, ...live], liveOut)
        await runCli([...c.args, ...release, ...fromFile], fileOut)
        const comparison = await compareReports(liveOut, fileOut, live.join(' '), fromFile.join(' '))
        if (process.env.PVCTL_BENCH_KEEP === undefined) {
          rmSync(liveOut)
          rmSync(fileOut)
        }
        const side = (xs: CliRun[]): Side => ({
          seconds: median(xs.map((x) => x.seconds)),
          cpu: median(xs.map((x) => x.cpu)),
          maxRssMB: Math.max(...xs.map((x) => x.maxRssMB)),
        })
        const [l, f] = [side(runs[i]!.live), side(runs[i]!.file)]
        const pairedRatio = median(runs[i]!.live.map((x, run) => x.seconds / runs[i]!.file[run]!.seconds))
        commands.push({
          command: c.command,
          args: c.args,
          live: l,
          file: f,
          ratio: l.seconds / f.seconds,
          pairedRatio,
          cpuRatio: l.cpu / f.cpu,
          comparison,
        })
      }
      return {volumes, claims, pods, fileMB, runs: opts.runs, load, commands}
    } finally {
      await server.stop()
    }
  } finally {
    if (process.env.PVCTL_BENCH_KEEP === undefined) rmSync(dir, {recursive: true, force: true})
  }
}

function describeRun(r: CliRun): string {
  return `${r.seconds.toFixed(2)} s (CPU ${r.cpu.toFixed(2)} s, ${r.maxRssMB.toFixed(0)} MB)`
}

/** The report's lines: each command's measures, whether the reports matched, and its target beside them. */
export function describeLiveOneshot(r: LiveOneshotResult): string[] {
  const lines: string[] = []
  for (const c of r.commands) {
    const k = c.comparison
    const same =
      k.differingBeyondSource === 0
        ? `reports identical${k.differing > 0 ? ` but for ${k.differing} of ${k.lines} lines, each naming its source` : ` (${k.lines} lines)`}`
        : `reports DIFFER in ${k.differingBeyondSource} of ${k.lines} lines beyond the source (first at line ${k.firstDifference!.line}: live ${JSON.stringify(k.firstDifference!.live)}, file ${JSON.stringify(k.firstDifference!.file)})`
    lines.push(
      `pvctl ${c.args.join(' ')} at ${r.volumes} + ${r.claims} (medians of ${r.runs}): live ${c.live.seconds.toFixed(2)} s (CPU ${c.live.cpu.toFixed(2)} s, peak RSS ${c.live.maxRssMB.toFixed(0)} MB), ` +
        `file ${c.file.seconds.toFixed(2)} s (CPU ${c.file.cpu.toFixed(2)} s, peak RSS ${c.file.maxRssMB.toFixed(0)} MB); CPU live ÷ file ${c.cpuRatio.toFixed(2)}×, wall of each run's pair ${c.pairedRatio.toFixed(2)}× (median); ${same}`,
    )
  }
  lines.push(`load average (1 min): ${r.load[0].toFixed(2)} before the runs, ${r.load[1].toFixed(2)} after`)
  for (const c of r.commands) {
    const what = c.command === 'sync' ? 'sync --dry-run -o json' : 'audit -o json'
    lines.push(
      `target: live ${what} at ${r.volumes} + ${r.claims} within ${TARGET_RATIO}× of the file: ${c.live.seconds.toFixed(2)} s ÷ ${c.file.seconds.toFixed(2)} s = ${c.ratio.toFixed(2)}× — ${met(c) ? 'met' : 'NOT met'}`,
    )
  }
  return lines
}

const met = (c: CommandResult) => c.ratio <= TARGET_RATIO

/** Whether each live report is the file's, but for the lines naming the source. */
export function reportsMatch(r: LiveOneshotResult): boolean {
  return r.commands.every((c) => c.comparison.differingBeyondSource === 0)
}

/** Every target met and every pair of reports the same. */
export function liveOneshotPassed(r: LiveOneshotResult): boolean {
  return reportsMatch(r) && r.commands.every(met)
}

const [mode, ...rest] = process.argv.slice(2)
if (mode === 'serve') {
  await serve(rest[0]!, Number(rest[1]))
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const {values} = parseArgs({
    options: {size: {type: 'string', default: '100000'}, runs: {type: 'string', default: '3'}, dir: {type: 'string'}},
  })
  const r = await benchLiveOneshot({size: Number(values.size), runs: Number(values.runs), dir: values.dir})
  process.stdout.write(`${describeLiveOneshot(r).join('\n')}\n`)
  process.exitCode = liveOneshotPassed(r) ? 0 : 1
}
