// The namespace of pvc/NAME arguments given without -n, as kubectl picks it: the current context's
// namespace (or the in-cluster service account's), else "default". A snapshot (-f) has no context.
import {loadKubeconfig} from '../cluster/kubeconfig.js'

export interface NamespaceFlags {
  namespace?: string
  filename?: readonly string[]
  kubeconfig?: string
  context?: string
}

export function defaultNamespace(flags: NamespaceFlags, env: Record<string, string | undefined> = process.env): string {
  if (flags.namespace !== undefined) return flags.namespace
  if (flags.filename !== undefined) return 'default'
  try {
    return loadKubeconfig({kubeconfig: flags.kubeconfig, context: flags.context, env}).namespace ?? 'default'
  } catch {
    // An unusable kubeconfig is reported, with its exit code, when the session loads it.
    return 'default'
  }
}
