// The evidence parts of explain's human output: an object's events (`kubectl describe`'s Events block,
// newest first) and what shows an external controller running. PURE.
import {humanDuration} from '../engine/explain/evidence.js'
import type {AttachmentsSeen, ControllerLiveness, EventsSeen, LivenessVerdict} from '../engine/explain/model.js'
import type {Palette} from './color.js'
import {kubectlTable, NONE, type TableLayout, wrapProse} from './explain-layout.js'

/** Events kept on screen; -o json|yaml carries them all. */
export const EVENTS_SHOWN = 10

/** On a terminal (layout.width) the message wraps, never cut. */
export function eventsBlock(events: EventsSeen, p: Palette, layout: TableLayout = {}): string {
  const title = p.bold('Events:')
  if (!events.available) return wrapProse(`${title} not available (${events.unavailableReason})`, layout.width)
  if (events.items.length === 0) return `${title} ${NONE}`
  const shown = events.items.slice(0, EVENTS_SHOWN)
  const rows = shown.map((e) => [
    e.type === 'Warning' ? p.yellow(e.type) : e.type,
    e.reason,
    `${humanDuration(e.ageSeconds)}${e.count > 1 ? ` (x${e.count})` : ''}`,
    e.source,
    e.message,
  ])
  const more = events.items.length - shown.length
  return [
    title,
    kubectlTable(['TYPE', 'REASON', 'AGE', 'FROM', 'MESSAGE'], rows, {...layout, wrap: 4}),
    ...(more > 0 ? [wrapProse(`(${more} older not shown: -o yaml lists them all)`, layout.width)] : []),
  ].join('\n')
}

const VERDICT_WORDS: Readonly<Record<LivenessVerdict, string>> = {
  Active: 'running',
  NoSignOfLife: 'no sign that it runs',
  Unknown: 'cannot tell whether it runs',
}

/** "name (running)", then each piece of evidence on its own line: a value for a `fields` row. */
export function livenessLines(l: ControllerLiveness, p: Palette): string {
  const word = VERDICT_WORDS[l.verdict]
  const colored = l.verdict === 'Active' ? p.green(word) : l.verdict === 'NoSignOfLife' ? p.red(word) : p.yellow(word)
  return [`${l.name} (${colored})`, ...l.summary.split('; ')].join('\n')
}

export function attachmentsBlock(a: AttachmentsSeen, p: Palette, layout: TableLayout = {}): string {
  const title = p.bold('VolumeAttachments:')
  if (!a.available) return wrapProse(`${title} not available (${a.unavailableReason})`, layout.width)
  if (a.items.length === 0) return `${title} ${NONE}`
  const rows = a.items.map((x) => [
    x.name,
    x.attacher,
    x.node,
    String(x.attached),
    x.deleting ? 'yes' : 'no',
    x.error ?? '',
  ])
  return `${title}\n${kubectlTable(['NAME', 'ATTACHER', 'NODE', 'ATTACHED', 'DELETING', 'ERROR'], rows, {...layout, wrap: 5})}`
}
