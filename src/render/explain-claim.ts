// The human form of a ClaimExplanation: the verdict and its one sentence first, then what the decision
// rests on (request, class, pods, the binding's pointers), then every candidate volume, closest first,
// with each reason on its own line, then what to do. PURE: explanation and palette in, text out.
import type {
  BindingPointers,
  Candidate,
  ClaimExplanation,
  ClaimPod,
  Reason,
  StorageClassInPlay,
  Verdict,
} from '../engine/explain/model.js'
import type {Palette} from './color.js'
import {eventsBlock, livenessLines} from './explain-evidence.js'
import {bullets, fields, kubectlTable, NONE, type TableLayout, wrapProse} from './explain-layout.js'

const GOOD: ReadonlySet<Verdict> = new Set<Verdict>(['Bound', 'WillBind'])
/** Waits that end by themselves when the cluster works as it should. */
const WAITING: ReadonlySet<Verdict> = new Set<Verdict>([
  'WillProvision',
  'ExternalProvisioning',
  'WaitForFirstConsumer',
  'WaitForPodScheduled',
])

/**
 * Where the explanation came from, as the flags that name it (`-f a.yaml`, `--context prod`): a command a
 * hint prints must reproduce what the reader is looking at, not ask another cluster.
 */
export interface ExplainSource {
  args: readonly string[]
}

/** The source's flags as a shell would take them back ('' for the current context's cluster). */
export function shellArgs(source: ExplainSource | undefined): string {
  return (source?.args ?? [])
    .map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`))
    .map((a) => ` ${a}`)
    .join('')
}

/** `layout`: --no-headers, and the terminal the tables are fitted to (each reason and message wraps, never cut). */
export function renderClaimExplanation(
  e: ClaimExplanation,
  p: Palette,
  source?: ExplainSource,
  layout: TableLayout = {},
): string {
  const blocks = [
    `${p.bold(`pvc/${e.claim.namespace}/${e.claim.name}`)} (${e.phase}): ${colorVerdict(e.verdict, p)}\n${wrapProse(e.summary, layout.width)}`,
    fields(facts(e, p), layout.width),
    candidatesBlock(e, p, source, layout),
  ]
  if (e.caveats !== undefined && e.caveats.length > 0) blocks.push(bullets(p.bold('Caveats:'), e.caveats, layout.width))
  if (e.suggestions.length > 0) blocks.push(bullets(p.bold('Suggestions:'), e.suggestions, layout.width))
  // Last, as `kubectl describe` has them.
  blocks.push(eventsBlock(e.events, p, layout))
  return blocks.join('\n\n') + '\n'
}

export function colorVerdict(v: Verdict, p: Palette): string {
  if (GOOD.has(v)) return p.green(v)
  if (WAITING.has(v)) return p.yellow(v)
  return p.red(v)
}

function facts(e: ClaimExplanation, p: Palette): Array<[string, string]> {
  const r = e.request
  const request = [
    r.storage ?? 'no size',
    r.accessModes.length > 0 ? r.accessModes.join(',') : 'no access mode',
    r.volumeMode,
  ]
  if (r.selector !== null) request.push(`selector ${r.selector}`)
  if (r.volumeName !== null) request.push(`volumeName ${r.volumeName}`)
  const rows: Array<[string, string]> = [
    ['Request', request.join(', ')],
    ['Storage class', describeClass(e.storageClass)],
  ]
  if (e.provisionerLiveness !== null) rows.push(['Provisioner', livenessLines(e.provisionerLiveness, p)])
  else if (e.provisioner !== null) rows.push(['Provisioner', e.provisioner])
  if (e.selectedNode !== null)
    rows.push(['Selected node', `${e.selectedNode} (the scheduler's choice: provision there)`])
  rows.push(['Pods', e.pods.length === 0 ? NONE : e.pods.map(describePod).join('\n')])
  if (e.pointers !== null) rows.push(['Binding', describePointers(e.pointers)])
  if (e.error !== null) rows.push(['Controller says', e.error])
  return rows
}

function describeClass(c: StorageClassInPlay): string {
  const detail = c.exists ? ` (provisioner ${c.provisioner ?? NONE}, ${describeMode(c.volumeBindingMode)})` : ''
  switch (c.selection) {
    case 'Explicit':
      return `${c.name}${detail}`
    case 'Missing':
      return `${c.name}: no such StorageClass`
    case 'NoClass':
      return '"" (no class: only volumes without a class bind, nothing is provisioned)'
    case 'Unset':
      return c.defaultClasses.length === 0
        ? 'not set, and there is no default class: matched as ""'
        : `not set: matched as "" first; default class ${c.defaultClasses[0]} applies only if nothing matches`
    case 'Default':
      return `${c.name}, the default class, which the next sync gives the claim${detail}`
    case 'NewestDefault':
      return `${c.name}, the newest of ${c.defaultClasses.length} default classes (${c.defaultClasses.join(', ')}), which the next sync gives the claim${detail}`
  }
}

function describeMode(mode: string | null): string {
  if (mode === 'WaitForFirstConsumer') return 'binds on first consumer'
  if (mode === 'Immediate') return 'binds immediately'
  return `volumeBindingMode ${mode ?? 'not set'}`
}

function describePod(pod: ClaimPod): string {
  if (pod.terminated) return `${pod.name} (terminated: ignored)`
  return pod.scheduled ? `${pod.name} (scheduled on ${pod.node})` : `${pod.name} (not scheduled)`
}

/** The triangle: the claim's pointer, the volume's pointer back (with its uid), who wins. */
function describePointers(b: BindingPointers): string {
  const lines = [`claim uid ${b.claimUid ?? NONE}, spec.volumeName ${b.claimVolumeName ?? NONE}`]
  if (b.volume !== null) {
    if (!b.volume.exists) {
      lines.push(`${b.volume.name}: does not exist`)
    } else if (b.volume.claimRef === null) {
      lines.push(`${b.volume.name}: spec.claimRef ${NONE}`)
    } else {
      const ref = b.volume.claimRef
      lines.push(
        `${b.volume.name}: spec.claimRef ${ref.namespace}/${ref.name}, uid ${ref.uid ?? NONE}${b.volume.pointsBack ? '' : ' (not this claim)'}`,
      )
    }
  }
  for (const v of b.volumesPointingHere)
    lines.push(`${v.name}: spec.claimRef names this claim${v.uidMatches ? ', with its uid' : ', with another uid'}`)
  lines.push(`authoritative: ${b.authoritative} — ${b.explanation}`)
  return lines.join('\n')
}

/**
 * The candidates table. A reason every candidate shares (the class binds on first consumer, the claim
 * names another volume) is said once above the table instead of on every row; when it is all there is
 * to say about every volume, the table is left out.
 */
function candidatesBlock(
  e: ClaimExplanation,
  p: Palette,
  source: ExplainSource | undefined,
  layout: TableLayout,
): string {
  const eligible = e.candidates.filter((c) => c.eligible).length
  // A bounded explanation (a List's) shows the nearest few; eligible volumes come first, so "none" holds.
  const total = e.candidatesTotal ?? e.candidates.length
  const more = total > e.candidates.length
  const shown = more
    ? `${count(total, 'volume')}, the nearest ${e.candidates.length} shown (pvctl explain pvc/${e.claim.name} -n ${e.claim.namespace}${shellArgs(source)} shows all)`
    : count(e.candidates.length, 'volume')
  const title = `${p.bold('Candidates:')} ${shown}, ${eligible === 0 ? 'none' : `${eligible}${more && eligible === e.candidates.length ? '+' : ''}`} eligible`
  if (e.candidates.length === 0) return wrapProse(title, layout.width)
  const shared = e.candidates.length > 1 ? sharedReasons(e.candidates) : new Set<string>()
  const lines = [wrapProse(title, layout.width)]
  for (const message of shared) lines.push(wrapProse(`every volume: ${message}`, layout.width, '  '))
  const rest = (c: Candidate) => c.reasons.filter((r) => !shared.has(r.message))
  if (e.candidates.every((c) => !c.eligible && rest(c).length === 0) && shared.size > 0) return lines.join('\n')
  const rows = e.candidates.map((c) => [
    c.volume,
    c.capacity ?? NONE,
    c.accessModes,
    c.storageClass === '' ? '""' : c.storageClass,
    c.phase ?? NONE,
    why(c, rest(c), e, p),
  ])
  lines.push(kubectlTable(['VOLUME', 'CAPACITY', 'MODES', 'CLASS', 'PHASE', 'WHY (NOT)'], rows, {...layout, wrap: 5}))
  return lines.join('\n')
}

/** The reason messages every candidate has. */
function sharedReasons(candidates: readonly Candidate[]): Set<string> {
  const [first, ...others] = candidates
  return new Set(
    first.reasons.map((r) => r.message).filter((m) => others.every((c) => c.reasons.some((r) => r.message === m))),
  )
}

function why(c: Candidate, reasons: readonly Reason[], e: ClaimExplanation, p: Palette): string {
  if (!c.eligible) return reasons.length === 0 ? 'only that' : reasons.map((r) => r.message).join('\n')
  if (c.volume === e.volume)
    return p.green(e.verdict === 'Bound' ? 'bound to this claim' : 'the next sync binds this one')
  return e.verdict === 'SyncError' ? 'matches, but the sync fails before it binds' : 'matches (a closer match wins)'
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}
