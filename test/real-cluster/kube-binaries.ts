// Kubernetes' own binaries for the real-cluster suites: etcd, kube-apiserver and kube-controller-manager,
// built with Go from the module proxy. Each supported minor has a module of its own under go/<minor>/
// (go.mod and go.sum committed: the build is reproducible) that requires k8s.io/kubernetes at the
// release and replaces each staging module (k8s.io/api, k8s.io/client-go, ...) with its published
// v0.Y.Z, and requires the etcd server of the release's etcd client. The binaries go to a cache outside
// the repository, built once per machine and reused while go.sum is unchanged.
import {execFile, spawn} from 'node:child_process'
import {createHash} from 'node:crypto'
import {existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {homedir} from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {promisify} from 'node:util'

const goRoot = path.join(path.dirname(fileURLToPath(import.meta.url)), 'go')

export const BINARIES = ['etcd', 'kube-apiserver', 'kube-controller-manager'] as const

export interface KubeRelease {
  /** The minor, as the folder under go/ names it: "1.31". */
  minor: string
  /** k8s.io/kubernetes's release tag: "v1.31.14". */
  kubernetes: string
  /** go.etcd.io/etcd/server/v3's version: "v3.5.14". */
  etcd: string
  /** The module's folder. */
  moduleDir: string
}

export interface KubeBinaries {
  release: KubeRelease
  dir: string
  etcd: string
  apiserver: string
  controllerManager: string
  /** Seconds the build took; 0 when the cache held the binaries. */
  buildSeconds: number
}

/** The minors there is a module for, oldest first. */
export function supportedMinors(): string[] {
  return readdirSync(goRoot)
    .filter((d) => existsSync(path.join(goRoot, d, 'go.mod')))
    .sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]))
}

/** "1.31", "v1.31", "1.31.14" or "v1.31.14": the release of that minor there is a module for. */
export function kubeRelease(version: string): KubeRelease {
  const m = /^v?(\d+)\.(\d+)(?:\.\d+)?$/.exec(version)
  const minors = supportedMinors()
  if (m === null)
    throw new Error(`--version ${version}: expected a Kubernetes version such as 1.31 (one of ${minors.join(', ')})`)
  const minor = `${m[1]}.${m[2]}`
  const moduleDir = path.join(goRoot, minor)
  if (!minors.includes(minor))
    throw new Error(
      `--version ${version}: no module for Kubernetes ${minor} under test/real-cluster/go/ (there are: ${minors.join(', ')})`,
    )
  const goMod = readFileSync(path.join(moduleDir, 'go.mod'), 'utf8')
  const required = (module: string): string => {
    const found = new RegExp(`^\\s*(?:require\\s+)?${module.replaceAll('.', '\\.')} (v\\S+)`, 'm').exec(goMod)
    if (found === null) throw new Error(`${path.join(moduleDir, 'go.mod')} requires no ${module}`)
    return found[1] as string
  }
  const kubernetes = required('k8s.io/kubernetes')
  if (version.split('.').length === 3 && kubernetes.replace(/^v/, '') !== version.replace(/^v/, '')) {
    throw new Error(`--version ${version}: the module for ${minor} builds ${kubernetes}`)
  }
  return {minor, kubernetes, etcd: required('go.etcd.io/etcd/server/v3'), moduleDir}
}

/** Where the binaries are kept: $PVCTL_KUBE_CACHE, else $XDG_CACHE_HOME/pvctl/kube, else ~/.cache/pvctl/kube. */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PVCTL_KUBE_CACHE) return env.PVCTL_KUBE_CACHE
  return path.join(env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'pvctl', 'kube')
}

/** Why the binaries cannot be built here, or undefined when Go is present. */
export async function goMissing(): Promise<string | undefined> {
  try {
    const {stdout} = await promisify(execFile)('go', ['version'])
    return /^go version go1\.(\d+)/.test(stdout) ? undefined : `\`go version\` printed ${stdout.trim()}`
  } catch (e) {
    return `Go is not installed (\`go version\`: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): the real-cluster suites need it to build kube-apiserver, kube-controller-manager and etcd`
  }
}

function binariesIn(release: KubeRelease, dir: string, buildSeconds: number): KubeBinaries {
  return {
    release,
    dir,
    etcd: path.join(dir, 'etcd'),
    apiserver: path.join(dir, 'kube-apiserver'),
    controllerManager: path.join(dir, 'kube-controller-manager'),
    buildSeconds,
  }
}

/** The go.sum's digest: a cache entry built from another module graph is rebuilt. */
function moduleDigest(release: KubeRelease): string {
  const hash = createHash('sha256')
  for (const file of ['go.mod', 'go.sum']) hash.update(readFileSync(path.join(release.moduleDir, file)))
  return hash.digest('hex')
}

function run(
  cmd: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {cwd, env, stdio: ['ignore', 'pipe', 'pipe']})
    let tail = ''
    const take = (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-8000)
    }
    child.stdout.on('data', take)
    child.stderr.on('data', take)
    child.on('error', reject)
    child.on('close', (code) => {
      if (code === 0) resolve()
      else {
        log(tail)
        reject(new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${code}`))
      }
    })
  })
}

/**
 * The binaries of the release, built into the cache unless it already holds them for this go.sum.
 * kube-apiserver and kube-controller-manager are built in one `go build` (they share most packages),
 * stamped with the release's version (what /version answers), and -trimpath keeps the cache reusable.
 */
export async function kubeBinaries(
  release: KubeRelease,
  log: (line: string) => void = () => {},
): Promise<KubeBinaries> {
  const dir = path.join(cacheRoot(), release.kubernetes)
  const stampFile = path.join(dir, 'module.sha256')
  const digest = moduleDigest(release)
  const present = BINARIES.every((b) => existsSync(path.join(dir, b)))
  if (present && existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === digest)
    return binariesIn(release, dir, 0)

  const started = process.hrtime.bigint()
  const staging = `${dir}.building-${process.pid}`
  rmSync(staging, {recursive: true, force: true})
  mkdirSync(staging, {recursive: true})
  const [major, minor] = release.kubernetes.replace(/^v/, '').split('.')
  const version = 'k8s.io/component-base/version'
  const ldflags = [
    '-s',
    '-w',
    `-X ${version}.gitVersion=${release.kubernetes}`,
    `-X ${version}.gitMajor=${major}`,
    `-X ${version}.gitMinor=${minor}`,
    `-X ${version}.gitTreeState=clean`,
  ].join(' ')
  const env = {...process.env, GOFLAGS: [process.env.GOFLAGS, '-mod=readonly'].filter(Boolean).join(' ')}
  log(
    `building Kubernetes ${release.kubernetes} (kube-apiserver, kube-controller-manager) and etcd ${release.etcd} with Go into ${dir} (once per machine)`,
  )
  try {
    await run(
      'go',
      [
        'build',
        '-trimpath',
        `-ldflags=${ldflags}`,
        '-o',
        staging + path.sep,
        'k8s.io/kubernetes/cmd/kube-apiserver',
        'k8s.io/kubernetes/cmd/kube-controller-manager',
      ],
      release.moduleDir,
      env,
      log,
    )
    await run(
      'go',
      ['build', '-trimpath', '-ldflags=-s -w', '-o', path.join(staging, 'etcd'), 'go.etcd.io/etcd/server/v3'],
      release.moduleDir,
      env,
      log,
    )
    writeFileSync(path.join(staging, 'module.sha256'), `${digest}\n`)
    rmSync(dir, {recursive: true, force: true})
    renameSync(staging, dir)
  } finally {
    rmSync(staging, {recursive: true, force: true})
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  log(`built Kubernetes ${release.kubernetes} and etcd ${release.etcd} in ${seconds.toFixed(0)} s`)
  return binariesIn(release, dir, seconds)
}
