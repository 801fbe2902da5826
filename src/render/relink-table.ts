// The human form of `pvctl relink`: for each pair, the checks as a `kubectl get`-style table, then the
// writes and what the controller does next. PURE.
import type {RelinkPair, RelinkReport} from '../engine/repair/relink-report.js'
import {jsonObjectChunks, yamlMapChunks} from './report-doc.js'
import type {Palette} from './color.js'
import {checkResultCell, sentence} from './check-result.js'
import {kubectlTable} from './kubectl-table.js'

export function renderRelinkTable(r: RelinkReport, palette: Palette): string {
  const mode = r.simulation
    ? ': a simulation on a snapshot, nothing is written'
    : r.dryRun
      ? ': dry run, nothing is written'
      : ''
  const lines: string[] = []
  if (r.pairs.length === 0) lines.push(`Relink --all${mode}: no pair to relink`)
  for (const p of r.pairs) {
    // A blank line between pairs (--all), as kubectl describe separates objects.
    if (lines.length > 0) lines.push('')
    lines.push(`${heading(p)}${mode}`)
    if (p.already !== undefined) {
      lines.push(sentence(p.already))
      continue
    } else {
      // To be relinked, or refused: its checks.
    }
    lines.push(
      kubectlTable(
        ['CHECK', 'RESULT', 'MESSAGE'],
        p.checks.map((c) => [c.name, checkResultCell(c.result, palette), c.message]),
      ),
    )
    if (p.allowed) {
      for (const w of p.writes)
        lines.push(
          `Write (${w.outcome}): ${w.object.kind === 'PersistentVolume' ? 'pv' : `pvc/${w.object.namespace ?? ''}`}/${w.object.name} ${w.patch.map((op) => `${op.op} ${op.path}${'value' in op ? ` ${JSON.stringify(op.value)}` : ''}`).join(', ')}`,
        )
      lines.push(`Next: ${p.next ?? '<none>'}`)
    } else {
      lines.push('Not relinked: nothing is written.')
    }
  }
  if (r.pairs.some((p) => p.allowed)) lines.push(r.dataSafety)
  if (r.sync !== undefined)
    lines.push(
      `Sync: ${r.sync.writes} write${r.sync.writes === 1 ? '' : 's'}${r.sync.converged ? '' : ' (not converged)'}: ${r.sync.actions.map((a) => `${a.action} ${a.object.kind === 'PersistentVolume' ? 'pv' : `pvc/${a.object.namespace}`}/${a.object.name}`).join(', ') || 'nothing to do'}`,
    )
  return lines.join('\n') + '\n'
}

function heading(p: RelinkPair): string {
  const v =
    p.volume === null
      ? 'no volume'
      : `pv/${p.volume.name} (${p.volume.exists ? `${p.volume.phase ?? 'no phase'}, claimRef uid ${p.volume.claimRefUid ?? '<none>'}` : 'not found'})`
  const c =
    p.claim === null
      ? 'no claim'
      : `pvc/${p.claim.namespace}/${p.claim.name} (${p.claim.exists ? `${p.claim.phase ?? 'no phase'}, uid ${p.claim.uid ?? '<none>'}` : 'not found'})`
  return `Relink ${c} and ${v}`
}

/** Keys in the contract's order. */
function relinkDocument(r: RelinkReport): RelinkReport {
  const {apiVersion, kind, kubernetesVersion, dryRun, simulation, all, pairs, dataSafety, sync} = r
  return {
    apiVersion,
    kind,
    ...(kubernetesVersion !== undefined ? {kubernetesVersion} : {}),
    dryRun,
    simulation,
    all,
    pairs,
    dataSafety,
    ...(sync !== undefined ? {sync} : {}),
  }
}

export function relinkJsonChunks(r: RelinkReport): Generator<string> {
  return jsonObjectChunks(relinkDocument(r))
}

export function relinkYamlChunks(r: RelinkReport): Generator<string> {
  return yamlMapChunks(relinkDocument(r))
}
