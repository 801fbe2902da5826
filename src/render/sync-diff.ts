// `pvctl sync --diff`: what the plan does to each object, as the unified diff of its YAML, the way
// `kubectl diff` shows it (`diff -u -N` of the live and the merged object). PURE.
import {structuredPatch} from 'diff'

import type {SyncReport} from '../engine/simulation/sync-report.js'
import type {PersistentVolume, PersistentVolumeClaim} from '../engine/api/model.js'
import {refKey} from '../engine/simulation/plan.js'
import type {Palette} from './color.js'
import {kubectlYaml} from './kubectl-yaml.js'

type KubeObject = PersistentVolume | PersistentVolumeClaim

const CONTEXT_LINES = 3

/**
 * One `diff -u -N live/KIND/NAME planned/KIND/NAME` section per object whose state the plan changes, in
 * kind, namespace, name order; an object that only appears on one side is diffed against nothing. Fields
 * every write changes (`metadata.resourceVersion`) or that are noise (`metadata.managedFields`) are left
 * out, so a write that changes nothing else shows nothing. Returns '' when no object changes.
 *
 * A volume plugin's operation is shown as what it is, so that reviewing the diff is reviewing the plan: a
 * `# recycle …`, `# delete …` or `# provision …` line heads the object's section (a line diff tools pass
 * over, as they pass over anything before `---`), and a volume the plan deletes is diffed against nothing:
 * every line of it removed.
 */
export function renderSyncDiff(report: SyncReport, palette: Palette): string {
  return [...syncDiffChunks(report, palette)].join('')
}

/** renderSyncDiff as one chunk per changed object, for writing a large diff without one string. */
export function* syncDiffChunks(report: SyncReport, palette: Palette): Generator<string> {
  if (report.before === undefined) {
    // Without the objects as read there is nothing to compare with: a caller bug, not "no changes".
    throw new TypeError('renderSyncDiff: the report carries no `before` objects to diff against')
  }
  const before = byKey(report.before)
  const after = byKey(report.objects)
  const operations = operationsByObject(report)
  const keys = new Map<string, Key>()
  for (const side of [before, after]) for (const [id, {key}] of side) keys.set(id, key)
  for (const [id, key] of [...keys].sort((a, b) => compareKeys(a[1], b[1]))) {
    const old = before.get(id)?.object
    const ops = operations.get(label(key)) ?? []
    // A deletion planned (its outcome is the plugin's, so the engine's objects still hold the volume):
    // the object as it will be once the plan is carried out, which is not at all.
    const planned = ops.some((a) => a.action === 'delete') ? undefined : after.get(id)?.object
    // The engine returns the object it read when no sync wrote it: nothing to lay out and compare.
    if (old === planned && ops.length === 0) continue
    const oldText = toYaml(old)
    const newText = old === planned ? oldText : toYaml(planned)
    if (oldText === newText && ops.length === 0) continue
    yield (
      ops
        .map(
          (a) =>
            palette.yellow(`# ${a.action} ${label(key)}: ${oneLine(a.reason)}${CONSEQUENCE[a.action as Operation]}`) +
            '\n',
        )
        .join('') + section(label(key), oldText, newText, palette)
    )
  }
}

/** One object's `diff -u -N live/… planned/…` section: a single write shown as `kubectl diff` shows it. */
export function objectDiff(before: KubeObject, after: KubeObject, palette: Palette): string {
  return section(label(keyOf(before)), toYaml(before), toYaml(after), palette)
}

type Operation = 'recycle' | 'delete' | 'provision'

/** What each operation does beyond the fields the diff shows. */
const CONSEQUENCE: Record<Operation, string> = {
  recycle: ' (a recycler pod deletes every file on the volume; it is then Available again)',
  delete: ' (the storage is deleted, then the PV object: the data is gone)',
  provision: ' (a new volume is created for the claim)',
}

/** The plan's plugin operations, by the object they act on (`pv/NAME`, `pvc/NS/NAME`). */
function operationsByObject(report: SyncReport): Map<string, SyncReport['actions']> {
  const byObject = new Map<string, SyncReport['actions']>()
  for (const a of report.actions) {
    if (!(a.action in CONSEQUENCE)) continue
    const key = refKey(a.object)
    byObject.set(key, [...(byObject.get(key) ?? []), a])
  }
  return byObject
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

/** kind, namespace, name: the sort order of `report.objects`. */
type Key = readonly [kind: string, namespace: string, name: string]

function byKey(objects: readonly KubeObject[]): Map<string, {key: Key; object: KubeObject}> {
  const map = new Map<string, {key: Key; object: KubeObject}>()
  for (const object of objects) {
    const key = keyOf(object)
    map.set(JSON.stringify(key), {key, object})
  }
  return map
}

function keyOf(o: KubeObject): Key {
  // The engine's objects carry their kind; failing that, a PV has no namespace and a claim always has one.
  const kind = o.kind ?? (o.metadata.namespace === undefined ? 'PersistentVolume' : 'PersistentVolumeClaim')
  return [kind, o.metadata.namespace ?? '', o.metadata.name ?? '']
}

function compareKeys(ka: Key, kb: Key): number {
  for (let i = 0; i < 3; i++) {
    if (ka[i] !== kb[i]) return ka[i] < kb[i] ? -1 : 1
  }
  return 0
}

/** `pv/NAME` or `pvc/NAMESPACE/NAME`, as everywhere else in pvctl's output. */
function label([kind, namespace, name]: Key): string {
  if (kind === 'PersistentVolume') return `pv/${name}`
  if (kind === 'PersistentVolumeClaim') return `pvc/${namespace}/${name}`
  return namespace === '' ? `${kind.toLowerCase()}/${name}` : `${kind.toLowerCase()}/${namespace}/${name}`
}

/** The object as `kubectl get -o yaml` lays it out, minus the fields every write changes. */
function toYaml(o: KubeObject | undefined): string {
  if (o === undefined) return ''
  const {resourceVersion: _rv, managedFields: _mf, ...metadata} = o.metadata
  return kubectlYaml({...o, metadata})
}

function section(name: string, oldText: string, newText: string, p: Palette): string {
  const oldName = `live/${name}`
  const newName = `planned/${name}`
  const patch = structuredPatch(oldName, newName, oldText, newText, undefined, undefined, {context: CONTEXT_LINES})
  const out = [p.bold(`diff -u -N ${oldName} ${newName}`), p.bold(`--- ${oldName}`), p.bold(`+++ ${newName}`)]
  for (const hunk of patch.hunks) {
    out.push(p.cyan(`@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@`))
    for (const line of hunk.lines) {
      if (line.startsWith('+')) out.push(p.green(line))
      else if (line.startsWith('-')) out.push(p.red(line))
      else out.push(line)
    }
  }
  return out.join('\n') + '\n'
}

// GNU diff's hunk ranges: `start,count`, `start` alone for one line, and for an empty side the line
// before the hunk (`0,0` for an empty file).
function range(start: number, lines: number): string {
  if (lines === 1) return String(start)
  return `${lines === 0 ? start - 1 : start},${lines}`
}
