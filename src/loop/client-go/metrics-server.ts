// The operability endpoints of loop mode, on --metrics-bind-address (as kube-controller-manager serves
// them on its secure port, here over plain HTTP for a Pod's probes and a Prometheus scrape):
//   /metrics   Prometheus text format
//   /healthz   200 "ok" while the process is healthy (a leader that cannot renew is not)
//   /livez     the same as /healthz
//   /readyz    200 "ok" once the controller runs its role: caches synced as leader, or standing by
// Anything else is 404. Only GET and HEAD.
import http from 'node:http'
import type {AddressInfo} from 'node:net'

import {UsageError} from '../../errors.js'

export interface Probe {
  /** undefined when fine, else why not (the body of the 500). */
  (): string | undefined
}

export interface MetricsServerOptions {
  address: string
  metrics: () => string
  healthz: Probe
  readyz: Probe
}

export interface MetricsServer {
  /** host:port actually bound (the port is chosen by the system for ":0"). */
  readonly address: string
  close(): Promise<void>
}

/** Parses "HOST:PORT", ":PORT" or "PORT"; "0" alone means off (as controller-runtime's flag). */
export function parseBindAddress(text: string): {host: string; port: number} | undefined {
  const s = text.trim()
  if (s === '' || s === '0') return undefined
  const m = /^(?:(\[[0-9a-fA-F:]+\]|[^:]*):)?(\d{1,5})$/.exec(s)
  if (m === null || Number(m[2]) > 65535)
    throw new UsageError(`--metrics-bind-address: invalid address "${text}" (use HOST:PORT, :PORT, or 0 to disable)`)
  const host = ((m[1] as string | undefined) ?? '').replace(/^\[|\]$/g, '')
  return {host: host === '' ? '0.0.0.0' : host, port: Number(m[2])}
}

export async function startMetricsServer(opts: MetricsServerOptions): Promise<MetricsServer> {
  const bind = parseBindAddress(opts.address)
  if (bind === undefined) throw new Error('metrics server disabled')
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, {Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8'}).end('method not allowed\n')
      return
    }
    const answer = (code: number, body: string, type = 'text/plain; charset=utf-8') => {
      res.writeHead(code, {'Content-Type': type, 'Cache-Control': 'no-store'})
      res.end(req.method === 'HEAD' ? undefined : body)
    }
    switch (path) {
      case '/metrics':
        return answer(200, opts.metrics(), 'text/plain; version=0.0.4; charset=utf-8')
      case '/healthz':
      case '/livez': {
        const why = opts.healthz()
        return why === undefined ? answer(200, 'ok') : answer(500, `not healthy: ${why}\n`)
      }
      case '/readyz': {
        const why = opts.readyz()
        return why === undefined ? answer(200, 'ok') : answer(500, `not ready: ${why}\n`)
      }
      default:
        return answer(404, 'not found\n')
    }
  })
  // Probes and scrapes are short; do not let a kept-alive socket hold the process at shutdown.
  server.keepAliveTimeout = 1000
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new UsageError(`--metrics-bind-address ${opts.address}: cannot listen (${err.code ?? err.message})`)),
    )
    server.listen(bind.port, bind.host, () => resolve())
  })
  const addr = server.address() as AddressInfo
  return {
    address: `${addr.address.includes(':') ? `[${addr.address}]` : addr.address}:${addr.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
