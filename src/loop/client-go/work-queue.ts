// A work queue as client-go's (util/workqueue) gives the PV controller: keys, not objects, so that many
// events for one object collapse into one sync (de-duplication: a key waiting in the queue is not added
// twice), and a key being processed is never handed to a second worker — re-added meanwhile, it waits
// until the first is done. On top, the rate-limited add of client-go's RateLimitingInterface: a key
// that failed comes back after a per-key exponential back-off, reset by forget() after a success.
//
// The seed's claimQueue and volumeQueue are plain queues (errors wait for the next resync); pvctl adds
// the back-off so that a failed write is retried soon, but not in a hot loop.
//
// Two lanes, where client-go has one FIFO. kube-controller-manager's resync adds every claim and volume
// to the same queue the watch handlers add to, so an event arriving during a resync waits behind the
// whole pass (100k + 100k: seconds here; minutes in kube-controller-manager, whose every unbound claim's
// sync scans every volume). Here a key is added to the `event` lane (a watch event: an object created,
// changed or deleted, and the controller's own requeues) or to the `bulk` lane (the resync's every key,
// the start-up's list, a relisted object unchanged). get() hands out the event lane first, the bulk
// lane when the event lane is empty — and also after every EVENT_BURST event keys in a row while bulk
// keys wait, so that a steady stream of events slows a pass down but never stops it.
// What client-go guarantees stays: a key waits in at most one place (in both lanes, it is processed
// once, at the event lane's position: an event add moves a bulk key up, a bulk add of an event key is a
// no-op), is never handed to two workers at once (re-added while processing, it is queued when done(),
// in the better of the lanes asked for), and a failed key comes back after its back-off into the lane
// it was taken from (a failing resync does not crowd out the events).
// The order cannot change what a sync decides: every sync re-reads the controller's cache, as the Go
// controller's do (its syncs are order-independent by design), so moving a key up only makes it sooner.

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

/** Where a key waits: `event` keys are handed out before `bulk` keys (see the top of this file). */
export type Lane = 'event' | 'bulk'

/** At most this many event keys in a row while bulk keys wait; then one bulk key. */
export const EVENT_BURST = 16

/**
 * A key in the queue, from its first add until it is done and not added again (client-go's queue, dirty
 * set and processing set in one entry, found by one look-up), or for as long as it holds a memo.
 */
interface Item<M> {
  readonly key: string
  /** Waiting in `lane`, handed to a worker, or neither (a key kept for its memo only). */
  state: 'waiting' | 'processing' | 'idle'
  /** What the worker keeps of the key from one of its syncs to the next (setMemo). */
  memo: M | undefined
  /** Waiting: the lane it waits in. Processing: the lane it was taken from. */
  lane: Lane
  /** The ticket of its live FIFO entry while waiting; NO_TICKET while processing. */
  ticket: number
  /** When it was added (workqueue_queue_duration_seconds). */
  addedAt: number
  /** When it was handed to a worker (workqueue_work_duration_seconds). */
  startedAt: number
  /** Re-added while processing: the lane it goes to at done() (client-go's dirty set, for those), and when. */
  readded: Lane | undefined
  readdedAt: number
}

/** The ticket of an item no FIFO entry stands for (not waiting). */
const NO_TICKET = -1

/**
 * One lane's FIFO: items, each with the ticket it was pushed with. An entry is live while its item holds
 * that ticket; an item moved up to the event lane, or taken from there, leaves a stale entry behind,
 * skipped when reached. The entries hold the items themselves: taking the next key looks nothing up.
 */
interface Fifo<M> {
  items: Array<Item<M>>
  tickets: number[]
  head: number
  /** Live entries (depth); the arrays also hold stale ones. */
  live: number
}

/**
 * A work queue whose keys may carry a memo (M): what its worker keeps of a key from one sync to the next
 * (loop mode's last plan of the object), held in the queue's own entry for the key. The worker that takes
 * a key then finds its memo without another look-up of the key in a map of every object.
 */
export class WorkQueue<M = never> {
  private readonly lanes: Record<Lane, Fifo<M>> = {event: fifo(), bulk: fifo()}
  /** Every key waiting, being processed, or holding a memo. */
  private readonly items = new Map<string, Item<M>>()
  /** Keys handed to a worker and not done. */
  private processingCount = 0
  /** The item last handed out: the one its worker asks about and says done() to next, without a look-up. */
  private lastTaken: Item<M> | undefined
  private nextTicket = 0
  /** Event keys handed out in a row while bulk keys waited. */
  private eventRun = 0
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

  /** Keys waiting, both lanes (workqueue_depth). */
  get depth(): number {
    return this.lanes.event.live + this.lanes.bulk.live
  }

  /** Keys waiting in one lane. */
  laneDepth(lane: Lane): number {
    return this.lanes[lane].live
  }

  /** Keys being processed now. */
  get inFlight(): number {
    return this.processingCount
  }

  /** Adds a key (a watch event's, by default; the resync's with `bulk`). */
  add(key: string, lane: Lane = 'event'): void {
    if (this.shuttingDown) return
    const item = this.items.get(key)
    if (item === undefined) {
      this.metrics?.added()
      const added: Item<M> = {
        key,
        state: 'idle',
        memo: undefined,
        lane,
        ticket: NO_TICKET,
        addedAt: this.now(),
        startedAt: 0,
        readded: undefined,
        readdedAt: 0,
      }
      this.items.set(key, added)
      this.push(added, lane)
    } else if (item.state === 'idle') {
      // Kept for its memo only: it waits again.
      this.metrics?.added()
      item.addedAt = this.now()
      this.push(item, lane)
    } else if (item.state === 'processing') {
      // Queued again when done(), in the better lane asked for meanwhile.
      const asked = item.readded
      if (asked === undefined) {
        this.metrics?.added()
        item.readdedAt = this.now()
        item.readded = lane
      } else if (asked === 'bulk' && lane === 'event') {
        item.readded = 'event'
      } else {
        // Already asked for in this lane or a better one: de-duplicated.
      }
    } else if (item.lane === 'bulk' && lane === 'event') {
      // Moved up: its bulk entry goes stale (skipped when reached), a live one is made in the event lane.
      this.lanes.bulk.live--
      this.push(item, 'event')
    } else {
      // Waiting already, in this lane or a better one: de-duplicated, its place in the FIFO kept.
    }
  }

  /** Adds the key after its back-off (a failure), into the lane it was taken from (`event` if it is not being processed). */
  addRateLimited(key: string, lane: Lane = this.processingItem(key)?.lane ?? 'event'): void {
    this.metrics?.retried()
    this.addAfter(key, this.backOff.when(key), lane)
  }

  addAfter(key: string, ms: number, lane: Lane = 'event'): void {
    if (this.shuttingDown) return
    if (ms <= 0) return this.add(key, lane)
    if (this.delayed.has(key)) return // an earlier retry is already due
    const timer = setTimeout(() => {
      this.delayed.delete(key)
      this.add(key, lane)
    }, ms)
    this.delayed.set(key, timer)
  }

  /** A success: the key's back-off starts over. */
  forget(key: string): void {
    // Most keys never failed: nothing to look up.
    if (this.backOff.size > 0) this.backOff.forget(key)
  }

  /** The next key, waiting for one; undefined once shut down. */
  get(): Promise<string | undefined> {
    if (this.depth > 0) return Promise.resolve(this.take())
    if (this.shuttingDown) return Promise.resolve(undefined)
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  /**
   * The next key if one is waiting (event lane first, as get()), else undefined at once: a worker that
   * syncs keys in a slice of the event loop's time takes the next without a turn of the event loop.
   */
  tryGet(): string | undefined {
    return this.depth > 0 ? this.take() : undefined
  }

  /** The worker finished the key; if it was added again meanwhile, it is queued now. */
  done(key: string): void {
    const item = this.processingItem(key)
    if (item === undefined) return // not handed out (or done twice): nothing to account for
    item.state = 'idle'
    this.processingCount--
    this.metrics?.worked((this.now() - item.startedAt) / 1000)
    if (item.readded === undefined) {
      // Not added again while processing: it leaves the queue, unless it holds a memo.
      if (item.memo === undefined) this.forgetItem(item)
      return
    }
    item.addedAt = item.readdedAt
    const lane = item.readded
    item.readded = undefined
    this.push(item, lane)
  }

  /** Stops handing out keys; workers waiting in get() receive undefined. */
  shutDown(): void {
    this.shuttingDown = true
    for (const t of this.delayed.values()) clearTimeout(t)
    this.delayed.clear()
    for (const w of this.waiters.splice(0)) w(undefined)
  }

  /** The memo of a key (undefined when it has none). */
  memo(key: string): M | undefined {
    return this.itemOf(key)?.memo
  }

  /**
   * Keeps `memo` with a key being processed, until it is replaced or the key dropped: the key stays in
   * the queue's entries (not waiting) after done().
   */
  setMemo(key: string, memo: M | undefined): void {
    const item = this.itemOf(key)
    if (item?.state === 'processing') item.memo = memo
    else throw new Error(`invariant: a memo for ${key}, which no worker holds`)
  }

  /** The object of the key is gone: its memo too (a key waiting or being processed stays in the queue). */
  drop(key: string): void {
    const item = this.itemOf(key)
    if (item === undefined) return
    item.memo = undefined
    if (item.state === 'idle') this.forgetItem(item)
    else {
      // Waiting or being processed: it leaves the queue when done().
    }
  }

  /** Keys holding a memo. */
  get memos(): number {
    let n = 0
    for (const item of this.items.values()) if (item.memo !== undefined) n++
    return n
  }

  private forgetItem(item: Item<M>): void {
    this.items.delete(item.key)
    if (this.lastTaken === item) this.lastTaken = undefined
  }

  /** The entry of a key: the one last handed out (a worker asks about the key it was handed), else looked up. */
  private itemOf(key: string): Item<M> | undefined {
    const last = this.lastTaken
    return last !== undefined && last.key === key ? last : this.items.get(key)
  }

  /** The item of a key being processed, if it is. */
  private processingItem(key: string): Item<M> | undefined {
    const item = this.itemOf(key)
    return item?.state === 'processing' ? item : undefined
  }

  /** Makes `item` wait in `lane`, at the back (its addedAt kept). */
  private push(item: Item<M>, lane: Lane): void {
    const ticket = this.nextTicket++
    const f = this.lanes[lane]
    f.items.push(item)
    f.tickets.push(ticket)
    f.live++
    item.state = 'waiting'
    item.lane = lane
    item.ticket = ticket
    const waiter = this.waiters.shift()
    if (waiter !== undefined) {
      // Hand it straight to a waiting worker (the queue is empty, or the waiter would not be waiting).
      waiter(this.take())
    } else {
      // Every worker is busy: the key waits its turn.
    }
  }

  /** The lane get() serves next: events first, but one bulk key after EVENT_BURST events in a row. */
  private nextLane(): Lane {
    const {event, bulk} = this.lanes
    if (event.live === 0) return 'bulk'
    if (bulk.live === 0) return 'event'
    return this.eventRun >= EVENT_BURST ? 'bulk' : 'event'
  }

  private take(): string {
    const lane = this.nextLane()
    if (lane === 'event' && this.lanes.bulk.live > 0) this.eventRun++
    else this.eventRun = 0
    const f = this.lanes[lane]
    let item: Item<M>
    for (;;) {
      item = f.items[f.head]
      const ticket = f.tickets[f.head]
      f.head++
      if (item.ticket === ticket) break
      // A stale entry: the key moved up to the event lane, or was taken from there already.
    }
    f.live--
    if (f.head > 1024 && f.head * 2 > f.items.length) {
      // Compact now and then so the arrays do not grow for ever.
      f.items.splice(0, f.head)
      f.tickets.splice(0, f.head)
      f.head = 0
    }
    const now = this.now()
    item.state = 'processing'
    item.ticket = NO_TICKET
    item.startedAt = now
    this.processingCount++
    this.lastTaken = item
    this.metrics?.waited((now - item.addedAt) / 1000)
    return item.key
  }
}

function fifo<M>(): Fifo<M> {
  return {items: [], tickets: [], head: 0, live: 0}
}
