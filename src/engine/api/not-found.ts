// kubectl's "not found" for an object named on the command line, with what the user probably meant: the
// same name in another namespace, or a close name. Shared by sync, explain, audit and the repairs.
import {closeNames} from './close-names.js'
import {claimKey, type ClusterState} from './model.js'
import {RequestError} from './request-error.js'

/** kubectl's "not found", plus the claims the user probably meant. */
export function claimNotFound(state: ClusterState, namespace: string, name: string): RequestError {
  const elsewhere = state.claims.filter((c) => c.metadata.name === name).map((c) => c.metadata.namespace ?? '')
  const here = state.claims.filter((c) => c.metadata.namespace === namespace).map((c) => c.metadata.name ?? '')
  const hints: string[] = []
  if (elsewhere.length > 0) hints.push(`it exists in namespace ${elsewhere.sort().join(', ')}: add -n ${elsewhere[0]}`)
  const close = closeNames(name, here)
  if (close.length > 0) {
    hints.push(`did you mean ${close.map((n) => `pvc/${n}`).join(', ')}?`)
  } else if (elsewhere.length === 0) {
    const anywhere = closeNames(
      name,
      state.claims.map((c) => c.metadata.name ?? ''),
    )
    const keys = state.claims
      .filter((c) => anywhere.includes(c.metadata.name ?? ''))
      .map(claimKey)
      .sort()
    if (keys.length > 0) hints.push(`did you mean ${keys.join(', ')}?`)
  }
  const message = `persistentvolumeclaim "${name}" not found in namespace "${namespace}"${hints.length > 0 ? `; ${hints.join('; ')}` : ''}`
  return new RequestError(message, 'NotFound', hints)
}

export function volumeNotFound(state: ClusterState, name: string): RequestError {
  const close = closeNames(
    name,
    state.volumes.map((v) => v.metadata.name ?? ''),
  )
  const hint = close.length > 0 ? `did you mean ${close.map((n) => `pv/${n}`).join(', ')}?` : undefined
  return new RequestError(
    `persistentvolume "${name}" not found${hint !== undefined ? `; ${hint}` : ''}`,
    'NotFound',
    hint !== undefined ? [hint] : [],
  )
}
