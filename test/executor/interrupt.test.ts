// Ctrl-C during a plugin operation: the executor stops waiting for the plugin's pod at once (its
// deadline can be half an hour away), reports the operation as not executed, leaves the pod running,
// and a re-run adopts the pod and finishes the job.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import {executeSync} from '../../src/executor/executor.js'
import {LiveVolumePlugins} from '../../src/volume-plugins/live-plugins.js'
import {pv, state} from '../engine/builders.js'
import {FakeWorkloadApi} from '../volume-plugins/fake-workload.js'
import {FakeClusterApi} from './fake-api.js'

const opts = {
  gates: defaultFeatureGates,
  maxRounds: 100,
  concurrency: 4,
  events: true,
  destructive: true,
  now: () => new Date('2026-11-30T10:00:00Z'),
}

// `after`: the workload calls of the controller's follow-up once the pod succeeded.
const rows: Array<{name: string; policy: 'Recycle' | 'Delete'; pod: string; after: string[]}> = [
  {name: 'recycle', policy: 'Recycle', pod: 'default/recycler-for-v', after: []},
  {name: 'delete', policy: 'Delete', pod: 'default/deleter-for-v', after: ['delete pv/v']},
]

for (const row of rows) {
  test(`interrupted ${row.name}: not executed, the pod left running, adopted by the re-run`, async () => {
    // OBSERVATION: pv is "Bound" to a claim that was deleted; its host-path directory is under /tmp.
    const api = new FakeClusterApi(
      state({
        volumes: [
          pv('v', {
            phase: 'Bound',
            policy: row.policy,
            claim: {name: 'gone', uid: 'u-gone'},
            source: {hostPath: {path: '/tmp/v'}},
          }),
        ],
      }),
    )
    const workload = new FakeWorkloadApi()
    const plugins = new LiveVolumePlugins(workload, {pollMs: 1})
    const abort = new AbortController()
    workload.afterRead = (pod, reads) => {
      // Ctrl-C while the pod runs. Without the signal the executor would poll on, until the pod
      // finished (here, at the 20th read; in a cluster, at its deadline).
      if (reads === 1) abort.abort()
      else if (reads >= 20) pod.status = {phase: 'Succeeded'}
      else pod.status = {phase: 'Running'}
    }
    const r = await executeSync(api, api.snapshot(), {...opts, plugins, workload, signal: abort.signal})
    assert.equal(r.aborted, true)
    const op = r.actions.find((a) => a.action === row.policy.toLowerCase())
    assert.match(op?.outcome ?? '', new RegExp(`^not-executed: interrupted: pod ${row.pod} is left running`))
    assert.equal(r.failed, false)
    assert.ok(workload.pods.has(row.pod), 'the pod is left for the re-run')
    assert.deepEqual(workload.calls, [`create pod/${row.pod}`])
    assert.deepEqual(
      r.events.filter((e) => /Failed/.test(e.reason)),
      [],
      'an interruption is no failure of the operation',
    )
    assert.equal(api.volumes.get('v')?.status?.phase, 'Released')

    // The re-run: the same pod name, AlreadyExists, watched to its end, then cleaned up.
    workload.afterRead = (pod) => void (pod.status = {phase: 'Succeeded'})
    const again = await executeSync(api, api.snapshot(), {...opts, plugins, workload})
    assert.equal(again.aborted, false)
    assert.equal(again.failed, false)
    assert.equal(again.actions.find((a) => a.action === row.policy.toLowerCase())?.outcome, 'executed')
    assert.deepEqual(workload.calls, [
      `create pod/${row.pod}`,
      `create pod/${row.pod}`,
      `delete pod/${row.pod}`,
      ...row.after,
    ])
    assert.equal(workload.pods.size, 0)
  })
}
