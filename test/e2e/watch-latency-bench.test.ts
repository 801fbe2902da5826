// bench/watch-latency.ts at smoke size: the emulator, in its own process, serves a small cluster at
// pvctl's fixpoint, `pvctl sync --watch --yes` resyncs it (or, with --relist-period, lists it again) every
// second, and claims created during the passes are bound. No
// timing is judged here (`npm run bench` judges the 1 s target at 100k); only that every part runs and
// the target is printed beside its measure.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {benchWatchLatency, describeWatchLatency} from '../../bench/watch-latency.js'

for (const pass of ['resync', 'relist'] as const) {
  test(`bench/watch-latency.ts, smoke size: claims created during ${pass} passes are bound, and the target is printed beside the measure`, async () => {
    const lines: string[] = []
    const r = await benchWatchLatency({
      size: 200,
      trials: 3,
      resyncSeconds: 1,
      relist: pass === 'relist',
      log: (line) => lines.push(line),
    })
    assert.match(lines.join('\n'), /emulator up \(its own process\): \d+ volumes, \d+ claims/)
    assert.ok(r.pass === pass && r.passes >= 2 && r.created >= 1, JSON.stringify(r))
    assert.ok(Number.isFinite(r.stallMaxMs), 'the CLI reported its event-loop stalls')
    const [measure, parts, cli, target] = describeWatchLatency(r)
    assert.match(measure, new RegExp(`^watch latency at \\d+ \\+ \\d+: \\d+ claims created during \\d+ ${pass} passes`))
    assert.match(
      parts,
      /^ {2}parts \(medians, from the claim's creation\): its volume's write arrives (\d+|NaN) ms, its own (\d+|NaN) ms, both held (\d+|NaN) ms$/,
    )
    assert.match(cli, /^ {2}pvctl: CPU [\d.]+ s over the timed passes; longest event-loop stall \d+ ms/)
    assert.match(
      target,
      /^target: watch latency at 200 \+ 200, p99 within 1 s over ≥50 trials: (\d+|NaN) ms over \d+ trials — NOT met$/,
      'fewer than 50 trials never meet the target',
    )
  })
}
