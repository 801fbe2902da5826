// runPodToCompletion and the run's abort signal: waiting stops at once, the pod is left for a re-run
// to adopt; a pod that finished is reported finished and cleaned up, signal or not.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import type {Pod} from '../../src/engine/api/model.js'
import {PodRunInterrupted, runPodToCompletion} from '../../src/volume-plugins/pod-runner.js'
import {FakeWorkloadApi} from './fake-workload.js'

const pod: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {name: 'recycler-for-v', namespace: 'default'},
  spec: {containers: []} as unknown as Pod['spec'],
}
const created = 'create pod/default/recycler-for-v'
const deleted = 'delete pod/default/recycler-for-v'

const rows: Array<{
  name: string
  /** When the signal aborts: before the run, as the n-th read of the pod returns, or during a sleep between polls. */
  abort: 'before' | {read: number} | 'sleeping'
  /** The pod's phase from the read after the first on. */
  phase: string
  want: {result?: string; interrupted?: {left: boolean}; calls: string[]}
}> = [
  {
    name: 'aborted before the run: no pod is made',
    abort: 'before',
    phase: 'Running',
    want: {interrupted: {left: false}, calls: []},
  },
  {
    name: 'aborted as a read says Running: the pod is left',
    abort: {read: 2},
    phase: 'Running',
    want: {interrupted: {left: true}, calls: [created]},
  },
  {
    name: 'aborted during the sleep between polls: the pod is left',
    abort: 'sleeping',
    phase: 'Running',
    want: {interrupted: {left: true}, calls: [created]},
  },
  {
    name: 'the pod finished as the signal came: finished, and cleaned up',
    abort: {read: 2},
    phase: 'Succeeded',
    want: {result: undefined, calls: [created, deleted]},
  },
  {
    name: 'the pod failed as the signal came: failed, and cleaned up',
    abort: {read: 2},
    phase: 'Failed',
    want: {result: 'pod default/recycler-for-v failed', calls: [created, deleted]},
  },
]

for (const row of rows) {
  test(`runPodToCompletion: ${row.name}`, async () => {
    const api = new FakeWorkloadApi()
    const abort = new AbortController()
    if (row.abort === 'before') abort.abort()
    else if (row.abort !== 'sleeping') {
      const at = row.abort.read
      api.afterRead = (p, reads) => {
        // A read returns the pod as it was before this hook: the next read sees the new phase.
        p.status = {phase: row.phase}
        if (reads === at - 1) return
        else if (reads === at) abort.abort()
        else assert.fail(`read ${reads} after the abort at read ${at}`)
      }
    } else {
      // Aborted while sleeping, with every read Running.
    }
    // Polls at once, except when sleeping is when the signal comes: then the sleep never ends, as a
    // half-hour deadline does not for a person at the terminal. Only the signal ends the wait.
    const sleep = () => {
      if (row.abort === 'sleeping') {
        setImmediate(() => abort.abort())
        return new Promise<void>(() => {})
      } else {
        return Promise.resolve()
      }
    }
    let result: string | undefined
    let interrupted: PodRunInterrupted | undefined
    try {
      result = await runPodToCompletion(api, pod, {timeoutMs: 1_800_000, sleep, signal: abort.signal})
    } catch (err) {
      if (err instanceof PodRunInterrupted) interrupted = err
      else throw err
    }
    if (row.want.interrupted !== undefined) {
      assert.equal(interrupted?.left, row.want.interrupted.left)
      assert.equal(api.pods.has('default/recycler-for-v'), row.want.interrupted.left)
    } else {
      assert.equal(interrupted, undefined)
      assert.equal(result, row.want.result)
    }
    assert.deepEqual(api.calls, row.want.calls)
  })
}
