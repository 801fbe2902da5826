// Runs a pod to completion for a volume plugin, as recyclerclient.RecycleVolumeByWatchingPodUntilCompletion
// does: create it (reusing one of the same name left by an interrupted run), wait until it Succeeded
// or Failed or its deadline passed, relay its events, and delete it whatever the outcome. An abort
// stops the waiting at once and leaves the pod running: the work it does is the work a re-run wants,
// and the re-run adopts it by its name.
import {abortableSleep} from '../cluster/abortable-sleep.js'
import {ApiError, NotFoundError} from '../cluster/api-errors.js'
import type {PodEvent, WorkloadApi} from '../cluster/workload-api.js'
import type {Pod} from '../engine/api/model.js'

export interface RunPodOptions {
  /** Give up (and fail) after this long, in ms. */
  timeoutMs: number
  pollMs?: number
  sleep?: (ms: number) => Promise<void>
  now?: () => number
  /** Each new event of the pod, in order (relayed as RecyclerPod events). */
  onEvent?: (event: PodEvent) => void
  /** Stops the waiting (Ctrl-C): the pod's deadline can be half an hour away. */
  signal?: AbortSignal
  /** After each read of the pod: what is waited for, so that a person sees it (a pod may run for minutes). */
  onWaiting?: (w: PodWait) => void
}

export interface PodWait {
  /** "NAMESPACE/NAME". */
  pod: string
  phase: string
  elapsedMs: number
  timeoutMs: number
}

/**
 * The waiting was interrupted: the operation did not finish, and did not fail. Not an outcome to
 * replay to the engine (it would plan VolumeFailedRecycle for work that may still succeed).
 */
export class PodRunInterrupted extends Error {
  constructor(
    readonly pod: string,
    /** Whether the pod exists: left for a re-run to adopt. */
    readonly left: boolean,
  ) {
    super(
      left
        ? `interrupted: pod ${pod} is left running; a re-run picks it up`
        : `interrupted before pod ${pod} was created`,
    )
    this.name = 'PodRunInterrupted'
  }
}

/** undefined when the pod Succeeded, else why it did not; throws PodRunInterrupted on abort. */
export async function runPodToCompletion(api: WorkloadApi, pod: Pod, opts: RunPodOptions): Promise<string | undefined> {
  const namespace = pod.metadata.namespace ?? 'default'
  const name = pod.metadata.name ?? ''
  // The timer is cleared on abort, so that an interrupted run exits without waiting out the poll.
  const sleep = opts.sleep ?? ((ms: number) => abortableSleep(ms, opts.signal))
  const now = opts.now ?? Date.now
  const aborted = () => opts.signal?.aborted === true
  if (aborted()) throw new PodRunInterrupted(`${namespace}/${name}`, false)
  try {
    await api.createPod(pod)
  } catch (err) {
    // A pod of this name left by an interrupted run does the same work: watch it instead.
    if (!(err instanceof ApiError && err.status === 409)) throw err
  }
  const seen = new Set<string>()
  const started = now()
  const deadline = started + opts.timeoutMs
  let interrupted = false
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
      opts.onWaiting?.({
        pod: `${namespace}/${name}`,
        phase: phase ?? 'Pending',
        elapsedMs: now() - started,
        timeoutMs: opts.timeoutMs,
      })
      if (phase === 'Succeeded') return undefined
      if (phase === 'Failed') {
        const message = (current.status as {message?: string} | undefined)?.message
        return `pod ${namespace}/${name} failed${message ? `: ${message}` : ''}`
      }
      if (now() >= deadline)
        return `pod ${namespace}/${name} did not finish within ${Math.round(opts.timeoutMs / 1000)}s`
      // Checked after the read: a pod that finished as the signal came is still reported finished.
      if (aborted() || (await sleepUnlessAborted(sleep, opts.pollMs ?? 1000, opts.signal))) {
        interrupted = true
        throw new PodRunInterrupted(`${namespace}/${name}`, true)
      } else {
        // Slept the whole poll interval: read the pod again.
      }
    }
  } finally {
    // An interrupted pod is left to finish its work; any other is cleaned up, whatever its outcome.
    if (!interrupted) {
      await api.deletePod(namespace, name).catch((err: unknown) => {
        if (!(err instanceof NotFoundError)) throw err
      })
    }
  }
}

/** Sleeps, or less if the signal aborts first; true when it did. */
async function sleepUnlessAborted(
  sleep: (ms: number) => Promise<void>,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  if (signal === undefined) {
    await sleep(ms)
    return false
  }
  let onAbort = (): void => undefined
  const aborted = new Promise<true>((resolve) => {
    onAbort = () => resolve(true)
    signal.addEventListener('abort', onAbort, {once: true})
  })
  try {
    return await Promise.race([sleep(ms).then(() => false), aborted])
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}
