// Mutated snapshots, a few hundred of them: whatever the mutation, reading, planning and rendering a
// snapshot either succeeds (sync and explain alike) or fails with pvctl's own input error (exit 2, one
// line) — never an internal error, never a crash. In-process, through the loader, planner and renderers the
// CLI uses, so that hundreds of cases stay quick; a sample goes through the built CLI too, for the exit
// status, the one `error:` line and the empty stdout.
import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import fc from 'fast-check'
import {parse} from 'yaml'

import {explainState} from '../../src/engine/repair/explain-state.js'
import {planSync} from '../../src/engine/simulation/plan-sync.js'
import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {withSimulatedClaimUids} from '../../src/cluster/simulated-uids.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import {ExitCode, PvctlError} from '../../src/errors.js'
import {plain} from '../../src/render/color.js'
import {explainTextChunks} from '../../src/render/explain-doc.js'
import {reportJsonChunks} from '../../src/render/report-doc.js'
import {renderSyncTable} from '../../src/render/sync-table.js'
import {runCli} from './run-cli.js'
import {tempDir} from '../temp-dir.js'

const RUNS = Number(process.env.PVCTL_FUZZ_RUNS ?? 300)
const dir = tempDir('fuzz')
const example = parse(readFileSync('examples/cluster.yaml', 'utf8')) as {items: unknown[]}

type Path = Array<string | number>

/** Every path to a value in the example's objects. */
function paths(value: unknown, at: Path = [], out: Path[] = []): Path[] {
  out.push(at)
  if (Array.isArray(value)) value.forEach((v, i) => paths(v, [...at, i], out))
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) paths(v, [...at, k], out)
  return out
}
const ALL_PATHS = paths(example.items).filter((p) => p.length > 0)

/** Values a broken snapshot holds where a good one holds something else. */
const badValue = fc.oneof(
  fc.constantFrom(
    null,
    '',
    '-1',
    '-5Gi',
    'Gi',
    '.',
    '+',
    0,
    -10,
    true,
    [],
    {},
    'Bound',
    'x'.repeat(300),
    '1e999',
    'ReadWriteOnce',
    '9'.repeat(40),
  ),
  fc.string({maxLength: 12}),
  fc.integer(),
  fc.double(),
  fc.array(fc.string({maxLength: 4}), {maxLength: 3}),
  fc.dictionary(fc.string({maxLength: 6}), fc.string({maxLength: 6}), {maxKeys: 3}),
  // Nesting, built only when applied (a counterexample of thousands of levels cannot be printed).
  fc.integer({min: 1, max: 2_000}).map((depth) => ({[DEEP]: depth})),
)
const DEEP = '__nestedArraysOfDepth'

type Mutation = {kind: 'set' | 'delete'; path: Path; value?: unknown}
const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom<'set' | 'delete'>('set', 'set', 'delete'),
  path: fc.constantFrom(...ALL_PATHS),
  value: badValue,
})

/** Applies a mutation in place (a copy per mutation would clone the deep values the mutations make). */
function mutate(copy: unknown[], m: Mutation): unknown[] {
  let parent: Record<string | number, unknown> = copy as unknown as Record<number, unknown>
  for (const key of m.path.slice(0, -1)) {
    const next = parent[key]
    // An earlier mutation replaced what this path went through: nothing to change.
    if (next === null || typeof next !== 'object') return copy
    parent = next as Record<string | number, unknown>
  }
  const last = m.path[m.path.length - 1]
  if (m.kind === 'delete') {
    if (Array.isArray(parent)) parent.splice(Number(last), 1)
    else delete parent[last]
  } else {
    const depth = (m.value as Record<string, unknown> | null)?.[DEEP]
    parent[last] = typeof depth === 'number' ? JSON.parse('['.repeat(depth) + ']'.repeat(depth)) : m.value
  }
  return copy
}

/** Everything `sync --dry-run -o json|table` and `explain -o text` do with a snapshot, in-process. */
async function readPlanRender(file: string): Promise<void> {
  const snapshot = await loadSnapshot([file])
  const {state} = withSimulatedClaimUids(snapshot.state)
  const report = planSync(state, {gates: defaultFeatureGates, dryRun: true})
  for (const chunk of reportJsonChunks(report)) assert.equal(typeof chunk, 'string')
  renderSyncTable(report, {wide: true, palette: plain})
  const {document} = explainState(state, {gates: defaultFeatureGates, onlyRelevant: false})
  for (const chunk of explainTextChunks(document, plain)) assert.equal(typeof chunk, 'string')
}

test(`${RUNS} mutated snapshots: each is read, planned and rendered, or refused as input (exit 2), never an internal error`, async () => {
  let refused = 0
  let n = 0
  await fc.assert(
    fc.asyncProperty(fc.array(mutation, {minLength: 1, maxLength: 3}), async (ms) => {
      let items = structuredClone(example.items)
      for (const m of ms) items = mutate(items, m)
      const file = path.join(dir, `case-${n++ % 8}.json`)
      writeFileSync(file, JSON.stringify({...example, items}))
      try {
        await readPlanRender(file)
      } catch (err) {
        // pvctl's own error, mapped to exit 2 with a one-line message; anything else is a bug.
        assert.ok(
          err instanceof PvctlError,
          `not an input error: ${(err as Error).stack}\nmutations: ${JSON.stringify(ms).slice(0, 500)}`,
        )
        assert.equal(err.exitCode, ExitCode.Usage, err.message)
        assert.ok(!err.message.includes('\n') && err.message.length < 2_000, err.message.slice(0, 300))
        refused++
      }
    }),
    {
      numRuns: RUNS,
      seed: Number(process.env.PVCTL_FUZZ_SEED ?? 20261201),
      verbose: Number(process.env.PVCTL_FUZZ_VERBOSE ?? 0),
    },
  )
  // The mutations reach both sides: some snapshots still read, some are refused.
  assert.ok(refused > 0 && refused < RUNS, `${refused} of ${RUNS} refused`)
})

test('a sample of them through the built CLI, sync and explain alike: exit 0/1 with a document, or exit 2 with one error line and empty stdout', async () => {
  const samples = fc.sample(fc.array(mutation, {minLength: 1, maxLength: 2}), {numRuns: 12, seed: 7})
  for (const [i, ms] of samples.entries()) {
    let items = structuredClone(example.items)
    for (const m of ms) items = mutate(items, m)
    const file = path.join(dir, `cli-${i}.json`)
    writeFileSync(file, JSON.stringify({...example, items}))
    const sync = await runCli(['sync', '--dry-run', '-f', file, '-o', 'json'])
    const explain = await runCli(['explain', '-f', file, '-o', 'json'])
    for (const [name, run] of [
      ['sync', sync],
      ['explain', explain],
    ] as const) {
      assert.doesNotMatch(run.stderr, /internal error/, `${name}: ${run.stderr}`)
      if (run.code === 2) {
        assert.equal(run.stdout, '', `${name}: a failing run writes nothing to stdout`)
        assert.equal(run.stderr.split('\n').filter((l) => l.startsWith('error: ')).length, 1, run.stderr)
      } else {
        assert.ok(run.code === 0 || run.code === 1, `${name} exit ${run.code}: ${run.stderr}`)
        JSON.parse(run.stdout)
      }
    }
    assert.equal(
      sync.code === 2,
      explain.code === 2,
      `sync and explain agree on whether ${file} is readable: ${sync.stderr} | ${explain.stderr}`,
    )
  }
})
