// How a command's answer reaches the terminal once its use-case has returned: the report by -o (through
// its registry), the notices after it, then the refusal as the one error line, or the exit status.
import {machineReadable, renderOutput} from './output-formats.js'
import {writeNotice} from './interaction.js'
import type {OutputContext, Renderers} from './report-renderers.js'
import {ansi, plain, shouldColor} from '../render/color.js'
import {terminalWidth, writeChunks} from './write-chunks.js'

/**
 * The plan shown before a question goes to stdout on a terminal; with -o json|yaml|name|jsonpath|
 * custom-columns, or off a terminal, to stderr, so that the document on stdout stays the one report and
 * nobody consents to a plan they cannot see.
 */
export function planStream(output: string): NodeJS.WriteStream {
  return machineReadable(output) || !process.stdout.isTTY ? process.stderr : process.stdout
}

/** What a use-case returns that showResult says. */
export interface ShownResult {
  exitCode: number
  /** The report is the plan shown at a question the user did not confirm. */
  declined?: boolean
  /** The one line that says why the command was refused (exit 2). */
  refusal?: Error
  /** Notices to say after the report (a long table would scroll them away). */
  after: readonly string[]
}

/** The document to print, in the format -o names, by its report's registry. */
export interface Printed<D, C extends OutputContext> {
  renderers: Renderers<D, C>
  output: string
  document: D
  context: C
}

/**
 * Prints the report (unless it is the plan just shown on stdout at a question declined), the notices after
 * it, then throws the refusal or sets the exit status. A reader that stops early (`| head`) ends the output
 * quietly; the exit status stays the command's.
 */
export async function showResult<D, C extends OutputContext>(
  result: ShownResult,
  printed: Printed<D, C>,
): Promise<void> {
  const shownAlready = result.declined === true && planStream(printed.output) === process.stdout
  const {renderers, output, document, context} = printed
  if (!shownAlready) await writeChunks(process.stdout, await renderOutput(renderers, output, document, context))
  for (const line of result.after) writeNotice(line)
  if (result.refusal !== undefined) throw result.refusal
  process.exitCode = result.exitCode
}

/** The colours (--[no-]color, NO_COLOR, a terminal), --no-headers and the terminal's width of stdout. */
export function outputContext(flags: {color?: boolean; 'no-headers': boolean}): OutputContext {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-conversion -- isTTY is undefined, not false, on a stream that is no terminal
  const palette = shouldColor(process.env, Boolean(process.stdout.isTTY), flags.color) ? ansi : plain
  return {palette, noHeaders: flags['no-headers'], width: terminalWidth(process.stdout)}
}
