// `pvctl version`: kubectl version's document, {clientVersion, serverVersion}, the server's read from the
// cluster of the kubeconfig (GET /version) unless only the client's is asked for.
import type {KubeConfig} from '@kubernetes/client-node'

import type {ResolvedConfig} from '../cluster/kubeconfig.js'
import {
  type DecidedVersion,
  DEFAULT_MINOR,
  kubeVersionText,
  nearestKnown,
  parseKubeVersion,
} from '../engine/api/kube-version.js'

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
  /** The Kubernetes release pvctl decides as against this cluster, and where it learned it. */
  kubernetesVersion: DecidedVersion
}

/**
 * The release the deciding commands take against the kubeconfig's cluster: --kube-version; else the
 * server's (the nearest pvctl knows); else, with no server read, v1.31.
 */
export function decidedFor(flagMinor: number | undefined, server: ServerVersion | undefined): DecidedVersion {
  if (flagMinor !== undefined) return {version: kubeVersionText(flagMinor), source: 'flag'}
  const gitVersion = server?.gitVersion
  if (gitVersion === undefined) return {version: kubeVersionText(DEFAULT_MINOR), source: 'default'}
  const minor = parseKubeVersion(gitVersion)
  if (minor === undefined) return {version: kubeVersionText(DEFAULT_MINOR), source: 'default', observed: gitVersion}
  return {version: kubeVersionText(nearestKnown(minor, gitVersion).minor), source: 'server', observed: gitVersion}
}

const GOARCH: Record<string, string> = {
  x64: 'amd64',
  ia32: '386',
  arm64: 'arm64',
  arm: 'arm',
  ppc64: 'ppc64le',
  s390x: 's390x',
}

export function clientVersion(
  version: string,
  runtime: {platform: string; arch: string; version: string},
): ClientVersion {
  const [major = '0', minor = '0'] = version.split('.')
  return {
    major,
    minor,
    gitVersion: `v${version}`,
    platform: `${runtime.platform}/${GOARCH[runtime.arch] ?? runtime.arch}`,
    nodeVersion: runtime.version,
  }
}

export interface ServerVersionOptions {
  kubeconfig?: string
  context?: string
  requestTimeoutMs: number
}

export async function serverVersion(opts: ServerVersionOptions): Promise<ServerVersion> {
  // The client runtime, slow to import (docs/performance.md), only when a server is asked.
  const [{loadKubeconfig}, {makeKubeConfig}] = await Promise.all([
    import('../cluster/kubeconfig.js'),
    import('../cluster/live-api.js'),
  ])
  const config: ResolvedConfig = loadKubeconfig({kubeconfig: opts.kubeconfig, context: opts.context})
  return readServerVersion(makeKubeConfig(config), config.cluster.server, opts.requestTimeoutMs)
}

/** GET /version of the kubeconfig's cluster (VersionApi), as the API server answers it. */
export async function readServerVersion(kc: KubeConfig, server: string, requestTimeoutMs = 0): Promise<ServerVersion> {
  const [{toApiError}, k8s] = await Promise.all([import('../cluster/api-errors.js'), import('@kubernetes/client-node')])
  const api = kc.makeApiClient(k8s.VersionApi)
  const signal = requestTimeoutMs > 0 ? AbortSignal.timeout(requestTimeoutMs) : undefined
  try {
    const call = api.getCode()
    const info =
      signal === undefined
        ? await call
        : await Promise.race([
            call,
            new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error))),
          ])
    // Its fields as the server sent them (client-node's VersionInfo is a data class).
    return Object.assign({}, info) as unknown as ServerVersion
  } catch (err) {
    throw toApiError(err, {verb: 'get', resource: 'version'}, server)
  }
}
