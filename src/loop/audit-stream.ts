// Loop mode's stdout: one line per action, as it is planned (--dry-run, or an audit stream because
// another binder runs) or carried out. Text lines for people, JSON lines (-o json) for machines:
//   2026-11-30T10:15:02.123Z  written  bind-volume  pv/pv-0002  (sync pvc/shop/orders) Bind volume to claim
//   {"time":"2026-11-30T10:15:02.123Z","outcome":"written","action":"bind-volume","object":{...},...}
// A plan that is only planned comes back on every sync of its object while nothing changes (each event,
// each resync): it is printed when it first appears and again only when it changes.
import type {ExecutedAction} from '../executor/executor.js'
import type {Action} from '../engine/simulation/plan.js'
import {refKey} from '../engine/simulation/plan.js'

export type AuditFormat = 'text' | 'json'

/** Lines written together: a few writes per millisecond of a pass, not one per line. */
export const BATCH_CHARS = 64 * 1024

export interface AuditLine extends Action {
  time: string
  /** "planned" when nothing was written, else the executor's outcome. */
  outcome: string
}

/** A plan printed and not written: its actions, each with its outcome ('planned', or not carried out). */
export interface Printed {
  actions: readonly Action[]
  /** The outcome of every action: 'planned' (a dry run's, an audit's), else each action's own. */
  planned: boolean
}

/** Where the last plan printed for one object lies, while it is news only when it changes. */
export interface PrintedSlot {
  printed: Printed | undefined
}

// What was printed of an object is kept in a slot: the stream's own, by the sync's name ("pvc/NS/NAME",
// planned() and executed()), or one the caller holds (plannedIn() and executedIn(): loop mode keeps it
// with the object's key in its work queue, at hand without a look-up).
export class AuditStream {
  /** The slots of planned() and executed(), by sync, while they hold a plan. */
  private readonly slots = new Map<string, PrintedSlot>()
  lines = 0
  /** Lines not yet written (batched): written together at the event loop's next turn, or by flush(). */
  private pending = ''
  private flushing: NodeJS.Immediate | undefined
  /** The time of the last line, and its text: the syncs of a pass print many lines within a millisecond. */
  private lastMs = NaN
  private lastTime = ''

  constructor(
    private readonly format: AuditFormat,
    private readonly write: (line: string) => void,
    private readonly now: () => Date = () => new Date(),
    /**
     * Lines of many syncs in one write: a pass plans for every object, and a write per line costs more
     * than the sync. Who batches flush()es before exiting.
     */
    private readonly batched = false,
  ) {}

  /** A sync's actions that were planned only (dry run, audit). */
  planned(sync: string, actions: readonly Action[]): void {
    this.emitFor(sync, {actions, planned: true})
  }

  /** A sync's actions as the executor left them. */
  executed(sync: string, actions: readonly ExecutedAction[]): void {
    this.emitFor(sync, {actions, planned: false})
  }

  /** planned(), what was printed of the object kept in `slot`. */
  plannedIn(slot: PrintedSlot, actions: readonly Action[]): void {
    this.emit(slot, {actions, planned: true})
  }

  /** executed(), what was printed of the object kept in `slot`. */
  executedIn(slot: PrintedSlot, actions: readonly ExecutedAction[]): void {
    this.emit(slot, {actions, planned: false})
  }

  /** The object is gone: its next plan is news. */
  forget(sync: string): void {
    this.slots.delete(sync)
  }

  /** Writes the lines batched so far. */
  flush(): void {
    if (this.flushing !== undefined) clearImmediate(this.flushing)
    this.flushing = undefined
    const text = this.pending
    this.pending = ''
    if (text !== '') this.write(text)
  }

  private emitFor(sync: string, plan: Printed): void {
    let slot = this.slots.get(sync)
    if (slot === undefined) {
      if (plan.actions.length === 0) return // nothing printed before, nothing now
      this.slots.set(sync, (slot = {printed: undefined}))
    } else {
      // Printed before.
    }
    this.emit(slot, plan)
    if (slot.printed === undefined) this.slots.delete(sync)
  }

  private emit(slot: PrintedSlot, plan: Printed): void {
    const {actions} = plan
    if (actions.length === 0) {
      // Most syncs (every object at every resync): nothing to print, and the next plan is news.
      slot.printed = undefined
      return
    }
    // Writes are news every time; what is only planned (or cannot be carried out) is news when it changes.
    const repeatable = plan.planned
      ? plan
      : {actions: actions.filter((a) => isRepeatable(outcomeOf(a, false))), planned: false}
    const last = slot.printed
    const repeat = last !== undefined && samePlan(last, repeatable)
    slot.printed = repeatable.actions.length === 0 ? undefined : repeatable
    if (repeat && repeatable.actions.length === actions.length) return // nothing new: not even the time is asked
    const time = this.timeText()
    for (const a of actions) {
      if (repeat && repeatable.actions.includes(a)) continue
      this.lines++
      this.line(
        this.format === 'json'
          ? jsonLine(time, a, plan.planned)
          : `${time}  ${outcomeOf(a, plan.planned).padEnd(9)} ${a.action.padEnd(22)} ${refKey(a.object).padEnd(30)} (sync ${a.sync}) ${a.reason}\n`,
      )
    }
  }

  /** now() as toISOString() gives it, made once per millisecond. */
  private timeText(): string {
    const now = this.now()
    const ms = now.getTime()
    if (ms !== this.lastMs) {
      this.lastTime = now.toISOString()
      this.lastMs = ms
    } else {
      // The same millisecond as the last line: the same text.
    }
    return this.lastTime
  }

  private line(text: string): void {
    if (!this.batched) return this.write(text)
    this.pending += text
    // Written once a batch fills: its lines then die young, before a scavenge has to copy them (a pass
    // prints tens of MB); the rest at the event loop's next turn.
    if (this.pending.length >= BATCH_CHARS) this.flush()
    else this.flushing ??= setImmediate(() => this.flush())
  }
}

function outcomeOf(a: Action, planned: boolean): string {
  return planned ? 'planned' : (a as ExecutedAction).outcome
}

function isRepeatable(outcome: string): boolean {
  return outcome === 'planned' || outcome.startsWith('not-')
}

/**
 * An AuditLine as JSON: {time, ...action, outcome}, the action's own keys in its order, without the
 * spread's copy of every action (a pass prints one line for most objects).
 */
function jsonLine(time: string, a: Action, planned: boolean): string {
  const body = JSON.stringify(a)
  // The time is an ISO 8601 text (toISOString), with nothing JSON escapes: quoted as JSON.stringify would.
  // An action's outcome, when it has one, is among its own keys, where the spread keeps it.
  return planned
    ? `{"time":"${time}",${body.slice(1, -1)},"outcome":"planned"}\n`
    : `{"time":"${time}",${body.slice(1)}\n`
}

/** The same repeatable plan: each action the same write (kind, object, patch) with the same outcome. */
function samePlan(a: Printed, b: Printed): boolean {
  if (a.actions === b.actions && a.planned === b.planned) return true // a plan replayed: the very actions
  if (a.actions.length !== b.actions.length) return false
  for (let i = 0; i < a.actions.length; i++) {
    const x = a.actions[i]
    const y = b.actions[i]
    if (x === y && a.planned === b.planned) continue
    if (
      x.action !== y.action ||
      refKey(x.object) !== refKey(y.object) ||
      outcomeOf(x, a.planned) !== outcomeOf(y, b.planned)
    )
      return false
    if (JSON.stringify(x.patch) !== JSON.stringify(y.patch)) return false
  }
  return true
}
