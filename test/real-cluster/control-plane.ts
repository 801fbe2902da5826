// A real Kubernetes control plane on 127.0.0.1 for the real-cluster suites: etcd, kube-apiserver (serving
// certificates and a CA made by openssl at start, an admin by client certificate in system:masters, RBAC
// on, the release's default admission plugins on, an audit log of every request) and, when asked, kube-controller-manager running only
// the PV controller (persistentvolume-binder-controller), with its own identity and, as in a cluster,
// the controller's service account credentials (--use-service-account-credentials).
//
// One process owns the control plane (startControlPlane) and writes a descriptor (cluster.json) that
// test processes attach to (attachControlPlane) to mint users and run controller managers of their own.
// Every process started is ended on stop(), on the owner's exit and on SIGINT/SIGTERM; a controller
// manager started by a test process is also recorded in the state folder, so the owner ends it too.
import {type ChildProcess, execFile, spawn} from 'node:child_process'
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import {createServer, type AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {promisify} from 'node:util'
import {Agent, request} from 'node:https'

import {kubeconfigYaml} from '../emulator/kubeconfig.js'
import type {KubeBinaries} from './kube-binaries.js'

export const PV_CONTROLLER = 'persistentvolume-binder-controller'
/**
 * What a cluster runs beside the PV controller that pvctl's live suites meet: default ServiceAccounts in
 * every namespace (pods need one), and the protection controllers that remove the finalizers the
 * StorageObjectInUseProtection admission plugin adds, once a deleted volume or claim is unused.
 */
export const CLUSTER_SERVICES = [
  'serviceaccount-controller',
  'persistentvolume-protection-controller',
  'persistentvolumeclaim-protection-controller',
]

/** What a test process needs to use a control plane another process owns. */
export interface ControlPlaneDescriptor {
  kubernetes: string
  server: string
  /** The admin's kubeconfig (system:masters). */
  kubeconfig: string
  /** The state folder: certificates, logs, the controller managers' pid files. */
  dir: string
  binaries: Pick<KubeBinaries, 'dir' | 'controllerManager'>
}

export interface ControllerManagerOptions {
  /** --controllers (default: the PV controller alone). */
  controllers?: readonly string[]
  /** --pvclaimbinder-sync-period: the controller's full resync (default 15s, as upstream). */
  syncPeriod?: string
  /** --kube-api-qps / --kube-api-burst. */
  qps?: number
  burst?: number
  /** --leader-elect (default false: one controller manager). */
  leaderElect?: boolean
}

export interface ControllerManager {
  pid: number
  /** https://127.0.0.1:PORT of its /metrics and /healthz. */
  url: string
  /** The /metrics text. */
  metrics(): Promise<string>
  stop(): Promise<void>
}

export interface ControlPlane extends ControlPlaneDescriptor {
  /** A kubeconfig for a user of that name (and groups) by client certificate: RBAC decides what it may do. */
  userKubeconfig(user: string, groups?: readonly string[]): Promise<string>
  startControllerManager(opts?: ControllerManagerOptions): Promise<ControllerManager>
  /** Ends what this process started (the owner: everything). */
  stop(): Promise<void>
}

const exec = promisify(execFile)

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const {port} = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '7']

async function makeCa(dir: string): Promise<void> {
  await exec('openssl', [
    'req',
    '-x509',
    ...EC_KEY,
    '-subj',
    '/CN=pvctl-real-cluster-ca',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,digitalSignature,keyCertSign',
    '-keyout',
    path.join(dir, 'ca.key'),
    '-out',
    path.join(dir, 'ca.crt'),
  ])
}

/** A certificate signed by the state folder's CA; O= entries are the user's groups. */
async function makeCert(
  dir: string,
  name: string,
  subject: {cn: string; groups?: readonly string[]},
  usage: 'serverAuth' | 'clientAuth',
  san?: string,
): Promise<{cert: string; key: string}> {
  const subj = `/CN=${subject.cn}${(subject.groups ?? []).map((g) => `/O=${g}`).join('')}`
  const cert = path.join(dir, `${name}.crt`)
  const key = path.join(dir, `${name}.key`)
  const ext = [
    '-addext',
    'basicConstraints=critical,CA:FALSE',
    '-addext',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    '-addext',
    `extendedKeyUsage=${usage}`,
    ...(san ? ['-addext', `subjectAltName=${san}`] : []),
  ]
  await exec('openssl', [
    'req',
    '-x509',
    ...EC_KEY,
    '-CA',
    path.join(dir, 'ca.crt'),
    '-CAkey',
    path.join(dir, 'ca.key'),
    '-subj',
    subj,
    ...ext,
    '-keyout',
    key,
    '-out',
    cert,
  ])
  return {cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8')}
}

function writeKubeconfig(dir: string, name: string, server: string, client: {cert: string; key: string}): string {
  const file = path.join(dir, `${name}.kubeconfig`)
  writeFileSync(
    file,
    kubeconfigYaml(server, readFileSync(path.join(dir, 'ca.crt'), 'utf8'), {
      clientCertificate: client,
      name: 'pvctl-real-cluster',
    }),
    {mode: 0o600},
  )
  return file
}

/** GET over HTTPS with the state folder's CA (or none, for a self-signed endpoint) and a client certificate. */
function httpsGet(
  url: string,
  opts: {ca?: string; client?: {cert: string; key: string}},
): Promise<{status: number; body: string}> {
  return new Promise((resolve, reject) => {
    const agent = new Agent({
      ca: opts.ca,
      cert: opts.client?.cert,
      key: opts.client?.key,
      rejectUnauthorized: opts.ca !== undefined,
    })
    const req = request(url, {agent, timeout: 5000}, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () => resolve({status: res.statusCode ?? 0, body}))
    })
    req.on('timeout', () => req.destroy(new Error(`GET ${url}: no answer in 5 s`)))
    req.on('error', reject)
    req.end()
  })
}

/** Polls until ready() holds, the process exits (its log's tail is the error) or the deadline passes. */
async function waitUntil(
  what: string,
  child: ChildProcess,
  logFile: string,
  ready: () => Promise<boolean>,
  deadlineMs = 120_000,
): Promise<void> {
  const started = Date.now()
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `${what} exited (${child.exitCode ?? child.signalCode}) before it was ready; its log ends:\n${logTail(logFile)}`,
      )
    }
    if (await ready().catch(() => false)) return
    if (Date.now() - started > deadlineMs)
      throw new Error(`${what} was not ready in ${deadlineMs / 1000} s; its log ends:\n${logTail(logFile)}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

function logTail(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-25).join('\n') : '(no log)'
}

/** The processes this process started, ended at its exit whatever happens. */
const children = new Set<ChildProcess>()
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL')
})
// A signal ends a process without its exit handlers: where nothing else handles it, exit, so that they run.
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
] as const) {
  process.once(signal, () => {
    if (process.listenerCount(signal) === 0) process.exit(code)
  })
}

function start(binary: string, args: string[], logFile: string): ChildProcess {
  const log = openSync(logFile, 'a')
  const child = spawn(binary, args, {stdio: ['ignore', log, log]})
  closeSync(log)
  children.add(child)
  child.on('exit', () => children.delete(child))
  return child
}

/** SIGTERM, then SIGKILL if it has not exited in 10 s. */
async function end(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
  await exited
  clearTimeout(timer)
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function startControllerManagerIn(
  d: ControlPlaneDescriptor,
  opts: ControllerManagerOptions,
): Promise<ControllerManager> {
  const identity = path.join(d.dir, 'kube-controller-manager.kubeconfig')
  const port = await freePort()
  const logFile = path.join(d.dir, `kube-controller-manager-${port}.log`)
  const child = start(
    d.binaries.controllerManager,
    [
      `--kubeconfig=${identity}`,
      `--controllers=${(opts.controllers ?? [PV_CONTROLLER]).join(',')}`,
      '--use-service-account-credentials=true',
      `--leader-elect=${opts.leaderElect === true}`,
      `--pvclaimbinder-sync-period=${opts.syncPeriod ?? '15s'}`,
      ...(opts.qps !== undefined ? [`--kube-api-qps=${opts.qps}`] : []),
      ...(opts.burst !== undefined ? [`--kube-api-burst=${opts.burst}`] : []),
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--cert-dir=${path.join(d.dir, `kube-controller-manager-${port}`)}`,
      '--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics',
      '--authentication-skip-lookup',
      '--v=2',
    ],
    logFile,
  )
  const pidFile = path.join(d.dir, `kube-controller-manager-${child.pid}.pid`)
  writeFileSync(pidFile, String(child.pid))
  const url = `https://127.0.0.1:${port}`
  const stop = async () => {
    await end(child)
    rmSync(pidFile, {force: true})
  }
  try {
    await waitUntil(
      'kube-controller-manager',
      child,
      logFile,
      async () => (await httpsGet(`${url}/healthz`, {})).status === 200,
    )
  } catch (e) {
    await stop()
    throw e
  }
  return {
    pid: child.pid as number,
    url,
    metrics: async () => {
      const res = await httpsGet(`${url}/metrics`, {})
      if (res.status !== 200) throw new Error(`GET ${url}/metrics: ${res.status} ${res.body.slice(0, 200)}`)
      return res.body
    },
    stop,
  }
}

function attached(d: ControlPlaneDescriptor, stopOwned: () => Promise<void>): ControlPlane {
  const managers = new Set<ControllerManager>()
  return {
    ...d,
    userKubeconfig: async (user, groups = []) =>
      writeKubeconfig(
        d.dir,
        `user-${user}`,
        d.server,
        await makeCert(d.dir, `user-${user}`, {cn: user, groups}, 'clientAuth'),
      ),
    startControllerManager: async (opts = {}) => {
      const manager = await startControllerManagerIn(d, opts)
      managers.add(manager)
      const stop = manager.stop
      manager.stop = async () => {
        managers.delete(manager)
        await stop()
      }
      return manager
    },
    stop: async () => {
      for (const manager of [...managers]) await manager.stop()
      await stopOwned()
    },
  }
}

/** The control plane a descriptor file (cluster.json) describes, for a test process. */
export function attachControlPlane(descriptorFile: string): ControlPlane {
  const d = JSON.parse(readFileSync(descriptorFile, 'utf8')) as ControlPlaneDescriptor
  return attached(d, async () => {})
}

/**
 * Starts etcd and kube-apiserver from the binaries, in a fresh state folder (removed on stop unless
 * keepDir), and waits until the API server is ready (/readyz: etcd reachable, RBAC's bootstrap roles made).
 */
export async function startControlPlane(
  binaries: KubeBinaries,
  opts: {keepDir?: boolean; log?: (line: string) => void} = {},
): Promise<ControlPlane> {
  const dir = mkdtempSync(path.join(tmpdir(), `pvctl-real-cluster-${binaries.release.kubernetes}-`))
  const started = Date.now()
  const owned: ChildProcess[] = []
  const stopOwned = async () => {
    // controller managers test processes started and left (a crashed test): ended here
    for (const file of readdirSync(dir).filter((f) => /^kube-controller-manager-\d+\.pid$/.test(f))) {
      const pid = Number(readFileSync(path.join(dir, file), 'utf8'))
      if (pidAlive(pid)) process.kill(pid, 'SIGKILL')
      unlinkSync(path.join(dir, file))
    }
    for (const child of owned.reverse()) await end(child)
    if (opts.keepDir !== true) rmSync(dir, {recursive: true, force: true})
  }
  try {
    await makeCa(dir)
    const [apiPort, etcdPort, peerPort] = [await freePort(), await freePort(), await freePort()]
    await makeCert(
      dir,
      'apiserver',
      {cn: 'kube-apiserver'},
      'serverAuth',
      'IP:127.0.0.1,DNS:localhost,IP:10.0.0.1,DNS:kubernetes.default.svc',
    )
    const admin = await makeCert(dir, 'admin', {cn: 'pvctl-admin', groups: ['system:masters']}, 'clientAuth')
    const controllerManager = await makeCert(
      dir,
      'kube-controller-manager',
      {cn: 'system:kube-controller-manager'},
      'clientAuth',
    )
    await exec('openssl', [
      'genpkey',
      '-algorithm',
      'EC',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-out',
      path.join(dir, 'service-account.key'),
    ])
    await exec('openssl', [
      'pkey',
      '-in',
      path.join(dir, 'service-account.key'),
      '-pubout',
      '-out',
      path.join(dir, 'service-account.pub'),
    ])
    const server = `https://127.0.0.1:${apiPort}`

    const etcdUrl = `http://127.0.0.1:${etcdPort}`
    const peerUrl = `http://127.0.0.1:${peerPort}`
    const etcdLog = path.join(dir, 'etcd.log')
    const etcd = start(
      binaries.etcd,
      [
        '--name=pvctl',
        `--data-dir=${path.join(dir, 'etcd')}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=pvctl=${peerUrl}`,
        // a throw-away store: no fsync, and room for the 100k-object benchmarks
        '--unsafe-no-fsync',
        '--quota-backend-bytes=8589934592',
        '--log-level=warn',
      ],
      etcdLog,
    )
    owned.push(etcd)
    await waitUntil('etcd', etcd, etcdLog, async () => {
      const res = await fetch(`${etcdUrl}/health`)
      return res.ok && ((await res.json()) as {health?: string}).health === 'true'
    })

    // Every request, at the Metadata level, one JSON line each: who wrote what (live.ts writesBy()).
    writeFileSync(
      path.join(dir, 'audit-policy.yaml'),
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n  - level: Metadata\n',
    )
    const apiLog = path.join(dir, 'kube-apiserver.log')
    const key = (f: string) => path.join(dir, f)
    const apiserver = start(
      binaries.apiserver,
      [
        `--etcd-servers=${etcdUrl}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${apiPort}`,
        '--advertise-address=127.0.0.1',
        `--tls-cert-file=${key('apiserver.crt')}`,
        `--tls-private-key-file=${key('apiserver.key')}`,
        `--client-ca-file=${key('ca.crt')}`,
        '--authorization-mode=Node,RBAC',
        `--service-account-issuer=https://kubernetes.default.svc`,
        `--service-account-key-file=${key('service-account.pub')}`,
        `--service-account-signing-key-file=${key('service-account.key')}`,
        '--service-cluster-ip-range=10.0.0.0/24',
        // the kubernetes Service's Endpoints would name 127.0.0.1, which validation refuses: no endpoints
        '--endpoint-reconciler-type=none',
        `--audit-policy-file=${key('audit-policy.yaml')}`,
        `--audit-log-path=${key('audit.log')}`,
        '--audit-log-maxsize=0',
        '--profiling=false',
        '--v=1',
      ],
      apiLog,
    )
    owned.push(apiserver)
    const ca = readFileSync(key('ca.crt'), 'utf8')
    await waitUntil(
      'kube-apiserver',
      apiserver,
      apiLog,
      async () => (await httpsGet(`${server}/readyz`, {ca, client: admin})).status === 200,
    )

    const kubeconfig = writeKubeconfig(dir, 'admin', server, admin)
    writeKubeconfig(dir, 'kube-controller-manager', server, controllerManager)
    const descriptor: ControlPlaneDescriptor = {
      kubernetes: binaries.release.kubernetes,
      server,
      kubeconfig,
      dir,
      binaries: {dir: binaries.dir, controllerManager: binaries.controllerManager},
    }
    writeFileSync(path.join(dir, 'cluster.json'), JSON.stringify(descriptor, null, 2))
    opts.log?.(
      `etcd ${binaries.release.etcd} and kube-apiserver ${binaries.release.kubernetes} ready at ${server} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    )
    return attached(descriptor, stopOwned)
  } catch (e) {
    await stopOwned()
    throw e
  }
}
