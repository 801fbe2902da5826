// Every error the emulator answers is a metav1.Status, built the way k8s.io/apimachinery/pkg/api/errors
// builds it (NewNotFound, NewConflict, NewForbidden, ...), because clients branch on `reason` and `code`
// and print `message` verbatim: kubectl's "Error from server (NotFound): ..." is the Status message.

export interface StatusCause {
  reason?: string
  message?: string
  field?: string
}

export interface StatusDetails {
  name?: string
  group?: string
  kind?: string
  uid?: string
  causes?: StatusCause[]
  retryAfterSeconds?: number
}

export interface Status {
  kind: 'Status'
  apiVersion: 'v1'
  metadata: {continue?: string; resourceVersion?: string}
  status: 'Failure' | 'Success'
  message?: string
  reason?: string
  details?: StatusDetails
  code: number
}

/** A group and a plural resource name: how the apiserver names a resource in messages and details. */
export interface GroupResource {
  group: string
  resource: string
}

/** `persistentvolumes` for the core group, `storageclasses.storage.k8s.io` otherwise (schema.GroupResource.String). */
export const qualifiedResource = (gr: GroupResource): string => (gr.group ? `${gr.resource}.${gr.group}` : gr.resource)

/** An error that carries the Status to send. Anything else thrown while serving becomes a 500 InternalError. */
export class ApiError extends Error {
  constructor(
    readonly status: Status,
    /** Extra response headers, e.g. Retry-After on 429. */
    readonly headers: Record<string, string> = {},
  ) {
    super(status.message)
    this.name = 'ApiError'
  }

  get code(): number {
    return this.status.code
  }

  get reason(): string | undefined {
    return this.status.reason
  }
}

function failure(code: number, reason: string, message: string, details?: StatusDetails): Status {
  // The apiserver omits empty fields (omitempty); so do we, so that bodies compare equal to real ones.
  const status: Status = {kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code}
  if (details) status.details = details
  return status
}

function detailsFor(gr: GroupResource, name: string | undefined): StatusDetails {
  const details: StatusDetails = {}
  if (name) details.name = name
  if (gr.group) details.group = gr.group
  details.kind = gr.resource
  return details
}

export const notFound = (gr: GroupResource, name: string) =>
  new ApiError(failure(404, 'NotFound', `${qualifiedResource(gr)} "${name}" not found`, detailsFor(gr, name)))

/** What the router answers for a path it does not serve (the go-restful 404 inside the apiserver). */
export const pathNotFound = () =>
  new ApiError(failure(404, 'NotFound', 'the server could not find the requested resource', {}))

export const alreadyExists = (gr: GroupResource, name: string) =>
  new ApiError(failure(409, 'AlreadyExists', `${qualifiedResource(gr)} "${name}" already exists`, detailsFor(gr, name)))

export const OBJECT_MODIFIED =
  'the object has been modified; please apply your changes to the latest version and try again'

export const conflict = (gr: GroupResource, name: string, why: string = OBJECT_MODIFIED) =>
  new ApiError(
    failure(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${why}`,
      detailsFor(gr, name),
    ),
  )

/** NewForbidden: `<resource> "<name>" is forbidden: <why>`, or `<resource> is forbidden: <why>` without a name. */
export function forbidden(gr: GroupResource | undefined, name: string | undefined, why: string): ApiError {
  if (!gr) return new ApiError(failure(403, 'Forbidden', `forbidden: ${why}`, {}))
  const subject = name ? `${qualifiedResource(gr)} "${name}"` : qualifiedResource(gr)
  return new ApiError(failure(403, 'Forbidden', `${subject} is forbidden: ${why}`, detailsFor(gr, name)))
}

export const unauthorized = () => new ApiError(failure(401, 'Unauthorized', 'Unauthorized'))

/**
 * NewInvalid: the message names the Kind (not the resource) and lists the field errors, one bare or several
 * in brackets, as field.ErrorList.ToAggregate prints them.
 */
export function invalid(kind: {group: string; kind: string}, name: string, causes: FieldError[]): ApiError {
  const qualifiedKind = kind.group ? `${kind.kind}.${kind.group}` : kind.kind
  const texts = causes.map((c) => `${c.field}: ${c.message}`)
  const list = texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`
  const details: StatusDetails = {name, ...(kind.group ? {group: kind.group} : {}), kind: kind.kind}
  details.causes = causes.map((c) => ({reason: c.reason, message: c.message, field: c.field}))
  return new ApiError(failure(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${list}`, details))
}

/** One field.Error; `message` already carries the type prefix ("Required value", "Forbidden: ..."). */
export interface FieldError {
  field: string
  reason:
    | 'FieldValueRequired'
    | 'FieldValueInvalid'
    | 'FieldValueForbidden'
    | 'FieldValueNotSupported'
    | 'FieldValueDuplicate'
  message: string
}

export const required = (field: string, detail = ''): FieldError => ({
  field,
  reason: 'FieldValueRequired',
  message: detail ? `Required value: ${detail}` : 'Required value',
})
export const invalidValue = (field: string, value: unknown, detail: string): FieldError => ({
  field,
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${JSON.stringify(value)}: ${detail}`,
})
export const forbiddenField = (field: string, detail: string): FieldError => ({
  field,
  reason: 'FieldValueForbidden',
  message: `Forbidden: ${detail}`,
})
export const notSupported = (field: string, value: unknown, supported: string[]): FieldError => ({
  field,
  reason: 'FieldValueNotSupported',
  message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
})

/** An Invalid (422) answer without field causes, as NewGenericServerResponse builds it for a failed JSON patch. */
export const unprocessable = (message: string) => new ApiError(failure(422, 'Invalid', message, {}))

/** NewResourceExpired: 410 with reason Expired (not Gone), used for compacted continue tokens and watches. */
export const expired = (message: string) => new ApiError(failure(410, 'Expired', message))

export const badRequest = (message: string) => new ApiError(failure(400, 'BadRequest', message))

export const methodNotAllowed = () =>
  new ApiError(failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}))

export const tooManyRequests = (retryAfterSeconds: number, message = 'Too many requests, please try again later.') =>
  new ApiError(failure(429, 'TooManyRequests', message, {retryAfterSeconds}), {
    'Retry-After': String(retryAfterSeconds),
  })

export const internalError = (cause: string) =>
  new ApiError(failure(500, 'InternalError', `Internal error occurred: ${cause}`, {causes: [{message: cause}]}))

export const serviceUnavailable = (message = 'the server is currently unable to handle the request') =>
  new ApiError(failure(503, 'ServiceUnavailable', message))

/** NewTimeoutError, what a resourceVersion from the future gets (storage.NewTooLargeResourceVersionError). */
export const timeout = (message: string, retryAfterSeconds: number) =>
  new ApiError(failure(504, 'Timeout', `Timeout: ${message}`, {retryAfterSeconds}))

export const unsupportedMediaType = (message: string) => new ApiError(failure(415, 'UnsupportedMediaType', message))

export const notAcceptable = () =>
  new ApiError(
    failure(406, 'NotAcceptable', 'only the following media types are accepted: application/json, application/yaml'),
  )

export const entityTooLarge = (limit: number) =>
  new ApiError(failure(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`))

/** The Status a delete answers with when the registry does not return the deleted object. */
export function success(gr: GroupResource, name: string, uid: string | undefined): Status {
  const details: StatusDetails = {name, ...(gr.group ? {group: gr.group} : {}), kind: gr.resource}
  if (uid) details.uid = uid
  return {kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details, code: 200}
}

/** A status for a code the caller chose (fault injection): the reason the apiserver uses for that code. */
export function forCode(code: number, message?: string): ApiError {
  switch (code) {
    case 400:
      return badRequest(message ?? 'injected fault')
    case 401:
      return unauthorized()
    case 403:
      return forbidden(undefined, undefined, message ?? 'injected fault')
    case 404:
      return new ApiError(failure(404, 'NotFound', message ?? 'the server could not find the requested resource', {}))
    case 409:
      return new ApiError(failure(409, 'Conflict', message ?? 'injected fault'))
    case 410:
      return expired(message ?? 'injected fault')
    case 422:
      return unprocessable(message ?? 'injected fault')
    case 429:
      return tooManyRequests(1, message)
    case 500:
      return internalError(message ?? 'injected fault')
    case 503:
      return serviceUnavailable(message)
    case 504:
      return timeout(message ?? 'injected fault', 1)
    default:
      return new ApiError(failure(code, 'Unknown', message ?? 'injected fault'))
  }
}
