// bench/live-oneshot.ts at smoke size: the emulator child serving a generated cluster, and the built CLI's
// sync --dry-run -o json and audit -o json run against it and against the same objects as a file. No
// timing is judged here (`npx tsx bench/live-oneshot.ts` does that at 100k): only that each ratio is a
// measure and that the live reports are the file's, but for the lines naming the source.
import assert from 'node:assert/strict'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {test} from 'node:test'

import {benchLiveOneshot, compareReports, describeLiveOneshot} from '../../bench/live-oneshot.js'

test('bench/live-oneshot.ts, smoke size: live sync and audit report what the file does', async () => {
  const lines: string[] = []
  const r = await benchLiveOneshot({size: 300, runs: 1, log: (line) => lines.push(line)})
  assert.equal(r.volumes, 300)
  assert.deepEqual(
    r.commands.map((c) => c.command),
    ['sync', 'audit'],
  )
  for (const c of r.commands) {
    for (const [what, x] of Object.entries({
      ratio: c.ratio,
      live: c.live.seconds,
      file: c.file.seconds,
      rss: c.live.maxRssMB,
    }))
      assert.ok(Number.isFinite(x) && x > 0, `${c.command} ${what}: ${x}`)
    assert.ok(c.comparison.lines > 100, `${c.command}: ${c.comparison.lines} lines`)
    assert.equal(c.comparison.differingBeyondSource, 0, `${c.command}: ${JSON.stringify(c.comparison.firstDifference)}`)
  }
  // The plan names no source; audit's fix commands do (`pvctl explain … --kubeconfig K` or `-f FILE`).
  assert.equal(r.commands[0]!.comparison.differing, 0)
  assert.ok(r.commands[1]!.comparison.differing > 0)
  const report = describeLiveOneshot(r)
  assert.match(
    report.join('\n'),
    /^target: live sync --dry-run -o json at 300 \+ 300 within 1\.5× of the file: [\d.]+ s ÷ [\d.]+ s = [\d.]+× — (met|NOT met)$/m,
  )
  assert.match(report.join('\n'), /^target: live audit -o json at 300 \+ 300 within 1\.5× of the file: /m)
})

test('compareReports: a line differing beyond its source is counted and shown', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pvctl-compare-'))
  try {
    const [a, b] = [path.join(dir, 'a'), path.join(dir, 'b')]
    writeFileSync(a, 'same\nfix: pvctl explain --kubeconfig K\nphase: Bound\n')
    writeFileSync(b, 'same\nfix: pvctl explain -f F\nphase: Pending\nextra\n')
    const k = await compareReports(a, b, '--kubeconfig K', '-f F')
    assert.deepEqual(k, {
      lines: 4,
      differing: 3,
      differingBeyondSource: 2,
      firstDifference: {line: 3, live: 'phase: Bound', file: 'phase: Pending'},
    })
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
})
