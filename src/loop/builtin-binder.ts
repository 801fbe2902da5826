// Two binders step on each other: kube-controller-manager's persistentvolume-binder-controller and pvctl
// would both bind the same claims, each to the volume it picks. Before writing, loop mode asks two
// questions:
//   1. Does the operator say the built-in binder is disabled? --controllers takes kube-controller-
//      manager's own list (`*,-persistentvolume-binder-controller`), so the value can be copied from
//      its manifest.
//   2. If not: is kube-controller-manager running? Its leader-election Lease
//      (kube-system/kube-controller-manager) is live when it has a holder and was renewed within its
//      lease duration.
// With the binder not known to be disabled and a live (or unreadable) Lease, pvctl does not write: it
// runs as an audit stream and says why. A Lease cannot tell which controllers kube-controller-manager
// runs, so it is the flag, never the Lease, that allows writing next to a running kube-controller-manager.
import {ApiError, NotFoundError} from '../cluster/api-errors.js'
import type {LeaseApi} from '../cluster/live-api.js'
import {isLeaseHeld} from '../engine/explain/liveness.js'
import {UsageError} from '../errors.js'

export const BINDER_CONTROLLER = 'persistentvolume-binder-controller'
/** The name before v1.28 (kube-controller-manager still accepts it). */
const BINDER_ALIAS = 'persistentvolume-binder'
export const KCM_LEASE = {namespace: 'kube-system', name: 'kube-controller-manager'} as const

/**
 * kube-controller-manager's --controllers semantics for the binder: "name" enables it, "-name" disables
 * it, and otherwise "*" (on-by-default controllers) enables it. Returns whether it runs.
 */
export function builtinBinderEnabled(controllers: readonly string[]): boolean {
  let star = false
  for (const raw of controllers) {
    const c = raw.trim()
    if (c === '') continue
    if (!/^-?[a-z0-9*-]+$/.test(c)) throw new UsageError(`--controllers: invalid entry "${raw}" (names, -name, or *)`)
    if (c === `-${BINDER_CONTROLLER}` || c === `-${BINDER_ALIAS}`) return false
    if (c === BINDER_CONTROLLER || c === BINDER_ALIAS) return true
    if (c === '*') star = true
  }
  return star
}

export interface BinderCheck {
  /** pvctl may write. */
  write: boolean
  /** One line for the log and the audit stream. */
  reason: string
}

/** What is known of kube-controller-manager's binder: disabled by --controllers, not running, running, or unknown. */
export type BinderState =
  | {kind: 'disabled'}
  | {kind: 'stopped'; reason: string}
  | {kind: 'running'; holder: string}
  | {kind: 'unknown'; error: string}

export const KCM_LEASE_KEY = `${KCM_LEASE.namespace}/${KCM_LEASE.name}`

/** Reads --controllers, then kube-controller-manager's Lease. */
export async function builtinBinderState(
  api: Pick<LeaseApi, 'readLease'>,
  controllers: readonly string[],
  now: Date,
): Promise<BinderState> {
  if (!builtinBinderEnabled(controllers)) return {kind: 'disabled'}
  try {
    const lease = await api.readLease(KCM_LEASE.namespace, KCM_LEASE.name)
    if (isLeaseHeld(lease, now.getTime())) return {kind: 'running', holder: lease.spec?.holderIdentity ?? ''}
    return {kind: 'stopped', reason: `the Lease ${KCM_LEASE_KEY} has expired`}
  } catch (err) {
    if (err instanceof NotFoundError) return {kind: 'stopped', reason: `no Lease ${KCM_LEASE_KEY}`}
    if (err instanceof ApiError) return {kind: 'unknown', error: err.message}
    throw err
  }
}

/** How to let pvctl write beside kube-controller-manager: disable its binder, and say so. */
export const DISABLE_BINDER_ADVICE = `disable it in kube-controller-manager (--controllers=*,-${BINDER_CONTROLLER}) and pass the same --controllers to pvctl`

/** Decides whether loop mode may write, from --controllers and kube-controller-manager's Lease. */
export async function checkBuiltinBinder(
  api: Pick<LeaseApi, 'readLease'>,
  controllers: readonly string[],
  now: Date,
): Promise<BinderCheck> {
  const state = await builtinBinderState(api, controllers, now)
  switch (state.kind) {
    case 'disabled':
      return {write: true, reason: `--controllers says kube-controller-manager's ${BINDER_CONTROLLER} is disabled`}
    case 'stopped':
      return {write: true, reason: `${state.reason}: no kube-controller-manager is running`}
    case 'running':
      return {
        write: false,
        reason: `kube-controller-manager is running (Lease ${KCM_LEASE_KEY} held by ${state.holder}) and its ${BINDER_CONTROLLER} may be too: not writing; ${DISABLE_BINDER_ADVICE}`,
      }
    case 'unknown':
      return {
        write: false,
        reason: `cannot read the Lease ${KCM_LEASE_KEY} (${state.error}): not writing, in case kube-controller-manager's binder runs; ${DISABLE_BINDER_ADVICE}`,
      }
  }
}
