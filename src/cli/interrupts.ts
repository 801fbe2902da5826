// SIGINT, SIGTERM and SIGHUP over the whole of a pvctl run, from bin/run.js's first line to the last byte
// written. pvctl never ends by a signal itself (the shell would see a process killed, with no word of what
// it did): an interrupt either ends it at once, with exit 130, where nothing is under way that a stop
// half-way would leave unsaid (loading, planning, a question, a read-only command), or, while a plan is
// written, stops issuing writes and lets the run report what was written and what was not. A second
// interrupt does not wait for the write in flight. Once the command has returned, a signal ends pvctl
// with the command's own exit status.
//
// One listener per signal, kept for the whole run: libraries that print to a terminal (ora, inquirer) use
// signal-exit, which re-raises a signal that nobody else listens to, and so killed pvctl whenever a
// listener of its own had just been removed.
import {ExitCode} from '../errors.js'

const INTERRUPT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
type InterruptSignal = (typeof INTERRUPT_SIGNALS)[number]

/** A stretch of the run that an interrupt stops by aborting `signal`, not by ending pvctl. */
export interface InterruptScope {
  readonly signal: AbortSignal
  end(): void
}

interface State {
  installed: boolean
  /** The scope in force, innermost last. */
  scopes: Array<{abort: AbortController; note: string | undefined; again: string}>
  /** Said when an interrupt ends pvctl at once ("nothing written"). */
  idleNote: string | undefined
  finished: boolean
  /** Set by exitWhenFinished(): pvctl exits once the command has finished and its output is out. */
  exitWhenFinished: boolean
}

const state: State = {installed: false, scopes: [], idleNote: undefined, finished: false, exitWhenFinished: false}

/** Installed by bin/run.js before anything else loads. */
export function installInterrupts(): void {
  if (state.installed) return
  state.installed = true
  for (const signal of INTERRUPT_SIGNALS) process.on(signal, () => onInterrupt(signal))
}

/** The command has returned: what is left is flushing its output, which a signal does not cut short. */
export function markFinished(): void {
  if (state.finished) return
  state.finished = true
  if (state.exitWhenFinished) void flushed([process.stdout, process.stderr]).then(() => process.exit())
}

/**
 * Once the command has finished (markFinished) and stdout and stderr have handed the system every byte
 * they hold, pvctl exits with the command's exit status, whatever a library left open: a kept-alive
 * connection to the API server must hold up neither a stopping controller nor the shell's prompt.
 */
export function exitWhenFinished(): void {
  state.exitWhenFinished = true
}

type FlushableStream = NodeJS.WritableStream &
  Partial<Pick<NodeJS.WriteStream, 'writableLength' | 'destroyed' | 'writableEnded'>>

/** Resolves once each stream has written what it was given (or failed: a closed pipe has no reader left). */
export function flushed(streams: readonly FlushableStream[]): Promise<void> {
  return Promise.all(
    streams.map(
      (stream) =>
        new Promise<void>((resolve) => {
          if (stream.destroyed === true || stream.writableEnded === true || stream.writableLength === 0) resolve()
          // Called when the writes before it are done, or with the error that ended them.
          else stream.write('', () => resolve())
        }),
    ),
  ).then(() => undefined)
}

/**
 * From now until end(): an interrupt aborts `signal` (saying `note` on stderr, e.g. "finishing the writes
 * in flight, issuing no more", unless the run says it itself) and the run goes on to its report; a second
 * one ends pvctl at once, saying `again`.
 */
export function deferInterrupts(note: string | undefined, again: string): InterruptScope {
  const entry = {abort: new AbortController(), note, again}
  state.scopes.push(entry)
  return {
    signal: entry.abort.signal,
    end: () => {
      const at = state.scopes.indexOf(entry)
      if (at >= 0) state.scopes.splice(at, 1)
    },
  }
}

/**
 * Runs `work` inside a scope of deferInterrupts: the first interrupt aborts its signal (saying `note`), a
 * second one ends pvctl (saying `again`); the scope ends with the work.
 */
export async function whileInterruptible<T>(
  note: string | undefined,
  again: string,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const scope = deferInterrupts(note, again)
  try {
    return await work(scope.signal)
  } finally {
    scope.end()
  }
}

/** An interrupt that reached pvctl otherwise than as a signal (Ctrl-C read as a key by a prompt). */
export function interruptNow(): never {
  exitInterrupted('SIGINT', state.idleNote)
}

function onInterrupt(signal: InterruptSignal): void {
  // The command is done and has set its exit status: the signal does not change what it reported.
  if (state.finished) process.exit(process.exitCode ?? ExitCode.Ok)
  const scope = state.scopes.at(-1)
  if (scope === undefined) exitInterrupted(signal, state.idleNote)
  else if (!scope.abort.signal.aborted) {
    if (scope.note !== undefined) say(`${name(signal)}: ${scope.note}`)
    scope.abort.abort(new Error(name(signal)))
  } else {
    exitInterrupted(signal, scope.again)
  }
}

function exitInterrupted(signal: InterruptSignal, note: string | undefined): never {
  say(note === undefined ? name(signal) : `${name(signal)}: ${note}`)
  process.exit(ExitCode.Interrupted)
}

function say(line: string): void {
  try {
    // On a terminal, on a line of its own: a spinner or a prompt may hold the current one.
    process.stderr.write(`${process.stderr.isTTY ? '\n' : ''}pvctl: ${line}\n`)
  } catch {
    // The terminal is gone (SIGHUP): there is no one to tell.
  }
}

const name = (signal: InterruptSignal) => (signal === 'SIGINT' ? 'interrupted' : `interrupted (${signal})`)

/**
 * The writes of a sync: until they begin an interrupt ends pvctl at once (`idleNote`, e.g. "nothing
 * written"); once `writing()` is called it stops issuing them, and the run reports what was written and
 * what was not; `end()` when the report is out.
 */
export function interruptibleWrites(idleNote?: string): {writing: () => AbortSignal; end: () => void} {
  let scope: InterruptScope | undefined
  state.idleNote = idleNote
  return {
    writing: () => {
      state.idleNote = undefined
      scope ??= deferInterrupts(
        'finishing the writes in flight, issuing no more',
        'not waiting for the writes in flight (pvctl sync --dry-run shows what is left to do)',
      )
      return scope.signal
    },
    end: () => scope?.end(),
  }
}
