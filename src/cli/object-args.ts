// kubectl's object arguments: TYPE/NAME (pvc/NAME, persistentvolumeclaim/NAME, pv/NAME, persistentvolume/NAME)
// or TYPE NAME... (`pvc orders`, `pv pv-0001 pv-0002`), not both at once, as `kubectl get` takes them; and
// pvc/NAMESPACE/NAME, the form pvctl prints.
import type {RelinkTarget} from '../engine/repair/relink.js'
import type {ObjectRef} from '../engine/simulation/plan.js'
import {UsageError} from '../errors.js'

const claimAliases = new Set(['pvc', 'pvcs', 'persistentvolumeclaim', 'persistentvolumeclaims'])
const volumeAliases = new Set(['pv', 'pvs', 'persistentvolume', 'persistentvolumes'])

/**
 * `allNamespaces`: -A was given, which a claim's name cannot go with (kubectl refuses it alike). A claim may
 * also be named TYPE/NAMESPACE/NAME, as every OBJECT column pvctl prints names it (`pvc/shop/orders`);
 * `given` is the -n on the line, which that namespace must not contradict.
 */
export function parseObjectArgs(
  args: readonly string[],
  namespace: string,
  allNamespaces = false,
  given?: string,
): ObjectRef[] {
  const type = args.at(0)?.toLowerCase()
  if (type !== undefined && !args[0].includes('/') && (claimAliases.has(type) || volumeAliases.has(type))) {
    const names = args.slice(1)
    if (names.length === 0)
      throw new UsageError(
        `"${args[0]}" names a type but no object: give its name (${args[0]} NAME) or TYPE/NAME, e.g. pvc/data`,
      )
    const slashed = names.find((name) => name.includes('/'))
    if (slashed !== undefined) {
      throw new UsageError(
        `object "${slashed}": there is no need to specify a resource type as a separate argument when passing arguments in resource/name form`,
      )
    }
    return names.map((name) => toRef(type, name, namespace, `${args[0]} ${name}`, allNamespaces))
  }
  return args.map((arg) => {
    const slash = arg.indexOf('/')
    if (slash <= 0 || slash === arg.length - 1) {
      throw new UsageError(`object "${arg}": expected TYPE/NAME or TYPE NAME, e.g. pvc/data, pvc data or pv/pv-0001`)
    }
    const type = arg.slice(0, slash).toLowerCase()
    const name = arg.slice(slash + 1)
    if (name.includes('/')) return namespacedRef(type, name, arg, given)
    return toRef(type, name, namespace, arg, allNamespaces)
  })
}

/** TYPE/NAMESPACE/NAME: a claim in that namespace. */
function namespacedRef(type: string, namespaced: string, arg: string, given: string | undefined): ObjectRef {
  const [namespace, name, ...rest] = namespaced.split('/')
  if (volumeAliases.has(type))
    throw new UsageError(
      `object "${arg}": a PersistentVolume has no namespace: pv/NAME, e.g. pv/${namespaced.split('/').at(-1)}`,
    )
  if (!claimAliases.has(type)) return toRef(type, namespaced, namespace, arg, false)
  if (rest.length > 0 || namespace === '' || name === '')
    throw new UsageError(`object "${arg}": expected pvc/NAME or pvc/NAMESPACE/NAME, e.g. pvc/data or pvc/shop/data`)
  if (given !== undefined && given !== namespace) {
    throw new UsageError(
      `object "${arg}": its namespace "${namespace}" is not the -n given ("${given}"): name it pvc/${name} -n ${given}, or pvc/${namespace}/${name} without -n`,
    )
  }
  return {kind: 'PersistentVolumeClaim', namespace, name}
}

function toRef(type: string, name: string, namespace: string, arg: string, allNamespaces: boolean): ObjectRef {
  if (claimAliases.has(type) && allNamespaces) {
    throw new UsageError(
      `object "${arg}": a resource cannot be retrieved by name across all namespaces (-A): give its namespace with -n`,
    )
  }
  if (claimAliases.has(type)) return {kind: 'PersistentVolumeClaim', namespace, name}
  if (volumeAliases.has(type)) return {kind: 'PersistentVolume', name}
  throw new UsageError(`object "${arg}": unknown type "${type}" (pvctl works on pvc/NAME and pv/NAME)`)
}

/** explain's one object (TYPE/NAME, TYPE/NAMESPACE/NAME or TYPE NAME), or none; `given`: the -n on the line. */
export function explainTarget(
  args: readonly string[],
  namespace: string,
  allNamespaces: boolean,
  given?: string,
): ObjectRef | undefined {
  if (args.length === 0) return undefined
  const refs = parseObjectArgs(args, namespace, allNamespaces, given)
  // As oclif words an argument too many (`explain pvc a b` never gets here).
  if (refs.length > 1) throw new UsageError(`Unexpected argument: ${args[1]}`)
  return refs[0]
}

/** reclaim's one volume (pv/NAME or pv NAME). */
export function reclaimTarget(args: readonly string[]): string {
  if (args.length === 0) throw new UsageError('name the volume to reclaim: pv/NAME, e.g. pvctl reclaim pv/pv-0004')
  const refs = parseObjectArgs(args, 'default')
  if (refs.length > 1) throw new UsageError(`Unexpected argument: ${args[args.length - 1]} (reclaim takes one volume)`)
  if (refs[0].kind !== 'PersistentVolume')
    throw new UsageError(
      `object "${args.join(' ')}": reclaim takes a volume (pv/NAME); to give a volume to this claim, use --for`,
    )
  return refs[0].name
}

/** A claim given as NS/NAME, or NAME in `namespace` (--for). */
export function parseClaimName(text: string, namespace: string, flag = '--for'): {namespace: string; name: string} {
  const parts = text.split('/')
  const [ns, name] = parts.length === 2 ? parts : [namespace, parts[0]]
  if (parts.length > 2 || ns === '' || name === '' || !DNS_NAME.test(ns) || !DNS_NAME.test(name)) {
    throw new UsageError(
      `${flag} "${text}": expected NS/CLAIM or CLAIM, e.g. ${flag} shop/db (lower-case names of letters, digits, "-" and ".")`,
    )
  }
  return {namespace: ns, name}
}

/** A claim's or a namespace's name, as the API server accepts it (RFC 1123 subdomain; namespaces are stricter still). */
const DNS_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/

/** relink's one pair, by its volume (pv/NAME) or its claim (pvc/NAME in `namespace`); none with --all. */
export function relinkTarget(
  args: readonly string[],
  namespace: string,
  all: boolean,
  given?: string,
): RelinkTarget | undefined {
  if (all && args.length > 0)
    throw new UsageError(`--all relinks every relinkable pair: do not name one too (${args.join(' ')})`)
  if (all) return undefined
  if (args.length === 0)
    throw new UsageError(
      'name the pair to relink: pvc/NAME (-n NS) or pv/NAME, or --all, e.g. pvctl relink pvc/db -n shop',
    )
  const refs = parseObjectArgs(args, namespace, false, given)
  if (refs.length > 1)
    throw new UsageError(`Unexpected argument: ${args[args.length - 1]} (relink takes one pvc/NAME or pv/NAME)`)
  const ref = refs[0]
  return ref.kind === 'PersistentVolume'
    ? {kind: 'PersistentVolume', name: ref.name}
    : {kind: 'PersistentVolumeClaim', namespace: ref.namespace ?? namespace, name: ref.name}
}
