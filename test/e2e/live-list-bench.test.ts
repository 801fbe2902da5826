// bench/live-list.ts at smoke size: the emulator child, a live load and a file load each in its own
// process, on the built code (`npm run test:e2e` builds first). No timing is judged here (`npx tsx
// bench/live-list.ts` does that at 100k): only that both sides load every volume the emulator serves.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {benchLiveList} from '../../bench/live-list.js'

test('bench/live-list.ts, smoke size: both sides load every volume, paginated', async () => {
  const lines: string[] = []
  const r = await benchLiveList({
    volumes: 600,
    runs: 1,
    flow: {chunkSize: 100, qps: 5, burst: 10},
    log: (line) => lines.push(line),
  })
  assert.equal(r.volumes, 600)
  for (const field of ['live', 'file', 'ratio', 'fileMB'] as const)
    assert.ok(Number.isFinite(r[field]) && r[field] > 0, `${field}: ${r[field]}`)
  assert.match(lines.join('\n'), /run 1: live [\d.]+ s \(6 pages, /)
})
