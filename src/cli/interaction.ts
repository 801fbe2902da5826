// Spinners and prompts: only on a terminal, never in CI, always on stderr so that stdout carries
// nothing but the output (-o json stays parseable).

import {redactUrlCredentials} from '../redact.js'
import {shouldColor} from '../render/color.js'

/** A notice on stderr (`pvctl: …`), never with a URL's credentials. */
export function writeNotice(line: string): void {
  process.stderr.write(`pvctl: ${redactUrlCredentials(line)}\n`)
}

export function canPrompt(): boolean {
  return Boolean(process.stdin.isTTY && process.stderr.isTTY) && !process.env.CI
}

export function canSpin(): boolean {
  return Boolean(process.stderr.isTTY) && !process.env.CI
}

export interface Spinner {
  text(t: string): void
  stop(final?: string): void
}

/** An ora spinner on a TTY, else nothing at all. */
export async function startSpinner(text: string): Promise<Spinner> {
  if (!canSpin()) return {text: () => {}, stop: () => {}}
  const {default: ora} = await import('ora')
  // NO_COLOR and TERM=dumb hold for the spinner too: it spins, uncoloured.
  // discardStdin off: ora's own stdin handling turns Ctrl-C into an exit (130) before pvctl's handler can
  // stop the writes and print the report of what was done.
  const s = ora({text, stream: process.stderr, color: shouldColor(process.env, true) ? 'cyan' : false, discardStdin: false}).start()
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
 * claim, deserves more than a reflexive "y"), after `warning`, which says what happens to the data.
 */
export async function confirmOnTerminal(message: string, typed = false, warning = 'This deletes or scrubs data.'): Promise<boolean> {
  const {confirm, input} = await import('@inquirer/prompts')
  // Ctrl-D closes the prompt's readline without an answer: its promise is never settled, the event loop
  // empties and the process would end as if all went well (exit 0). An input that ends, or a loop with
  // nothing left to do while the question is open, is a "no".
  const ended = new AbortController()
  const onEnd = () => ended.abort()
  process.stdin.once('end', onEnd)
  process.once('beforeExit', onEnd)
  try {
    const context = {output: process.stderr, signal: ended.signal}
    if (typed) {
      const answer = await input({message: `${message} ${warning.replace(/\.$/, '')}: type "yes" to continue:`}, context)
      return answer.trim() === 'yes'
    }
    return await confirm({message, default: false}, context)
  } catch (err) {
    // Ctrl-C at the prompt (ExitPromptError), or the input ended (AbortPromptError): a "no".
    if ((err as Error).name === 'ExitPromptError' || (err as Error).name === 'AbortPromptError') return false
    throw err
  } finally {
    process.stdin.removeListener('end', onEnd)
    process.removeListener('beforeExit', onEnd)
  }
}
