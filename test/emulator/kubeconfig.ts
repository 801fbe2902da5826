// A kubeconfig pointing at the emulator (or the real-cluster suites' kube-apiserver), for kubectl
// (KUBECONFIG=...) and @kubernetes/client-node.
// Over plain http the cluster entry still says insecure-skip-tls-verify: client-node refuses an http
// server without it, and kubectl ignores it for http. Over https it carries the emulator's own CA.
import {stringify} from 'yaml'

export interface KubeconfigOptions {
  /** Bearer token of the user entry; none when absent. */
  token?: string
  /** A client certificate and its key (PEM) for the user entry instead. */
  clientCertificate?: {cert: string; key: string}
  /** The context's default namespace. */
  namespace?: string
  /** Names of the cluster, user and context entries (all `emulator` by default). */
  name?: string
}

export function kubeconfigYaml(server: string, caPem: string | undefined, opts: KubeconfigOptions = {}): string {
  const name = opts.name ?? 'emulator'
  const cluster: Record<string, unknown> = {server}
  if (caPem) cluster['certificate-authority-data'] = Buffer.from(caPem).toString('base64')
  else cluster['insecure-skip-tls-verify'] = true
  const context: Record<string, unknown> = {cluster: name, user: name}
  if (opts.namespace) context.namespace = opts.namespace
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{name, cluster}],
    users: [{name, user: userEntry(opts)}],
    contexts: [{name, context}],
    'current-context': name,
    preferences: {},
  })
}

function userEntry(opts: KubeconfigOptions): Record<string, string> {
  if (opts.token) return {token: opts.token}
  if (opts.clientCertificate) {
    const base64 = (pem: string) => Buffer.from(pem).toString('base64')
    return {
      'client-certificate-data': base64(opts.clientCertificate.cert),
      'client-key-data': base64(opts.clientCertificate.key),
    }
  }
  return {}
}
