// What can go wrong talking to the API, as types the executor and the error presenter can tell apart.
// Retryable (conflict, throttling, a transient server error) and terminal (forbidden, unreachable)
// errors are different classes. Messages name the verb and object, never credentials.
import {ClusterError} from '../errors.js'

export type ApiVerb = 'list' | 'get' | 'create' | 'update' | 'patch' | 'delete'

export interface ApiTarget {
  verb: ApiVerb
  resource: string
  subresource?: string
  namespace?: string
  name?: string
}

export function describeTarget(t: ApiTarget): string {
  const what = `${t.resource}${t.subresource ? `/${t.subresource}` : ''}`
  const obj = t.name !== undefined ? ` "${t.namespace ? `${t.namespace}/` : ''}${t.name}"` : t.namespace ? ` in namespace "${t.namespace}"` : ''
  return `${t.verb} ${what}${obj}`
}

/** A Status returned by the API (or a connection failure), with the request it answered. */
export class ApiError extends ClusterError {
  constructor(
    message: string,
    readonly target: ApiTarget,
    readonly status: number,
    readonly reason: string,
    suggestions: readonly string[] = [],
  ) {
    super(message, suggestions)
  }
}

/** 409 Conflict: the object changed since it was read. Re-read and re-plan. */
export class ConflictError extends ApiError {}
/** 404 Not Found. */
export class NotFoundError extends ApiError {}
/** 401/403: the credentials are refused or lack a permission. Terminal. */
export class ForbiddenError extends ApiError {}
/** 429, 500, 503, a dropped connection: worth a bounded retry. */
export class TransientApiError extends ApiError {
  constructor(
    message: string,
    target: ApiTarget,
    status: number,
    reason: string,
    /** Seconds the server asked us to wait (Retry-After), if it did. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message, target, status, reason)
  }
}
/** The API could not be reached at all (DNS, refused, TLS). Terminal for this run. */
export class UnreachableError extends ApiError {}
/**
 * A 2xx answer that is not what was asked for: a List of another kind or none, a Status, null, an object
 * of another name, JSON nested past any object's depth. Terminal: read as the cluster, it would be a
 * picture of nothing (every bound volume's claim gone), and a retry asks the same server the same thing.
 */
export class MalformedAnswerError extends ApiError {}
/**
 * The server asked to wait (Retry-After) longer than pvctl waits, or past the call's --request-timeout.
 * Terminal: the wait is refused at once rather than sat out.
 */
export class RetryAfterRefusedError extends ApiError {}
