// The human form of `pvctl reclaim`: the checks as a `kubectl get`-style table, then the write, what the
// controller does next, and what happens to the data. PURE.
import {overridingFlag} from '../engine/repair/reclaim.js'
import type {ReclaimReport} from '../engine/repair/report.js'
import {checkResultCell, sentence} from './check-result.js'
import {jsonObjectChunks, yamlMapChunks} from './report-doc.js'
import type {Palette} from './color.js'
import {kubectlTable} from './kubectl-table.js'

export function renderReclaimTable(r: ReclaimReport, palette: Palette): string {
  if (r.already !== undefined) return `${heading(r)}\n${sentence(r.already)}\n`
  const lines = [
    heading(r),
    kubectlTable(
      ['CHECK', 'RESULT', 'MESSAGE'],
      r.checks.map((c) => [c.name, checkResultCell(c.result, palette), c.message]),
    ),
  ]
  if (r.allowed) {
    lines.push(`Write (${r.write.outcome}): pv/${r.volume.name} ${describeWrite(r)}`)
    lines.push(`Next: ${r.next ?? '<none>'}`)
    lines.push(r.dataSafety)
  } else {
    const overridable = r.checks.filter((c) => c.result === 'blocked' && c.overridable)
    const by = (flag: string) => overridable.filter((c) => overridingFlag(c.name) === flag).map((c) => c.name)
    const overrides = ['--force', '--not-owner']
      .filter((f) => by(f).length > 0)
      .map((f) => ` ${f} overrides ${by(f).join(', ')}.`)
    lines.push(`Not reclaimed: nothing is written.${overrides.join('')}`)
  }
  if (r.sync !== undefined)
    lines.push(
      `Sync: ${r.sync.writes} write${r.sync.writes === 1 ? '' : 's'}${r.sync.converged ? '' : ' (not converged)'}: ${r.sync.actions.map((a) => `${a.action} ${a.object.kind === 'PersistentVolume' ? 'pv' : `pvc/${a.object.namespace}`}/${a.object.name}`).join(', ') || 'nothing to do'}`,
    )
  return lines.join('\n') + '\n'
}

function heading(r: ReclaimReport): string {
  const since = r.volume.phaseSince !== undefined ? ` since ${r.volume.phaseSince}` : ''
  const what = `Reclaim pv/${r.volume.name} (${r.volume.phase ?? 'no phase'}${since}, ${r.volume.reclaimPolicy ?? 'no policy'}, claimRef ${r.volume.claimRef ?? '<none>'})`
  const target =
    r.for === null
      ? ' to any claim that matches'
      : ` for pvc/${r.for.namespace}/${r.for.name}${r.for.exists ? '' : ' (not created yet)'}`
  const mode = r.simulation
    ? ': a simulation on a snapshot, nothing is written'
    : r.dryRun
      ? ': dry run, nothing is written'
      : ''
  return `${what}${target}${mode}`
}

/** The claimRef before and after, in words. */
function describeWrite(r: ReclaimReport): string {
  const after = r.for === null ? 'removed' : `-> ${r.for.namespace}/${r.for.name} (no uid)`
  return `spec.claimRef ${r.volume.claimRef ?? '<none>'} ${after}`
}

/** Keys in the contract's order. */
function reclaimDocument(r: ReclaimReport): ReclaimReport {
  const {
    apiVersion,
    kind,
    kubernetesVersion,
    dryRun,
    simulation,
    volume,
    allowed,
    checks,
    write,
    next,
    nextActions,
    dataSafety,
    already,
    sync,
  } = r
  return {
    apiVersion,
    kind,
    ...(kubernetesVersion !== undefined ? {kubernetesVersion} : {}),
    dryRun,
    simulation,
    volume,
    for: r.for,
    allowed,
    checks,
    write,
    next,
    nextActions,
    dataSafety,
    ...(already !== undefined ? {already} : {}),
    ...(sync !== undefined ? {sync} : {}),
  }
}

export function reclaimJsonChunks(r: ReclaimReport): Generator<string> {
  return jsonObjectChunks(reclaimDocument(r))
}

export function reclaimYamlChunks(r: ReclaimReport): Generator<string> {
  return yamlMapChunks(reclaimDocument(r))
}
