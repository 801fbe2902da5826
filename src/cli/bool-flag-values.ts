// kubectl's boolean flags take a value too (pflag): `--all-namespaces=true`, `--color=false`, and
// `--dry-run=client` (kubectl's dry-run is none|client|server). oclif's booleans take none, and read
// `--dry-run=client` as the flag plus an argument "client". The argv is rewritten before oclif reads it:
// a true value is the bare flag, a false one the `--no-` form (or nothing, for a flag without one).
import {UsageError} from '../errors.js'

interface BooleanFlag {
  type: string
  allowNo?: boolean
}

const TRUE = new Set(['true', '1', 't', 'T', 'TRUE', 'True'])
const FALSE = new Set(['false', '0', 'f', 'F', 'FALSE', 'False'])
/** kubectl's --dry-run strategies: a dry run either way (pvctl never writes on a dry run). */
const DRY_RUN = new Map([
  ['client', true],
  ['server', true],
  ['none', false],
])

export function rewriteBooleanValues(argv: readonly string[], flags: Readonly<Record<string, BooleanFlag>>): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--') {
      // Everything after it is an argument.
      out.push(...argv.slice(i))
      break
    }
    const m = /^--([a-z][a-z0-9-]*)=(.*)$/s.exec(arg)
    const flag = m === null ? undefined : flags[m[1]]
    if (m === null || flag === undefined || flag.type !== 'boolean') {
      out.push(arg)
      continue
    }
    const [, name, value] = m as unknown as [string, string, string]
    const on = TRUE.has(value) ? true : FALSE.has(value) ? false : name === 'dry-run' ? DRY_RUN.get(value) : undefined
    if (on === undefined) {
      const allowed = name === 'dry-run' ? 'true, false, client, server or none' : 'true or false'
      throw new UsageError(`--${name}=${value}: invalid value (${allowed})`)
    } else if (on) {
      out.push(`--${name}`)
    } else if (flag.allowNo) {
      out.push(`--no-${name}`)
    } else {
      // Off is the default of a flag without a --no- form: nothing to say.
    }
  }
  return out
}
