// bench/loop-sync.ts at smoke size: the emulator serves a generated cluster, and `pvctl sync --watch
// --dry-run` (the built CLI: `npm run test:e2e` builds first) syncs every volume and claim once, and again at its
// first resync, as its /metrics count. No timing is judged here (`npx tsx bench/loop-sync.ts` measures at 10k, `npm run bench` at 100k).
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {
  benchLoopSync,
  describe,
  describeBesideOneShot,
  describeRuns,
  judgeLoopSync,
  medianOf,
  type LoopSyncResult,
} from '../../bench/loop-sync.js'

test('bench/loop-sync.ts, smoke size: loop mode syncs every object of the cluster once at start-up and once at its resync', async () => {
  const lines: string[] = []
  const r = await benchLoopSync({size: 300, log: (line) => lines.push(line)})
  assert.deepEqual([r.volumes, r.claims], [300, 300])
  assert.ok(Number.isFinite(r.seconds) && r.seconds > 0 && r.perSyncMs > 0, JSON.stringify(r))
  assert.ok(
    Number.isFinite(r.strictFloor) && r.strictFloor > 0,
    'the strict floor of the same cluster is measured in the run',
  )
  assert.ok(r.resync !== undefined && r.resync.seconds > 0, 'the resync pass is timed too')
  assert.ok(
    r.resyncAfterQueuedSeconds !== undefined &&
      r.resyncAfterQueuedSeconds >= 0 &&
      r.resyncAfterQueuedSeconds <= r.resync.seconds,
    'the part after its keys were queued is within it',
  )
  assert.match(lines.join('\n'), /emulator up: 300 volumes, 300 claims/)
  const [summary, pass, rss] = describe(r).split('\n')
  assert.match(
    summary,
    /^loop mode, every object synced once .* at 300 \+ 300: start-up [\d.]+ s(, CPU [\d.]+ s)?, resync [\d.]+ s from its start \([\d.]+ s of it after its keys were queued\)(, CPU [\d.]+ s)?; [\d.]+ ms per sync; (fits|does NOT fit) in the 15 s resync period$/,
  )
  assert.match(
    pass,
    /^target: loop full pass at 100000 \+ 100000 within 1.5× the strict floor of the same run \([\d.]+ s: at most [\d.]+ s\): start-up [\d.]+ s = [\d.]+×, resync [\d.]+ s = [\d.]+× — not judged at 300 \+ 300$/,
  )
  assert.match(
    rss,
    /^target: loop steady RSS under 1 GB: (\d+ MB after the resync \(\d+ MB after the start-up\) — (met|NOT met)|not measured — not judged without \/proc)$/,
  )
})

/** A run of `size` + `size` with these passes: CPU a little above the wall time, the RSS after the start-up 1 MB below. */
const run = (startup: number, resync: number | undefined, rss = 600, strictFloor = 2, size = 10): LoopSyncResult => ({
  volumes: size,
  claims: size,
  startup: {seconds: startup, cpuSeconds: startup + 0.5},
  resync: resync === undefined ? undefined : {seconds: resync, cpuSeconds: resync + 0.25},
  resyncAfterQueuedSeconds: resync === undefined ? undefined : resync / 10,
  rssMb: rss,
  startupRssMb: rss - 1,
  seconds: startup,
  perSyncMs: startup * 50,
  strictFloor,
})

test("bench/loop-sync.ts medianOf: each pass the median of the runs (with its own run's CPU), the RSS the highest", async (t) => {
  const cases: Array<{
    name: string
    runs: LoopSyncResult[]
    startup: number
    startupCpu: number
    resync: number | undefined
    resyncCpu: number | undefined
    rss: number
    strictFloor: number
  }> = [
    {
      name: 'one run',
      runs: [run(3, 1, 600)],
      startup: 3,
      startupCpu: 3.5,
      resync: 1,
      resyncCpu: 1.25,
      rss: 600,
      strictFloor: 2,
    },
    {
      name: 'three runs: the passes and the floor come from different runs',
      runs: [run(4, 1, 600, 5), run(2, 3, 650, 7), run(3, 2, 620, 6.5)],
      startup: 3,
      startupCpu: 3.5,
      resync: 2,
      resyncCpu: 2.25,
      rss: 650,
      strictFloor: 6.5,
    },
    {
      name: 'two runs: the lower',
      runs: [run(4, 2, 600, 3), run(2, 1, 610, 4)],
      startup: 2,
      startupCpu: 2.5,
      resync: 1,
      resyncCpu: 1.25,
      rss: 610,
      strictFloor: 3,
    },
    {
      name: 'a run without its resync: the median of those that have one',
      runs: [run(2, undefined, 600), run(3, 5, 600), run(4, 1, 700)],
      startup: 3,
      startupCpu: 3.5,
      resync: 1,
      resyncCpu: 1.25,
      rss: 700,
      strictFloor: 2,
    },
    {
      name: 'no resync measured',
      runs: [run(2, undefined, 600)],
      startup: 2,
      startupCpu: 2.5,
      resync: undefined,
      resyncCpu: undefined,
      rss: 600,
      strictFloor: 2,
    },
  ]
  for (const c of cases) {
    await t.test(c.name, () => {
      const m = medianOf(c.runs)
      assert.deepEqual([m.startup.seconds, m.startup.cpuSeconds, m.seconds], [c.startup, c.startupCpu, c.startup])
      assert.deepEqual(
        [m.resync?.seconds, m.resync?.cpuSeconds, m.resyncAfterQueuedSeconds],
        [c.resync, c.resyncCpu, c.resync === undefined ? undefined : c.resync / 10],
      )
      assert.deepEqual([m.rssMb, m.startupRssMb], [c.rss, c.rss - 1])
      assert.equal(m.strictFloor, c.strictFloor)
      const lines = describeRuns(c.runs).split('\n')
      assert.equal(lines.length, c.runs.length === 1 ? 3 : c.runs.length + 4)
    })
  }
  assert.throws(() => medianOf([]), /no run/)
})

test("bench/loop-sync.ts judgeLoopSync: both passes within 1.5× the strict floor of the run, at the target's size only", async (t) => {
  const cases: Array<{
    name: string
    run: LoopSyncResult
    pass: boolean | undefined
    rss: boolean | undefined
    verdict: RegExp
  }> = [
    {
      name: 'both passes under the limit',
      run: run(4.4, 1.0, 650, 6.9, 100_000),
      pass: true,
      rss: true,
      verdict: /\(6\.90 s: at most 10\.35 s\): start-up 4\.40 s = 0\.64×, resync 1\.00 s = 0\.14× — met$/,
    },
    {
      name: 'the start-up pass at the limit',
      run: run(3, 1, 650, 2, 100_000),
      pass: true,
      rss: true,
      verdict: /start-up 3\.00 s = 1\.50×, resync 1\.00 s = 0\.50× — met$/,
    },
    {
      name: 'the start-up pass over it',
      run: run(3.1, 1, 650, 2, 100_000),
      pass: false,
      rss: true,
      verdict: /start-up 3\.10 s = 1\.55×.* — NOT met$/,
    },
    {
      name: 'the resync over it',
      run: run(1, 3.5, 650, 2, 100_000),
      pass: false,
      rss: true,
      verdict: /resync 3\.50 s = 1\.75× — NOT met$/,
    },
    {
      name: 'no resync measured: not met',
      run: run(1, undefined, 650, 2, 100_000),
      pass: false,
      rss: true,
      verdict: /resync not measured — NOT met$/,
    },
    {
      name: 'another size: not judged',
      run: run(1, 1, 650, 2, 10_000),
      pass: undefined,
      rss: true,
      verdict: /— not judged at 10000 \+ 10000$/,
    },
    {name: 'the RSS at 1 GB: not met', run: run(1, 1, 1024, 2, 100_000), pass: true, rss: false, verdict: /— met$/},
    {
      name: 'no RSS (no /proc): not judged',
      run: {...run(1, 1, 600, 2, 100_000), rssMb: undefined, startupRssMb: undefined},
      pass: true,
      rss: undefined,
      verdict: /— met$/,
    },
  ]
  for (const c of cases) {
    await t.test(c.name, () => {
      assert.deepEqual(judgeLoopSync(c.run), {pass: c.pass, rss: c.rss})
      const [, pass, rss] = describe(c.run).split('\n')
      assert.match(pass, c.verdict)
      assert.match(rss, c.rss === undefined ? /— not judged without \/proc$/ : c.rss ? /— met$/ : /— NOT met$/)
    })
  }
})

test('bench/loop-sync.ts describeBesideOneShot: each pass as a ratio to the plan of the same run', async (t) => {
  const head = "loop mode beside the one-shot sync's plan of this run at 10 + 10"
  const cases: Array<{name: string; run: LoopSyncResult; plan: number; line: string}> = [
    {
      name: 'start-up and resync',
      run: run(3, 1),
      plan: 1.5,
      line: `${head} (1.50 s): start-up 3.00 s = 2.00× the plan; resync 1.00 s = 0.67× the plan`,
    },
    {
      name: 'no resync measured',
      run: run(2.77, undefined),
      plan: 2.2,
      line: `${head} (2.20 s): start-up 2.77 s = 1.26× the plan`,
    },
  ]
  for (const c of cases) {
    await t.test(c.name, () => assert.equal(describeBesideOneShot(c.run, {plan: c.plan}), c.line))
  }
})
