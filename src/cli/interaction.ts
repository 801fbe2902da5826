// Spinners and prompts: only on a terminal, never in CI, always on stderr so that stdout carries
// nothing but the output (-o json stays parseable).

import {redactUrlCredentials} from '../redact.js'
import {interruptNow} from './interrupts.js'
import {shouldColor} from '../render/color.js'
import {wrapProse} from '../render/prose.js'
import {terminalWidth} from './write-chunks.js'

/** A notice on stderr (`pvctl: …`), never with a URL's credentials; on a terminal wrapped to its width, as the answer's sentences are. */
export function writeNotice(line: string): void {
  process.stderr.write(`${wrapProse(`pvctl: ${redactUrlCredentials(line)}`, terminalWidth(process.stderr), '  ')}\n`)
}

export function canPrompt(): boolean {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-conversion -- isTTY is undefined, not false, on a stream that is no terminal
  return Boolean(process.stdin.isTTY && process.stderr.isTTY) && !process.env.CI
}

export function canSpin(): boolean {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-conversion -- isTTY is undefined, not false, on a stream that is no terminal
  return Boolean(process.stderr.isTTY) && !process.env.CI
}

export interface Spinner {
  text(t: string): void
  stop(final?: string): void
}

/** An ora spinner on a TTY, else nothing at all. */
export async function startSpinner(text: string): Promise<Spinner> {
  // A terminal of no columns (a pseudo-terminal whose size was never set: `script -c pvctl </dev/null`):
  // ora would count the lines to clear as text width / 0, and clear them for ever.
  if (!canSpin() || !(process.stderr.columns > 0)) return {text: () => {}, stop: () => {}}
  const {default: ora} = await import('ora')
  // NO_COLOR and TERM=dumb hold for the spinner too: it spins, uncoloured.
  // discardStdin off: ora's own stdin handling turns Ctrl-C into an exit (130) before pvctl's handler can
  // stop the writes and print the report of what was done.
  const s = ora({
    text,
    stream: process.stderr,
    color: shouldColor(process.env, true) ? 'cyan' : false,
    discardStdin: false,
  }).start()
  return {
    text: (t) => {
      s.text = t
    },
    stop: (final) => {
      if (final !== undefined) s.succeed(final)
      else s.stop()
    },
  }
}

/**
 * A yes/no question; when `typed`, the user must type the word (destroying data, or handing it to another
 * claim, deserves more than a reflexive "y"), after `warning`, which says what happens to the data. The end
 * of input is a "no"; Ctrl-C is an interrupt (nothing written, exit 130).
 */
export async function confirmOnTerminal(
  message: string,
  typed = false,
  warning = 'This deletes or scrubs data.',
): Promise<boolean> {
  const {confirm, input} = await import('@inquirer/prompts')
  const answer = await untilInputEnds(async (context) => {
    if (typed)
      return (
        (
          await input({message: `${message} ${warning.replace(/\.$/, '')}: type "yes" to continue:`}, context)
        ).trim() === 'yes'
      )
    return confirm({message, default: false}, context)
  })
  if (answer === INTERRUPTED) interruptNow()
  return answer === ENDED ? false : answer
}

export const ENDED = Symbol('the input ended')
export const INTERRUPTED = Symbol('Ctrl-C')

/**
 * An inquirer prompt on stderr, and what became of it: its answer, ENDED when the input ended before one,
 * INTERRUPTED for Ctrl-C (read as a key: the prompt holds the terminal in raw mode). The input ends when
 * the stream does, at Ctrl-D, at the NUL that Linux's terminal hands a raw-mode reader for an end of input
 * typed before the prompt began (`script -c pvctl </dev/null` gives exactly that), and when nothing but the
 * question is left for the event loop (Ctrl-D closing inquirer's readline leaves its promise unsettled).
 */
export async function untilInputEnds<T>(
  ask: (context: {output: NodeJS.WritableStream; signal: AbortSignal}) => Promise<T>,
): Promise<T | typeof ENDED | typeof INTERRUPTED> {
  const ended = new AbortController()
  const onEnd = () => ended.abort()
  const onData = (chunk: Buffer | string) => {
    if (/[\u0000\u0004]/.test(chunk.toString())) ended.abort()
  }
  process.once('beforeExit', onEnd)
  process.stdin.once('end', onEnd)
  try {
    // The prompt first: it puts the terminal in raw mode and starts reading before anything else does.
    const asked = ask({output: process.stderr, signal: ended.signal})
    process.stdin.on('data', onData)
    return await asked
  } catch (err) {
    if ((err as Error).name === 'AbortPromptError') return ENDED
    if ((err as Error).name === 'ExitPromptError') return INTERRUPTED
    throw err
  } finally {
    process.stdin.removeListener('data', onData)
    process.stdin.removeListener('end', onEnd)
    process.removeListener('beforeExit', onEnd)
  }
}
