// Interrupts (src/cli/interrupts.ts) and the end of input, where no cluster is needed: the mechanism in a
// process of its own (no signal ever ends pvctl by itself, even with signal-exit loaded, as ora and inquirer
// load it), and explain's picker on a pseudo-terminal, signalled, or at the end of its input. Each case waits
// for the process's exit event: "within a second" is the absence of anything that would hold it longer.
import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {describe, test} from 'node:test'
import {pathToFileURL} from 'node:url'

import {cleanEnv, example, repoRoot, tempDir} from './run-cli.js'
import {KEYS, noTerminal, Terminal} from './terminal.js'

const dir = tempDir('interrupts')
const interruptsModule = pathToFileURL(path.join(repoRoot, 'dist', 'cli', 'interrupts.js')).href
const signalExit = pathToFileURL(createRequire(path.join(repoRoot, 'package.json')).resolve('signal-exit')).href

/**
 * A process that installs pvctl's interrupts, registers signal-exit as the terminal libraries do, then
 * does `stage` and says "ready"; the test signals it (twice with `again`) and reads how it ended.
 */
async function signalled(
  stage: string,
  signal: NodeJS.Signals,
  again = false,
): Promise<{code: number | null; signal: NodeJS.Signals | null; stderr: string}> {
  const script = path.join(dir, `stage-${Math.random().toString(36).slice(2)}.mjs`)
  writeFileSync(
    script,
    `import {installInterrupts, deferInterrupts, markFinished} from '${interruptsModule}'
import {onExit} from '${signalExit}'
installInterrupts()
onExit(() => {})
const keepAlive = setInterval(() => {}, 1000)
${stage}
process.stderr.write('ready\\n')
`,
  )
  const child = spawn(process.execPath, [script], {env: cleanEnv(), stdio: ['ignore', 'ignore', 'pipe']})
  let stderr = ''
  const ready = new Promise<void>((resolve) =>
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString()
      if (stderr.includes('ready\n')) resolve()
    }),
  )
  const exited = new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve) =>
    child.on('exit', (code, sig) => resolve({code, signal: sig})),
  )
  await ready
  child.kill(signal)
  if (again) {
    await new Promise<void>((resolve) =>
      child.stderr.on('data', () => (stderr.includes('aborted') ? resolve() : undefined)),
    )
    child.kill(signal)
  }
  return {...(await exited), stderr}
}

describe('interrupts: no signal ends pvctl by itself', () => {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    test(`${signal} while nothing is under way: exit 130 at once, said on stderr`, async () => {
      const r = await signalled('', signal)
      assert.deepEqual([r.code, r.signal], [130, null], r.stderr)
      assert.match(
        r.stderr,
        signal === 'SIGINT' ? /^pvctl: interrupted$/m : new RegExp(`^pvctl: interrupted \\(${signal}\\)$`, 'm'),
      )
    })

    test(`${signal} after the command returned: its own exit status, not the signal's`, async () => {
      const r = await signalled('process.exitCode = 1; markFinished()', signal)
      assert.deepEqual([r.code, r.signal], [1, null], r.stderr)
    })
  }

  test('inside a scope: the first interrupt aborts the work (which goes on to its report), the second ends pvctl', async () => {
    const r = await signalled(
      `const scope = deferInterrupts('finishing the writes in flight', 'not waiting')
scope.signal.addEventListener('abort', () => process.stderr.write('aborted\\n'))`,
      'SIGINT',
      true,
    )
    assert.deepEqual([r.code, r.signal], [130, null], r.stderr)
    assert.match(
      r.stderr,
      /^pvctl: interrupted: finishing the writes in flight\naborted\n[^]*^pvctl: interrupted: not waiting$/m,
    )
  })

  test('inside a scope, one interrupt: the work ends as it will, with its own exit status', async () => {
    const r = await signalled(
      `const scope = deferInterrupts('finishing', 'not waiting')
scope.signal.addEventListener('abort', () => { process.exitCode = 130; scope.end(); markFinished(); clearInterval(keepAlive) })`,
      'SIGTERM',
    )
    assert.deepEqual([r.code, r.signal], [130, null], r.stderr)
    assert.doesNotMatch(r.stderr, /not waiting/)
  })
})

describe('exitWhenFinished: what a library left open does not hold pvctl once the command is done', () => {
  test("with a handle left open, pvctl exits with the command's exit status once stdout has taken every byte", async () => {
    const bytes = 4 * 1024 * 1024
    const script = path.join(dir, `finish-${Math.random().toString(36).slice(2)}.mjs`)
    // The interval stands for a kept-alive socket: without exitWhenFinished the process would never end.
    writeFileSync(
      script,
      `import {installInterrupts, exitWhenFinished, markFinished} from '${interruptsModule}'
installInterrupts()
setInterval(() => {}, 1000)
exitWhenFinished()
process.stdout.write('x'.repeat(${bytes}))
process.exitCode = 3
markFinished()
`,
    )
    const child = spawn(process.execPath, [script], {env: cleanEnv(), stdio: ['ignore', 'pipe', 'inherit']})
    let received = 0
    child.stdout.on('data', (b: Buffer) => (received += b.length))
    const exit = await new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve) =>
      child.on('close', (code, signal) => resolve({code, signal})),
    )
    assert.deepEqual({...exit, received}, {code: 3, signal: null, received: bytes})
  })
})

describe("explain's picker on a terminal: interrupted, or at the end of its input", {skip: noTerminal}, () => {
  const picker = ['explain', '-n', 'shop', '-f', path.relative(repoRoot, example)]

  for (const signal of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) {
    test(`${signal} at the picker: exit 130, no error`, async () => {
      const t = new Terminal(picker)
      await t.waitFor('Which claim?')
      await t.kill(signal)
      const exit = await t.exit()
      assert.deepEqual(exit, {code: 130, signal: null}, t.screen)
      assert.doesNotMatch(t.screen, /error:/)
    })
  }

  test('Ctrl-D at the picker: the end of input is a Quit', async () => {
    const t = new Terminal(picker)
    await t.waitFor('Which claim?')
    t.type(KEYS.ctrlD)
    assert.deepEqual(await t.exit(), {code: 0, signal: null}, t.screen)
  })

  test('Ctrl-D at the menu after an explanation: the end of input is a Quit', async () => {
    const t = new Terminal(picker)
    await t.waitFor('Which claim?')
    const at = t.type(KEYS.enter)
    await t.waitFor('Next?', at)
    t.type(KEYS.ctrlD)
    assert.deepEqual(await t.exit(), {code: 0, signal: null}, t.screen)
  })

  test('a terminal whose input is at its end and whose size was never set: the picker ends at once, no endless redraw', async () => {
    const t = new Terminal(picker, {size: null, inputEnded: true})
    const exit = await t.exit()
    assert.deepEqual(exit, {code: 0, signal: null}, t.screen.slice(-2000))
    assert.ok(t.bytes < 64 * 1024, `${t.bytes} bytes on the terminal`)
  })
})
