// bench/loop-sync.ts at smoke size: the emulator serves a generated cluster, and `pvctl sync --watch
// --dry-run` (the built CLI: `npm test` builds first) syncs every volume and claim once, and again at its
// first resync, as its /metrics count. No timing is judged here (`npx tsx bench/loop-sync.ts` measures at 10k, `npm run bench` at 100k).
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {benchLoopSync, describe} from '../../bench/loop-sync.js'

test('bench/loop-sync.ts, smoke size: loop mode syncs every object of the cluster once at start-up and once at its resync', async () => {
  const lines: string[] = []
  const r = await benchLoopSync({size: 300, log: (line) => lines.push(line)})
  assert.deepEqual([r.volumes, r.claims], [300, 300])
  assert.ok(Number.isFinite(r.seconds) && r.seconds > 0 && r.perSyncMs > 0, JSON.stringify(r))
  assert.ok(r.resync !== undefined && r.resync.seconds > 0, 'the resync pass is timed too')
  assert.ok(r.resyncAfterQueuedSeconds !== undefined && r.resyncAfterQueuedSeconds >= 0 && r.resyncAfterQueuedSeconds <= r.resync.seconds, 'the part after its keys were queued is within it')
  assert.match(lines.join('\n'), /emulator up: 300 volumes, 300 claims/)
  const [summary, pass, rss] = describe(r).split('\n')
  assert.match(summary, /^loop mode, every object synced once .* at 300 \+ 300: start-up [\d.]+ s(, CPU [\d.]+ s)?, resync [\d.]+ s from its start \([\d.]+ s of it after its keys were queued\)(, CPU [\d.]+ s)?; [\d.]+ ms per sync; (fits|does NOT fit) in the 15 s resync period$/)
  assert.match(pass, /^target: loop full pass at 100000 \+ 100000 within 2.5 s: start-up [\d.]+ s, resync [\d.]+ s — not judged at 300 \+ 300$/)
  assert.match(rss, /^target: loop steady RSS under 1 GB: (\d+ MB after the resync \(\d+ MB after the start-up\) — (met|NOT met)|not measured — not judged without \/proc)$/)
})
