// The human form of `pvctl sync`: the plan as `kubectl get`-style tables (borderless, columns three spaces
// apart, upper-case headers, `<none>` for empty), then the events, the errors and a one-line summary.
// PURE: the report and the palette in, a string out.

import type {SyncReport, SyncSummary} from '../engine/simulation/sync-report.js'
import type {Action, ActionType, JsonPatchOp, PlannedEvent, SyncError} from '../engine/simulation/plan.js'
import {refKey} from '../engine/simulation/plan.js'
import type {Palette} from './color.js'
import {kubectlTable as table, NONE, type TableLayout} from './kubectl-table.js'
import {wrapProse} from './prose.js'

export interface SyncTableOptions extends TableLayout {
  /** `-o wide`: more columns, nothing wrapped. */
  wide: boolean
  palette: Palette
}

export function renderSyncTable(report: SyncReport, opts: SyncTableOptions): string {
  const {palette: p} = opts
  const blocks: string[] = []
  if (report.actions.length === 0) {
    blocks.push('No changes: the cluster is in sync with the controller.')
  } else {
    blocks.push(actionsTable(report.actions, opts))
  }
  if (report.events.length > 0) blocks.push(`${p.bold('Events:')}\n${eventsTable(report.events, opts)}`)
  if (report.errors.length > 0) {
    blocks.push(`${p.bold('Errors (retried on the next sync):')}\n${errorsTable(report.errors, opts)}`)
  }
  if (report.actions.length > 0) blocks.push(wrapProse(summaryLine(report, p), opts.width))
  return blocks.join('\n\n') + '\n'
}

/** A report of a run that wrote carries each action's outcome (`written`, `executed`, `failed: …`). */
function outcomeOf(a: Action): string | undefined {
  return (a as Action & {outcome?: string}).outcome
}

function actionsTable(actions: readonly Action[], {wide, palette, width, noHeaders}: SyncTableOptions): string {
  const executed = actions.some((a) => outcomeOf(a) !== undefined)
  const head = executed ? ['ACTION', 'OBJECT', 'OUTCOME', 'REASON'] : ['ACTION', 'OBJECT', 'REASON']
  if (wide) head.push('ROUND', 'SUBRESOURCE', 'RESOURCEVERSION', 'CHANGES')
  // What became of each write is never cut: it is why the table is read after a run.
  const outcomes = actions.map((a) => oneLine(outcomeOf(a) ?? '') || NONE)
  const rows = actions.map((a, i) => {
    const outcome = outcomes[i].startsWith('failed') ? palette.red(outcomes[i]) : outcomes[i]
    const reason = oneLine(a.reason) || NONE
    const row = executed
      ? [colorAction(a.action, palette), refKey(a.object), outcome, reason]
      : [colorAction(a.action, palette), refKey(a.object), reason]
    if (wide) {
      row.push(String(a.round), a.subresource ?? NONE, a.resourceVersion ?? NONE, changes(a.patch))
    }
    return row
  })
  // On a terminal: REASON wraps within what ACTION, OBJECT (and OUTCOME) leave of its width (they are never
  // cut: they identify the row). In a pipe, and with -o wide, nothing is cut or wrapped.
  return table(head, rows, {noHeaders, width: wide ? undefined : width, wrap: head.indexOf('REASON')})
}

// Messages are not cut: like `kubectl get events`, the event is only useful whole (on a terminal the message
// wraps). Narrow output folds the count into the message as kubectl describe does ("(x3)"); wide output gives
// it a column.
function eventsTable(events: readonly PlannedEvent[], {wide, palette, width, noHeaders}: SyncTableOptions): string {
  const head = ['TYPE', 'REASON', 'OBJECT', 'MESSAGE']
  if (wide) head.push('COUNT')
  const rows = events.map((e) => {
    const type = e.type === 'Warning' ? palette.yellow(e.type) : e.type
    const message = oneLine(e.message) || NONE
    if (wide) return [type, e.reason, refKey(e.object), message, String(e.count)]
    return [type, e.reason, refKey(e.object), e.count > 1 ? `${message} (x${e.count})` : message]
  })
  return table(head, rows, {noHeaders, width: wide ? undefined : width, wrap: 3})
}

// Errors are never truncated: the message is what the user has to act on (on a terminal it wraps).
function errorsTable(errors: readonly SyncError[], {palette, width, noHeaders}: SyncTableOptions): string {
  const rows = errors.map((e) => [refKey(e.object), palette.red(oneLine(e.message) || NONE)])
  return table(['OBJECT', 'ERROR'], rows, {noHeaders, width, wrap: 1})
}

function summaryLine(report: SyncReport, p: Palette): string {
  const s: SyncSummary = report.summary
  const counts = [
    count(s.binds, 'bind'),
    count(s.releases, 'release'),
    count(s.recycles, 'recycle'),
    count(s.deletions, 'deletion'),
  ]
  // Provisioning is rare in a snapshot simulation: mention it only when it happens.
  if (s.provisions > 0) counts.push(count(s.provisions, 'provision'))
  counts.push(count(s.lostClaims, 'lost claim'), count(s.phaseChanges, 'phase change'))
  // After a run that wrote, the counts are of what was done (sync-live.ts), not of what was planned; a run
  // that was interrupted says so first, and how much of the plan it did not reach.
  const done = report.actions.some((a) => outcomeOf(a) !== undefined)
  const notReached = report.actions.filter((a) => INTERRUPTED.test(outcomeOf(a) ?? '')).length
  const head =
    notReached > 0
      ? `Interrupted: ${counts.join(', ')} (${count(s.writes, 'write')}); ${notReached} of the plan's actions not carried out`
      : `${done ? 'Done' : 'Plan'}: ${counts.join(', ')} (${count(s.writes, 'write')})`
  return report.converged
    ? `${head} in ${count(report.rounds, 'round')}; ${p.green('converged')}.`
    : `${head}; ${p.yellow(`not converged after ${count(report.rounds, 'round')}`)}.`
}

/** The outcome of an action that an interrupt kept from being written or carried out. */
const INTERRUPTED = /^not-(written|executed): interrupted/

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}

// Bindings and provisioning make storage usable; delete, recycle and unbind take it away or scrub it.
const GREEN_ACTIONS: ReadonlySet<ActionType> = new Set<ActionType>(['bind-volume', 'bind-claim', 'provision'])
const RED_ACTIONS: ReadonlySet<ActionType> = new Set<ActionType>(['delete', 'recycle', 'unbind-volume'])

function colorAction(action: ActionType, p: Palette): string {
  if (GREEN_ACTIONS.has(action)) return p.green(action)
  if (RED_ACTIONS.has(action)) return p.red(action)
  return action
}

/** The paths a write touches, as JSON Pointers (the `patch` of `-o json`), in patch order, once each. */
function changes(patch: readonly JsonPatchOp[]): string {
  const paths = [...new Set(patch.map((op) => op.path))]
  return paths.length === 0 ? NONE : paths.join(',')
}

/** A cell is one line: kubectlTable would otherwise split a row across lines. */
function oneLine(s: string): string {
  return s.replace(/\s*[\r\n]+\s*/g, ' ').trim()
}
