// Spinners and prompts: only on a terminal, never in CI, always on stderr so that stdout carries
// nothing but the output (-o json stays parseable).

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
  const s = ora({text, stream: process.stderr}).start()
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
 * A yes/no question; when `typed`, the user must type the word (destroying data deserves more than a
 * reflexive "y").
 */
export async function confirmOnTerminal(message: string, typed = false): Promise<boolean> {
  const {confirm, input} = await import('@inquirer/prompts')
  try {
    if (typed) {
      const answer = await input({message: `${message} This deletes or scrubs data: type "yes" to continue:`}, {output: process.stderr})
      return answer.trim() === 'yes'
    }
    return await confirm({message, default: false}, {output: process.stderr})
  } catch (err) {
    // Ctrl-C at the prompt (ExitPromptError): a "no".
    if ((err as Error).name === 'ExitPromptError') return false
    throw err
  }
}
