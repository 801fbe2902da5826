// Structured logs for the long-running modes, as Kubernetes components write them (klog): a message
// and key/value pairs, on stderr, `-v N` for detail (0: what an operator wants to see, 2: each sync
// that did something, 4: every sync and cache update, 5: every queue operation), in text or JSON
// (`--log-format`, as kube-controller-manager's --logging-format). Text lines read as klog's:
//   I1130 10:15:02.123456   4242] "Bound claim" claim="shop/orders" volume="pv-0002"
// JSON lines as klog's JSON format, with the time as RFC 3339:
//   {"ts":"2026-11-30T10:15:02.123Z","level":"info","v":0,"msg":"Bound claim","claim":"shop/orders","volume":"pv-0002"}

import {redactUrlCredentials} from './redact.js'

export type LogFormat = 'text' | 'json'
export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json']

export type Fields = Record<string, unknown>

export interface InfoLogger {
  info(msg: string, fields?: Fields): void
}

export interface Logger extends InfoLogger {
  /** Always written, at level "error"; an `err` field carries the error's message. */
  error(msg: string, fields?: Fields): void
  /** A logger that writes only when -v is at least `level` (klog's V(level)). */
  v(level: number): InfoLogger
  enabled(level: number): boolean
}

export interface LoggerOptions {
  format: LogFormat
  verbosity: number
  write: (line: string) => void
  now?: () => Date
  pid?: number
}

function fieldValue(value: unknown): unknown {
  if (value instanceof Error) return value.message
  return value
}

function textValue(value: unknown): string {
  const v = fieldValue(value)
  if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) return String(v)
  if (typeof v === 'string') return JSON.stringify(v)
  return JSON.stringify(v)
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

export function createLogger(opts: LoggerOptions): Logger {
  const now = opts.now ?? (() => new Date())
  const pid = opts.pid ?? process.pid

  const emit = (severity: 'info' | 'error', level: number, msg: string, fields: Fields = {}) => {
    const t = now()
    if (opts.format === 'json') {
      const record: Fields = {ts: t.toISOString(), level: severity, v: level, msg}
      for (const [k, v] of Object.entries(fields)) if (v !== undefined) record[k] = fieldValue(v)
      opts.write(`${redactUrlCredentials(JSON.stringify(record))}\n`)
      return
    }
    const head = `${severity === 'error' ? 'E' : 'I'}${pad(t.getUTCMonth() + 1)}${pad(t.getUTCDate())} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}.${pad(t.getUTCMilliseconds(), 3)}000 ${String(pid).padStart(7)}]`
    const kv = Object.entries(fields)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${textValue(v)}`)
    opts.write(`${redactUrlCredentials([head, JSON.stringify(msg), ...kv].join(' '))}\n`)
  }

  // One logger per level, made when first asked for: loop mode asks for one at every sync, and a level
  // above the verbosity (most of them) gets the logger that drops everything.
  const byLevel: InfoLogger[] = []
  const logger: Logger = {
    info: (msg, fields) => emit('info', 0, msg, fields),
    error: (msg, fields) => emit('error', 0, msg, fields),
    enabled: (level) => opts.verbosity >= level,
    v: (level) => {
      if (!(opts.verbosity >= level)) return DROPPED
      return (byLevel[level] ??= {
        info: (msg, fields) => {
          if (opts.verbosity >= level) emit('info', level, msg, fields)
        },
      })
    },
  }
  return logger
}

/** The logger of a level above the verbosity. */
const DROPPED: InfoLogger = {info: () => {}}

/** A logger that drops everything (tests, and library code run without one). */
export const silentLogger: Logger = {
  info: () => {},
  error: () => {},
  enabled: () => false,
  v: () => ({info: () => {}}),
}
