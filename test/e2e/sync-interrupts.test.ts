// `pvctl sync` interrupted, live (the emulator), through pipes and on a pseudo-terminal: SIGINT, SIGTERM and
// SIGHUP while it loads, at the question, while it writes and while it waits for a plugin's pod, and the end
// of input at the question. pvctl exits of itself (never by the signal) as soon as the signal comes or the
// write in flight ends: the report says what was written and what was not, and nothing ever says "in sync"
// for a run that did not finish. Each case waits for the exit event; no clock decides.
import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, test} from 'node:test'

import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {bin, cleanEnv} from '../cli/run-cli.js'
import {KEYS, noTerminal, Terminal} from '../cli/terminal.js'
import {type Emulator, startEmulator} from '../emulator/emulator.js'
import {tempDir} from '../temp-dir.js'

const dir = tempDir('sync-interrupts')
const {state: example} = await loadSnapshot('examples/cluster.yaml')
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

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

const objectWrites = (api: Emulator) => api.countWrites({resource: 'pv'}) + api.countWrites({resource: 'pvc'})

/**
 * `pvctl sync ARGS` with pipes for stdin, stdout and stderr; `said(re)` resolves once stderr matches `re`,
 * or pvctl has exited.
 */
function piped(args: readonly string[]) {
  const child = spawn(process.execPath, [bin, 'sync', ...args], {
    env: cleanEnv({HOME: dir}),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const out = {stdout: '', stderr: ''}
  child.stdout.on('data', (b: Buffer) => (out.stdout += b.toString()))
  child.stderr.on('data', (b: Buffer) => (out.stderr += b.toString()))
  const exited = new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve) =>
    child.on('close', (code, signal) => resolve({code, signal})),
  )
  const said = (re: RegExp) =>
    Promise.race([
      exited,
      new Promise<void>((resolve) => {
        const see = () => re.test(out.stderr) && (child.stderr.off('data', see), resolve())
        child.stderr.on('data', see)
        see()
      }),
    ])
  return {child, out, exited, said}
}

/** The table's summary line of a run that was stopped, and never the line of a run in sync. */
function assertInterruptedReport(stdout: string): void {
  assert.doesNotMatch(stdout, /No changes|in sync/)
  // (On a terminal the spinner's last frame, erased, precedes it on the line.)
  assert.match(stdout, /ACTION\s+OBJECT\s+OUTCOME\s+REASON$/m)
  assert.match(stdout, /not-written: interrupted/)
  // (On a terminal the summary is wrapped at its width, wherever the counts' digits put the break.)
  const summary = /^Interrupted: [\s\S]*?rounds?\.$/m.exec(stdout)?.[0]
  assert.ok(summary !== undefined, stdout)
  assert.match(
    summary.replace(/\s+/g, ' '),
    /^Interrupted: .*\(\d+ writes?\); \d+ of the plan's actions not carried out; not converged after \d+ rounds?\.$/,
  )
}

// A request held until pvctl exits: a pvctl that does not exit fails the test by its timeout, never hangs it.
describe('sync through pipes, interrupted', {timeout: 60_000}, () => {
  for (const signal of SIGNALS) {
    test(`${signal} while the state is loaded: exit 130 at once, nothing written, nothing on stdout`, async () => {
      const {api, kubeconfig} = await cluster()
      try {
        let run: ReturnType<typeof piped> | undefined
        // The list of volumes is held until pvctl has been signalled and has exited.
        api.faults.add({
          verb: 'list',
          resource: 'pv',
          count: 1,
          effect: {
            type: 'hook',
            run: async () => {
              run!.child.kill(signal)
              await run!.exited
            },
          },
        })
        run = piped(['--kubeconfig', kubeconfig, '--yes'])
        const exit = await run.exited
        assert.deepEqual(exit, {code: 130, signal: null}, run.out.stderr)
        assert.equal(run.out.stdout, '')
        assert.match(run.out.stderr, /^pvctl: interrupted( \(SIG\w+\))?: nothing written$/m)
        assert.equal(objectWrites(api), 0)
      } finally {
        await api.stop()
      }
    })

    test(`${signal} while writing: the write in flight ends, no more are issued, the report says what was and was not written, exit 130`, async () => {
      const {api, kubeconfig} = await cluster()
      try {
        let run: ReturnType<typeof piped> | undefined
        // The signal comes while the second write is in flight: it is served once pvctl has taken the interrupt.
        api.faults.add({
          verb: 'update',
          skip: 1,
          count: 1,
          effect: {
            type: 'hook',
            run: async () => {
              run!.child.kill(signal)
              await run!.said(/issuing no more/)
            },
          },
        })
        run = piped(['--kubeconfig', kubeconfig, '--yes', '--concurrency', '1'])
        const exit = await run.exited
        assert.deepEqual(exit, {code: 130, signal: null}, run.out.stderr)
        assertInterruptedReport(run.out.stdout)
        const written = run.out.stdout.split('\n').filter((l) => /^\S+\s+\S+\s+written\s/.test(l)).length
        assert.equal(objectWrites(api), written, 'every write made is in the report as written')
        assert.match(
          run.out.stderr,
          new RegExp(
            `^pvctl: interrupted${signal === 'SIGINT' ? '' : ` \\(${signal}\\)`}: finishing the writes in flight, issuing no more$`,
            'm',
          ),
        )
        assert.match(
          run.out.stderr,
          /^pvctl: interrupted: \d+ writes? made \(\d+ of the 11 planned\); the rest not issued; run pvctl sync again to complete the job$/m,
        )
        // Progress is for terminals only.
        assert.doesNotMatch(run.out.stderr, /writing:/)
      } finally {
        await api.stop()
      }
    })
  }

  test('a second interrupt does not wait for the write in flight', async () => {
    const {api, kubeconfig} = await cluster()
    try {
      let run: ReturnType<typeof piped> | undefined
      // The second write is held until pvctl has exited: only the second signal can end the run.
      api.faults.add({
        verb: 'update',
        skip: 1,
        count: 1,
        effect: {
          type: 'hook',
          run: async () => {
            run!.child.kill('SIGINT')
            await run!.said(/issuing no more/)
            run!.child.kill('SIGINT')
            await run!.exited
          },
        },
      })
      run = piped(['--kubeconfig', kubeconfig, '--yes', '--concurrency', '1'])
      const exit = await run.exited
      assert.deepEqual(exit, {code: 130, signal: null}, run.out.stderr)
      assert.match(run.out.stderr, /^pvctl: interrupted: not waiting for the writes in flight/m)
    } finally {
      await api.stop()
    }
  })
})

describe('sync on a terminal: the question, the writes, the pod waited for', {skip: noTerminal}, () => {
  const sync = (kubeconfig: string, ...args: string[]) =>
    new Terminal(['sync', '--kubeconfig', kubeconfig, ...args], {env: {HOME: dir}})

  for (const [what, interrupt] of [
    ['Ctrl-C', (t: Terminal) => void t.type(KEYS.ctrlC)],
    ['SIGINT', (t: Terminal) => t.kill('SIGINT')],
    ['SIGTERM', (t: Terminal) => t.kill('SIGTERM')],
    ['SIGHUP', (t: Terminal) => t.kill('SIGHUP')],
  ] as const) {
    test(`${what} at the question: exit 130 at once, nothing written`, async () => {
      const {api, kubeconfig} = await cluster()
      try {
        const t = sync(kubeconfig)
        await t.waitFor('type "yes" to continue')
        await interrupt(t)
        assert.deepEqual(await t.exit(), {code: 130, signal: null}, t.screen.slice(-1500))
        assert.match(t.screen, /pvctl: interrupted( \(SIG\w+\))?: nothing written/)
        assert.equal(objectWrites(api), 0)
      } finally {
        await api.stop()
      }
    })
  }

  test('a terminal whose input is at its end and whose size was never set: "no" at once, nothing written, no endless redraw', async () => {
    const {api, kubeconfig} = await cluster()
    try {
      const t = new Terminal(['sync', '--kubeconfig', kubeconfig], {env: {HOME: dir}, size: null, inputEnded: true})
      assert.deepEqual(await t.exit(), {code: 1, signal: null}, t.screen.slice(-1500))
      assert.match(t.screen, /pvctl: nothing written \(not confirmed\)/)
      assert.ok(t.bytes < 64 * 1024, `${t.bytes} bytes on the terminal`)
      assert.equal(objectWrites(api), 0)
    } finally {
      await api.stop()
    }
  })

  test('"yes", then progress while writing, then Ctrl-C: the report of what was and was not written, exit 130 (not a death by SIGINT)', async () => {
    const {api, kubeconfig} = await cluster()
    try {
      api.faults.add({verb: 'update', effect: {type: 'latency', ms: 200}})
      const t = sync(kubeconfig, '--concurrency', '1')
      let at = await t.waitFor('type "yes" to continue')
      at = t.type('yes', KEYS.enter)
      // After the answer, the spinner says how far the writes are.
      at = await t.waitFor(/writing: [1-9]\d* of \d+ writes made/, at)
      t.type(KEYS.ctrlC)
      assert.deepEqual(await t.exit(), {code: 130, signal: null}, t.screen.slice(-3000))
      assertInterruptedReport(t.screen.slice(at).replace(/\r/g, ''))
    } finally {
      await api.stop()
    }
  })

  test('the pod waited for is named on the terminal; SIGTERM then: the report, exit 130', async () => {
    const {api, kubeconfig} = await cluster()
    try {
      // No kubelet: the recycler pod never ends.
      const t = sync(kubeconfig, '--yes')
      const at = await t.waitFor(
        /waiting for pod default\/recycler-for-pv-0005 \(\w+, \d+s of at most \d+s\); \d+ of \d+ writes made/,
      )
      await t.kill('SIGTERM')
      assert.deepEqual(await t.exit(), {code: 130, signal: null}, t.screen.slice(-3000))
      const report = t.screen.slice(at).replace(/\r/g, '')
      assert.match(
        report,
        /recycle\s+pv\/pv-0005\s+not-executed: interrupted: pod default\/recycler-for-pv-0005 is left running/,
      )
      assert.doesNotMatch(report, /No changes|in sync/)
    } finally {
      await api.stop()
    }
  })
})
