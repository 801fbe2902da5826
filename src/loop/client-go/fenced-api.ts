// The write fence of loop mode: every write method of an API port (replace*, create*, patch*, delete*,
// update*) first asks whether this process may still write — the leader's renewal is fresh, the process
// is not shutting down — and fails with WritesFencedError when not. The check is per request, not per
// sync, so a leader whose lease is running out stops in the middle of a sync, between two writes; the
// executor then reports the rest of the sync as not written, and the next leader completes it (the
// controller's write order makes every prefix of a sync a state the next sync completes).
import {ApiError} from '../../cluster/api-errors.js'

/** A write refused by this process itself: it is not (or no longer surely) the leader. */
export class WritesFencedError extends ApiError {}

const WRITE = /^(replace|create|patch|delete|update)/

/** `why()` returns undefined when writes may go out, else the reason they may not. */
export function fenceWrites<T extends object>(api: T, why: () => string | undefined): T {
  return new Proxy(api, {
    get(target, prop, receiver) {
      const member = Reflect.get(target, prop, receiver) as unknown
      if (typeof prop !== 'string' || typeof member !== 'function') return member
      if (!WRITE.test(prop)) return (member as (...a: unknown[]) => unknown).bind(target)
      return (...args: unknown[]) => {
        const reason = why()
        if (reason !== undefined) {
          return Promise.reject(
            new WritesFencedError(`${prop} not sent: ${reason}`, {verb: 'update', resource: prop}, 0, 'Fenced'),
          )
        }
        return (member as (...a: unknown[]) => unknown).apply(target, args)
      }
    },
  })
}
