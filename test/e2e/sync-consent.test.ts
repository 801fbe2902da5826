// What the operator consents to, sees and is told: the question names every write and operation and
// the writes that follow them, the final line holds the run to it, a pod being waited for is shown, an
// interrupted run reports what it did (exit 130), and the plan is shown where the question is asked.
import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {consentQuestion} from '../../src/app/sync-live.js'
import {planSync} from '../../src/engine/simulation/plan-sync.js'
import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import {bin, cleanEnv, runCli} from '../cli/run-cli.js'
import {type Emulator, startEmulator} from '../emulator/emulator.js'
import {kubelet} from './kubelet.js'
import {tempDir} from '../temp-dir.js'
import {skipWithout} from '../tools.js'

const dir = tempDir('consent')
const {state: example} = await loadSnapshot('examples/cluster.yaml')

async function cluster(): Promise<{api: Emulator; kubeconfig: string}> {
  const api = await startEmulator({
    tls: true,
    listItemTypeMeta: false,
    objects: structuredClone([
      ...example.classes,
      ...example.volumes,
      ...example.claims,
      ...example.pods,
      ...example.nodes,
    ]) as never,
  })
  const kubeconfig = path.join(dir, `kubeconfig-${api.port}.yaml`)
  writeFileSync(kubeconfig, api.kubeconfig())
  return {api, kubeconfig}
}

test('the question names the writes, the operations and the writes that follow them', () => {
  const plan = planSync(example, {gates: defaultFeatureGates, dryRun: true})
  const predicted = planSync(example, {
    gates: defaultFeatureGates,
    dryRun: true,
    operations: {recycle: () => undefined, delete: () => ({}), provision: () => ({provisionError: 'x'})},
  })
  assert.equal(
    consentQuestion(plan, predicted, 'context prod'),
    'Write 11 changes to context prod, and carry out 2 operations: recycle pv/pv-0005 (scrubs its data), delete pv/pv-0006 (deletes its storage)? Once they succeed, 3 more writes follow (14 in all).',
  )
})

test('sync --yes: the final line reconciles with the question, and the pods waited for are shown off a terminal', async () => {
  const {api, kubeconfig} = await cluster()
  const stop = kubelet(api, 'Succeeded')
  try {
    const run = await runCli(['sync', '--kubeconfig', kubeconfig, '--yes'], {env: {HOME: dir}})
    assert.equal(run.code, 0, run.stderr)
    assert.match(run.stderr, /^pvctl: waiting for pod default\/recycler-for-pv-0005 \(\w+, \d+s of at most \d+s\)$/m)
    assert.match(run.stderr, /^pvctl: waiting for pod default\/deleter-for-pv-0006 /m)
    assert.match(
      run.stderr,
      /^pvctl: 14 writes made \(11 of the 11 planned, 3 after the operations\); 2 operations carried out: recycle pv\/pv-0005, delete pv\/pv-0006$/m,
    )
  } finally {
    stop()
    await api.stop()
  }
})

test('Ctrl-C while a recycler pod is waited for: the report of what was done, not converged, exit 130', async () => {
  const {api, kubeconfig} = await cluster()
  try {
    // No kubelet: the recycler pod never finishes, so the run is waiting when the signal comes.
    const child = spawn(process.execPath, [bin, 'sync', '--kubeconfig', kubeconfig, '--yes', '-o', 'json'], {
      env: cleanEnv({HOME: dir}),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    const waiting = new Promise<void>((resolve) =>
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString()
        if (/waiting for pod/.test(stderr)) resolve()
      }),
    )
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    await waiting
    child.kill('SIGINT')
    const code = await exited
    assert.equal(code, 130, stderr)
    const report = JSON.parse(stdout)
    assert.equal(report.converged, false)
    assert.match(
      report.actions.find((a: {action: string}) => a.action === 'recycle').outcome,
      /^not-executed: interrupted: pod default\/recycler-for-pv-0005 is left running/,
    )
    assert.match(
      stderr,
      /^pvctl: interrupted: \d+ writes made .*; the rest not issued; run pvctl sync again to complete the job$/m,
    )

    // The re-run completes the job; its last line holds it to its own plan, whatever that plan holds.
    const stop = kubelet(api, 'Succeeded')
    try {
      const rerun = await runCli(['sync', '--kubeconfig', kubeconfig, '--yes'], {env: {HOME: dir}})
      assert.equal(rerun.code, 0, rerun.stderr)
      const last = rerun.stderr.trim().split('\n').at(-1)!
      assert.doesNotMatch(last, /of the 0 planned/, last)
      assert.match(
        last,
        /^pvctl: \d+ writes made(, after the operations| \(\d+ of the [1-9]\d* planned(, \d+ after the operations)?\)); \d+ operations? carried out: /,
      )
      const after = await runCli(['sync', '--kubeconfig', kubeconfig, '--dry-run'], {env: {HOME: dir}})
      assert.equal(after.code, 0, after.stdout)
    } finally {
      stop()
    }
  } finally {
    await api.stop()
  }
})

test(
  'stdout redirected to a file: the plan is shown on the terminal with the question, and written to the file',
  {skip: skipWithout('script', 'the confirmation on a pseudo-terminal')},
  async () => {
    const {api, kubeconfig} = await cluster()
    try {
      const out = path.join(dir, 'plan.txt')
      // script(1) gives pvctl a terminal for stdin and stderr; the shell sends stdout to the file.
      const env = cleanEnv({HOME: dir, CI: undefined, TERM: 'dumb', NO_COLOR: '1'})
      const child = spawn(
        'script',
        ['-qec', `${process.execPath} ${bin} sync --kubeconfig ${kubeconfig} > ${out}`, '/dev/null'],
        {env, stdio: ['pipe', 'pipe', 'pipe']},
      )
      let screen = ''
      child.stdout.on('data', (c: Buffer) => {
        screen += c.toString()
        // The terminal is 80 columns: the question wraps.
        if (/to continue:/.test(screen) && !child.stdin.writableEnded) child.stdin.end('no\r')
      })
      const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)))
      assert.equal(code, 1, screen)
      assert.match(screen, /pv-0006/, 'the plan is on the terminal, above the question')
      assert.ok(screen.indexOf('pv-0006') < screen.indexOf('This deletes or scrubs data'), screen)
      assert.match(readFileSync(out, 'utf8'), /pv-0006/, 'and in the file, as stdout asked')
      assert.equal(api.countWrites({resource: 'pv'}), 0)
    } finally {
      await api.stop()
    }
  },
)
