// The human form of a VolumeExplanation: state and sentence first, then the claim it points at, the
// reclaim that follows a release, the finalizers of a volume being deleted, then what to do. PURE.
import type {ReclaimPlan, VolumeExplanation, VolumeState} from '../engine/explain/model.js'
import type {Palette} from './color.js'
import {attachmentsBlock, eventsBlock, livenessLines} from './explain-evidence.js'
import {bullets, fields, kubectlTable, NONE, type TableLayout, wrapProse} from './explain-layout.js'

const GOOD: ReadonlySet<VolumeState> = new Set<VolumeState>(['Available', 'Bound', 'PreBound', 'Binding'])

export function renderVolumeExplanation(e: VolumeExplanation, p: Palette, layout: TableLayout = {}): string {
  const state = e.state === 'Failed' ? p.red(e.state) : GOOD.has(e.state) ? p.green(e.state) : p.yellow(e.state)
  const blocks = [
    `${p.bold(`pv/${e.volume.name}`)} (${e.phase ?? 'no phase'}): ${state}${e.terminating !== null ? `, ${p.yellow('Terminating')}` : ''}\n${wrapProse(e.summary, layout.width)}`,
  ]
  const rows: Array<[string, string]> = [['Claim', describeClaim(e)]]
  if (e.reclaim !== null) rows.push(['Reclaim', `${e.reclaim.policy || NONE}: ${describeReclaim(e.reclaim)}`])
  if (e.failure !== null) rows.push(['Failure', e.failure])
  if (e.wantedBy.length > 0) rows.push(['Wanted by', e.wantedBy.join(', ')])
  for (const c of e.controllers) rows.push([c.role === 'attacher' ? 'Attacher' : 'Deleter', livenessLines(c, p)])
  blocks.push(fields(rows, layout.width))
  if (e.terminating !== null) {
    const finalizers = e.terminating.finalizers.map((f) => [
      f.name,
      f.blocking ? p.yellow('yes') : 'no',
      f.owner,
      f.waitsFor,
    ])
    blocks.push(
      finalizers.length === 0
        ? `${p.bold('Finalizers:')} ${NONE}`
        : `${p.bold('Finalizers:')}\n${kubectlTable(['FINALIZER', 'HOLDS', 'OWNER', 'UNTIL'], finalizers, {...layout, wrap: 3})}`,
    )
  }
  // Attachments matter to a volume being deleted (the attacher's finalizer) or one that lists some.
  if (e.terminating !== null || e.attachments.items.length > 0) blocks.push(attachmentsBlock(e.attachments, p, layout))
  if (e.suggestions.length > 0) blocks.push(bullets(p.bold('Suggestions:'), e.suggestions, layout.width))
  blocks.push(eventsBlock(e.events, p, layout))
  return blocks.join('\n\n') + '\n'
}

function describeReclaim(r: ReclaimPlan): string {
  const by = r.by ?? 'an external provisioner'
  switch (r.action) {
    case 'retain':
      return 'kept as it is'
    case 'recycle':
      return `scrubbed by ${by}, then Available`
    case 'delete':
      return `deleted by ${by}`
    case 'external':
      return `deleted by ${by}, outside the controller`
    case 'fail':
      return 'fails'
    case 'blocked':
      return 'waits'
    case 'none':
      return `left to ${by}`
  }
}

function describeClaim(e: VolumeExplanation): string {
  const c = e.claim
  if (c === null) return NONE
  const uid = c.uid === null ? 'no uid: pre-bound' : `uid ${c.uid}`
  return `${c.namespace}/${c.name} (${uid})${c.exists ? '' : ', which does not exist'}`
}
