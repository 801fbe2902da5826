// When has the real PV controller finished? Its work queues ("volumes", "claims") are empty with nothing
// in flight, and since the API server's PersistentVolumes, claims and event reasons last changed, the
// controller has re-queued every volume and claim twice (two full resyncs: --pvclaimbinder-sync-period),
// each synced from a cache that holds that last change. Read from its /metrics, not guessed from time.
import type {ApiClients} from './seed.js'

interface QueueMetrics {
  adds: number
  depth: number
  unfinished: number
}

/** workqueue_adds_total, _depth and _unfinished_work_seconds of one named queue. */
export function queueMetrics(text: string, queue: string): QueueMetrics {
  const value = (metric: string): number => {
    const m = new RegExp(`^workqueue_${metric}\\{name="${queue}"\\} (\\S+)$`, 'm').exec(text)
    return m === null ? 0 : Number(m[1])
  }
  return {adds: value('adds_total'), depth: value('depth'), unfinished: value('unfinished_work_seconds')}
}

/** What the controller writes, as one string: PV and PVC names and resourceVersions, and event reasons by object. */
export async function writtenFingerprint(api: ApiClients): Promise<string> {
  const [volumes, claims, events] = await Promise.all([
    api.core.listPersistentVolume(),
    api.core.listPersistentVolumeClaimForAllNamespaces(),
    api.core.listEventForAllNamespaces(),
  ])
  const parts = [
    ...volumes.items.map((v) => `pv ${v.metadata?.name} ${v.metadata?.resourceVersion}`),
    ...claims.items.map((c) => `pvc ${c.metadata?.namespace}/${c.metadata?.name} ${c.metadata?.resourceVersion}`),
    ...new Set(
      events.items.map(
        (e) =>
          `event ${e.involvedObject.kind} ${e.involvedObject.namespace ?? ''}/${e.involvedObject.name} ${e.reason}`,
      ),
    ),
  ]
  return parts.sort().join('\n')
}

export class NotQuiescent extends Error {}

/** What quiescence is judged on: the controller's /metrics, and what the API server holds now. */
export interface Settling {
  metrics(): Promise<string>
  /** A string that changes with every write the controller makes, and the numbers of volumes and claims. */
  observed(): Promise<{fingerprint: string; volumes: number; claims: number}>
}

/** Settling for a small cluster: its objects listed at each poll (writtenFingerprint). */
export function listedSettling(api: ApiClients, metrics: () => Promise<string>): Settling {
  return {
    metrics,
    observed: async () => {
      const fingerprint = await writtenFingerprint(api)
      const lines = fingerprint.split('\n')
      return {
        fingerprint,
        volumes: lines.filter((l) => l.startsWith('pv ')).length,
        claims: lines.filter((l) => l.startsWith('pvc ')).length,
      }
    },
  }
}

/**
 * Waits until the controller is quiescent (see above); throws NotQuiescent after the deadline. Works on
 * kube-controller-manager's metrics and on pvctl's loop mode's, which keep the same workqueue names.
 */
export async function waitForQuiescence(
  settling: Settling,
  opts: {deadlineMs?: number; pollMs?: number} = {},
): Promise<void> {
  const deadlineMs = opts.deadlineMs ?? 60_000
  const deadline = Date.now() + deadlineMs
  let fingerprint: string | undefined
  let since = {volumes: 0, claims: 0}
  for (;;) {
    const [text, now] = await Promise.all([settling.metrics(), settling.observed()])
    const volumes = queueMetrics(text, 'volumes')
    const claims = queueMetrics(text, 'claims')
    if (now.fingerprint !== fingerprint) {
      fingerprint = now.fingerprint
      since = {volumes: volumes.adds, claims: claims.adds}
    } else {
      const idle = volumes.depth === 0 && claims.depth === 0 && volumes.unfinished === 0 && claims.unfinished === 0
      const resynced = volumes.adds - since.volumes >= 2 * now.volumes && claims.adds - since.claims >= 2 * now.claims
      // With no object at all nothing is ever queued: the controller's caches are synced once it serves.
      if (idle && resynced && (volumes.adds > 0 || claims.adds > 0 || now.volumes + now.claims === 0)) return
    }
    if (Date.now() > deadline)
      throw new NotQuiescent(
        `the PV controller did not settle in ${deadlineMs / 1000} s (volumes queue ${JSON.stringify(volumes)}, claims queue ${JSON.stringify(claims)})`,
      )
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 200))
  }
}
