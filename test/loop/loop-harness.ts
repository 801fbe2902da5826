// Runs `pvctl sync --watch` (the built CLI) against the API-server emulator, as a Pod would run it: a
// child process, stdout the audit stream, stderr the logs, stopped by a signal. Helpers wait for lines,
// for the emulator's objects to reach a state, and for the process to exit.
import {type ChildProcessWithoutNullStreams, spawn} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import path from 'node:path'

import type {Lease} from '../../src/cluster/live-api.js'
import type {PersistentVolume, PersistentVolumeClaim} from '../../src/engine/api/model.js'
import {bin, cleanEnv} from '../cli/run-cli.js'
import {type DenyRule, type Emulator, startEmulator} from '../emulator/emulator.js'
import {tempDir} from '../temp-dir.js'

export const dir = tempDir('loop')

/** Lease settings short enough for tests (validated as kube-controller-manager's: 2s > 1.5s > 1.2 × 0.25s). */
export const SHORT_LEASE = [
  '--leader-elect-lease-duration',
  '2s',
  '--leader-elect-renew-deadline',
  '1500ms',
  '--leader-elect-retry-period',
  '250ms',
]

/** Requests per second high enough that the client-side limit never paces a test. */
export const FAST = ['--qps', '200', '--burst', '400']

export interface Cluster {
  api: Emulator
  kubeconfig(token?: string): string
}

export async function cluster(
  objects: unknown[],
  tokens: Record<string, {user: string; deny?: DenyRule[]}> = {'loop-token': {user: 'pvctl'}},
): Promise<Cluster> {
  const api = await startEmulator({
    tls: true,
    listItemTypeMeta: false,
    objects: structuredClone(objects) as never,
    tokens,
  })
  return {
    api,
    kubeconfig(token = Object.keys(tokens)[0]) {
      const file = path.join(dir, `kubeconfig-${api.port}-${token}.yaml`)
      writeFileSync(file, api.kubeconfig({token}))
      return file
    },
  }
}

export class Pvctl {
  readonly out: string[] = []
  readonly err: string[] = []
  readonly exited: Promise<number | null>
  private readonly child: ChildProcessWithoutNullStreams
  private waiters: Array<() => void> = []
  exitCode: number | null | undefined

  constructor(kubeconfig: string, args: readonly string[]) {
    this.child = spawn(process.execPath, [bin, 'sync', '--kubeconfig', kubeconfig, ...args], {
      env: cleanEnv({HOME: dir}),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    this.child.stdin.end()
    const lines = (into: string[]) => {
      let rest = ''
      return (chunk: Buffer) => {
        rest += chunk.toString('utf8')
        const parts = rest.split('\n')
        rest = parts.pop() ?? ''
        into.push(...parts)
        for (const w of this.waiters.splice(0)) w()
      }
    }
    this.child.stdout.on('data', lines(this.out))
    this.child.stderr.on('data', lines(this.err))
    this.exited = new Promise((resolve) =>
      this.child.on('close', (code) => {
        this.exitCode = code
        for (const w of this.waiters.splice(0)) w()
        resolve(code)
      }),
    )
  }

  get pid(): number {
    return this.child.pid ?? 0
  }

  /** Waits for a line on stderr (logs) or stdout (audit) matching `re`; returns it. */
  async line(re: RegExp, opts: {stream?: 'err' | 'out'; timeoutMs?: number} = {}): Promise<string> {
    return (opts.stream === 'out' ? this.out : this.err)[await this.lineAt(re, opts)]
  }

  /** Waits for a line matching `re` at index `from` or later (default stderr, the logs); returns its index. */
  async lineAt(re: RegExp, opts: {stream?: 'err' | 'out'; from?: number; timeoutMs?: number} = {}): Promise<number> {
    const lines = opts.stream === 'out' ? this.out : this.err
    const from = opts.from ?? 0
    const deadline = Date.now() + (opts.timeoutMs ?? 15_000)
    for (;;) {
      const found = lines.findIndex((l, i) => i >= from && re.test(l))
      if (found !== -1) return found
      if (this.exitCode !== undefined)
        throw new Error(`pvctl exited (${this.exitCode}) before printing ${re}:\n${this.err.join('\n')}`)
      if (Date.now() > deadline)
        throw new Error(`no line ${re} within ${opts.timeoutMs ?? 15_000} ms:\n${this.err.join('\n')}`)
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 50)
        this.waiters.push(() => {
          clearTimeout(t)
          resolve()
        })
      })
    }
  }

  /**
   * Waits until `n` resyncs have begun after the logs' line `from` (-v 4 logs each); the index of the
   * last one's line. A test that holds something "whatever the resyncs meanwhile" waits for them, not for
   * time.
   */
  async resyncs(n: number, from = this.err.length): Promise<number> {
    let at = from - 1
    for (let i = 0; i < n; i++) at = await this.lineAt(/"Resyncing PV controller"/, {from: at + 1})
    return at
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal)
  }

  /** Stops it (SIGTERM) if still running. */
  async stop(): Promise<void> {
    if (this.exitCode === undefined) this.child.kill('SIGTERM')
    await this.exited
  }
}

export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await probe()
    if (v !== undefined && v !== false) return v
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

/** Waits until `n` watch streams have opened since request number `since` (the informers are watching). */
export function watching(api: Emulator, n: number, since = 0): Promise<true> {
  return waitFor(
    `${n} open watches`,
    () => api.requests.slice(since).filter((r) => r.verb === 'watch').length >= n || undefined,
  )
}

export function volume(
  name: string,
  opts: {
    storage?: string
    className?: string
    claimRef?: {namespace: string; name: string; uid?: string}
    phase?: string
  } = {},
): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {name, ...(opts.claimRef ? {annotations: {'pv.kubernetes.io/bound-by-controller': 'yes'}} : {})},
    spec: {
      accessModes: ['ReadWriteOnce'],
      capacity: {storage: opts.storage ?? '1Gi'},
      hostPath: {path: `/tmp/${name}`},
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: opts.className ?? '',
      volumeMode: 'Filesystem',
      ...(opts.claimRef ? {claimRef: {apiVersion: 'v1', kind: 'PersistentVolumeClaim', ...opts.claimRef}} : {}),
    },
    status: {phase: opts.phase ?? 'Available'},
  }
}

export function claim(
  namespace: string,
  name: string,
  opts: {storage?: string; className?: string; volumeName?: string; uid?: string; phase?: string} = {},
): PersistentVolumeClaim {
  const bound = opts.volumeName !== undefined
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name,
      namespace,
      ...(opts.uid ? {uid: opts.uid} : {}),
      ...(bound
        ? {annotations: {'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes'}}
        : {}),
    },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: {requests: {storage: opts.storage ?? '1Gi'}},
      storageClassName: opts.className ?? '',
      volumeMode: 'Filesystem',
      ...(bound ? {volumeName: opts.volumeName} : {}),
    },
    status: bound
      ? {phase: opts.phase ?? 'Bound', accessModes: ['ReadWriteOnce'], capacity: {storage: opts.storage ?? '1Gi'}}
      : {phase: 'Pending'},
  }
}

export const getClaim = (api: Emulator, namespace: string, name: string) =>
  api.get('pvc', namespace, name) as unknown as PersistentVolumeClaim | undefined
export const getVolume = (api: Emulator, name: string) =>
  api.get('pv', null, name) as unknown as PersistentVolume | undefined
export const getLease = (api: Emulator, namespace: string, name: string) =>
  api.get('lease', namespace, name) as unknown as Lease | undefined

/** Writes to the objects the binder manages (PV, PVC, events), optionally by one user. */
export const binderWrites = (api: Emulator, user?: string) =>
  ['pv', 'pvc', 'ev'].reduce((n, resource) => n + api.countWrites({resource, ...(user !== undefined ? {user} : {})}), 0)

/** Every claim bound to a distinct volume, and that volume's claimRef pointing back: no double binding. */
export function assertOneToOne(api: Emulator): Map<string, string> {
  const claims = api.list('pvc') as unknown as PersistentVolumeClaim[]
  const volumes = new Map((api.list('pv') as unknown as PersistentVolume[]).map((v) => [v.metadata.name ?? '', v]))
  const byVolume = new Map<string, string>()
  for (const c of claims) {
    const key = `${c.metadata.namespace}/${c.metadata.name}`
    const v = c.spec.volumeName
    if (!v) continue
    if (byVolume.has(v)) throw new Error(`volume ${v} bound to ${byVolume.get(v)} and ${key}`)
    byVolume.set(v, key)
    const ref = volumes.get(v)?.spec.claimRef
    if (ref == null || `${ref.namespace}/${ref.name}` !== key || ref.uid !== c.metadata.uid) {
      throw new Error(`claim ${key} names ${v}, whose claimRef is ${JSON.stringify(ref)}`)
    }
  }
  return byVolume
}
