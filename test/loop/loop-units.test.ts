// The loop's small parts: the binder check, storeObjectUpdate, the audit stream's de-duplication, the
// event sink's aggregation and spam filter, the Prometheus text format, structured logs.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {NotFoundError, ForbiddenError} from '../../src/cluster/api-errors.js'
import type {CoreEvent, Lease, LeaseApi} from '../../src/cluster/live-api.js'
import {createLogger} from '../../src/log.js'
import {AuditStream, BATCH_CHARS} from '../../src/loop/audit-stream.js'
import {builtinBinderEnabled, checkBuiltinBinder} from '../../src/loop/builtin-binder.js'
import {LoopMetrics} from '../../src/loop/loop-metrics.js'
import {EventSink} from '../../src/loop/client-go/event-sink.js'
import {microTime} from '../../src/loop/client-go/leader-election.js'
import {Registry} from '../../src/loop/client-go/metrics.js'
import {parseBindAddress} from '../../src/loop/client-go/metrics-server.js'
import {storeObjectUpdate} from '../../src/loop/pv-loop.js'
import type {PersistentVolume, PersistentVolumeClaim} from '../../src/engine/api/model.js'
import type {Action, PlannedEvent} from '../../src/engine/simulation/plan.js'
import {UsageError} from '../../src/errors.js'

test('--controllers as kube-controller-manager reads it: is the built-in binder enabled?', () => {
  const rows: Array<[string, boolean]> = [
    ['*', true],
    ['*,-persistentvolume-binder-controller', false],
    ['-persistentvolume-binder-controller,*', false],
    ['*,-persistentvolume-binder', false],
    ['attachdetach-controller', false],
    ['persistentvolume-binder-controller', true],
    ['', false],
  ]
  for (const [list, enabled] of rows) assert.equal(builtinBinderEnabled(list.split(',')), enabled, list)
  assert.throws(() => builtinBinderEnabled(['a b']), UsageError)
})

function leases(answer: Lease | Error): LeaseApi {
  const read = async () => {
    if (answer instanceof Error) throw answer
    return answer
  }
  return {readLease: read, createLease: read, replaceLease: read, listLeases: async () => ({items: []})}
}

test('the binder check: a live kube-controller-manager Lease forbids writing; expired, missing, or the flag allow it', async () => {
  const now = new Date(Date.UTC(2026, 10, 30, 10))
  const lease = (renewedAgoMs: number, holder = 'cp-0'): Lease => ({
    metadata: {name: 'kube-controller-manager', namespace: 'kube-system'},
    spec: {
      holderIdentity: holder,
      leaseDurationSeconds: 15,
      renewTime: microTime(new Date(now.getTime() - renewedAgoMs)),
    },
  })
  const target = {verb: 'get' as const, resource: 'leases'}
  assert.equal((await checkBuiltinBinder(leases(lease(3_000)), ['*'], now)).write, false)
  assert.equal((await checkBuiltinBinder(leases(lease(20_000)), ['*'], now)).write, true)
  assert.equal((await checkBuiltinBinder(leases(lease(3_000, '')), ['*'], now)).write, true, 'released')
  assert.equal(
    (await checkBuiltinBinder(leases(new NotFoundError('x', target, 404, 'NotFound')), ['*'], now)).write,
    true,
  )
  const forbidden = await checkBuiltinBinder(leases(new ForbiddenError('nope', target, 403, 'Forbidden')), ['*'], now)
  assert.equal(forbidden.write, false, 'cannot tell: do not write')
  assert.match(forbidden.reason, /cannot read the Lease kube-system\/kube-controller-manager/)
  assert.equal(
    (await checkBuiltinBinder(leases(lease(3_000)), ['*', '-persistentvolume-binder-controller'], now)).write,
    true,
  )
})

test('storeObjectUpdate: an older resourceVersion never replaces a newer one; the same one passes (periodic syncs)', () => {
  const store = new Map<string, {metadata: {resourceVersion?: string}; v: number}>()
  assert.equal(storeObjectUpdate(store, 'a', {metadata: {resourceVersion: '10'}, v: 1}), true)
  assert.equal(storeObjectUpdate(store, 'a', {metadata: {resourceVersion: '9'}, v: 2}), false)
  assert.equal(store.get('a')!.v, 1)
  assert.equal(storeObjectUpdate(store, 'a', {metadata: {resourceVersion: '10'}, v: 3}), true)
  assert.equal(storeObjectUpdate(store, 'a', {metadata: {resourceVersion: '11'}, v: 4}), true)
  assert.equal(store.get('a')!.v, 4)
})

const action = (name: string, patchValue: string): Action => ({
  action: 'set-volume-phase',
  object: {kind: 'PersistentVolume', name},
  reason: `-> ${patchValue}`,
  patch: [{op: 'replace', path: '/status/phase', value: patchValue}],
  subresource: 'status',
  round: 1,
  sync: `pv/${name}`,
})

test('the audit stream prints a plan when it appears or changes, and every write', () => {
  const lines: string[] = []
  const audit = new AuditStream(
    'json',
    (l) => lines.push(l),
    () => new Date(0),
  )
  audit.planned('pv/a', [action('a', 'Released')])
  audit.planned('pv/a', [action('a', 'Released')])
  assert.equal(lines.length, 1)
  audit.planned('pv/a', [action('a', 'Failed')])
  assert.equal(lines.length, 2)
  audit.planned('pv/a', [])
  audit.planned('pv/a', [action('a', 'Failed')])
  assert.equal(lines.length, 3, 'a plan that went away and came back is news')
  audit.executed('pv/b', [{...action('b', 'Bound'), outcome: 'written'}])
  audit.executed('pv/b', [{...action('b', 'Bound'), outcome: 'written'}])
  assert.equal(lines.length, 5, 'writes are always news')
  assert.deepEqual(JSON.parse(lines[0]), {
    time: '1970-01-01T00:00:00.000Z',
    ...action('a', 'Released'),
    outcome: 'planned',
  })
})

test('the audit stream, batched, writes the very text of its lines unbatched, in batches of about 64 KiB', () => {
  for (const format of ['json', 'text'] as const) {
    const lines: string[] = []
    const batches: string[] = []
    const one = new AuditStream(
      format,
      (l) => lines.push(l),
      () => new Date(0),
    )
    const batched = new AuditStream(
      format,
      (chunk) => batches.push(chunk),
      () => new Date(0),
      true,
    )
    for (let i = 0; i < 2000; i++) {
      const planned = [action(`vol-${i}-é☃`, 'Released')]
      const executed = [{...action(`w-${i}`, 'Bound'), outcome: 'written' as const}]
      for (const audit of [one, batched]) {
        audit.planned(`pv/vol-${i}`, planned)
        audit.executed(`pv/w-${i}`, executed)
      }
    }
    batched.flush()
    assert.ok(batches.length > 1, `${format}: more than one batch`)
    // A batch is written when a line takes it to BATCH_CHARS: at most one line longer.
    const longest = Math.max(...lines.map((l) => l.length))
    assert.ok(
      batches.every((b) => b.length < BATCH_CHARS + longest),
      `${format}: no batch past ${BATCH_CHARS} characters and a line`,
    )
    assert.equal(batches.join(''), lines.join(''), format)
  }
})

test('the audit stream, batched, writes the lines of many syncs at once: at the next turn, or at flush()', async () => {
  const writes: string[] = []
  const audit = new AuditStream(
    'json',
    (l) => writes.push(l),
    () => new Date(0),
    true,
  )
  audit.planned('pv/a', [action('a', 'Released')])
  audit.executed('pv/b', [{...action('b', 'Bound'), outcome: 'written'}])
  assert.equal(writes.length, 0, 'not before the event loop turns')
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal(writes.length, 1)
  assert.deepEqual(
    writes[0]
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l)),
    [
      {time: '1970-01-01T00:00:00.000Z', ...action('a', 'Released'), outcome: 'planned'},
      {time: '1970-01-01T00:00:00.000Z', ...action('b', 'Bound'), outcome: 'written'},
    ],
  )
  audit.planned('pv/c', [action('c', 'Failed')])
  audit.flush()
  assert.equal(writes.length, 2, 'flush() writes what waits')
  audit.flush()
  assert.equal(writes.length, 2, 'and nothing when nothing waits')
})

test('the audit stream: a planned plan made again (the same writes, new objects) is not news; its JSON line keeps the keys in order', () => {
  const lines: string[] = []
  const audit = new AuditStream(
    'json',
    (l) => lines.push(l),
    () => new Date(0),
  )
  const plan = [action('a', 'Released'), {...action('a', 'Released'), action: 'set-claim-phase' as const}]
  audit.planned('pv/a', plan)
  audit.planned('pv/a', plan)
  audit.planned(
    'pv/a',
    plan.map((a) => ({...a, patch: a.patch.map((p) => ({...p}))})),
  )
  assert.equal(lines.length, 2)
  audit.planned('pv/a', [plan[1], plan[0]])
  assert.equal(lines.length, 4, 'the same writes in another order are a new plan')
  audit.executed(
    'pv/a',
    plan.map((a) => ({...a, outcome: 'not-written: dry run' as const})),
  )
  assert.equal(lines.length, 6, 'not carried out is news after planned')
  audit.executed(
    'pv/a',
    plan.map((a) => ({...a, outcome: 'not-written: dry run' as const})),
  )
  assert.equal(lines.length, 6)
  assert.deepEqual(Object.keys(JSON.parse(lines[0])), [
    'time',
    'action',
    'object',
    'reason',
    'patch',
    'subresource',
    'round',
    'sync',
    'outcome',
  ])
  const printed: string[] = []
  new AuditStream(
    'text',
    (l) => printed.push(l),
    () => new Date(0),
  ).executed('pv/b', [{...action('b', 'Bound'), outcome: 'written'}])
  assert.equal(
    printed[0],
    `1970-01-01T00:00:00.000Z  written   set-volume-phase       ${'pv/b'.padEnd(30)} (sync pv/b) -> Bound\n`,
  )
})

test('the pv_collector gauges are counted again when the cache has changed (its generation), not at every scrape', () => {
  const volumes = new Map<string, PersistentVolume>([
    ['a', {metadata: {name: 'a'}, spec: {storageClassName: 'gold'}, status: {phase: 'Bound'}}],
  ])
  const source = {
    volumes,
    claims: new Map<string, PersistentVolumeClaim>(),
    claimQueue: {depth: 0, name: 'claims'},
    volumeQueue: {depth: 0, name: 'volumes'},
    generation: 1,
  }
  const metrics = new LoopMetrics()
  metrics.collect(source)
  const bound = () =>
    metrics
      .render()
      .split('\n')
      .find((l) => l.startsWith('pv_collector_bound_pv_count{'))
  assert.equal(bound(), 'pv_collector_bound_pv_count{storage_class="gold"} 1')
  volumes.set('b', {metadata: {name: 'b'}, spec: {storageClassName: 'gold'}, status: {phase: 'Bound'}})
  assert.equal(bound(), 'pv_collector_bound_pv_count{storage_class="gold"} 1', 'the same generation: the last count')
  source.generation++
  assert.equal(bound(), 'pv_collector_bound_pv_count{storage_class="gold"} 2')
})

test('the event sink counts repeats on one Event, drops a storm beyond 25 per object, and stays bounded', async () => {
  const created: CoreEvent[] = []
  const patched: Array<[string, number]> = []
  let t = Date.UTC(2026, 10, 30)
  const sink = new EventSink(
    {
      createEvent: async (e) => (created.push(e), e),
      patchEventCount: async (_ns, name, count) => void patched.push([name, count]),
    },
    {now: () => new Date(t), lruSize: 8},
  )
  const event = (name: string, message = 'no volume'): PlannedEvent => ({
    object: {kind: 'PersistentVolumeClaim', namespace: 'app', name},
    type: 'Normal',
    reason: 'FailedBinding',
    message,
    count: 1,
    sync: `pvc/app/${name}`,
  })
  for (let i = 0; i < 30; i++) {
    await sink.record(event('data'), {uid: 'u'})
    t += 1000
  }
  assert.equal(created.length, 1)
  assert.equal(patched.length, 24, 'the 25 allowed: one create and 24 count patches')
  assert.deepEqual(patched.at(-1), [created[0].metadata.name, 25])
  assert.equal(sink.dropped, 5)
  t += 300_000
  assert.equal(await sink.record(event('data'), {}), true, 'one token back every 5 minutes')
  for (let i = 0; i < 100; i++) await sink.record(event(`c${i}`), {})
  assert.ok(sink.remembered <= 16, 'LRU-bounded')
  assert.equal(created[0].source.component, 'pvctl')
})

test('the Prometheus text format: HELP, TYPE, labels escaped, histograms with buckets, sum and count', () => {
  const r = new Registry()
  r.counter('things_total', 'Things.').inc({kind: 'a"b\\c'}, 2)
  r.histogram('wait_seconds', 'Waits.', [0.1, 1]).observe(0.5, {q: 'x'})
  r.collect('depth', 'Depth.', () => [{labels: {}, value: 3}])
  assert.equal(
    r.render(),
    [
      '# HELP things_total Things.',
      '# TYPE things_total counter',
      'things_total{kind="a\\"b\\\\c"} 2',
      '# HELP wait_seconds Waits.',
      '# TYPE wait_seconds histogram',
      'wait_seconds_bucket{q="x",le="0.1"} 0',
      'wait_seconds_bucket{q="x",le="1"} 1',
      'wait_seconds_bucket{q="x",le="+Inf"} 1',
      'wait_seconds_sum{q="x"} 0.5',
      'wait_seconds_count{q="x"} 1',
      '# HELP depth Depth.',
      '# TYPE depth gauge',
      'depth 3',
      '',
    ].join('\n'),
  )
})

test('a bound series counts into the same sample as inc with those labels, and is exposed only once counted', () => {
  const r = new Registry()
  const things = r.counter('things_total', 'Things.')
  const waits = r.histogram('wait_seconds', 'Waits.', [1])
  const a = things.series({kind: 'a', zone: 'z'})
  const w = waits.series({q: 'x'})
  things.series({kind: 'never'})
  waits.series({q: 'never'})
  assert.doesNotMatch(r.render(), /things_total\{|wait_seconds_count/, 'bound, not yet counted: no series')
  a.inc()
  things.inc({zone: 'z', kind: 'a'}, 2)
  a.inc(3)
  w.observe(0.5)
  waits.observe(2, {q: 'x'})
  assert.equal(things.get({kind: 'a', zone: 'z'}), 6)
  assert.equal(waits.count({q: 'x'}), 2)
  const text = r.render()
  assert.match(text, /^things_total\{kind="a",zone="z"\} 6$/m)
  assert.match(text, /^wait_seconds_bucket\{q="x",le="1"\} 1$/m)
  assert.doesNotMatch(text, /never/)
})

test('--metrics-bind-address: HOST:PORT, :PORT, PORT, 0 (off)', () => {
  assert.deepEqual(parseBindAddress(':8080'), {host: '0.0.0.0', port: 8080})
  assert.deepEqual(parseBindAddress('127.0.0.1:9090'), {host: '127.0.0.1', port: 9090})
  assert.deepEqual(parseBindAddress('[::1]:9090'), {host: '::1', port: 9090})
  assert.equal(parseBindAddress('0'), undefined)
  assert.throws(() => parseBindAddress('host:99999'), UsageError)
})

test('logs: klog-like text and JSON lines, -v gates detail', () => {
  const out: string[] = []
  const at = () => new Date(Date.UTC(2026, 10, 30, 10, 15, 2, 123))
  const text = createLogger({format: 'text', verbosity: 2, write: (l) => out.push(l), now: at, pid: 42})
  text.info('Bound claim', {claim: 'shop/orders', n: 3})
  text.v(2).info('shown')
  text.v(4).info('hidden')
  text.error('Failed', {err: new Error('boom')})
  assert.deepEqual(out, [
    'I1130 10:15:02.123000      42] "Bound claim" claim="shop/orders" n=3\n',
    'I1130 10:15:02.123000      42] "shown"\n',
    'E1130 10:15:02.123000      42] "Failed" err="boom"\n',
  ])
  out.length = 0
  createLogger({format: 'json', verbosity: 0, write: (l) => out.push(l), now: at}).info('Bound claim', {
    claim: 'shop/orders',
  })
  assert.deepEqual(JSON.parse(out[0]), {
    ts: '2026-11-30T10:15:02.123Z',
    level: 'info',
    v: 0,
    msg: 'Bound claim',
    claim: 'shop/orders',
  })
})
