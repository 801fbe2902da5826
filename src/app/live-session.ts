// Opens the live cluster: kubectl's kubeconfig rules, client-node, and client-side flow control.
// Imported only when a command needs the cluster: client-node is slow to load (docs/performance.md).
import {type EvidenceApi, KubernetesEvidenceApi} from '../cluster/explain-evidence-api.js'
import {loadKubeconfig, plainHttpCredentialsWarning} from '../cluster/kubeconfig.js'
import {type ClusterApi, KubernetesClusterApi, type LeaseApi, makeKubeConfig} from '../cluster/live-api.js'
import {throttle, TokenBucket} from '../cluster/throttled-api.js'
import {KubernetesWorkloadApi, type WorkloadApi} from '../cluster/workload-api.js'
import {redactUrlCredentials} from '../redact.js'
import {readServerVersion} from './version.js'

export interface LiveOptions {
  kubeconfig?: string
  context?: string
  qps: number
  burst: number
  requestTimeoutMs?: number
}

export interface LiveSession {
  api: ClusterApi
  /** Pods and PV objects for the volume plugins. */
  workload: WorkloadApi
  /** kube-controller-manager's Lease, read before a sync writes beside it. */
  leases: Pick<LeaseApi, 'readLease'>
  /** Events, CSIDrivers, Leases and VolumeAttachments for explain (read-only, best-effort). */
  evidence: EvidenceApi
  /** The context's namespace, when it sets one. */
  namespace?: string
  contextName: string
  server: string
  /** What the user should know about this connection before trusting it (credentials over plain HTTP). */
  warnings: string[]
  /** The API server's gitVersion (GET /version): the release pvctl decides as. */
  serverVersion(): Promise<string>
}

export function openLiveSession(opts: LiveOptions): LiveSession {
  const config = loadKubeconfig({kubeconfig: opts.kubeconfig, context: opts.context})
  const kc = makeKubeConfig(config)
  const bucket = new TokenBucket(
    opts.qps,
    opts.burst,
    Date.now,
    (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  )
  const flow = {qps: opts.qps, burst: opts.burst, requestTimeoutMs: opts.requestTimeoutMs, bucket}
  const clusterApi = throttle(new KubernetesClusterApi(kc), flow)
  const api: ClusterApi = clusterApi
  const workload: WorkloadApi = throttle(new KubernetesWorkloadApi(kc), flow)
  const evidence: EvidenceApi = throttle(new KubernetesEvidenceApi(kc), flow)
  const server = redactUrlCredentials(config.cluster.server)
  return {
    api,
    leases: clusterApi,
    workload,
    evidence,
    namespace: config.namespace,
    contextName: config.contextName,
    server,
    warnings: [plainHttpCredentialsWarning(config)].filter((w) => w !== undefined),
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-conversion, @typescript-eslint/no-unnecessary-condition -- a server may leave gitVersion out
    serverVersion: async () => String((await readServerVersion(kc, server, opts.requestTimeoutMs)).gitVersion ?? ''),
  }
}
