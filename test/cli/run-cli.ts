// Runs the built CLI (`npm run build` first) as a user would: a child process of this Node, with a clean
// copy of the environment (no colour or debug settings inherited from the developer's shell, CI=true) and
// stdin either fed and closed or closed at once, so that nothing ever waits on a terminal.
import {spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
export const bin = path.join(repoRoot, 'bin', 'run.js')
export const example = path.join(repoRoot, 'examples', 'cluster.yaml')

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

export interface CliOptions {
  /** Written to the child's stdin, which is then closed. Without it stdin is closed at once. */
  stdin?: string
  /** Set (a string) or removed (undefined) on top of the clean environment. */
  env?: Record<string, string | undefined>
  cwd?: string
}

/** Variables that change pvctl's output and must come from the test, never from the developer's shell. */
const SCRUBBED = [
  'NO_COLOR',
  'FORCE_COLOR',
  'TERM',
  'PVCTL_DEBUG',
  'DEBUG',
  'KUBECONFIG',
  'NODE_OPTIONS',
  'NODE_DEBUG',
  'NODE_TEST_CONTEXT',
]

export function cleanEnv(overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {...process.env, CI: 'true'}
  for (const name of SCRUBBED) delete env[name]
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[name]
    else env[name] = value
  }
  return env
}

export function runCli(args: readonly string[], opts: CliOptions = {}): Promise<CliResult> {
  if (!existsSync(path.join(repoRoot, 'dist'))) {
    throw new Error('the CLI is not built: run `npm run build` first')
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: opts.cwd ?? repoRoot,
      env: cleanEnv(opts.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (b: Buffer) => out.push(b))
    child.stderr.on('data', (b: Buffer) => err.push(b))
    child.on('error', reject)
    child.on('close', (code) =>
      resolve({code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8')}),
    )
    child.stdin.on('error', () => {}) // the child may exit before reading all of it (EPIPE)
    child.stdin.end(opts.stdin ?? '')
  })
}

export {tempDir} from '../temp-dir.js'

/** Two volumes and a claim the controller has nothing to do with: `sync --dry-run` exits 0. */
export const IN_SYNC_SNAPSHOT = `apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv-a
  annotations:
    pv.kubernetes.io/bound-by-controller: "yes"
  resourceVersion: "10"
  uid: 00000000-0000-0000-0000-00000000000a
spec:
  accessModes: [ReadWriteOnce]
  capacity: {storage: 1Gi}
  hostPath: {path: /tmp/pv-a}
  persistentVolumeReclaimPolicy: Retain
  storageClassName: ""
  volumeMode: Filesystem
  claimRef:
    apiVersion: v1
    kind: PersistentVolumeClaim
    namespace: app
    name: data
    uid: 00000000-0000-0000-0000-0000000000c1
status:
  phase: Bound
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv-b
  resourceVersion: "11"
  uid: 00000000-0000-0000-0000-00000000000b
spec:
  accessModes: [ReadWriteOnce]
  capacity: {storage: 1Gi}
  hostPath: {path: /tmp/pv-b}
  persistentVolumeReclaimPolicy: Retain
  storageClassName: ""
  volumeMode: Filesystem
status:
  phase: Available
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
  namespace: app
  annotations:
    pv.kubernetes.io/bind-completed: "yes"
    pv.kubernetes.io/bound-by-controller: "yes"
  resourceVersion: "12"
  uid: 00000000-0000-0000-0000-0000000000c1
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
  storageClassName: ""
  volumeMode: Filesystem
  volumeName: pv-a
status:
  phase: Bound
  accessModes: [ReadWriteOnce]
  capacity: {storage: 1Gi}
`

/**
 * In sync but not healthy: a Released Retain volume whose claim is gone, which the controller leaves as it is
 * (audit's VolumeReleasedRetained); with `ignore`, the volume's pvctl.io/audit-ignore annotation.
 */
export function keptVolumeSnapshot(ignore?: string): string {
  return `apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-kept, uid: u-pv-kept, resourceVersion: "5"${ignore !== undefined ? `, annotations: {pvctl.io/audit-ignore: "${ignore}"}` : ''}}
spec:
  accessModes: [ReadWriteOnce]
  capacity: {storage: 1Gi}
  hostPath: {path: /tmp/pv-kept}
  persistentVolumeReclaimPolicy: Retain
  storageClassName: ""
  claimRef: {apiVersion: v1, kind: PersistentVolumeClaim, namespace: app, name: gone, uid: u-gone}
status: {phase: Released}
`
}

/**
 * stderr without the line a snapshot read without --kube-version prints about the release it is decided
 * as (load-cluster-state.ts): what tests of the other notices compare.
 */
export function withoutVersionNotice(stderr: string): string {
  return stderr.replace(/^pvctl: decided as Kubernetes v1\.\d+[^\n]*\n/m, '')
}
