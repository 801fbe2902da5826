// Bytes on the wire: request bodies in (JSON or YAML, with the apiserver's 3 MiB limit) and content
// negotiation out. The Accept header decides between a plain object (JSON or YAML), a meta.k8s.io
// Table (kubectl's printing) and PartialObjectMetadata (metadata-only clients).
import type {IncomingMessage, ServerResponse} from 'node:http'

import {parse as parseYaml, stringify as stringifyYaml} from 'yaml'

import {decodeProtobuf, PROTOBUF} from './protobuf.js'
import {ApiError, badRequest, entityTooLarge, internalError, notAcceptable, type Status} from './status-errors.js'

export const MAX_BODY_BYTES = 3 * 1024 * 1024

export type Output =
  | {as: 'object'; encoding: 'json' | 'yaml'}
  | {as: 'table'; apiVersion: 'meta.k8s.io/v1' | 'meta.k8s.io/v1beta1'}
  | {as: 'metadata'; apiVersion: 'meta.k8s.io/v1' | 'meta.k8s.io/v1beta1'}

interface MediaRange {
  type: string
  params: Record<string, string>
}

function parseAccept(header: string | undefined): MediaRange[] {
  if (!header) return [{type: '*/*', params: {}}]
  return header.split(',').map((part) => {
    const [type, ...params] = part.split(';').map((s) => s.trim())
    return {
      type: type.toLowerCase(),
      params: Object.fromEntries(params.map((p) => p.split('=').map((s) => s.trim()) as [string, string])),
    }
  })
}

/**
 * The first acceptable media range wins, as in the apiserver's negotiation. Protobuf is not spoken: a
 * client that accepts nothing else gets 406, one that lists JSON after it gets JSON.
 */
export function negotiate(accept: string | undefined): Output {
  for (const r of parseAccept(accept)) {
    const json = r.type === 'application/json' || r.type === '*/*' || r.type === 'application/*'
    if (json && r.params.as && r.params.g === 'meta.k8s.io' && (r.params.v === 'v1' || r.params.v === 'v1beta1')) {
      const apiVersion = `meta.k8s.io/${r.params.v}` as 'meta.k8s.io/v1' | 'meta.k8s.io/v1beta1'
      if (r.params.as === 'Table') return {as: 'table', apiVersion}
      if (r.params.as === 'PartialObjectMetadata' || r.params.as === 'PartialObjectMetadataList')
        return {as: 'metadata', apiVersion}
      continue
    }
    if (r.params.as) continue
    if (json) return {as: 'object', encoding: 'json'}
    if (r.type === 'application/yaml') return {as: 'object', encoding: 'yaml'}
  }
  throw notAcceptable()
}

/** Reads and decodes a request body; an empty body is undefined. */
export async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY_BYTES) throw entityTooLarge(MAX_BODY_BYTES)
    chunks.push(chunk as Buffer)
  }
  const bytes = Buffer.concat(chunks)
  const type = (req.headers['content-type'] ?? 'application/json').split(';')[0].trim().toLowerCase()
  if (type === PROTOBUF && bytes.length > 0) return decodeProtobuf(bytes)
  const text = bytes.toString('utf8')
  if (text.trim() === '') return undefined
  try {
    if (type === 'application/yaml' || type === 'application/apply-patch+yaml') return parseYaml(text)
    return JSON.parse(text)
  } catch (e) {
    throw badRequest(`the body of the request could not be decoded: ${(e as Error).message}`)
  }
}

const COMMON_HEADERS = {'Cache-Control': 'no-cache, private'}

export function send(
  res: ServerResponse,
  code: number,
  body: unknown,
  encoding: 'json' | 'yaml' = 'json',
  headers: Record<string, string> = {},
): void {
  const text = encoding === 'yaml' ? stringifyYaml(body) : `${JSON.stringify(body)}\n`
  res.writeHead(code, {
    ...COMMON_HEADERS,
    'Content-Type': encoding === 'yaml' ? 'application/yaml' : 'application/json',
    ...headers,
  })
  res.end(text)
}

/** Any thrown value as a Status answer: ApiErrors keep theirs, anything else is a 500. */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e
  return internalError(e instanceof Error ? e.message : String(e))
}

export function sendError(res: ServerResponse, e: unknown): Status {
  const err = toApiError(e)
  if (!res.headersSent) send(res, err.code, err.status, 'json', err.headers)
  else res.end()
  return err.status
}
