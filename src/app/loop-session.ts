// Opens the live cluster for loop mode: kubectl's kubeconfig rules and client-node, as one-shot sync,
// but three clients, as kube-controller-manager has them:
//   api       reads and writes, behind --qps/--burst and the transient-failure retry
//   watchApi  the informers' watches: long-lived streams, neither rate-limited per event nor retried
//             here (the informer resumes or relists), nor cut by --request-timeout
//   workload  the volume plugins' pods and PV objects: the same rate limit as `api` (one bucket)
//   leaseApi  leader election and the binder check: its own rate limit, so that a busy controller never
//             delays a renewal, no retries (the elector retries every retry period), and a timeout of
//             half the renew deadline, so that one hung request cannot use the whole deadline up
import {loadKubeconfig} from '../cluster/kubeconfig.js'
import {
  type ClusterApi,
  KubernetesClusterApi,
  makeKubeConfig,
  type LeaseApi,
  type WatchApi,
} from '../cluster/live-api.js'
import {throttle, TokenBucket} from '../cluster/throttled-api.js'
import {KubernetesWorkloadApi, type WorkloadApi} from '../cluster/workload-api.js'
import {redactUrlCredentials} from '../redact.js'
import {readServerVersion} from './version.js'

export interface LoopSessionOptions {
  kubeconfig?: string
  context?: string
  qps: number
  burst: number
  requestTimeoutMs?: number
  leaseTimeoutMs: number
}

export interface LoopSession {
  api: ClusterApi
  workload: WorkloadApi
  watchApi: WatchApi
  leaseApi: LeaseApi
  contextName: string
  server: string
  /** The API server's gitVersion (GET /version): the release loop mode decides as. */
  serverVersion(): Promise<string>
}

export function openLoopSession(opts: LoopSessionOptions): LoopSession {
  const config = loadKubeconfig({kubeconfig: opts.kubeconfig, context: opts.context})
  const kc = makeKubeConfig(config)
  const bucket = new TokenBucket(
    opts.qps,
    opts.burst,
    Date.now,
    (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  )
  const flow = {qps: opts.qps, burst: opts.burst, requestTimeoutMs: opts.requestTimeoutMs, bucket}
  const api = throttle(new KubernetesClusterApi(kc) as ClusterApi, flow)
  const workload: WorkloadApi = throttle(new KubernetesWorkloadApi(kc), flow)
  const leaseApi = throttle(new KubernetesClusterApi(kc) as ClusterApi, {
    qps: 5,
    burst: 10,
    maxRetries: 0,
    requestTimeoutMs: opts.leaseTimeoutMs,
  }) as unknown as LeaseApi
  const server = redactUrlCredentials(config.cluster.server)
  const serverVersion = async () =>
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-conversion, @typescript-eslint/no-unnecessary-condition -- a server may leave gitVersion out
    String((await readServerVersion(kc, server, opts.requestTimeoutMs)).gitVersion ?? '')
  return {
    api,
    workload,
    watchApi: new KubernetesClusterApi(kc),
    leaseApi,
    contextName: config.contextName,
    server,
    serverVersion,
  }
}
