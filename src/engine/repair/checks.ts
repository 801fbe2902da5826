// What the repairs (reclaim, relink) judge alike: a check's shape, the plan's action on a volume, and a
// volume being deleted. PURE.
import {RestoreLabels} from '../api/constants.js'
import type {PersistentVolume} from '../api/model.js'
import type {Action} from '../simulation/plan.js'

/** A claim by namespace and name (a repair's target, a claim it speaks of). */
export interface ClaimName {
  namespace: string
  name: string
}

/**
 * A check's answer in one word: `ok` (it holds on what was read), `not-read` (what it judges was not there
 * to read, a snapshot without those objects: it does not stop the repair, and does not pass either),
 * `forced` (it does not hold, and --force overrode it), `blocked` (it does not hold: the repair is refused).
 */
export type RepairCheckResult = 'ok' | 'not-read' | 'forced' | 'blocked'

/** One named check of a repair, judged on the state. */
export interface RepairCheck<N extends string> {
  name: N
  result: RepairCheckResult
  /** Nothing read stops it: the result is `ok` or `not-read`. */
  ok: boolean
  /** --force may override it. */
  overridable: boolean
  /** Not ok, overridable, and overridden by --force. */
  forced: boolean
  message: string
}

/** The result of a check judged `ok` (nothing read stops it) on what it `read`, and `forced` by --force. */
export function repairCheckResult(c: {ok: boolean; read: boolean; forced: boolean}): RepairCheckResult {
  if (!c.ok) {
    return c.forced ? 'forced' : 'blocked'
  } else if (!c.read) {
    return 'not-read'
  } else {
    return 'ok'
  }
}

/**
 * A repair as advice prints it (audit's fixes, explain's suggestions, the refusals of reclaim and relink),
 * from that repair's own decision on the state: its command, or the steps in order where one step first
 * makes it allowed (the decision made again on the state that step leaves); else undefined, and the
 * checks that refuse it.
 */
export interface RepairWay {
  way: string | undefined
  refusedBy: string[]
}

/** The plan's first action on volume `name` that `what` matches. */
export function volumeAction(
  actions: readonly Action[],
  name: string,
  what: (a: Action) => boolean,
): Action | undefined {
  return actions.find((a) => a.object.kind === 'PersistentVolume' && a.object.name === name && what(a))
}

/** Whether a volume is being deleted, in the words of a check: [ok, message]. */
export function volumeDeleting(volume: PersistentVolume): [boolean, string] {
  const since = volume.metadata.deletionTimestamp
  return since == null
    ? [true, 'not being deleted']
    : [false, `${volume.metadata.name ?? ''} is being deleted (since ${since})`]
}

/** The restore that made the object (the value of its first restore label), or null: not restored. */
export function restoredBy(o: {metadata: {labels?: Record<string, string> | null}}): string | null {
  const labels = o.metadata.labels ?? {}
  const label = RestoreLabels.find((l) => (labels[l] ?? '') !== '')
  return label === undefined ? null : labels[label]
}

/** The source flags as the text a printed command carries after its objects (` -f FILE`), '' for none. */
export function sourceText(args: readonly string[] | undefined): string {
  return (args ?? []).map((a) => ` ${a}`).join('')
}
