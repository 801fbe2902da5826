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
import {FakeTimers} from './fake-timers.js'

/**
 * A TCP server that accepts connections and never says a word; reports the first connection's bytes
 * (what the client sent: a request, or a TLS ClientHello) and when a connection is closed.
 */
async function silentServer(): Promise<{
  port: number
  heard: Promise<void>
  closed: Promise<void>
  stop: () => Promise<void>
}> {
  const sockets = new Set<net.Socket>()
  let onClose!: () => void
  let onData!: () => void
  const closed = new Promise<void>((resolve) => (onClose = resolve))
  const heard = new Promise<void>((resolve) => (onData = resolve))
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => onClose())
    socket.on('error', () => undefined)
    // Read (and drop) what the client sends: a paused socket would never see the client's close.
    socket.on('data', () => onData())
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    port: (server.address() as net.AddressInfo).port,
    heard,
    closed,
    stop: async () => {
      for (const s of sockets) s.destroy()
      server.close()
      await once(server, 'close')
    },
  }
}

function api(server: string, requestTimeoutMs: number, clock: FakeTimers): KubernetesClusterApi {
  const doc = {
    clusters: [{name: 'c', cluster: {server, 'insecure-skip-tls-verify': true}}],
    users: [{name: 'u', user: {token: 't'}}],
    contexts: [{name: 'x', context: {cluster: 'c', user: 'u'}}],
    'current-context': 'x',
  }
  const kc = makeKubeConfig(resolveContext(doc as never, 'test'))
  const flow = {qps: 0, burst: 1, requestTimeoutMs, maxRetries: 0, startTimer: clock.startTimer}
  return throttle(new KubernetesClusterApi(kc, clock.startTimer), flow)
}

/** The call, and the fake time at which it settled (-1 while it has not). */
function settling<T>(call: Promise<T>, clock: FakeTimers): {call: Promise<T>; settledAt: () => number} {
  let at = -1
  call.then(
    () => (at = clock.now),
    () => (at = clock.now),
  )
  return {call, settledAt: () => at}
}

// The deadlines run on a fake clock: the server's silence is real, the time waited for it is not. The
// tests' timeout ends a connection that is never closed.
test('--request-timeout: the call fails at its deadline and its connection is closed', {timeout: 30_000}, async () => {
  const silent = await silentServer()
  const clock = new FakeTimers()
  try {
    const {call, settledAt} = settling(
      api(`http://127.0.0.1:${silent.port}`, 300, clock).listVolumes({limit: 500}),
      clock,
    )
    await silent.heard
    await clock.advanceTo(299)
    assert.equal(settledAt(), -1, 'the request is sent and unanswered: still waiting at 299 ms')
    await clock.advanceTo(300)
    await assert.rejects(call, (err: unknown) => {
      assert.ok(err instanceof UnreachableError, String(err))
      assert.match((err as Error).message, /^listVolumes: no answer within --request-timeout \(300 ms\)$/)
      return true
    })
    assert.equal(settledAt(), 300)
    // The abandoned request does not linger: the server sees its connection closed.
    await silent.closed
    assert.deepEqual(clock.pending, [], 'no deadline left running')
  } finally {
    await silent.stop()
  }
})

const handshake = `a TLS handshake that never finishes fails the request after ${CONNECT_TIMEOUT_MS / 1000} s, with no --request-timeout`
test(handshake, {timeout: 30_000}, async () => {
  const silent = await silentServer()
  const clock = new FakeTimers()
  try {
    const {call, settledAt} = settling(
      api(`https://127.0.0.1:${silent.port}`, 0, clock).listVolumes({limit: 500}),
      clock,
    )
    await silent.heard
    assert.deepEqual(clock.pending, [CONNECT_TIMEOUT_MS], "the handshake's deadline, and no other")
    await clock.advanceTo(CONNECT_TIMEOUT_MS - 1)
    assert.equal(settledAt(), -1, 'the handshake is not answered: still waiting 1 ms before the deadline')
    await clock.advanceTo(CONNECT_TIMEOUT_MS)
    await assert.rejects(call, (err: unknown) => {
      assert.ok(err instanceof UnreachableError, String(err))
      assert.match(
        (err as Error).message,
        new RegExp(
          `^cannot reach the API server at https://127\\.0\\.0\\.1:${silent.port}: TLS handshake timeout after 10 s$`,
        ),
      )
      return true
    })
    assert.equal(settledAt(), CONNECT_TIMEOUT_MS)
  } finally {
    await silent.stop()
  }
})
