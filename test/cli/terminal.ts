// pvctl on a pseudo-terminal (util-linux `script`), read as it prints and fed keys as a user types them, or
// sent a signal as a terminal, `kill` or a closed window sends it. For the picker, the prompts, the
// spinners and the interrupts, which behave as they do only on a terminal.
import {spawn} from 'node:child_process'

import path from 'node:path'

import {skipWithout} from '../tools.js'
import {bin, cleanEnv, repoRoot} from './run-cli.js'

const REPORT_EXIT = path.join(repoRoot, 'test', 'cli', 'report-exit.cjs')

/** Why a terminal test is skipped, or false when it can run. */
export const noTerminal: string | false = skipWithout('script', 'a test of pvctl on a pseudo-terminal')

export const KEYS = {down: '\u001b[B', up: '\u001b[A', enter: '\r', ctrlC: '\u0003', ctrlD: '\u0004'}

export interface TerminalOptions {
  /** Columns and rows; `null`: none set (a size of 0×0, as `script` gives when its own input is no terminal). */
  size?: {cols: number; rows: number} | null
  env?: Record<string, string | undefined>
  /** The input of `script` itself is at its end from the start (`</dev/null`): nothing can be typed. */
  inputEnded?: boolean
}

export interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
}

export class Terminal {
  private output = ''
  private readonly child
  private readonly exited: Promise<Exit>
  /** pvctl's own process id. */
  readonly pid: Promise<number>

  constructor(args: readonly string[], opts: TerminalOptions = {}) {
    const size = opts.size === undefined ? {cols: 160, rows: 50} : opts.size
    const quoted = [process.execPath, REPORT_EXIT, process.execPath, bin, ...args].map((a) => `'${a}'`).join(' ')
    this.child = spawn(
      'script',
      ['-q', '-c', `${size === null ? '' : `stty cols ${size.cols} rows ${size.rows}; `}exec ${quoted}`, '/dev/null'],
      {
        cwd: repoRoot,
        env: cleanEnv({CI: undefined, TERM: 'xterm-256color', ...opts.env}),
        stdio: [opts.inputEnded === true ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      },
    )
    let resolvePid: (pid: number) => void
    this.pid = new Promise((resolve) => (resolvePid = resolve))
    const onData = (b: Buffer) => {
      this.output += b.toString('utf8')
      const m = /pid=(\d+)/.exec(this.output)
      if (m !== null) resolvePid(Number(m[1]))
    }
    this.child.stdout!.on('data', onData)
    this.child.stderr!.on('data', onData)
    this.exited = new Promise((resolve) =>
      this.child.on('close', () => {
        const m = /exit=(\S+) signal=(\S+)/.exec(this.output)
        resolve(
          m === null
            ? {code: null, signal: null}
            : {code: m[1] === 'null' ? null : Number(m[1]), signal: m[2] === 'null' ? null : (m[2] as NodeJS.Signals)},
        )
      }),
    )
  }

  /** The output so far, without escape codes. */
  get screen(): string {
    return this.output.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
  }

  /** How many bytes the terminal has received (escape codes included). */
  get bytes(): number {
    return Buffer.byteLength(this.output)
  }

  /** Waits until `text` appears after position `from` of the (plain) output; returns its end. */
  async waitFor(text: string | RegExp, from = 0, timeoutMs = 15_000): Promise<number> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const rest = this.screen.slice(from)
      const m =
        typeof text === 'string' ? (rest.includes(text) ? {index: rest.indexOf(text), 0: text} : null) : text.exec(rest)
      if (m !== null) return from + m.index + m[0].length
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(text)}; the terminal shows:\n${rest}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }

  /** Types keys and returns where the output was when they were typed. */
  type(...keys: string[]): number {
    const mark = this.screen.length
    this.child.stdin!.write(keys.join(''))
    return mark
  }

  /** Sends pvctl (not `script`) a signal. */
  async kill(signal: NodeJS.Signals): Promise<void> {
    process.kill(await this.pid, signal)
  }

  /** pvctl's exit: its own status, or the signal that ended it. */
  async exit(timeoutMs = 15_000): Promise<Exit> {
    // Not ended in time: pvctl too (a grandchild of `script`, which its SIGKILL would leave running).
    const timer = setTimeout(() => {
      void this.pid.then((pid) => process.kill(pid, 'SIGKILL')).catch(() => {})
      this.child.kill('SIGKILL')
    }, timeoutMs)
    const exit = await this.exited
    clearTimeout(timer)
    return exit
  }
}
