// The real control plane runs no scheduler and no kubelet: this stands in for a kubelet for the pods pvctl's
// volume plugins start, so that a run that waits for them ends.
import * as k8s from '@kubernetes/client-node'

import {type ApiClients, inParallel} from './seed.js'

/**
 * The control plane runs no kubelet and no scheduler: this stands in for one for the pods pvctl's volume
 * plugins start (recycler-for-*, deleter-for-*), ending each in the given phase through the status
 * subresource, as a kubelet reports it.
 */
export function standInKubelet(api: ApiClients, phase: 'Succeeded' | 'Failed' = 'Succeeded'): () => Promise<void> {
  let running = true
  const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch)
  const loop = (async () => {
    while (running) {
      const pods = (await api.core.listPodForAllNamespaces()).items.filter(
        (p) => /^(recycler-for-|deleter-for-)/.test(p.metadata?.name ?? '') && p.status?.phase !== phase,
      )
      await inParallel(pods, 4, async (p) => {
        await api.core
          .patchNamespacedPodStatus(
            {name: p.metadata?.name ?? '', namespace: p.metadata?.namespace ?? '', body: {status: {phase}}},
            mergePatch,
          )
          .catch(() => {})
      })
      await new Promise((r) => setTimeout(r, 100))
    }
  })()
  return async () => {
    running = false
    await loop
  }
}
