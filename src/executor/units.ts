// The units of work of a round, and how they run: concurrently where they touch disjoint objects, in plan
// order where they share one.
import type {Action} from '../engine/simulation/plan.js'
import {type LiveState, touchedBy} from './live-state.js'

/** A sync carried out as one unit of work, and what it keeps across re-plans and trips through the queue. */
export interface Unit {
  sync: string
  /** Position in the round plan: units that share objects run in this order. */
  order: number
  /** The objects the unit holds while it runs; grows when a re-plan reaches further. */
  objects: Set<string>
  /** Re-plans after a conflict so far. */
  attempt: number
  /** Outcomes of the plugin operations this unit carried out, replayed to the engine. */
  outcomes: Map<string, unknown>
  /** The operations of `outcomes` already reported as executed. */
  reportedHere: Set<string>
}

/** The units of a round: the actions of each sync, in plan order. */
export function unitsOf(actions: readonly Action[], state: LiveState): Unit[] {
  const bySync = new Map<string, Action[]>()
  for (const a of actions) bySync.set(a.sync, [...(bySync.get(a.sync) ?? []), a])
  return [...bySync].map(([sync, own], order) => ({
    sync,
    order,
    objects: touchedBy(sync, own, state),
    attempt: 0,
    outcomes: new Map<string, unknown>(),
    reportedHere: new Set<string>(),
  }))
}

/**
 * Runs units in plan order, up to `limit` at once, never two that share an object at the same time
 * (they run in plan order instead: a unit waits for every earlier unit that shares an object with it).
 * A unit that comes back 'requeue' has released its objects and waits again, in its place in the plan
 * order, for the objects it now holds; it holds more each time, so it runs in the end.
 */
export async function runConcurrently<U extends {objects: Set<string>; order: number}>(
  units: readonly U[],
  limit: number,
  run: (u: U) => Promise<'done' | 'requeue'>,
  stop: () => boolean,
): Promise<void> {
  const waiting = [...units].sort((a, b) => a.order - b.order)
  const running = new Set<{unit: U; promise: Promise<void>}>()
  const busy = new Set<string>()
  const blocked = (u: U, index: number) =>
    [...u.objects].some((o) => busy.has(o)) ||
    waiting.slice(0, index).some((w) => [...w.objects].some((o) => u.objects.has(o)))
  const requeue = (u: U) => {
    const at = waiting.findIndex((w) => w.order > u.order)
    waiting.splice(at === -1 ? waiting.length : at, 0, u)
  }
  while (waiting.length > 0 || running.size > 0) {
    if (!stop()) {
      for (let i = 0; i < waiting.length && running.size < Math.max(1, limit);) {
        const u = waiting[i]
        if (blocked(u, i)) {
          i++
          continue
        }
        waiting.splice(i, 1)
        // A copy: a unit that grows its set releases what it held, not what it would have held.
        const held = [...u.objects]
        for (const o of held) busy.add(o)
        const entry = {
          unit: u,
          promise: run(u).then(
            (result) => {
              for (const o of held) busy.delete(o)
              running.delete(entry)
              if (result === 'requeue') requeue(u)
              else return
            },
            (err: unknown) => {
              for (const o of held) busy.delete(o)
              running.delete(entry)
              throw err
            },
          ),
        }
        running.add(entry)
      }
    } else {
      waiting.length = 0
    }
    if (running.size === 0) break
    await Promise.race([...running].map((r) => r.promise))
  }
}
