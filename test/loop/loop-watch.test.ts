// `pvctl sync --watch` against the emulator: the event does the work (not the resync), a resync syncs
// what the caches hold and lists nothing, a periodic relist repairs what the watch did not see, a watch the server ends is resumed without losing an event, and SIGTERM
// stops it promptly and gives the lease up.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {
  assertOneToOne,
  binderWrites,
  claim,
  cluster,
  FAST,
  getClaim,
  getLease,
  getVolume,
  Pvctl,
  volume,
  waitFor,
  watching,
} from './loop-harness.js'

const DEFAULT_LEASE = [
  '--leader-elect-lease-duration',
  '15s',
  '--leader-elect-renew-deadline',
  '10s',
  '--leader-elect-retry-period',
  '2s',
]
const DISABLED = '--controllers=*,-persistentvolume-binder-controller'

test('a new claim is bound by the watch, not by a resync (--resync 10m)', async () => {
  const {api, kubeconfig} = await cluster([volume('pv-a'), volume('pv-b', {storage: '5Gi'})])
  const pvctl = new Pvctl(kubeconfig(), ['--watch', '--yes', '--resync', '10m', ...FAST, DISABLED, '-o', 'json'])
  try {
    await pvctl.line(/Caches are synced/)
    const listsBefore = api.countRequests({verb: 'list', resource: 'pvc'})
    api.create(claim('team-a', 'data', {storage: '2Gi'}) as never)
    const bound = await waitFor('the claim to be bound', () => {
      const c = getClaim(api, 'team-a', 'data')
      return c?.status?.phase === 'Bound' ? c : undefined
    })
    assert.equal(bound.spec.volumeName, 'pv-b', 'the smallest volume that fits')
    assert.equal(getVolume(api, 'pv-b')?.status?.phase, 'Bound')
    assert.equal(
      api.countRequests({verb: 'list', resource: 'pvc'}),
      listsBefore,
      'no LIST since start-up: the watch event did it',
    )
    assertOneToOne(api)
    const lines = (await waitFor('the audit lines', () => (pvctl.out.length >= 4 ? pvctl.out : undefined))).map((l) =>
      JSON.parse(l),
    )
    assert.deepEqual(
      lines.slice(0, 4).map((l: {action: string; outcome: string}) => `${l.action}:${l.outcome}`),
      ['bind-volume:written', 'set-volume-phase:written', 'bind-claim:written', 'set-claim-phase:written'],
      'the controller order, as JSON lines',
    )
  } finally {
    await pvctl.stop()
    await api.stop()
  }
})

test("--chunk-size pages the informers' lists, as it pages a one-shot load", async () => {
  const {api, kubeconfig} = await cluster(['pv-1', 'pv-2', 'pv-3', 'pv-4', 'pv-5'].map((name) => volume(name)))
  const pvctl = new Pvctl(kubeconfig(), ['--watch', '--dry-run', '--chunk-size', '2', ...FAST, DISABLED, '-o', 'json'])
  try {
    await pvctl.line(/Caches are synced/)
    const pages = api.requests.filter((r) => r.verb === 'list' && r.resource === 'persistentvolumes')
    assert.equal(pages.length, 3, 'five volumes in pages of two')
    for (const page of pages) assert.equal(new URLSearchParams(page.query).get('limit'), '2')
  } finally {
    await pvctl.stop()
    await api.stop()
  }
})

test("a change made behind pvctl's back, which no watch delivers, is repaired at the next relist (--relist-period)", async () => {
  const {api, kubeconfig} = await cluster([
    volume('pv-a', {claimRef: {namespace: 'app', name: 'db', uid: 'uid-db'}, phase: 'Bound'}),
    claim('app', 'db', {uid: 'uid-db', volumeName: 'pv-a'}),
  ])
  // Every watch request hangs: pvctl learns of changes only from its LISTs.
  api.faults.add({verb: 'watch', effect: {type: 'latency', ms: 60_000}})
  const pvctl = new Pvctl(kubeconfig(), [
    '--watch',
    '--yes',
    '--resync',
    '1h',
    '--relist-period',
    '1s',
    ...FAST,
    DISABLED,
    '-v',
    '4',
  ])
  try {
    await pvctl.line(/Caches are synced/)
    assert.equal(binderWrites(api), 0, 'in sync: nothing to write')
    const pv = getVolume(api, 'pv-a')!
    api.update({...pv, status: {...pv.status, phase: 'Available'}} as never)
    await waitFor(
      'the relist to set the volume Bound again',
      () => getVolume(api, 'pv-a')?.status?.phase === 'Bound',
      10_000,
    )
    // The merge queues the volume before its LIST's last log line: the line may come after the repair.
    await waitFor(
      'a periodic LIST of volumes',
      () => pvctl.err.some((l) => /"Listed" resource="persistentvolumes" reason="relist-period"/.test(l)),
      5000,
    )
  } finally {
    await pvctl.stop()
    await api.stop()
  }
})

test("a resync syncs every claim and volume the caches hold, and lists nothing (the seed's resync)", async () => {
  // Claims no volume fits: each sync of one records FailedBinding, so each pass is counted by its Events.
  const PENDING = 5
  const pending = Array.from({length: PENDING}, (_, i) => claim('team-a', `big-${i}`, {storage: '100Gi'}))
  const {api, kubeconfig} = await cluster([volume('pv-small'), ...pending])
  const eventWrites = () =>
    api.requests.filter((r) => r.resource === 'events' && (r.verb === 'create' || r.verb === 'patch')).length
  const lists = () => api.requests.filter((r) => r.verb === 'list').length
  const pvctl = new Pvctl(kubeconfig(), ['--watch', '--yes', '--resync', '300ms', ...FAST, DISABLED, '-v', '4'])
  try {
    await pvctl.line(/Caches are synced/)
    const listed = lists()
    await waitFor('the start-up pass and two resyncs', () => eventWrites() >= 3 * PENDING, 10_000)
    assert.ok(pvctl.err.filter((l) => /"Resyncing PV controller"/.test(l)).length >= 2, 'two resyncs ran')
    assert.equal(lists(), listed, "no LIST after the start-up's")
  } finally {
    await pvctl.stop()
    await api.stop()
  }
})

for (const mode of ['close', 'reset'] as const) {
  test(`a watch the server ends (${mode}) is resumed from the last resourceVersion, and the event in between is not lost`, async () => {
    const {api, kubeconfig} = await cluster([volume('pv-a')])
    const pvctl = new Pvctl(kubeconfig(), ['--watch', '--yes', '--resync', '10m', ...FAST, DISABLED, '-v', '4'])
    try {
      await pvctl.line(/Caches are synced/)
      await watching(api, 5)
      const listsBefore = api.countRequests({verb: 'list', resource: 'pvc'})
      const watchesBefore = api.countRequests({verb: 'watch', resource: 'pvc'})
      // The next watch of claims is held for a second: the claim below is created while none is open.
      const held = api.faults.add({verb: 'watch', resource: 'pvc', count: 1, effect: {type: 'latency', ms: 1000}})
      assert.equal(api.endWatches(mode), 5, 'the five informers were watching')
      await waitFor('pvctl to ask to watch claims again', () => held.fired === 1, 3000)
      api.create(claim('team-a', 'late') as never)
      await waitFor(
        'the claim created between the watches to be bound',
        () => getClaim(api, 'team-a', 'late')?.status?.phase === 'Bound',
        8000,
      )
      assert.equal(api.countRequests({verb: 'list', resource: 'pvc'}), listsBefore, 'resumed, not relisted')
      assert.ok(api.countRequests({verb: 'watch', resource: 'pvc'}) > watchesBefore, 'watched again')
      const resumed = api.requests.filter((r) => r.verb === 'watch' && r.resource === 'persistentvolumeclaims').at(-1)!
      assert.notEqual(
        new URLSearchParams(resumed.query).get('resourceVersion'),
        '0',
        'from a resourceVersion, not from scratch',
      )
      assertOneToOne(api)
    } finally {
      await pvctl.stop()
      await api.stop()
    }
  })
}

test('a watch whose resourceVersion left the history (410 Gone) relists and goes on', async () => {
  const {api, kubeconfig} = await cluster([volume('pv-a'), volume('pv-b')])
  const pvctl = new Pvctl(kubeconfig(), ['--watch', '--yes', '--resync', '10m', ...FAST, DISABLED, '-v', '2'])
  try {
    await pvctl.line(/Caches are synced/)
    await watching(api, 5)
    api.create(claim('team-a', 'before-gone') as never)
    await waitFor(
      'the first claim to be bound',
      () => getClaim(api, 'team-a', 'before-gone')?.status?.phase === 'Bound',
      8000,
    )
    // Nothing that happened before now can be replayed: resuming from the last resourceVersion is 410.
    api.compact()
    api.endWatches('close')
    api.create(claim('team-a', 'after-gone') as never)
    await waitFor(
      'the claim to be bound after the relist',
      () => getClaim(api, 'team-a', 'after-gone')?.status?.phase === 'Bound',
      8000,
    )
    await pvctl.line(/Watch expired \(410 Gone\); relisting/)
  } finally {
    await pvctl.stop()
    await api.stop()
  }
})

test('SIGTERM: exits 0 and releases the lease', async () => {
  const {api, kubeconfig} = await cluster([volume('pv-a')])
  // kube-controller-manager's own lease timings: the test waits for no expiry, and a short renew deadline
  // (its request timeout is half of it) lets a loaded machine lose the lease before the SIGTERM comes.
  const pvctl = new Pvctl(kubeconfig(), [
    '--watch',
    '--yes',
    '--leader-elect',
    '--leader-elect-namespace',
    'pvctl-system',
    ...DEFAULT_LEASE,
    ...FAST,
    DISABLED,
  ])
  try {
    await pvctl.line(/Caches are synced/)
    assert.match(
      getLease(api, 'pvctl-system', 'pvctl')?.spec?.holderIdentity ?? '',
      /_[0-9a-f-]{36}$/,
      'hostname_uuid, as kube-controller-manager',
    )
    pvctl.kill('SIGTERM')
    // How long the syncs in flight may hold the exit is the loop's grace, a timer of its own; here, that it
    // exits at all (the test's timeout ends a pvctl that never does), cleanly, and gives the lease up.
    assert.equal(await pvctl.exited, 0, pvctl.err.join('\n'))
    const released = getLease(api, 'pvctl-system', 'pvctl')?.spec
    assert.equal(released?.holderIdentity ?? '', '', 'the holder is cleared')
    assert.equal(released?.leaseDurationSeconds, 1)
  } finally {
    await pvctl.stop()
    await api.stop()
  }
})

test('SIGTERM while the informers list (start-up): exits 0, and never says the caches are synced', async () => {
  const {api, kubeconfig} = await cluster([volume('pv-a')])
  let pvctl: Pvctl | undefined
  // The informer's list of volumes is answered only once pvctl has been signalled (its list then ends as it will).
  api.faults.add({
    verb: 'list',
    resource: 'pv',
    count: 1,
    effect: {
      type: 'hook',
      run: async () => {
        pvctl!.kill('SIGTERM')
        await pvctl!.line(/Stopped/).catch(() => {})
      },
    },
  })
  pvctl = new Pvctl(kubeconfig(), ['--watch', '--dry-run', ...FAST])
  try {
    assert.equal(await pvctl.exited, 0, pvctl.err.join('\n'))
    assert.ok(!pvctl.err.some((l) => /Caches are synced/.test(l)), pvctl.err.join('\n'))
    assert.ok(!pvctl.err.some((l) => /Synced/.test(l)), 'no sync starts')
  } finally {
    await pvctl.stop()
    await api.stop()
  }
})

test('SIGTERM in the middle of a burst of syncs (the start-up syncs every object) stops pvctl there, not once the queues are empty', async () => {
  // A sync that only plans awaits nothing: before the workers gave the event loop a turn between keys,
  // the signal (and the watches, and the lease's renewal) waited for all of them.
  // (The first syncs load modules, which lets the loop turn: SIGTERM is sent once the burst is under way.)
  const volumes = Array.from({length: 20_000}, (_, i) => volume(`pv-${String(i).padStart(5, '0')}`))
  const {api, kubeconfig} = await cluster(volumes)
  const pvctl = new Pvctl(kubeconfig(), ['--watch', '--dry-run', ...FAST, '-v', '4'])
  try {
    await pvctl.line(/Synced \(planned only\).*pv\/pv-01000/, {timeoutMs: 60_000})
    pvctl.kill('SIGTERM')
    assert.equal(await pvctl.exited, 0, pvctl.err.slice(-5).join('\n'))
    const synced = pvctl.err.filter((l) => l.includes('Synced (planned only)')).length
    process.stdout.write(`# syncs before SIGTERM was handled: ${synced} of ${volumes.length}\n`)
    assert.ok(synced < volumes.length / 2, `${synced} of ${volumes.length} syncs ran before SIGTERM was handled`)
  } finally {
    await pvctl.stop()
    await api.stop()
  }
})
