// `pvctl version`: kubectl version's document, {clientVersion, serverVersion}, the server's read from the
// cluster of the kubeconfig (GET /version) unless only the client's is asked for.
import type {ResolvedConfig} from '../cluster/kubeconfig.js'

export interface ClientVersion {
  major: string
  minor: string
  gitVersion: string
  /** GOOS/GOARCH as kubectl prints them: linux/amd64. */
  platform: string
  nodeVersion: string
}

/** The API server's /version, as it answers (major, minor, gitVersion, platform, ...). */
export type ServerVersion = Record<string, string>

export interface VersionDoc {
  clientVersion: ClientVersion
  serverVersion?: ServerVersion
}

const GOARCH: Record<string, string> = {x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x'}

export function clientVersion(version: string, runtime: {platform: string; arch: string; version: string}): ClientVersion {
  const [major = '0', minor = '0'] = version.split('.')
  return {major, minor, gitVersion: `v${version}`, platform: `${runtime.platform}/${GOARCH[runtime.arch] ?? runtime.arch}`, nodeVersion: runtime.version}
}

export interface ServerVersionOptions {
  kubeconfig?: string
  context?: string
  requestTimeoutMs: number
}

export async function serverVersion(opts: ServerVersionOptions): Promise<ServerVersion> {
  // The client runtime (~0.4 s to import) only when a server is asked.
  const [{loadKubeconfig}, {makeKubeConfig}, {toApiError}, k8s] = await Promise.all([
    import('../cluster/kubeconfig.js'),
    import('../cluster/live-api.js'),
    import('../cluster/api-errors.js'),
    import('@kubernetes/client-node'),
  ])
  const config: ResolvedConfig = loadKubeconfig({kubeconfig: opts.kubeconfig, context: opts.context})
  const api = makeKubeConfig(config).makeApiClient(k8s.VersionApi)
  const signal = opts.requestTimeoutMs > 0 ? AbortSignal.timeout(opts.requestTimeoutMs) : undefined
  try {
    const call = api.getCode()
    const info = signal === undefined ? await call : await Promise.race([call, new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)))])
    return {...info} as unknown as ServerVersion
  } catch (err) {
    throw toApiError(err, {verb: 'get', resource: 'version'}, config.cluster.server)
  }
}
