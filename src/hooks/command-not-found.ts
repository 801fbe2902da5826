// `pvctl frobnicate`: one `error:` line and the usage exit code, as every other mistake gets (oclif's own
// answer is a " ›   Error:" banner and exit 0).
import type {Hook} from '@oclif/core'

import {unknownCommand} from '../cli/unknown-command.js'

const hook: Hook<'command_not_found'> = function (opts) {
  const err = unknownCommand(opts.config, opts.id)
  process.stderr.write(`error: ${err.message}\n`)
  process.exitCode = err.exitCode
  return Promise.resolve()
}

export default hook
