// Kubeconfig resolution exactly as kubectl (client-go clientcmd) does it, because client-node's
// loadFromDefault differs in ways that matter to an operator: it lets the LAST KUBECONFIG file's
// current-context win (kubectl: the first), throws on duplicate names (kubectl: first wins), and
// silently falls back to http://localhost:8080 when nothing is configured (kubectl: an error).
//
//   --kubeconfig FILE        that file alone (it must exist)
//   KUBECONFIG=a:b:c         every existing file, merged: the first file to set a name or a field wins
//   ~/.kube/config           if it exists
//   in-cluster               the pod's service account (KUBERNETES_SERVICE_HOST/PORT, token, ca.crt)
//   nothing                  an error, never a guess
import {existsSync, readFileSync} from 'node:fs'
import {homedir} from 'node:os'
import path from 'node:path'

import {UsageError} from '../errors.js'
import {yamlLibrary} from '../yaml-library.js'

interface Named<T> {
  name: string
  [key: string]: unknown
  cluster?: T
  user?: T
  context?: T
}

export interface KubeconfigDoc {
  // Entries as a file holds them: a list may hold a null (`- ` alone on a line).
  clusters?: Array<Named<Record<string, unknown>> | null> | null
  users?: Array<Named<Record<string, unknown>> | null> | null
  contexts?: Array<Named<Record<string, unknown>> | null> | null
  'current-context'?: string
  [key: string]: unknown
}

export interface ResolvedCluster {
  name: string
  server: string
  'certificate-authority'?: string
  'certificate-authority-data'?: string
  'insecure-skip-tls-verify'?: boolean
  'tls-server-name'?: string
  'proxy-url'?: string
}

export interface ResolvedUser {
  name: string
  token?: string
  tokenFile?: string
  'client-certificate'?: string
  'client-certificate-data'?: string
  'client-key'?: string
  'client-key-data'?: string
  username?: string
  password?: string
  exec?: unknown
  'auth-provider'?: unknown
}

/**
 * A warning when the kubeconfig would send credentials (a token, a password, an exec or auth-provider
 * plugin's token, a URL's userinfo) to a plain-HTTP server, where anyone on the path reads them; else
 * undefined. (A client certificate is not sent in the clear: plain HTTP has no TLS to present it in.)
 */
export function plainHttpCredentialsWarning(config: Pick<ResolvedConfig, 'cluster' | 'user'>): string | undefined {
  let url: URL
  try {
    url = new URL(config.cluster.server)
  } catch {
    return undefined
  }
  if (url.protocol !== 'http:') return undefined
  const u = config.user
  const sends = [
    u.token || u.tokenFile ? 'a bearer token' : '',
    u.password ? 'a password' : '',
    u.exec != null || u['auth-provider'] != null ? "a credential plugin's token" : '',
    url.username !== '' ? "the server URL's user and password" : '',
  ].filter((s) => s !== '')
  if (sends.length === 0) return undefined
  return `the API server ${url.protocol}//${url.host} is plain HTTP: ${sends.join(', ')} would travel unencrypted; use https:// (kubectl sends no token to such a server)`
}

export interface ResolvedConfig {
  /** Where the configuration came from, for messages (never credentials). */
  origin: string
  contextName: string
  cluster: ResolvedCluster
  user: ResolvedUser
  /** The context's namespace, if it sets one. */
  namespace?: string
}

export interface KubeconfigOptions {
  kubeconfig?: string
  context?: string
  env?: Record<string, string | undefined>
  home?: string
  /** Where the in-cluster service account is mounted (tests point it elsewhere). */
  serviceAccountDir?: string
}

// Fields holding paths, resolved against the directory of the file that set them (as clientcmd does).
const clusterPathFields = ['certificate-authority']
const userPathFields = ['client-certificate', 'client-key', 'tokenFile']

function readDoc(file: string): KubeconfigDoc {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new UsageError(
      `kubeconfig "${file}": ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`,
    )
  }
  let doc: unknown
  try {
    doc = yamlLibrary().parse(text) ?? {}
  } catch (err) {
    throw new UsageError(`kubeconfig "${file}": invalid YAML: ${(err as Error).message.split('\n')[0]}`)
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new UsageError(`kubeconfig "${file}": not a kubeconfig (expected a mapping)`)
  const dir = path.dirname(path.resolve(file))
  const d = doc as KubeconfigDoc
  for (const c of d.clusters ?? []) resolvePaths(c?.cluster, clusterPathFields, dir)
  for (const u of d.users ?? []) resolvePaths(u?.user, userPathFields, dir)
  return d
}

function resolvePaths(entry: Record<string, unknown> | undefined, fields: string[], dir: string): void {
  if (entry == null) return
  for (const f of fields) {
    const v = entry[f]
    if (typeof v === 'string' && v !== '' && !path.isAbsolute(v)) entry[f] = path.join(dir, v)
  }
}

/**
 * Merges kubeconfig documents as clientcmd's loading rules do: for clusters, users and contexts the
 * first document to define a name wins; the first non-empty current-context wins.
 */
export function mergeKubeconfigs(docs: readonly KubeconfigDoc[]): MergedKubeconfig {
  const merged: MergedKubeconfig = {clusters: [], users: [], contexts: []}
  for (const key of ['clusters', 'users', 'contexts'] as const) {
    const seen = new Set<string>()
    for (const doc of docs) {
      for (const entry of doc[key] ?? []) {
        if (entry == null || typeof entry.name !== 'string' || seen.has(entry.name)) continue
        seen.add(entry.name)
        merged[key].push(entry)
      }
    }
  }
  const current = docs.map((d) => d['current-context']).find((c) => typeof c === 'string' && c !== '')
  if (current !== undefined) merged['current-context'] = current
  return merged
}

/** Kubeconfigs merged: the first entry of each name, no nulls. */
interface MergedKubeconfig extends KubeconfigDoc {
  clusters: Array<Named<Record<string, unknown>>>
  users: Array<Named<Record<string, unknown>>>
  contexts: Array<Named<Record<string, unknown>>>
}

/** A value of the file as text: a name written as a number is that number's text; none is "". */
function textOf(value: unknown): string {
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a scalar of the file, shown as written
  return value === undefined || value === null ? '' : String(value)
}

/** Picks the context and resolves its cluster and user; errors name what is missing, never secrets. */
export function resolveContext(doc: KubeconfigDoc, origin: string, contextOverride?: string): ResolvedConfig {
  const contextName = contextOverride ?? doc['current-context']
  if (contextName === undefined || contextName === '') {
    throw new UsageError(`${origin}: no current context is set; pass --context NAME`, ['kubectl config get-contexts'])
  }
  const context = (doc.contexts ?? []).find((c) => c?.name === contextName)?.context
  if (context === undefined) {
    throw new UsageError(`${origin}: context "${contextName}" does not exist`, ['kubectl config get-contexts'])
  }
  const clusterName = textOf(context.cluster)
  const userName = textOf(context.user)
  const cluster = (doc.clusters ?? []).find((c) => c?.name === clusterName)?.cluster
  if (cluster === undefined)
    throw new UsageError(`${origin}: context "${contextName}" names cluster "${clusterName}", which does not exist`)
  if (typeof cluster.server !== 'string' || cluster.server === '')
    throw new UsageError(`${origin}: cluster "${clusterName}" has no server`)
  if (!isServerUrl(cluster.server)) {
    throw new UsageError(
      `${origin}: cluster "${clusterName}": invalid server URL ${JSON.stringify(cluster.server)} (expected https://HOST[:PORT])`,
    )
  }
  const user = (doc.users ?? []).find((u) => u?.name === userName)?.user ?? {}
  const namespace = typeof context.namespace === 'string' && context.namespace !== '' ? context.namespace : undefined
  return {
    origin,
    contextName,
    cluster: {...(cluster as Omit<ResolvedCluster, 'name'>), name: clusterName},
    user: {...(user as Omit<ResolvedUser, 'name'>), name: userName},
    ...(namespace !== undefined ? {namespace} : {}),
  }
}

/** An http(s) URL with a host: what a request can be sent to. */
function isServerUrl(server: string): boolean {
  try {
    const url = new URL(server)
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== ''
  } catch {
    return false
  }
}

/** kubectl's loading rules, then the context. */
export function loadKubeconfig(opts: KubeconfigOptions = {}): ResolvedConfig {
  const env = opts.env ?? process.env
  const found = findKubeconfig(opts)
  if (found !== undefined) return resolveContext(found.doc, found.origin, opts.context)
  const inCluster = inClusterConfig(env, opts.serviceAccountDir ?? '/var/run/secrets/kubernetes.io/serviceaccount')
  if (inCluster !== undefined) {
    if (opts.context !== undefined)
      throw new UsageError(`--context "${opts.context}": there is no kubeconfig, only the in-cluster service account`)
    return inCluster
  }
  throw noKubeconfig(env, 'no cluster configured', ' and not running in a pod')
}

/**
 * The context names of the kubeconfig kubectl's loading rules pick, in its order (`kubectl config
 * get-contexts -o name`), and where it came from. Without a kubeconfig: a usage error.
 */
export function kubeconfigContextNames(opts: Omit<KubeconfigOptions, 'context'> = {}): {
  origin: string
  names: string[]
} {
  const found = findKubeconfig(opts)
  if (found === undefined) throw noKubeconfig(opts.env ?? process.env, 'no kubeconfig to take contexts from', '')
  return {
    origin: found.origin,
    names: (found.doc.contexts ?? []).flatMap((c) => (c != null && typeof c.name === 'string' ? [c.name] : [])),
  }
}

/** The kubeconfig document of kubectl's loading rules (--kubeconfig, KUBECONFIG, ~/.kube/config), if any. */
function findKubeconfig(opts: KubeconfigOptions): {doc: KubeconfigDoc; origin: string} | undefined {
  const env = opts.env ?? process.env
  if (opts.kubeconfig !== undefined) {
    if (!existsSync(opts.kubeconfig)) throw new UsageError(`--kubeconfig "${opts.kubeconfig}": no such file`)
    return {doc: readDoc(opts.kubeconfig), origin: opts.kubeconfig}
  }
  const list = kubeconfigEnvList(env)
  const existing = list.filter((p) => existsSync(p))
  if (existing.length > 0)
    return {doc: mergeKubeconfigs(existing.map(readDoc)), origin: `KUBECONFIG (${existing.join(path.delimiter)})`}
  const home = opts.home ?? env.HOME ?? homedir()
  const defaultFile = path.join(home, '.kube', 'config')
  if (existsSync(defaultFile)) return {doc: readDoc(defaultFile), origin: defaultFile}
  return undefined
}

function kubeconfigEnvList(env: Record<string, string | undefined>): string[] {
  return (env.KUBECONFIG ?? '').split(path.delimiter).filter((p) => p !== '')
}

/** A configuration problem, not the cluster's: a usage error (exit 2). */
function noKubeconfig(env: Record<string, string | undefined>, what: string, inCluster: string): UsageError {
  const list = kubeconfigEnvList(env)
  const kubeconfigEnv =
    list.length > 0 ? `KUBECONFIG names no file that exists (${list.join(path.delimiter)})` : 'no KUBECONFIG'
  return new UsageError(`${what}: no --kubeconfig, ${kubeconfigEnv}, no ~/.kube/config${inCluster}`, [
    'pass --kubeconfig FILE, or read a snapshot with -f FILE',
  ])
}

/** The names of the contexts the kubeconfig loading rules find (for shell completion of --context); none without a file. */
export function contextNames(opts: Pick<KubeconfigOptions, 'kubeconfig' | 'env' | 'home'> = {}): string[] {
  const env = opts.env ?? process.env
  const list =
    opts.kubeconfig !== undefined
      ? [opts.kubeconfig]
      : (env.KUBECONFIG ?? '').split(path.delimiter).filter((p) => p !== '')
  const files = list.length > 0 ? list : [path.join(opts.home ?? env.HOME ?? homedir(), '.kube', 'config')]
  const existing = files.filter((p) => existsSync(p))
  return mergeKubeconfigs(existing.map(readDoc)).contexts.map((c) => c.name)
}

/** rest.InClusterConfig: the service account token and CA, and the API's service address. */
function inClusterConfig(env: Record<string, string | undefined>, dir: string): ResolvedConfig | undefined {
  const host = env.KUBERNETES_SERVICE_HOST
  const port = env.KUBERNETES_SERVICE_PORT
  const tokenFile = path.join(dir, 'token')
  if (host === undefined || host === '' || port === undefined || port === '' || !existsSync(tokenFile)) return undefined
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`
  const namespaceFile = path.join(dir, 'namespace')
  const namespace = existsSync(namespaceFile) ? readFileSync(namespaceFile, 'utf8').trim() : undefined
  return {
    origin: 'in-cluster service account',
    contextName: 'in-cluster',
    cluster: {name: 'in-cluster', server, 'certificate-authority': path.join(dir, 'ca.crt')},
    user: {name: 'in-cluster', tokenFile},
    ...(namespace ? {namespace} : {}),
  }
}
