// bench/loop-sync.ts at smoke size: the emulator serves a generated cluster, and `pvctl sync --watch
// --dry-run` (the built CLI: `npm test` builds first) syncs every volume and claim once, as its /metrics
// count. No timing is judged here (`npx tsx bench/loop-sync.ts` measures at 10k, `npm run bench` at 100k).
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {benchLoopSync, describe} from '../../bench/loop-sync.js'

test('bench/loop-sync.ts, smoke size: loop mode syncs every object of the cluster once', async () => {
  const lines: string[] = []
  const r = await benchLoopSync({size: 300, log: (line) => lines.push(line)})
  assert.deepEqual([r.volumes, r.claims], [300, 300])
  assert.ok(Number.isFinite(r.seconds) && r.seconds > 0 && r.perSyncMs > 0, JSON.stringify(r))
  assert.match(lines.join('\n'), /emulator up: 300 volumes, 300 claims/)
  assert.match(describe(r), /^loop mode, every object synced once .* at 300 \+ 300: [\d.]+ s, [\d.]+ ms per sync; (fits|does NOT fit) in the 15 s resync period$/)
})
