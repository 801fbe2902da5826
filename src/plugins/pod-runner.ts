// Runs a pod to completion for a volume plugin, as recyclerclient.RecycleVolumeByWatchingPodUntilCompletion
// does: create it (reusing one of the same name left by an interrupted run), wait until it Succeeded
// or Failed or its deadline passed, relay its events, and delete it whatever the outcome.
import {ApiError, NotFoundError} from '../cluster/api-errors.js'
import type {PodEvent, WorkloadApi} from '../cluster/workload-api.js'
import type {Pod} from '../engine/model.js'

export interface RunPodOptions {
  /** Give up (and fail) after this long, in ms. */
  timeoutMs: number
  pollMs?: number
  sleep?: (ms: number) => Promise<void>
  now?: () => number
  /** Each new event of the pod, in order (relayed as RecyclerPod events). */
  onEvent?: (event: PodEvent) => void
}

/** undefined when the pod Succeeded, else why it did not. */
export async function runPodToCompletion(api: WorkloadApi, pod: Pod, opts: RunPodOptions): Promise<string | undefined> {
  const namespace = pod.metadata.namespace ?? 'default'
  const name = pod.metadata.name ?? ''
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)))
  const now = opts.now ?? Date.now
  try {
    await api.createPod(pod)
  } catch (err) {
    // A pod of this name left by an interrupted run does the same work: watch it instead.
    if (!(err instanceof ApiError && err.status === 409)) throw err
  }
  const seen = new Set<string>()
  const deadline = now() + opts.timeoutMs
  try {
    for (;;) {
      const current = await api.readPod(namespace, name)
      for (const e of await api.podEvents(namespace, name).catch(() => [])) {
        const key = `${e.type}/${e.reason}/${e.message}`
        if (seen.has(key)) continue
        seen.add(key)
        opts.onEvent?.(e)
      }
      const phase = current.status?.phase
      if (phase === 'Succeeded') return undefined
      if (phase === 'Failed') {
        const message = (current.status as {message?: string} | undefined)?.message
        return `pod ${namespace}/${name} failed${message ? `: ${message}` : ''}`
      }
      if (now() >= deadline) return `pod ${namespace}/${name} did not finish within ${Math.round(opts.timeoutMs / 1000)}s`
      await sleep(opts.pollMs ?? 1000)
    }
  } finally {
    await api.deletePod(namespace, name).catch((err: unknown) => {
      if (!(err instanceof NotFoundError)) throw err
    })
  }
}
