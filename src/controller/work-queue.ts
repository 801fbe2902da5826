// A work queue as client-go's (util/workqueue) gives the PV controller: keys, not objects, so that many
// events for one object collapse into one sync (de-duplication: a key waiting in the queue is not added
// twice), and a key being processed is never handed to a second worker — re-added meanwhile, it waits
// until the first is done. On top, the rate-limited add of client-go's RateLimitingInterface: a key
// that failed comes back after a per-key exponential back-off, reset by forget() after a success.
//
// The seed's claimQueue and volumeQueue are plain queues (errors wait for the next resync); pvctl adds
// the back-off so that a failed write is retried soon, but not in a hot loop.

export interface QueueMetrics {
  /** workqueue_adds_total */
  added(): void
  /** workqueue_retries_total */
  retried(): void
  /** workqueue_queue_duration_seconds and workqueue_work_duration_seconds */
  waited(seconds: number): void
  worked(seconds: number): void
}

export interface BackOffOptions {
  /** First delay (client-go's ItemExponentialFailureRateLimiter: 5 ms). */
  baseMs: number
  /** Longest delay (client-go: 1000 s; pvctl: the resync period, after which a resync retries anyway). */
  maxMs: number
}

/** Per-key exponential back-off: base * 2^failures, at most max. */
export class ItemExponentialBackOff {
  private readonly failures = new Map<string, number>()

  constructor(private readonly opts: BackOffOptions) {}

  when(key: string): number {
    const n = this.failures.get(key) ?? 0
    this.failures.set(key, n + 1)
    return Math.min(this.opts.maxMs, this.opts.baseMs * 2 ** n)
  }

  forget(key: string): void {
    this.failures.delete(key)
  }

  retries(key: string): number {
    return this.failures.get(key) ?? 0
  }

  /** Keys with a failure history (bounded by the objects that failed; forget() clears). */
  get size(): number {
    return this.failures.size
  }
}

export class WorkQueue {
  private readonly queue: string[] = []
  private head = 0
  /** Keys waiting to be processed (in `queue`, or re-added while processing). */
  private readonly dirty = new Set<string>()
  private readonly processing = new Set<string>()
  private readonly addedAt = new Map<string, number>()
  private readonly startedAt = new Map<string, number>()
  private readonly delayed = new Map<string, NodeJS.Timeout>()
  private readonly waiters: Array<(key: string | undefined) => void> = []
  private shuttingDown = false
  readonly backOff: ItemExponentialBackOff

  constructor(
    readonly name: string,
    backOff: BackOffOptions,
    private readonly metrics?: QueueMetrics,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.backOff = new ItemExponentialBackOff(backOff)
  }

  /** Keys waiting (workqueue_depth). */
  get depth(): number {
    return this.queue.length - this.head
  }

  /** Keys being processed now. */
  get inFlight(): number {
    return this.processing.size
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return
    this.metrics?.added()
    this.dirty.add(key)
    this.addedAt.set(key, this.now())
    if (this.processing.has(key)) return // queued again when done()
    this.push(key)
  }

  /** Adds the key after its back-off (a failure). */
  addRateLimited(key: string): void {
    this.metrics?.retried()
    this.addAfter(key, this.backOff.when(key))
  }

  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return
    if (ms <= 0) return this.add(key)
    if (this.delayed.has(key)) return // an earlier retry is already due
    const timer = setTimeout(() => {
      this.delayed.delete(key)
      this.add(key)
    }, ms)
    this.delayed.set(key, timer)
  }

  /** A success: the key's back-off starts over. */
  forget(key: string): void {
    this.backOff.forget(key)
  }

  /** The next key, waiting for one; undefined once shut down. */
  get(): Promise<string | undefined> {
    if (this.depth > 0) return Promise.resolve(this.take())
    if (this.shuttingDown) return Promise.resolve(undefined)
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  /** The worker finished the key; if it was added again meanwhile, it is queued now. */
  done(key: string): void {
    this.processing.delete(key)
    const started = this.startedAt.get(key)
    this.startedAt.delete(key)
    if (started !== undefined) this.metrics?.worked((this.now() - started) / 1000)
    if (this.dirty.has(key)) this.push(key)
  }

  /** Stops handing out keys; workers waiting in get() receive undefined. */
  shutDown(): void {
    this.shuttingDown = true
    for (const t of this.delayed.values()) clearTimeout(t)
    this.delayed.clear()
    for (const w of this.waiters.splice(0)) w(undefined)
  }

  private push(key: string): void {
    const waiter = this.waiters.shift()
    if (waiter !== undefined) {
      // Hand it straight to a waiting worker (the queue is empty, or the waiter would not be waiting).
      this.queue.push(key)
      waiter(this.take())
      return
    }
    this.queue.push(key)
  }

  private take(): string {
    const key = this.queue[this.head++]
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      // Compact now and then so the array does not grow for ever.
      this.queue.splice(0, this.head)
      this.head = 0
    }
    this.dirty.delete(key)
    this.processing.add(key)
    const added = this.addedAt.get(key)
    this.addedAt.delete(key)
    if (added !== undefined) this.metrics?.waited((this.now() - added) / 1000)
    this.startedAt.set(key, this.now())
    return key
  }
}
