// The example snapshots pvctl ships (examples/ beside dist/ in the package): the README and every command's
// --help run them as `-f examples/cluster.yaml`, which reads from the folder a user is in. Where that folder
// has no such file but the package does, the error says where the package's is: pvctl reads the file the
// user named, never another one of the same name.
import {existsSync} from 'node:fs'
import {isAbsolute, join, normalize, sep} from 'node:path'
import {fileURLToPath} from 'node:url'

/** The examples folder of the installed package (of the clone, run from source or dist/). */
export const BUNDLED_EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url))

/** For a missing `examples/NAME`: where the package's own NAME is, as a flag to use; '' when it has none. */
export function bundledExampleHint(path: string): string {
  const relative = normalize(path)
  const prefix = `examples${sep}`
  if (isAbsolute(path) || !relative.startsWith(prefix)) return ''
  const bundled = join(BUNDLED_EXAMPLES, relative.slice(prefix.length))
  return existsSync(bundled) ? `; pvctl's examples are in ${BUNDLED_EXAMPLES.replace(/[\\/]$/, '')}: -f ${bundled}` : ''
}
