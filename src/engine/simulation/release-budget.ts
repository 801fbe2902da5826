// The release budget: how much a run (or, in loop mode, a window of time) may release, recycle or delete at
// once. A picture that shows most claims gone at once is likelier a broken list or a lagging informer than
// a cluster emptied on purpose.
import type {PersistentVolume} from '../api/model.js'
import {type Action, destroys, releases} from './plan.js'

/**
 * How many volumes one run (or, in loop mode, one window of time) may release, recycle or delete before
 * the guard stops: more than `limit`, or more than `share` of the volumes bound when the run began,
 * whichever is larger. `allow` counts each volume once.
 */
export class ReleaseBudget {
  private readonly spent = new Map<string, number>()

  constructor(
    private readonly opts: {
      /** Volumes bound to a claim (claimRef with a uid) when the budget was set. */
      boundVolumes: () => number
      /** At least this many may go at once (default 20). */
      limit?: number
      /** Or this share of the bound volumes, if larger (default 0.1). */
      share?: number
      /** Unlimited: --allow-mass-release. */
      unlimited?: boolean
      /** Loop mode: releases older than this many ms no longer count. */
      windowMs?: number
      now?: () => number
    },
  ) {}

  /** The most volumes that may go at once, for the current count of bound volumes. */
  get ceiling(): number {
    return Math.max(
      this.opts.limit ?? DEFAULT_RELEASE_LIMIT,
      Math.floor((this.opts.share ?? DEFAULT_RELEASE_SHARE) * this.opts.boundVolumes()),
    )
  }

  /** Whether `volume` may be released (counted if so); undefined when it may, else why not. */
  take(volume: string): string | undefined {
    if (this.opts.unlimited) return undefined
    const now = this.opts.now?.() ?? 0
    if (this.opts.windowMs !== undefined) {
      for (const [name, at] of this.spent) if (now - at > this.opts.windowMs) this.spent.delete(name)
    }
    if (this.spent.has(volume)) return undefined
    if (this.spent.size >= this.ceiling) {
      return massReleaseMessage(this.spent.size + 1, this.opts.boundVolumes(), this.ceiling, this.opts.windowMs)
    }
    this.spent.set(volume, now)
    return undefined
  }
}

export const DEFAULT_RELEASE_LIMIT = 20
export const DEFAULT_RELEASE_SHARE = 0.1
/**
 * Loop mode's window: releases within it count together. Long enough to hold a relist's burst (every
 * volume of a lost claim list is synced within one resync), short enough that a namespace deleted on
 * purpose is reclaimed within the hour in steps.
 */
export const MASS_RELEASE_WINDOW_MS = 10 * 60_000

export function massReleaseMessage(count: number, bound: number, ceiling: number, windowMs?: number): string {
  const within = windowMs !== undefined ? ` within ${Math.round(windowMs / 1000)} s` : ' at once'
  return (
    `mass release guard: ${count} volumes would be released, recycled or deleted${within}, more than ${ceiling} ` +
    `(the larger of ${DEFAULT_RELEASE_LIMIT} and ${DEFAULT_RELEASE_SHARE * 100}% of the ${bound} bound volumes); ` +
    'this looks like a list or informer that lost claims rather than claims deleted on purpose'
  )
}

/**
 * The volumes a plan releases, recycles or deletes (a status write that makes one Released, a recycle, a
 * delete of its storage or of its object), each once: what the release budget counts.
 */
export function volumesDestroyedBy(actions: readonly Action[]): Set<string> {
  const names = new Set<string>()
  // Indexed: see docs/design.md, "Loops that run once".
  for (let i = 0; i < actions.length; i++) {
    const a = actions[i]
    if (a.object.kind !== 'PersistentVolume') continue
    if (releases(a) || destroys(a)) names.add(a.object.name)
  }
  return names
}

/**
 * Why a plan would be refused by the mass-release guard before anything is written (more volumes released,
 * recycled or deleted than the budget of `state` allows), or undefined when it would not.
 */
export function massReleaseOf(
  state: {volumes: readonly PersistentVolume[]},
  actions: readonly Action[],
): string | undefined {
  const bound = countBoundVolumes(state.volumes)
  const ceiling = new ReleaseBudget({boundVolumes: () => bound}).ceiling
  const destroyed = volumesDestroyedBy(actions).size
  return destroyed > ceiling ? massReleaseMessage(destroyed, bound, ceiling) : undefined
}

/** Counts the volumes bound to a claim (a claimRef with a uid): the base of the mass-release share. */
export function countBoundVolumes(volumes: Iterable<PersistentVolume>): number {
  let n = 0
  for (const v of volumes) if ((v.spec.claimRef?.uid ?? '') !== '') n++
  return n
}
