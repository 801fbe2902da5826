// Loop mode's full sync (issue 5's "no quadratic work anywhere", in --watch): the generated cluster of N
// volumes and N claims is served by the API-server emulator, and `pvctl sync --watch --dry-run` (dist/, as
// built, in its own process) lists it and syncs every volume and claim once, as it does at start-up and
// at every resync. Timed from its log line "Caches are synced" to the moment its /metrics count a sync of
// every object (pvctl_syncs_total, polled every 200 ms). No target is judged; the line says whether a full
// sync of that cluster fits in the default resync period (--resync 15s).
//
//   npm run build && npx tsx bench/loop-sync.ts                  10k + 10k
//   npx tsx bench/loop-sync.ts --size 100000
//
// The emulator runs in this process: it answers the lists, then sits idle (a dry run writes nothing).
import {spawn} from 'node:child_process'
import {createServer} from 'node:net'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {parseArgs} from 'node:util'

import {generateCluster} from './generate-cluster.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = path.join(repoRoot, 'bin', 'run.js')
const DEFAULT_RESYNC_S = 15

export interface LoopSyncResult {
  volumes: number
  claims: number
  /** Seconds from "Caches are synced" to a sync of every object. */
  seconds: number
  /** Milliseconds per sync, on average. */
  perSyncMs: number
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

/** pvctl_syncs_total, all queues and results, from the Prometheus text. */
async function syncsTotal(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  let total = 0
  for (const line of text.split('\n')) if (line.startsWith('pvctl_syncs_total{')) total += Number(line.slice(line.lastIndexOf(' ') + 1))
  return total
}

export async function benchLoopSync(opts: {size: number; log?: (line: string) => void}): Promise<LoopSyncResult> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`))
  const {startEmulator} = await import('../test/emulator/emulator.js')
  const cluster = generateCluster(opts.size)
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pvctl-loop-sync-'))
  const api = await startEmulator({tls: true, listItemTypeMeta: false, objects: cluster.list.items as never})
  try {
    const kubeconfig = path.join(dir, 'kubeconfig.yaml')
    writeFileSync(kubeconfig, api.kubeconfig({token: 'bench'}))
    const {volumes, claims} = cluster.counts
    log(`emulator up: ${volumes} volumes, ${claims} claims, ${cluster.counts.pods} pods`)
    const port = await freePort()
    const args = ['sync', '--watch', '--dry-run', '--kubeconfig', kubeconfig, '--metrics-bind-address', `127.0.0.1:${port}`, '--resync', '1h', '-o', 'json']
    const child = spawn(process.execPath, [bin, ...args], {cwd: repoRoot, env: {...process.env, HOME: dir}, stdio: ['ignore', 'ignore', 'pipe']})
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    try {
      let err = ''
      const cachesSynced = new Promise<number>((resolve, reject) => {
        child.stderr.on('data', (b: Buffer) => {
          err += b.toString()
          if (err.includes('Caches are synced')) resolve(performance.now())
        })
        void exited.then((code) => reject(new Error(`pvctl exited (${code}) before its caches were synced:\n${err.trim()}`)))
      })
      const t0 = await cachesSynced
      const objects = volumes + claims
      for (;;) {
        if ((await syncsTotal(port)) >= objects) break
        await new Promise((r) => setTimeout(r, 200))
      }
      const seconds = (performance.now() - t0) / 1000
      return {volumes, claims, seconds, perSyncMs: (seconds * 1000) / objects}
    } finally {
      child.kill('SIGTERM')
      await exited
    }
  } finally {
    await api.stop()
    rmSync(dir, {recursive: true, force: true})
  }
}

export function describe(r: LoopSyncResult): string {
  const fits = r.seconds <= DEFAULT_RESYNC_S ? 'fits in' : 'does NOT fit in'
  return `loop mode, every object synced once (start-up, or a resync) at ${r.volumes} + ${r.claims}: ${r.seconds.toFixed(2)} s, ${r.perSyncMs.toFixed(2)} ms per sync; ${fits} the ${DEFAULT_RESYNC_S} s resync period`
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const {values} = parseArgs({options: {size: {type: 'string', default: '10000'}}})
  process.stdout.write(`${describe(await benchLoopSync({size: Number(values.size)}))}\n`)
}
