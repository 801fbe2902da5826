// The benchmark at smoke size (1k volumes and 1k claims), end to end: the generator, the in-process
// measurement of the built code, the CLI with its peak RSS, audit beside the sync of its run, and the
// indexed engine beside the literal scan. No timing is judged here (`npm run bench` does that at full
// size); only that every part runs, the plan reaches its fixpoint and both engines plan the same thing.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {auditTargets, runBench, singleFileTarget, syncTargets, table} from '../../bench/bench.js'

test('npm run bench, smoke size: every measurement runs and both engines agree', async () => {
  const lines: string[] = []
  const result = await runBench({sizes: [1000], referenceSize: 1000, judge: false, log: (line) => lines.push(line)})
  assert.equal(result.sizes.length, 1)
  const [row] = result.sizes
  assert.equal(row.volumes, 1000)
  assert.equal(row.claims, 1000)
  assert.equal(row.converged, true)
  assert.ok(row.rounds >= 2 && row.actions > 0, JSON.stringify(row))
  for (const field of [
    'load',
    'plan',
    'render',
    'floor',
    'strictFloor',
    'strictFloorParse',
    'strictFloorStringify',
    'cli',
    'cliMaxRssMB',
    'inputMB',
    'outputMB',
    'audit',
    'auditMaxRssMB',
    'auditRatio',
    'explain',
    'explainMaxRssMB',
  ] as const) {
    assert.ok(Number.isFinite(row[field]) && row[field] > 0, `${field}: ${row[field]}`)
  }
  // The report went out in pieces, none of them the whole (what lets a report past 512 MiB print).
  assert.ok(row.outputChunks > 1, `${row.outputChunks} chunks`)
  assert.equal(result.reference?.identical, true, 'the indexed engine and the scan planned the same')
  assert.ok(
    result.help > 0 && result.nodeStartup > 0 && result.nodeStartup < result.help,
    `${result.nodeStartup} of ${result.help}`,
  )
  assert.match(table(result), /\| 1,000 \+ 1,000 \|/)
  assert.match(table(result), /`pvctl audit -f … -o json`/)
  assert.match(table(result), /\| strict floor \|.*\| ÷ strict floor \|/)
  // Judged at 100k and more only; at any size each target is printed beside its measure.
  const [ratio, rss, ...more] = auditTargets(row)
  assert.match(
    ratio,
    /^target: audit at 1000 \+ 1000 within 1\.3× of sync --dry-run in the same run: \d+\.\d\d× — (met|NOT met)$/,
  )
  assert.match(rss, /^target: audit at 1000 \+ 1000 under 1\.5 GB peak RSS: \d+ MB — (met|NOT met)$/)
  assert.deepEqual(more, [])
  const [syncRatio, syncRss, ...moreSync] = syncTargets(row)
  assert.match(
    syncRatio,
    /^target: sync --dry-run -o json at 1000 \+ 1000 within 2\.5× of the strict floor: \d+\.\d\d s ÷ \d+\.\d\d s = \d+\.\d\d× — (met|NOT met)$/,
  )
  assert.match(syncRss, /^target: sync at 1000 \+ 1000 under 1 GB peak RSS: \d+ MB — (met|NOT met)$/)
  assert.deepEqual(moreSync, [])
  assert.ok(lines.some((l) => l.startsWith('machine: ')))
  // The single file's start-up: measured when `npm run release` made one for this machine, said either way.
  assert.ok(
    lines.some((l) => l.startsWith('pvctl --help, single file')),
    lines.join('\n'),
  )
  assert.equal(
    singleFileTarget({executable: 'release/linux-amd64/pvctl', node: '26.12.1', help: 0.33, npmHelp: 0.2}),
    "target: the single file's --help within 1.5× of the npm install's: 330 ms ÷ 200 ms = 1.65× — NOT met",
  )
  // What fresh memory costs the machine: a page's first write dearer than writing it again.
  const {firstTouchUs, againUs} = result.freshMemory
  assert.ok(
    Number.isFinite(firstTouchUs) && Number.isFinite(againUs) && firstTouchUs > againUs && againUs >= 0,
    JSON.stringify(result.freshMemory),
  )
  assert.ok(
    lines.some((l) =>
      /^fresh memory: [\d.]+ µs per 4 KiB page at its first write \([\d.]+ s per GiB\), [\d.]+ µs written again$/.test(
        l,
      ),
    ),
    lines.join('\n'),
  )
})
