// bench/watch-latency.ts at smoke size: the emulator serves a small generated cluster at pvctl's fixpoint,
// `pvctl sync --watch --yes` resyncs it every second, and claims created during the passes are bound. No
// timing is judged here (`npm run bench` judges the 1 s target at 100k); only that every part runs and
// the target is printed beside its measure.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {benchWatchLatency, describeWatchLatency} from '../../bench/watch-latency.js'

test('bench/watch-latency.ts, smoke size: claims created during resync passes are bound, and the target is printed beside the measure', async () => {
  const lines: string[] = []
  const r = await benchWatchLatency({size: 200, trials: 3, resyncSeconds: 1, log: (line) => lines.push(line)})
  assert.match(lines.join('\n'), /emulator up: \d+ volumes, \d+ claims/)
  assert.ok(r.passes >= 2 && r.created >= 1, JSON.stringify(r))
  assert.ok(Number.isFinite(r.stallMaxMs), 'the CLI reported its event-loop stalls')
  const [measure, target] = describeWatchLatency(r)
  assert.match(measure, /^watch latency at \d+ \+ \d+: \d+ claims created during \d+ resync passes/)
  assert.match(target, /^target: a claim created during a resync pass at \d+ \+ \d+ bound within 1 s at p99: (\d+|NaN) ms over \d+ trials — (met|NOT met)$/)
})
