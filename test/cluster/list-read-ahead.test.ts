// Reading a LIST one page ahead: the continue token from the head of an answer (list-head.ts) and the
// loader's use of it (listKind with readAhead). The page asked for early is used only when the token it
// was asked with is the one the parsed page says; otherwise, and whenever the list fails, it is aborted
// and dropped: a list read ahead is the list read page by page, or an error.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import {ApiError, MalformedAnswerError, type ApiTarget} from '../../src/cluster/api-errors.js'
import {ListHeadReader, MAX_HEAD_BYTES} from '../../src/cluster/list-head.js'
import {listKind} from '../../src/cluster/live-loader.js'
import type {Page, PageOptions} from '../../src/cluster/page.js'
import {requestSignal} from '../../src/cluster/request-signal.js'

const headOf = (text: string, cut: (i: number) => boolean = () => false) => {
  const reader = new ListHeadReader()
  const bytes = Buffer.from(text)
  let start = 0
  for (let i = 1; i <= bytes.length; i++) {
    if (i < bytes.length && !cut(i)) continue
    const head = reader.feed(bytes.subarray(start, i))
    start = i
    if (head !== undefined) return head
  }
  return undefined
}

const list = (metadata: object, items = '[{"metadata":{"name":"a"}}]') => `{"kind":"PersistentVolumeList","apiVersion":"v1","metadata":${JSON.stringify(metadata)},"items":${items}}`

describe('ListHeadReader', () => {
  test('the token of the top-level metadata, however the answer is cut into chunks', () => {
    const text = list({resourceVersion: '42', continue: 'eyJydiI6NDJ9', remainingItemCount: 7})
    for (let at = 1; at < 140; at++) assert.deepEqual(headOf(text, (i) => i % at === 0), {continueToken: 'eyJydiI6NDJ9'}, `chunks of ${at} bytes`)
  })

  test('the last page: no continue, or an empty one', () => {
    assert.deepEqual(headOf(list({resourceVersion: '42'})), {last: true})
    assert.deepEqual(headOf(list({resourceVersion: '42', continue: ''})), {last: true})
  })

  test('strings holding quotes, braces and keys do not mislead it', () => {
    const text = `{"kind":"PersistentVolumeList","apiVersion":"v1","note":"a \\"metadata\\": {\\"continue\\": \\"bad\\"} }","other":{"metadata":{"continue":"nested"}},"metadata":{"selfLink":"x\\\\","continue":"good"},"items":[]}`
    for (let at = 1; at < 30; at++) assert.deepEqual(headOf(text, (i) => i % at === 0), {continueToken: 'good'}, `chunks of ${at} bytes`)
  })

  test('items before the metadata, an answer that is not an object, a token that is not a string: nothing to go by', () => {
    assert.deepEqual(headOf('{"kind":"PersistentVolumeList","items":[{"metadata":{"name":"a","continue":"x"}}],"metadata":{"continue":"late"}}'), {unknown: true})
    assert.deepEqual(headOf('[{"metadata":{"continue":"x"}}]'), {unknown: true})
    assert.deepEqual(headOf(list({continue: 7})), {unknown: true})
    assert.deepEqual(headOf('{"kind":"PersistentVolumeList"}'), {unknown: true})
  })

  test('a head longer than MAX_HEAD_BYTES is not read to its end', () => {
    const text = `{"kind":"PersistentVolumeList","pad":"${'x'.repeat(MAX_HEAD_BYTES)}","metadata":{"continue":"t"},"items":[]}`
    assert.deepEqual(headOf(text, (i) => i % 4096 === 0), {unknown: true})
  })
})

const target: ApiTarget = {verb: 'list', resource: 'persistentvolumes'}

interface FakeCall {
  token: string | undefined
  signal: AbortSignal | undefined
  settled: boolean
}

/**
 * A server of `total` items in pages: each answer says its head (the next token) after a tick, then
 * completes after another; `answer` may change what one call says or does.
 */
function fakeServer(total: number, opts: {answer?: (call: number, page: Page<{metadata: {name: string}}>) => {head?: string; page?: Page<{metadata: {name: string}}>; error?: Error; delayMs?: number}} = {}) {
  const calls: FakeCall[] = []
  let inFlight = 0
  let maxInFlight = 0
  const fetch = async (p: PageOptions): Promise<Page<{metadata: {name: string}}>> => {
    const n = calls.length
    const call: FakeCall = {token: p.continueToken, signal: requestSignal(), settled: false}
    calls.push(call)
    inFlight++
    maxInFlight = Math.max(maxInFlight, inFlight)
    try {
      const start = p.continueToken === undefined ? 0 : Number(p.continueToken.slice(1))
      const end = p.limit > 0 ? Math.min(total, start + p.limit) : total
      const page: Page<{metadata: {name: string}}> = {
        items: Array.from({length: end - start}, (_, i) => ({metadata: {name: `pv-${start + i}`}})),
        ...(end < total ? {continueToken: `t${end}`} : {}),
        resourceVersion: '42',
      }
      const says = opts.answer?.(n, page) ?? {}
      const aborted = () => new Promise<never>((_, reject) => call.signal?.addEventListener('abort', () => reject(new Error('aborted')), {once: true}))
      const tick = (ms = 2) => Promise.race([new Promise((resolve) => setTimeout(resolve, ms)), aborted()])
      await tick()
      const head = 'head' in says ? says.head : page.continueToken
      if (head !== undefined) p.onContinue?.(head)
      await tick(says.delayMs)
      if (says.error !== undefined) throw says.error
      return says.page ?? page
    } finally {
      inFlight--
      call.settled = true
    }
  }
  return {fetch, calls, maxInFlight: () => maxInFlight}
}

const names = (items: ReadonlyArray<{metadata: {name: string}}>) => items.map((o) => o.metadata.name)
const expected = (n: number) => Array.from({length: n}, (_, i) => `pv-${i}`)

describe('listKind with readAhead', () => {
  test('the same items as page by page, each page asked for once, at most two requests in flight', async () => {
    const plain = fakeServer(1050)
    const ahead = fakeServer(1050)
    const a = await listKind(plain.fetch, {chunkSize: 100})
    const b = await listKind(ahead.fetch, {chunkSize: 100, readAhead: true})
    assert.deepEqual(names(b.items), expected(1050))
    assert.deepEqual(b, a)
    assert.deepEqual(
      ahead.calls.map((c) => c.token),
      plain.calls.map((c) => c.token),
    )
    assert.equal(plain.maxInFlight(), 1)
    assert.equal(ahead.maxInFlight(), 2)
  })

  test('a head whose token is not the page\'s: the page read ahead is aborted and the page\'s own token asked for', async () => {
    const server = fakeServer(300, {answer: (call) => (call === 0 ? {head: 't999'} : {})})
    const listed = await listKind(server.fetch, {chunkSize: 100, readAhead: true})
    assert.deepEqual(names(listed.items), expected(300))
    const wrong = server.calls.find((c) => c.token === 't999')!
    assert.ok(wrong.signal?.aborted, 'the request read ahead with the wrong token is torn down')
    assert.deepEqual(
      server.calls.filter((c) => c !== wrong).map((c) => c.token),
      [undefined, 't100', 't200'],
    )
  })

  test('a page that fails after its head said a token: the list fails with its error, and the page read ahead is aborted', async () => {
    const bad = new MalformedAnswerError('list persistentvolumes: the answer is not a PersistentVolumeList', target, 200, 'MalformedAnswer')
    const server = fakeServer(1000, {answer: (call) => (call === 1 ? {error: bad} : {})})
    await assert.rejects(listKind(server.fetch, {chunkSize: 100, readAhead: true}), (err) => err === bad)
    const ahead = server.calls.find((c) => c.token === 't200')
    assert.ok(ahead !== undefined, 'the third page was asked for while the second was read')
    assert.ok(ahead.signal?.aborted)
    await new Promise((resolve) => setTimeout(resolve, 10))
    assert.ok(server.calls.every((c) => c.settled), 'nothing left pending')
    assert.equal(server.calls.length, 3, 'nothing asked for after the failure')
  })

  test('a page read ahead that fails before it is reached: no unhandled rejection, the list fails with its error there', async () => {
    const gone = new ApiError('list persistentvolumes: 403 Forbidden', target, 403, 'Forbidden')
    // The third page fails while the second is still being received.
    let failed = false
    const server = fakeServer(500, {answer: (call) => (call === 1 ? {delayMs: 40} : call === 2 ? {error: gone} : {})})
    const settled = (async () => {
      while (!server.calls[2]?.settled) await new Promise((resolve) => setTimeout(resolve, 1))
      failed = !server.calls[1]!.settled
    })()
    const unhandled: unknown[] = []
    const onUnhandled = (err: unknown) => unhandled.push(err)
    process.on('unhandledRejection', onUnhandled)
    try {
      await assert.rejects(listKind(server.fetch, {chunkSize: 100, readAhead: true}), (err) => err === gone)
      await settled
      assert.ok(failed, 'the page read ahead failed before the page before it was in')
      await new Promise((resolve) => setTimeout(resolve, 10))
      assert.deepEqual(unhandled, [])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })

  test('410 Expired on a page read ahead: the kind is listed again in one request, the pages read dropped', async () => {
    const expired = new ApiError('list persistentvolumes: 410 Gone', target, 410, 'Expired')
    const server = fakeServer(350, {answer: (call, page) => (call === 2 ? {error: expired} : page.continueToken === undefined && page.items.length === 350 ? {page: {...page, resourceVersion: '77'}} : {})})
    const progress: number[] = []
    const listed = await listKind(server.fetch, {chunkSize: 100, readAhead: true, onPage: (n) => progress.push(n)})
    assert.equal(listed.relisted, true)
    assert.equal(listed.resourceVersion, '77')
    assert.deepEqual(names(listed.items), expected(350))
    assert.deepEqual(progress, [100, 100, -200, 350])
  })

  test('the caller\'s signal stops it between pages, and the page read ahead is aborted', async () => {
    const stop = new AbortController()
    const server = fakeServer(1000)
    const listed = await listKind(server.fetch, {
      chunkSize: 100,
      readAhead: true,
      signal: stop.signal,
      onPage: () => stop.abort(),
    })
    assert.deepEqual(names(listed.items), expected(100))
    await new Promise((resolve) => setTimeout(resolve, 10))
    assert.ok(server.calls.slice(1).every((c) => c.signal?.aborted && c.settled))
  })
})
