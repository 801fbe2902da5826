// `pvctl frobnicate`: one `error:` line and the usage exit code, as every other mistake gets (oclif's own
// answer is a " ›   Error:" banner and exit 0).
import type {Hook} from '@oclif/core'

import {closeNames} from '../engine/close-names.js'
import {ExitCode} from '../errors.js'

const hook: Hook<'command_not_found'> = async function (opts) {
  const commands = opts.config.commandIDs.filter((id) => id !== 'help').sort()
  const close = closeNames(opts.id, commands)
  const hint = close.length > 0 ? `did you mean ${close.map((c) => `"${c}"`).join(' or ')}?` : `its commands: ${commands.join(', ')}`
  process.stderr.write(`error: unknown command "${opts.id}" for "${opts.config.bin}"; ${hint} (see ${opts.config.bin} --help)\n`)
  process.exitCode = ExitCode.Usage
}

export default hook
