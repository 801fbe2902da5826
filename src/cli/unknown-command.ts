// `pvctl frobnicate` and `pvctl help frobnicate`: one `error:` line naming the closest command, as every
// other mistake gets, from the command-not-found hook and from the help command alike.
import type {Interfaces} from '@oclif/core'

import {closeNames} from '../engine/api/close-names.js'
import {UsageError} from '../errors.js'

export function unknownCommand(config: Pick<Interfaces.Config, 'bin' | 'commands'>, id: string): UsageError {
  // Not the hidden ones (__complete, which only the completion scripts call).
  const commands = config.commands
    .filter((c) => !c.hidden && c.id !== 'help')
    .map((c) => c.id)
    .sort()
  if (id === '-v' || id === '--v') {
    // kubectl's -v is a log level, as pvctl's is loop mode's (sync --watch -v 2); neither is the version.
    return new UsageError(
      `"${id}" is not the version: it is loop mode's log level, as kubectl's (${config.bin} sync --watch -v 2); the version: ${config.bin} --version`,
    )
  } else if (id.startsWith('-')) {
    // Flags may come before the command (bin/run.js moves it first), but one must follow them.
    return new UsageError(
      `no command after "${id}": ${config.bin} [FLAGS] COMMAND [FLAGS], e.g. ${config.bin} -n shop explain pvc/NAME; its commands: ${commands.join(', ')} (see ${config.bin} --help)`,
    )
  } else {
    // A word that names no command.
  }
  const close = closeNames(id, commands)
  const hint =
    close.length > 0
      ? `did you mean ${close.map((c) => `"${c}"`).join(' or ')}?`
      : `its commands: ${commands.join(', ')}`
  return new UsageError(`unknown command "${id}" for "${config.bin}"; ${hint} (see ${config.bin} --help)`)
}
