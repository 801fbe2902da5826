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

export interface AuditLine extends Action {
  time: string
  /** "planned" when nothing was written, else the executor's outcome. */
  outcome: string
}

export class AuditStream {
  /** The last plan printed per sync ("pvc/NS/NAME", "pv/NAME"): what was planned, not written. */
  private readonly lastPlan = new Map<string, string>()
  lines = 0

  constructor(
    private readonly format: AuditFormat,
    private readonly write: (line: string) => void,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** A sync's actions that were planned only (dry run, audit). */
  planned(sync: string, actions: readonly Action[]): void {
    this.emit(sync, actions.map((a) => ({...a, outcome: 'planned'})))
  }

  /** A sync's actions as the executor left them. */
  executed(sync: string, actions: readonly ExecutedAction[]): void {
    this.emit(sync, actions)
  }

  /** The object is gone: its next plan is news. */
  forget(sync: string): void {
    this.lastPlan.delete(sync)
  }

  private emit(sync: string, actions: ReadonlyArray<Action & {outcome: string}>): void {
    if (actions.length === 0) {
      // Most syncs (every object at every resync): nothing to print, and the next plan is news.
      this.lastPlan.delete(sync)
      return
    }
    // Writes are news every time; what is only planned (or cannot be carried out) is news when it changes.
    const repeatable = actions.filter((a) => a.outcome === 'planned' || a.outcome.startsWith('not-'))
    const fingerprint = JSON.stringify(repeatable.map((a) => [a.action, refKey(a.object), a.patch, a.outcome]))
    const repeat = this.lastPlan.get(sync) === fingerprint
    if (repeatable.length === 0) this.lastPlan.delete(sync)
    else this.lastPlan.set(sync, fingerprint)
    const time = this.now().toISOString()
    for (const a of actions) {
      if (repeat && repeatable.includes(a)) continue
      this.lines++
      if (this.format === 'json') {
        const line: AuditLine = {time, ...a, outcome: a.outcome}
        this.write(`${JSON.stringify(line)}\n`)
      } else {
        this.write(`${time}  ${a.outcome.padEnd(9)} ${a.action.padEnd(22)} ${refKey(a.object).padEnd(30)} (sync ${a.sync}) ${a.reason}\n`)
      }
    }
  }
}
