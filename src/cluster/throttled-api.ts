// Client-side flow control, as client-go's rest client does it: a token bucket (--qps, --burst;
// client-go's defaults are 5 and 10) in front of every request, and a bounded retry of transient
// failures (429 honouring Retry-After, 5xx, a dropped connection) — client-go retries those up to 10
// times; pvctl stops sooner, because a person is waiting and a re-run completes the job.
//
// One departure from client-go: the continue pages of a LIST take no token. The bucket bounds how much
// work pvctl asks of the API server; a LIST read in pages is one read of one snapshot, which costs the
// server no more than the same LIST in one request (--chunk-size 0, one token) and holds less of it in
// memory at a time. Charging every page made paging, the gentler way to read a large collection, the
// slow one: 100k volumes in pages of 500 waited 39 s for tokens at --qps 5. A retried page still takes one.
import type {PageOptions} from './live-api.js'
import {TransientApiError, UnreachableError} from './api-errors.js'
import {withRequestSignal} from './request-signal.js'

export interface ThrottleOptions {
  qps: number
  burst: number
  /** Retries of a transient failure before it is reported. */
  maxRetries?: number
  /** Base delay of the exponential back-off, in ms (Retry-After wins when the server sends it). */
  backoffMs?: number
  /** --request-timeout: a request not answered in this many ms fails (0: no limit). */
  requestTimeoutMs?: number
  /** A bucket shared with other ports, so that --qps bounds all of pvctl's requests together. */
  bucket?: TokenBucket
  sleep?: (ms: number) => Promise<void>
  now?: () => number
}

export class TokenBucket {
  private tokens: number
  private last: number
  private chain: Promise<void> = Promise.resolve()

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly now: () => number,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {
    this.tokens = burst
    this.last = now()
  }

  /** Waits for a token; callers are served in order. */
  take(): Promise<void> {
    const next = this.chain.then(async () => {
      if (this.qps <= 0) return
      for (;;) {
        const t = this.now()
        this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.qps)
        this.last = t
        if (this.tokens >= 1) {
          this.tokens -= 1
          return
        }
        await this.sleep(Math.ceil(((1 - this.tokens) / this.qps) * 1000))
      }
    })
    this.chain = next.catch(() => undefined)
    return next
  }
}

class RequestTimeoutError extends UnreachableError {}

/**
 * `call` with a deadline: past it the call fails with a RequestTimeoutError and its requests are aborted
 * (request-signal.ts), so that nothing of it is left pending.
 */
function withTimeout<T>(call: () => Promise<T>, ms: number, what: string): Promise<T> {
  const deadline = new AbortController()
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new RequestTimeoutError(`${what}: no answer within --request-timeout (${ms} ms)`, {verb: 'get', resource: what}, 0, 'Timeout')
      reject(err)
      deadline.abort(err)
    }, ms)
  })
  return Promise.race([withRequestSignal(deadline.signal, call), timeout]).finally(() => clearTimeout(timer))
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Whether a call reads a further page of a LIST (its PageOptions carry a continue token). */
function continuesList(args: unknown[]): boolean {
  return args.some((a) => typeof a === 'object' && a !== null && typeof (a as Partial<PageOptions>).continueToken === 'string')
}

/** Wraps every method of an API port (ClusterApi, WorkloadApi) with the bucket and the retry. */
export function throttle<T extends object>(api: T, opts: ThrottleOptions): T {
  const sleep = opts.sleep ?? defaultSleep
  const bucket = opts.bucket ?? new TokenBucket(opts.qps, opts.burst, opts.now ?? Date.now, sleep)
  const maxRetries = opts.maxRetries ?? 3
  const backoffMs = opts.backoffMs ?? 200
  const wrapped: Record<string, unknown> = {server: (api as {server?: string}).server}
  for (const key of Object.getOwnPropertyNames(Object.getPrototypeOf(api)).concat(Object.keys(api))) {
    const member = (api as unknown as Record<string, unknown>)[key]
    if (key === 'constructor' || typeof member !== 'function') continue
    wrapped[key] = async (...args: unknown[]) => {
      const free = continuesList(args)
      for (let attempt = 0; ; attempt++) {
        if (attempt > 0 || !free) await bucket.take()
        try {
          const call = () => (member as (...a: unknown[]) => Promise<unknown>).apply(api, args)
          return await (opts.requestTimeoutMs ? withTimeout(call, opts.requestTimeoutMs, key) : call())
        } catch (err) {
          if (!(err instanceof TransientApiError) || attempt >= maxRetries) throw err
          const wait = err.retryAfterSeconds !== undefined ? err.retryAfterSeconds * 1000 : backoffMs * 2 ** attempt
          await sleep(wait)
        }
      }
    }
  }
  return wrapped as unknown as T
}
