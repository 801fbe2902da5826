// Injected faults: the failures a controller must survive, on demand. A fault matches requests by verb,
// resource, subresource, namespace and name, lets the first `skip` matches through, then fires `count`
// times (forever without a count). Latency delays the request and lets it proceed; every other effect
// answers instead of the server: an error status, a 429 with Retry-After, a 409 Conflict as if the write
// were stale, a connection destroyed without an answer, or any HTTP status with any headers and raw body
// (`body`: what a broken server or a proxy in front of one sends, e.g. `[]` or a Status with 200).
import {resolveKind} from './resources.js'
import type {Verb} from './types.js'

export type FaultEffect =
  | {type: 'latency'; ms: number}
  | {type: 'status'; code: number; message?: string}
  | {type: 'throttle'; retryAfterSeconds: number}
  | {type: 'conflict'}
  | {type: 'drop'}
  /** Runs `run` (another writer acting just before this request is served), then lets the request proceed. */
  | {type: 'hook'; run: () => void | Promise<void>}
  /** Serves the request (a write is applied), then runs `run` before the answer is sent (a client killed before it reads it). */
  | {type: 'beforeAnswer'; run: () => void | Promise<void>}
  /** Serves the request, then runs `run` once the whole answer is sent (a client killed once it has it). */
  | {type: 'afterAnswer'; run: () => void | Promise<void>}
  /** Answers `code` with `body` sent as is (Content-Type application/json unless `headers` says otherwise). */
  | {type: 'body'; code: number; body: string; headers?: Record<string, string>}

export interface FaultSpec {
  verb?: Verb | readonly Verb[]
  /** Any name resolveKind accepts (`pv`, `persistentvolumes`, `PersistentVolume`). */
  resource?: string
  /** `status` for the status subresource; '' for the main resource only; any when absent. */
  subresource?: string
  namespace?: string
  name?: string
  /** Matches to let through before firing. */
  skip?: number
  /** Times to fire; unlimited when absent. */
  count?: number
  effect: FaultEffect
}

export interface FaultRequest {
  verb: Verb
  resource: string
  subresource: string
  namespace: string
  name: string
}

export interface Fault {
  readonly id: number
  readonly spec: FaultSpec
  /** Requests that matched, including skipped ones. */
  readonly matched: number
  /** Times the effect fired. */
  readonly fired: number
  remove(): void
}

interface Entry {
  id: number
  spec: FaultSpec
  resource?: string
  matched: number
  fired: number
}

export class Faults {
  private entries: Entry[] = []
  private nextId = 1

  add(spec: FaultSpec): Fault {
    // Resolve the name now so that a typo fails the test that wrote it, not silently never matches.
    const entry: Entry = {
      id: this.nextId++,
      spec,
      resource: spec.resource ? resolveKind(spec.resource).plural : undefined,
      matched: 0,
      fired: 0,
    }
    this.entries.push(entry)
    return {
      id: entry.id,
      spec,
      get matched() {
        return entry.matched
      },
      get fired() {
        return entry.fired
      },
      remove: () => {
        this.entries = this.entries.filter((e) => e !== entry)
      },
    }
  }

  clear(): void {
    this.entries = []
  }

  get active(): number {
    return this.entries.length
  }

  /** The effects to apply to a request, in the order the faults were added; consumes their counts. */
  take(req: FaultRequest): FaultEffect[] {
    const effects: FaultEffect[] = []
    for (const e of this.entries) {
      const verbs =
        e.spec.verb === undefined ? undefined : typeof e.spec.verb === 'string' ? [e.spec.verb] : e.spec.verb
      if (verbs && !verbs.includes(req.verb)) continue
      if (e.resource !== undefined && e.resource !== req.resource) continue
      if (e.spec.subresource !== undefined && e.spec.subresource !== req.subresource) continue
      if (e.spec.namespace !== undefined && e.spec.namespace !== req.namespace) continue
      if (e.spec.name !== undefined && e.spec.name !== req.name) continue
      e.matched++
      if (e.matched <= (e.spec.skip ?? 0)) continue
      if (e.spec.count !== undefined && e.fired >= e.spec.count) continue
      e.fired++
      effects.push(e.spec.effect)
    }
    return effects
  }
}
