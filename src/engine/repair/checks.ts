// What the repairs (reclaim, relink) judge alike: a check's shape, the plan's action on a volume, and a
// volume being deleted. PURE.
import type {PersistentVolume} from '../api/model.js'
import type {Action} from '../simulation/plan.js'

/** One named check of a repair, judged on the state. */
export interface RepairCheck<N extends string> {
  name: N
  /** The check holds. */
  ok: boolean
  /** --force may override it. */
  overridable: boolean
  /** Not ok, overridable, and overridden by --force. */
  forced: boolean
  message: string
}

/** The plan's first action on volume `name` that `what` matches. */
export function volumeAction(actions: readonly Action[], name: string, what: (a: Action) => boolean): Action | undefined {
  return actions.find((a) => a.object.kind === 'PersistentVolume' && a.object.name === name && what(a))
}

/** Whether a volume is being deleted, in the words of a check: [ok, message]. */
export function volumeDeleting(volume: PersistentVolume): [boolean, string] {
  const since = volume.metadata.deletionTimestamp
  return since == null ? [true, 'not being deleted'] : [false, `${volume.metadata.name ?? ''} is being deleted (since ${since})`]
}
