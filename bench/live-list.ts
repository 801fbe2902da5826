// The live list path against the file path (docs/performance.md, "Reading a live cluster"): N generated PersistentVolumes are served by
// the API-server emulator over HTTPS, and each side is timed in its own fresh process, on the code the
// CLI runs (dist/, as built):
//   live  loadLiveState through openLiveSession: kubeconfig, @kubernetes/client-node, TLS, the client-side
//         rate limit (--qps/--burst) and pagination with limit/continue (--chunk-size), every kind pvctl
//         reads listed as sync does (the emulator holds nothing but the volumes and the default namespaces)
//   file  loadSnapshot of `kubectl get pv -o json` of the same volumes, as the emulator serves them (-f)
// The emulator runs in a third process, as an API server would: its work is not charged to the client's
// heap, but it shares the machine's cores, as it does in the e2e tests.
//
//   npm run build && npx tsx bench/live-list.ts                     100k volumes, 3 runs of each side
//   npx tsx bench/live-list.ts --qps 1000 --burst 1000               no client-side rate limit
//   npx tsx bench/live-list.ts --volumes 10000 --runs 1 --chunk-size 5000
//   npx tsx bench/live-list.ts --kubectl                            also time `kubectl get pv -o json`
//
// The rate limit is pvctl's default (--qps 5 --burst 10): a list takes one token for its first page and
// none for its continue pages (src/cluster/throttled-api.ts says why), so paging is judged as users get it.
//
// Prints one line per run, then the medians and their ratio (live / file); exits 1 when the ratio is over
// the target (2).
import {spawn, type ChildProcess} from 'node:child_process'
import {mkdtempSync, rmSync, statSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {parseArgs} from 'node:util'

import {generateCluster, writeCluster} from './generate-cluster.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const dist = path.join(repoRoot, 'dist')
const self = fileURLToPath(import.meta.url)

export const TARGET_RATIO = 2

type Snapshot = typeof import('../src/cluster/snapshot.js')
type LiveSession = typeof import('../src/app/live-session.js')
type LiveLoader = typeof import('../src/cluster/live-loader.js')

async function load<T>(module: string): Promise<T> {
  return (await import(pathToFileURL(path.join(dist, module)).href)) as T
}

const seconds = (since: number) => (performance.now() - since) / 1000
const maxRssMB = () => process.resourceUsage().maxRSS / 1024

interface Flow {
  chunkSize: number
  qps: number
  burst: number
}

/** Child `serve`: the emulator with N volumes; writes the kubeconfig and the PV list file, then says so. */
async function serve(dir: string, volumes: number): Promise<void> {
  const {startEmulator} = await import('../test/emulator/emulator.js')
  const pvs = (generateCluster(volumes).list.items as Array<{kind: string}>).filter(
    (o) => o.kind === 'PersistentVolume',
  )
  // listItemTypeMeta false: items without apiVersion/kind, as the real apiserver sends them.
  const api = await startEmulator({tls: true, listItemTypeMeta: false, watchHistory: 1000, objects: pvs as never})
  const kubeconfig = path.join(dir, 'kubeconfig.yaml')
  writeFileSync(kubeconfig, api.kubeconfig({token: 'bench'}))
  // What `kubectl get pv -o json` prints of the same objects: a List, items typed, 4-space indent.
  const file = path.join(dir, 'pv-list.json')
  writeCluster(file, {
    list: {apiVersion: 'v1', kind: 'List', metadata: {resourceVersion: ''}, items: api.list('pv')},
    counts: {volumes: pvs.length, claims: 0, pods: 0},
  })
  process.stdout.write(
    `${JSON.stringify({url: api.url, kubeconfig, file, volumes: pvs.length, resourceVersion: api.resourceVersion})}\n`,
  )
  // Until the parent goes away.
  process.stdin.resume()
  process.stdin.on('end', () => void api.stop().then(() => process.exit(0)))
}

/** Child `live`: one load of the live cluster, as `pvctl sync` does it. */
async function measureLive(kubeconfig: string, flow: Flow): Promise<Record<string, number>> {
  const {openLiveSession} = await load<LiveSession>('app/live-session.js')
  const {loadLiveState} = await load<LiveLoader>('cluster/live-loader.js')
  const t = performance.now()
  const session = openLiveSession({kubeconfig, qps: flow.qps, burst: flow.burst})
  let pages = 0
  const state = await loadLiveState(
    session.api,
    {chunkSize: flow.chunkSize},
    (kind) => kind === 'persistentvolumes' && pages++,
  )
  return {seconds: seconds(t), volumes: state.volumes.length, pages, maxRssMB: maxRssMB()}
}

/** Child `file`: one loadSnapshot of the same volumes, as `pvctl sync -f` does it. */
async function measureFile(file: string): Promise<Record<string, number>> {
  const {loadSnapshot} = await load<Snapshot>('cluster/snapshot.js')
  const t = performance.now()
  const {state} = await loadSnapshot(file)
  return {seconds: seconds(t), volumes: state.volumes.length, maxRssMB: maxRssMB()}
}

function runChild(
  args: string[],
  onLine?: (child: ChildProcess, line: string) => void,
): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', self, ...args], {
      cwd: repoRoot,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString()
      if (onLine && out.includes('\n')) onLine(child, out.trim())
    })
    child.stderr!.on('data', (b: Buffer) => (err += b.toString()))
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${args[0]} failed (exit ${code}): ${err.trim()}`))
      else resolve(JSON.parse(out.trim().split('\n').pop()!) as Record<string, number>)
    })
    if (!onLine) child.stdin!.end()
  })
}

/** Starts the `serve` child; resolves once the emulator is up, with a function that stops it. */
function startServer(
  dir: string,
  volumes: number,
): Promise<{info: {kubeconfig: string; file: string; volumes: number}; stop: () => Promise<void>}> {
  return new Promise((resolve, reject) => {
    let started = false
    const done = runChild(['serve', dir, String(volumes)], (child, line) => {
      if (started) return
      started = true
      resolve({
        info: JSON.parse(line) as {kubeconfig: string; file: string; volumes: number},
        stop: async () => {
          child.stdin!.end()
          await done.catch(() => undefined)
        },
      })
    })
    done.catch(reject)
  })
}

function runKubectl(kubeconfig: string, chunkSize: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = performance.now()
    const child = spawn('kubectl', ['get', 'pv', '-o', 'json', `--chunk-size=${chunkSize}`], {
      env: {...process.env, KUBECONFIG: kubeconfig, HOME: os.tmpdir()},
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let err = ''
    child.stderr.on('data', (b: Buffer) => (err += b.toString()))
    child.on('error', reject)
    child.on('close', (code) =>
      code === 0 ? resolve(seconds(t)) : reject(new Error(`kubectl failed (exit ${code}): ${err.trim()}`)),
    )
  })
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

export interface LiveListResult {
  volumes: number
  fileMB: number
  flow: Flow
  live: number
  file: number
  ratio: number
  kubectl?: number
}

export async function benchLiveList(opts: {
  volumes: number
  runs: number
  flow: Flow
  kubectl?: boolean
  log?: (line: string) => void
}): Promise<LiveListResult> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`))
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pvctl-live-list-'))
  const server = await startServer(dir, opts.volumes)
  try {
    const {kubeconfig, file, volumes} = server.info
    const fileMB = statSync(file).size / 2 ** 20
    log(
      `emulator up: ${volumes} volumes, list file ${fileMB.toFixed(1)} MB; chunk-size ${opts.flow.chunkSize}, qps ${opts.flow.qps}, burst ${opts.flow.burst}`,
    )
    const live: number[] = []
    const files: number[] = []
    const flowArgs = [String(opts.flow.chunkSize), String(opts.flow.qps), String(opts.flow.burst)]
    for (let run = 1; run <= opts.runs; run++) {
      const l = await runChild(['live', kubeconfig, ...flowArgs])
      const f = await runChild(['file', file])
      if (l.volumes !== volumes || f.volumes !== volumes)
        throw new Error(`loaded ${l.volumes} (live) and ${f.volumes} (file) volumes, expected ${volumes}`)
      live.push(l.seconds)
      files.push(f.seconds)
      log(
        `run ${run}: live ${l.seconds.toFixed(2)} s (${l.pages} pages, ${l.maxRssMB.toFixed(0)} MB)   file ${f.seconds.toFixed(2)} s (${f.maxRssMB.toFixed(0)} MB)`,
      )
    }
    const result: LiveListResult = {
      volumes,
      fileMB,
      flow: opts.flow,
      live: median(live),
      file: median(files),
      ratio: median(live) / median(files),
    }
    if (opts.kubectl) result.kubectl = await runKubectl(kubeconfig, opts.flow.chunkSize)
    return result
  } finally {
    await server.stop()
    rmSync(dir, {recursive: true, force: true})
  }
}

const [mode, ...rest] = process.argv.slice(2)
if (mode === 'serve') {
  await serve(rest[0]!, Number(rest[1]))
} else if (mode === 'live') {
  const [kubeconfig, chunkSize, qps, burst] = rest
  process.stdout.write(
    `${JSON.stringify(await measureLive(kubeconfig!, {chunkSize: Number(chunkSize), qps: Number(qps), burst: Number(burst)}))}\n`,
  )
} else if (mode === 'file') {
  process.stdout.write(`${JSON.stringify(await measureFile(rest[0]!))}\n`)
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const {values} = parseArgs({
    options: {
      volumes: {type: 'string', default: '100000'},
      runs: {type: 'string', default: '3'},
      'chunk-size': {type: 'string', default: '500'},
      qps: {type: 'string', default: '5'},
      burst: {type: 'string', default: '10'},
      kubectl: {type: 'boolean', default: false},
    },
  })
  const flow = {chunkSize: Number(values['chunk-size']), qps: Number(values.qps), burst: Number(values.burst)}
  const r = await benchLiveList({
    volumes: Number(values.volumes),
    runs: Number(values.runs),
    flow,
    kubectl: values.kubectl,
  })
  const kubectl = r.kubectl === undefined ? '' : `   (kubectl get pv -o json: ${r.kubectl.toFixed(2)} s)`
  const flags = `--chunk-size ${flow.chunkSize} --qps ${flow.qps} --burst ${flow.burst}`
  process.stdout.write(
    `live list of ${r.volumes} volumes (${flags}): ${r.live.toFixed(2)} s   file: ${r.file.toFixed(2)} s   ratio ${r.ratio.toFixed(2)} (target <= ${TARGET_RATIO})${kubectl}\n`,
  )
  process.exitCode = r.ratio <= TARGET_RATIO ? 0 : 1
}
