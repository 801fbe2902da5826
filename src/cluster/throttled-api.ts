// Client-side flow control, as client-go's rest client does it: a token bucket (--qps, --burst;
// client-go's defaults are 5 and 10) in front of every request, and a bounded retry of transient
// failures (429 honouring Retry-After within bounds, 5xx, a dropped connection) — client-go retries those up to 10
// times; pvctl stops sooner, because a person is waiting and a re-run completes the job.
//
// One departure from client-go: the continue pages of a LIST take no token. The bucket bounds how much
// work pvctl asks of the API server; a LIST read in pages is one read of one snapshot, which costs the
// server no more than the same LIST in one request (--chunk-size 0, one token) and holds less of it in
// memory at a time. Charging every page made paging, the gentler way to read a large collection, the
// slow one (docs/performance.md, "What the code is shaped around"). A retried page still takes one.
//
// --request-timeout bounds the whole call, its retries and their waits included, as in client-go: its
// request.go sets the timeout as the context's deadline once, before the retry loop, after the first
// token (a throttled client must not time out before it has sent anything). A wait the server asks for
// (Retry-After) is sat out only up to MAX_RETRY_AFTER_SECONDS and only if it ends before that deadline;
// otherwise the call fails at once, saying so. client-go sleeps whatever the server asks (its
// backoff.Sleep does not watch the deadline), so a `Retry-After: 3600` would hold kubectl for an hour.
import {setTimeout as sleepFor} from 'node:timers/promises'

import type {PageOptions} from './page.js'
import {describeTarget, RetryAfterRefusedError, TransientApiError, UnreachableError} from './api-errors.js'
import {requestSignal, withRequestSignal} from './request-signal.js'
import {type StartTimer, startTimer as realTimer} from './timer.js'

/**
 * The longest Retry-After pvctl waits out. kube-apiserver asks for 1 s when it sheds load (the max-in-flight
 * and priority-and-fairness filters); a server asking for minutes is down for longer than a retry can
 * help, or broken, and a person is waiting at the terminal: failing at once, saying why, lets them re-run
 * later, where sitting out the wait looks like a hang.
 */
export const MAX_RETRY_AFTER_SECONDS = 30

export interface ThrottleOptions {
  qps: number
  burst: number
  /** Retries of a transient failure before it is reported. */
  maxRetries?: number
  /** Base delay of the exponential back-off, in ms (Retry-After wins when the server sends it). */
  backoffMs?: number
  /** --request-timeout: a call not answered in this many ms, its retries and waits included, fails (0: no limit). */
  requestTimeoutMs?: number
  /** A bucket shared with other ports, so that --qps bounds all of pvctl's requests together. */
  bucket?: TokenBucket
  sleep?: (ms: number) => Promise<void>
  now?: () => number
  /** Starts the --request-timeout deadline (a real timer unless a test gives a fake one). */
  startTimer?: StartTimer
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
function withTimeout<T>(call: () => Promise<T>, ms: number, what: string, startTimer: StartTimer): Promise<T> {
  const deadline = new AbortController()
  let cancel = () => {}
  const timeout = new Promise<never>((_, reject) => {
    cancel = startTimer(ms, () => {
      const err = new RequestTimeoutError(
        `${what}: no answer within --request-timeout (${ms} ms)`,
        {verb: 'get', resource: what},
        0,
        'Timeout',
      )
      reject(err)
      deadline.abort(err)
    })
  })
  return Promise.race([withRequestSignal(deadline.signal, call), timeout]).finally(() => cancel())
}

/** A wait that ends early, rejecting, when the call it belongs to is aborted (its deadline passed). */
const defaultSleep = (ms: number) => sleepFor(ms, undefined, {signal: requestSignal()})

/**
 * How long to wait before retrying `err`: the server's Retry-After when it sent one, else the back-off.
 * A Retry-After past MAX_RETRY_AFTER_SECONDS, or one that would end after the call's deadline, is refused.
 */
function retryWait(
  err: TransientApiError,
  attempt: number,
  backoffMs: number,
  deadline: {timeoutMs: number; leftMs: number} | undefined,
): number {
  const asked = err.retryAfterSeconds
  if (asked === undefined) return backoffMs * 2 ** attempt
  const refuse = (why: string) =>
    new RetryAfterRefusedError(
      `${describeTarget(err.target)}: the server asked to wait ${asked} s before a retry (HTTP ${err.status}, Retry-After); ${why}`,
      err.target,
      err.status,
      err.reason,
      ['the API server is overloaded: try again later'],
    )
  if (asked > MAX_RETRY_AFTER_SECONDS) throw refuse(`pvctl does not wait longer than ${MAX_RETRY_AFTER_SECONDS} s`)
  if (deadline !== undefined && asked * 1000 > deadline.leftMs)
    throw refuse(`pvctl does not wait past --request-timeout (${deadline.timeoutMs / 1000} s)`)
  return asked * 1000
}

/** Whether a call reads a further page of a LIST (its PageOptions carry a continue token). */
function continuesList(args: unknown[]): boolean {
  return args.some(
    (a) => typeof a === 'object' && a !== null && typeof (a as Partial<PageOptions>).continueToken === 'string',
  )
}

/** Wraps every method of an API port (ClusterApi, WorkloadApi) with the bucket and the retry. */
export function throttle<T extends object>(api: T, opts: ThrottleOptions): T {
  const sleep = opts.sleep ?? defaultSleep
  const now = opts.now ?? Date.now
  const startTimer = opts.startTimer ?? realTimer
  const bucket = opts.bucket ?? new TokenBucket(opts.qps, opts.burst, now, sleep)
  const maxRetries = opts.maxRetries ?? 3
  const backoffMs = opts.backoffMs ?? 200
  const wrapped: Record<string, unknown> = {server: (api as {server?: string}).server}
  for (const key of Object.getOwnPropertyNames(Object.getPrototypeOf(api)).concat(Object.keys(api))) {
    const member = (api as unknown as Record<string, unknown>)[key]
    if (key === 'constructor' || typeof member !== 'function') continue
    wrapped[key] = async (...args: unknown[]) => {
      // The first token is taken before the deadline starts (client-go's order); the retries' within it.
      if (!continuesList(args)) await bucket.take()
      const timeoutMs = opts.requestTimeoutMs ?? 0
      const started = now()
      const attempts = async () => {
        for (let attempt = 0; ; attempt++) {
          if (attempt > 0) await bucket.take()
          try {
            return await (member as (...a: unknown[]) => Promise<unknown>).apply(api, args)
          } catch (err) {
            if (!(err instanceof TransientApiError) || attempt >= maxRetries) throw err
            await sleep(
              retryWait(
                err,
                attempt,
                backoffMs,
                timeoutMs > 0 ? {timeoutMs, leftMs: started + timeoutMs - now()} : undefined,
              ),
            )
          }
        }
      }
      return timeoutMs > 0 ? withTimeout(attempts, timeoutMs, key, startTimer) : attempts()
    }
  }
  return wrapped as unknown as T
}
