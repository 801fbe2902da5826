// A request that gets no answer is torn down, not left pending: at --request-timeout (the call fails
// and its socket is closed, so nothing keeps the process alive after the error), and, for a new
// connection, when the TLS handshake does not finish in time.
import assert from 'node:assert/strict'
import {once} from 'node:events'
import net from 'node:net'
import {test} from 'node:test'

import {UnreachableError} from '../../src/cluster/api-errors.js'
import {resolveContext} from '../../src/cluster/kubeconfig.js'
import {KubernetesClusterApi, makeKubeConfig} from '../../src/cluster/live-api.js'
import {throttle} from '../../src/cluster/throttled-api.js'
import {CONNECT_TIMEOUT_MS} from '../../src/cluster/wire-client.js'

/** A TCP server that accepts connections and never says a word; reports when each is closed. */
async function silentServer(): Promise<{port: number; closed: Promise<void>; stop: () => Promise<void>}> {
  const sockets = new Set<net.Socket>()
  let onClose!: () => void
  const closed = new Promise<void>((resolve) => (onClose = resolve))
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => onClose())
    socket.on('error', () => undefined)
    // Read (and drop) what the client sends: a paused socket would never see the client's close.
    socket.resume()
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    port: (server.address() as net.AddressInfo).port,
    closed,
    stop: async () => {
      for (const s of sockets) s.destroy()
      server.close()
      await once(server, 'close')
    },
  }
}

function api(server: string, requestTimeoutMs: number): KubernetesClusterApi {
  const doc = {
    clusters: [{name: 'c', cluster: {server, 'insecure-skip-tls-verify': true}}],
    users: [{name: 'u', user: {token: 't'}}],
    contexts: [{name: 'x', context: {cluster: 'c', user: 'u'}}],
    'current-context': 'x',
  }
  return throttle(new KubernetesClusterApi(makeKubeConfig(resolveContext(doc as never, 'test'))), {qps: 0, burst: 1, requestTimeoutMs, maxRetries: 0})
}

test('--request-timeout: the call fails at its deadline and its connection is closed', async () => {
  const silent = await silentServer()
  try {
    const started = Date.now()
    await assert.rejects(api(`http://127.0.0.1:${silent.port}`, 300).listVolumes({limit: 500}), (err: unknown) => {
      assert.ok(err instanceof UnreachableError, String(err))
      assert.match((err as Error).message, /^listVolumes: no answer within --request-timeout \(300 ms\)$/)
      return true
    })
    assert.ok(Date.now() - started < 3000)
    // The abandoned request does not linger: the server sees its connection closed.
    await Promise.race([silent.closed, new Promise((_, reject) => setTimeout(() => reject(new Error('the connection was left open')), 2000))])
  } finally {
    await silent.stop()
  }
})

test(`a TLS handshake that never finishes fails the request after ${CONNECT_TIMEOUT_MS / 1000} s, with no --request-timeout`, {timeout: CONNECT_TIMEOUT_MS + 10_000}, async () => {
  const silent = await silentServer()
  try {
    const started = Date.now()
    await assert.rejects(api(`https://127.0.0.1:${silent.port}`, 0).listVolumes({limit: 500}), (err: unknown) => {
      assert.ok(err instanceof UnreachableError, String(err))
      assert.match((err as Error).message, new RegExp(`^cannot reach the API server at https://127\\.0\\.0\\.1:${silent.port}: TLS handshake timeout after 10 s$`))
      return true
    })
    assert.ok(Date.now() - started >= CONNECT_TIMEOUT_MS - 100)
  } finally {
    await silent.stop()
  }
})
