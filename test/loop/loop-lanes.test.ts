// The work queue's two lanes in loop mode (work-queue.ts): a claim created during a resync pass is synced
// before the pass ends, not behind every key of it. The pass is made long, not timed: each of its claim
// syncs records an Event (FailedBinding: no volume fits), and the emulator holds every Event write for a
// while. The assertions are on the order of the writes the emulator served.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {assertOneToOne, claim, cluster, FAST, getClaim, Pvctl, volume, waitFor} from './loop-harness.js'

const DISABLED = '--controllers=*,-persistentvolume-binder-controller'
const PENDING = 120

const eventWrites = (r: {verb: string; resource: string}) =>
  r.resource === 'events' && (r.verb === 'create' || r.verb === 'patch')

test('a claim created during a resync pass is bound before the pass ends (the event lane goes first)', async () => {
  // PENDING claims asking for more than any volume has: each sync of them records FailedBinding.
  const pending = Array.from({length: PENDING}, (_, i) =>
    claim('team-a', `big-${String(i).padStart(3, '0')}`, {storage: '100Gi'}),
  )
  const {api, kubeconfig} = await cluster([volume('pv-fits'), ...pending])
  api.faults.add({verb: ['create', 'patch'], resource: 'events', effect: {type: 'latency', ms: 25}})
  // The start-up pass (PENDING Events), then a resync pass (PENDING more): the claim is created in the second.
  const pvctl = new Pvctl(kubeconfig(), ['--watch', '--yes', '--resync', '4s', ...FAST, DISABLED])
  try {
    await pvctl.line(/Caches are synced/)
    await waitFor(
      'the resync pass to be under way',
      () => api.requests.filter(eventWrites).length >= PENDING + 5,
      30_000,
    )
    api.create(claim('team-a', 'new') as never)
    await waitFor('the new claim to be bound', () => getClaim(api, 'team-a', 'new')?.status?.phase === 'Bound', 30_000)
    await waitFor('the resync pass to end', () => api.requests.filter(eventWrites).length >= 2 * PENDING, 30_000)
    const served = api.requests
    const bind = served.findIndex(
      (r) => r.resource === 'persistentvolumeclaims' && r.name === 'new' && (r.verb === 'update' || r.verb === 'patch'),
    )
    assert.ok(bind >= 0, 'the claim was written')
    const passBefore = served.slice(0, bind).filter(eventWrites).length - PENDING
    const passAfter = served.slice(bind).filter(eventWrites).length
    // In one FIFO, the claim would wait behind every claim of the pass: passAfter would be 0.
    assert.ok(passAfter > PENDING / 2, `${passBefore} of the pass's syncs before the bind, ${passAfter} after`)
    assert.equal(getClaim(api, 'team-a', 'new')?.spec.volumeName, 'pv-fits')
    assertOneToOne(api)
  } finally {
    await pvctl.stop()
    await api.stop()
  }
})
