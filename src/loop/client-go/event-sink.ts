// The long-running controller's event recorder: client-go's EventCorrelator in front of the API, so that
// a claim that stays Pending does not create an Event on every sync.
//   aggregation  a repeat of an event (object, type, reason, message) increments the count of the Event
//                already posted (a PATCH), as the recorder's eventLogger does; remembered in an LRU of
//                4096 entries (client-go's maxLruCacheEntries), so memory is bounded
//   spam filter  per object, a token bucket of 25 with one token back every 5 minutes (client-go's
//                defaultSpamBurst and defaultSpamQPS): beyond it events are dropped, and counted
// One-shot sync keeps using executor/event-recorder.ts, whose run is short.
import type {ClusterApi} from '../../cluster/live-api.js'
import type {PlannedEvent} from '../../engine/simulation/plan.js'
import {coreEvent} from '../../executor/event-recorder.js'

export interface EventSinkOptions {
  now?: () => Date
  lruSize?: number
  spamBurst?: number
  /** Tokens per second (client-go: 1/300). */
  spamQps?: number
}

class Lru<V> {
  private readonly map = new Map<string, V>()

  constructor(private readonly size: number) {}

  get(key: string): V | undefined {
    const v = this.map.get(key)
    if (v !== undefined) {
      this.map.delete(key)
      this.map.set(key, v)
    }
    return v
  }

  set(key: string, v: V): void {
    this.map.delete(key)
    this.map.set(key, v)
    if (this.map.size > this.size) this.map.delete(this.map.keys().next().value as string)
  }

  get length(): number {
    return this.map.size
  }
}

export class EventSink {
  private readonly posted: Lru<{namespace: string; name: string; count: number}>
  private readonly buckets: Lru<{tokens: number; at: number}>
  private readonly now: () => Date
  private readonly burst: number
  private readonly qps: number
  dropped = 0

  constructor(
    private readonly api: Pick<ClusterApi, 'createEvent' | 'patchEventCount'>,
    opts: EventSinkOptions = {},
  ) {
    this.now = opts.now ?? (() => new Date())
    this.posted = new Lru(opts.lruSize ?? 4096)
    this.buckets = new Lru(opts.lruSize ?? 4096)
    this.burst = opts.spamBurst ?? 25
    this.qps = opts.spamQps ?? 1 / 300
  }

  /** Entries remembered (bounded by the LRU size). */
  get remembered(): number {
    return this.posted.length + this.buckets.length
  }

  /** Posts (or counts) an event; false when the spam filter dropped it. */
  async record(event: PlannedEvent, involved: {uid?: string; resourceVersion?: string}): Promise<boolean> {
    const t = this.now()
    const objectKey = `${event.object.kind}/${event.object.namespace ?? ''}/${event.object.name}`
    if (!this.allow(objectKey, t.getTime())) {
      this.dropped++
      return false
    }
    const key = `${objectKey}\u0000${event.type}\u0000${event.reason}\u0000${event.message}`
    const timestamp = t.toISOString().replace(/\.\d+Z$/, 'Z')
    const existing = this.posted.get(key)
    if (existing !== undefined) {
      existing.count += event.count
      await this.api.patchEventCount(existing.namespace, existing.name, existing.count, timestamp)
      return true
    }
    const namespace = event.object.namespace ?? 'default'
    // client-go names events "<object>.<unix nanoseconds in hex>".
    const name = `${event.object.name}.${(BigInt(t.getTime()) * 1_000_000n + BigInt(this.seq++ % 1_000_000)).toString(16)}`
    const body = coreEvent(event, involved, name, namespace, timestamp)
    await this.api.createEvent(body)
    this.posted.set(key, {namespace, name, count: event.count})
    return true
  }

  private seq = 0

  private allow(objectKey: string, nowMs: number): boolean {
    const b = this.buckets.get(objectKey) ?? {tokens: this.burst, at: nowMs}
    b.tokens = Math.min(this.burst, b.tokens + ((nowMs - b.at) / 1000) * this.qps)
    b.at = nowMs
    const ok = b.tokens >= 1
    if (ok) b.tokens -= 1
    this.buckets.set(objectKey, b)
    return ok
  }
}
