// The base of every pvctl command: errors go through the one presenter, to stderr, with the
// contract's exit codes.
import {Command} from '@oclif/core'

import {rewriteBooleanValues} from './bool-flag-values.js'
import {markFinished} from './interrupts.js'
import {presentError} from './present-error.js'

export abstract class PvctlCommand extends Command {
  /** kubectl's `--flag=true|false` (and `--dry-run=client`) on boolean flags, before oclif parses. */
  public override async init(): Promise<void> {
    this.argv = rewriteBooleanValues(this.argv, this.ctor.flags)
    await super.init()
  }

  /** The command has its answer and its exit status: from now on a signal does not change them (interrupts.ts). */
  protected override async finally(err: Error | undefined): Promise<void> {
    markFinished()
    await super.finally(err)
  }

  protected override catch(thrown: Error & {exitCode?: number}): Promise<void> {
    // Whatever was thrown, which oclif types as an Error: a library may throw anything.
    const err = thrown as unknown
    // oclif signals --help/--version and this.exit() with an ExitError; let those through.
    if (err instanceof Error && err.constructor.name === 'ExitError') throw err
    const presented = presentError(err)
    if (process.env.PVCTL_DEBUG)
      process.stderr.write(`${err instanceof Error && err.stack !== undefined ? err.stack : String(err)}\n`)
    process.stderr.write(`error: ${presented.message}\n`)
    process.exitCode = presented.exitCode
    return Promise.resolve()
  }
}
