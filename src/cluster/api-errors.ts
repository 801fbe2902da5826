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
  const obj =
    t.name !== undefined
      ? ` "${t.namespace ? `${t.namespace}/` : ''}${t.name}"`
      : t.namespace
        ? ` in namespace "${t.namespace}"`
        : ''
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

/** Maps client-node's failures to pvctl's API errors: one line, the request named, no secrets. */
export function toApiError(err: unknown, target: ApiTarget, server: string): Error {
  if (err instanceof ApiError) return err
  const e = err as ClientFailure
  if (typeof e.code === 'number') return httpStatusError(e, e.code, target, server)
  return connectionError(err, e, target, server)
}

/** The fields of a client-node failure that say what went wrong: an HTTP answer's, or a socket's. */
interface ClientFailure {
  code?: unknown
  body?: unknown
  headers?: Record<string, string>
  message?: string
  type?: string
  name?: string
}

/** An HTTP answer that is an error: its Status's reason and message, and whether a retry may help. */
function httpStatusError(e: ClientFailure, code: number, target: ApiTarget, server: string): ApiError {
  let status: {reason?: string; message?: string} = {}
  try {
    status = (typeof e.body === 'string' ? JSON.parse(e.body) : (e.body ?? {})) as typeof status
  } catch {
    // A body that is not a Status (a proxy's HTML page): keep the code alone.
  }
  const reason = status.reason ?? ''
  const text = `${describeTarget(target)}: ${status.message ?? `HTTP ${code}`}`
  if ((code === 404 || code === 405 || code === 501) && (status as {kind?: unknown}).kind !== 'Status') {
    // An API server says why in a Status; a web server that is not one (a wrong port, a proxy) does not.
    return new UnreachableError(
      `${server} does not answer as a Kubernetes API server (HTTP ${code} to ${describeTarget(target)})`,
      target,
      code,
      'NotKubernetes',
      ['check the server address of the kubeconfig cluster'],
    )
  }
  switch (code) {
    case 409:
      return new ConflictError(text, target, 409, reason || 'Conflict')
    case 404:
      return new NotFoundError(text, target, 404, reason || 'NotFound')
    case 401:
      return new ForbiddenError(
        `${describeTarget(target)}: Unauthorized (the credentials were refused)`,
        target,
        401,
        'Unauthorized',
        ['check that the kubeconfig credentials are current (kubectl auth whoami)'],
      )
    case 403:
      return new ForbiddenError(text, target, 403, reason || 'Forbidden', [
        'ask for the permission, or run pvctl sync --dry-run',
      ])
    case 429:
    case 500:
    case 502:
    case 503:
    case 504: {
      const header = e.headers?.['retry-after'] ?? e.headers?.['Retry-After']
      const retryAfter = header !== undefined && /^\d+$/.test(header) ? Number(header) : undefined
      return new TransientApiError(text, target, code, reason || 'ServerError', retryAfter)
    }
    default:
      return new ApiError(text, target, code, reason)
  }
}

/** A request that got no HTTP answer: a dropped connection (transient), a refused certificate, no server. */
function connectionError(err: unknown, e: ClientFailure, target: ApiTarget, server: string): ApiError {
  const code = (err as {code?: string}).code ?? (err as {errno?: string}).errno
  const message = (e.message ?? String(err)).split('\n')[0]
  if (
    code === 'ECONNRESET' ||
    code === 'EPIPE' ||
    e.type === 'request-timeout' ||
    /socket hang up|ECONNRESET|premature close/i.test(message)
  ) {
    return new TransientApiError(
      `${describeTarget(target)}: connection dropped (${code ?? message})`,
      target,
      0,
      'ConnectionDropped',
    )
  }
  if (
    typeof code === 'string' &&
    /^(CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_TLS|ERR_SSL|HOSTNAME_MISMATCH|ERR_OSSL)/.test(code)
  ) {
    return new UnreachableError(`TLS verification of the API server at ${server} failed: ${code}`, target, 0, 'TLS', [
      "check the cluster's certificate-authority in the kubeconfig",
    ])
  }
  return new UnreachableError(
    `cannot reach the API server at ${server}: ${code === 'ETIMEDOUT' ? message : (code ?? message)}`,
    target,
    0,
    'Unreachable',
    ['check the server address and your network, or read a snapshot with -f'],
  )
}
