// kubectl's TYPE/NAME object arguments: pvc/NAME, persistentvolumeclaim/NAME, pv/NAME, persistentvolume/NAME.
import type {ObjectRef} from '../engine/plan.js'
import {UsageError} from '../errors.js'

const claimAliases = new Set(['pvc', 'pvcs', 'persistentvolumeclaim', 'persistentvolumeclaims'])
const volumeAliases = new Set(['pv', 'pvs', 'persistentvolume', 'persistentvolumes'])

/** `allNamespaces`: -A was given, which a claim's name cannot go with (kubectl refuses it alike). */
export function parseObjectArgs(args: readonly string[], namespace: string, allNamespaces = false): ObjectRef[] {
  return args.map((arg) => {
    const slash = arg.indexOf('/')
    if (slash <= 0 || slash === arg.length - 1) {
      throw new UsageError(`object "${arg}": expected TYPE/NAME, e.g. pvc/data or pv/pv-0001`)
    }
    const type = arg.slice(0, slash).toLowerCase()
    const name = arg.slice(slash + 1)
    if (name.includes('/')) throw new UsageError(`object "${arg}": a name cannot contain "/" (expected TYPE/NAME, e.g. pvc/data)`)
    if (claimAliases.has(type) && allNamespaces) {
      throw new UsageError(`object "${arg}": a resource cannot be retrieved by name across all namespaces (-A): give its namespace with -n`)
    }
    if (claimAliases.has(type)) return {kind: 'PersistentVolumeClaim', namespace, name}
    if (volumeAliases.has(type)) return {kind: 'PersistentVolume', name}
    throw new UsageError(`object "${arg}": unknown type "${type}" (pvctl works on pvc/NAME and pv/NAME)`)
  })
}
