// Memory of `pvctl sync --watch` over a long run: is it flat?
//
//   node --expose-gc --import tsx bench/loop-memory.ts [--events 10000] [--live 100]
//
// The API-server emulator runs in a child process (so that its own history is not measured); this
// process runs the loop exactly as `sync --watch --yes` wires it (informers, queues, executor, event
// sink, audit stream to nowhere) and churns the cluster through HTTP: volumes and claims are created,
// bound by the loop, released, and deleted, at most --live pairs alive at a time, until the informers
// have received --events watch events. After every 1000 events it collects garbage and samples the heap.
// The run is "flat" when the heap after the last sample is within 20% (or 8 MB) of the sample at 2000
// events (after warm-up); the exit status says so (0 flat, 1 not).
import {spawn} from 'node:child_process'
import {once} from 'node:events'
import {mkdtempSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {parseArgs} from 'node:util'

import {openLoopSession} from '../src/app/loop-session.js'
import {silentLogger} from '../src/log.js'
import {AuditStream} from '../src/loop/audit-stream.js'
import {LoopMetrics} from '../src/loop/loop-metrics.js'
import {EventSink} from '../src/loop/client-go/event-sink.js'
import {PersistentVolumeLoop} from '../src/loop/pv-loop.js'
import {defaultFeatureGates} from '../src/engine/api/feature-gates.js'

const {values} = parseArgs({
  options: {events: {type: 'string', default: '10000'}, live: {type: 'string', default: '100'}},
})
const TARGET = Number(values.events)
const LIVE = Number(values.live)
const gc = (globalThis as {gc?: () => void}).gc
if (gc === undefined) {
  process.stderr.write('run with node --expose-gc\n')
  process.exit(2)
}

// The emulator, in its own process.
// Its kubeconfig in a directory of the bench's own, removed at the end.
const dir = mkdtempSync(path.join(os.tmpdir(), 'pvctl-loop-memory-'))
const emulator = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    'test/emulator/main.ts',
    '--port',
    '0',
    '--watch-history',
    '5000',
    '--kubeconfig-out',
    path.join(dir, 'kubeconfig'),
  ],
  {stdio: ['ignore', 'pipe', 'inherit']},
)
let banner = ''
emulator.stdout.setEncoding('utf8')
while (!/KUBECONFIG=(\S+)/.test(banner)) banner += (await once(emulator.stdout, 'data'))[0]
const url = /serving at (\S+)/.exec(banner)![1]
const kubeconfig = /KUBECONFIG=(\S+)/.exec(banner)![1]

async function call(method: string, path: string, body?: unknown): Promise<void> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {'Content-Type': 'application/json'},
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  await res.arrayBuffer()
  if (!res.ok && res.status !== 404) throw new Error(`${method} ${path}: ${res.status}`)
}

const volume = (n: number) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: {name: `pv-${n}`},
  spec: {
    accessModes: ['ReadWriteOnce'],
    capacity: {storage: '1Gi'},
    hostPath: {path: `/tmp/pv-${n}`},
    persistentVolumeReclaimPolicy: 'Retain',
    storageClassName: '',
  },
})
const claim = (n: number) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: {name: `claim-${n}`, namespace: 'bench'},
  spec: {accessModes: ['ReadWriteOnce'], resources: {requests: {storage: '1Gi'}}, storageClassName: ''},
})

// The loop, as run-loop.ts wires it for `sync --watch --yes --controllers=*,-persistentvolume-binder-controller`.
const stop = new AbortController()
const session = openLoopSession({kubeconfig, qps: 1000, burst: 2000, leaseTimeoutMs: 5000})
const metrics = new LoopMetrics()
const loop = new PersistentVolumeLoop(
  {gates: defaultFeatureGates, resyncMs: 5000, writing: () => true, signal: stop.signal},
  {
    api: session.api,
    watchApi: session.watchApi,
    log: silentLogger,
    metrics,
    audit: new AuditStream('json', () => {}),
    events: new EventSink(session.api),
  },
)
await loop.start()

const watchEvents = () =>
  [...metrics.render().matchAll(/^pvctl_watch_events_total\{[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0)
const samples: Array<{events: number; heapMB: number; rssMB: number; volumes: number; claims: number; queued: number}> =
  []
const sample = () => {
  gc()
  const m = process.memoryUsage()
  samples.push({
    events: watchEvents(),
    heapMB: Math.round((m.heapUsed / 2 ** 20) * 10) / 10,
    rssMB: Math.round((m.rss / 2 ** 20) * 10) / 10,
    volumes: loop.volumes.size,
    claims: loop.claims.size,
    queued: loop.claimQueue.depth + loop.volumeQueue.depth,
  })
}

const t0 = performance.now()
let n = 0
let nextSample = 1000
sample()
while (watchEvents() < TARGET) {
  const batch = Array.from({length: LIVE}, () => n++)
  await Promise.all(batch.map((i) => call('POST', '/api/v1/persistentvolumes', volume(i))))
  await Promise.all(batch.map((i) => call('POST', '/api/v1/namespaces/bench/persistentvolumeclaims', claim(i))))
  // Let the loop bind them (4 writes each), then release and delete everything.
  const deadline = performance.now() + 30_000
  while (
    [...loop.claims.values()].filter((c) => c.status?.phase === 'Bound').length < batch.length &&
    performance.now() < deadline
  )
    await new Promise((r) => setTimeout(r, 20))
  await Promise.all(batch.map((i) => call('DELETE', `/api/v1/namespaces/bench/persistentvolumeclaims/claim-${i}`)))
  await new Promise((r) => setTimeout(r, 100))
  await Promise.all(batch.map((i) => call('DELETE', `/api/v1/persistentvolumes/pv-${i}`)))
  await new Promise((r) => setTimeout(r, 100))
  while (watchEvents() >= nextSample) {
    sample()
    nextSample += 1000
  }
}
const seconds = (performance.now() - t0) / 1000
stop.abort()
await loop.stop(1000)
emulator.kill('SIGTERM')
rmSync(dir, {recursive: true, force: true})

console.table(samples)
const warm = samples.find((s) => s.events >= 2000) ?? samples[0]
const last = samples.at(-1)!
const growth = last.heapMB - warm.heapMB
const flat = growth <= Math.max(8, warm.heapMB * 0.2)
process.stdout.write(
  `${JSON.stringify({events: last.events, pairs: n, seconds: Math.round(seconds * 10) / 10, syncs: loop.syncs, heapAtWarmMB: warm.heapMB, heapAtEndMB: last.heapMB, growthMB: Math.round(growth * 10) / 10, flat})}\n`,
)
process.exit(flat ? 0 : 1)
