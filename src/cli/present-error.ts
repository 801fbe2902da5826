// The one place where an error becomes a message and an exit code. Users see one line, `error: ...`,
// never a stack trace; only a bug (an error pvctl did not expect) asks to be reported, with PVCTL_DEBUG
// for the trace.
import {ExitCode, type ExitCodeValue, PvctlError} from '../errors.js'
import {redactUrlCredentials} from '../redact.js'

export interface PresentedError {
  message: string
  exitCode: ExitCodeValue
  suggestions: readonly string[]
}

/** oclif's parser errors (unknown flag, bad option value, missing argument) are usage errors. */
function isOclifParseError(err: unknown): err is Error {
  if (!(err instanceof Error)) return false
  const name = err.constructor.name
  return (
    /Flag|Arg|Parse|Validation/.test(name) ||
    ('parse' in err && typeof (err as {parse?: unknown}).parse === 'object') ||
    /^(Nonexistent flag|Unexpected argument|Expected --|Missing required|Flag --|Parsing --|The following error occurred)/.test(
      err.message,
    )
  )
}

export function presentError(err: unknown): PresentedError {
  const presented = present(err)
  return {
    ...presented,
    message: redactUrlCredentials(presented.message),
    suggestions: presented.suggestions.map(redactUrlCredentials),
  }
}

function present(err: unknown): PresentedError {
  if (err instanceof PvctlError) {
    return {message: firstLine(unwrapFlagParse(err.message)), exitCode: err.exitCode, suggestions: err.suggestions}
  }
  if (isOclifParseError(err)) {
    // oclif puts the reason on the following lines ("Parsing --rounds\n\tExpected an integer ..."):
    // keep them, on one line, and drop its "See more help" trailer.
    return {message: oneLine(err.message), exitCode: ExitCode.Usage, suggestions: ['see --help']}
  }
  const message = err instanceof Error ? err.message : String(err)
  return {
    message: `internal error: ${firstLine(message)} (this is a bug in pvctl; rerun with PVCTL_DEBUG=1 for details)`,
    exitCode: ExitCode.Usage,
    suggestions: [],
  }
}

/** An error thrown by a flag's own parse, as oclif rethrows it ("Parsing --output \n\tMESSAGE\nSee more help…"): MESSAGE. */
function unwrapFlagParse(message: string): string {
  return /^Parsing --[\w-]+ ?\n\t([\s\S]*?)\nSee more help with --help$/.exec(message)?.[1] ?? message
}

function oneLine(message: string): string {
  return (
    message
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !/^See more help/.test(l) && !/^The following errors? occurred:?$/.test(l))
      // A line that ends with a colon introduces the next: no second colon between them.
      .map((l) => l.replace(/:$/, ''))
      .join(': ')
      .replace(/^Error:\s*/, '')
  )
}

function firstLine(message: string): string {
  const line = message.split('\n').find((l) => l.trim() !== '') ?? message
  return line.replace(/^Error:\s*/, '').trim()
}
