// Opens the live cluster: kubectl's kubeconfig rules, client-node, and client-side flow control.
// Imported only when a command needs the cluster: client-node costs ~0.4 s to load.
import {loadKubeconfig} from '../cluster/kubeconfig.js'
import {type ClusterApi, KubernetesClusterApi, makeKubeConfig} from '../cluster/live-api.js'
import {throttle} from '../cluster/throttled-api.js'

export interface LiveOptions {
  kubeconfig?: string
  context?: string
  qps: number
  burst: number
  requestTimeoutMs?: number
}

export interface LiveSession {
  api: ClusterApi
  /** The context's namespace, when it sets one. */
  namespace?: string
  contextName: string
  server: string
}

export function openLiveSession(opts: LiveOptions): LiveSession {
  const config = loadKubeconfig({kubeconfig: opts.kubeconfig, context: opts.context})
  const kc = makeKubeConfig(config)
  const api = throttle(new KubernetesClusterApi(kc), {qps: opts.qps, burst: opts.burst, requestTimeoutMs: opts.requestTimeoutMs})
  return {api, namespace: config.namespace, contextName: config.contextName, server: config.cluster.server}
}
