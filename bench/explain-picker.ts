// The interactive explain's picker on a large cluster: how long from the loaded state to the prompt
// (the controller's view, each claim's verdict in the pass, the choices in order and aligned), and how
// long a keystroke's filter takes, on N generated volumes and as many claims (bench/generate-cluster.ts:
// about half of the claims are not Bound, the picker's entries). Timed in-process on the sources.
//
//   npx tsx bench/explain-picker.ts                 10k volumes, 3 runs
//   npx tsx bench/explain-picker.ts --volumes 100000 --runs 1
import {mkdtempSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {parseArgs} from 'node:util'

import {claimChoices, filterChoices} from '../src/app/explain-session.js'
import {controllerExplainer, LIST_CANDIDATES} from '../src/engine/repair/explain-state.js'
import {loadSnapshot} from '../src/cluster/snapshot.js'
import {defaultFeatureGates} from '../src/engine/api/feature-gates.js'
import {claimsInScope} from '../src/engine/explain/explainer.js'
import {generateCluster, writeCluster} from './generate-cluster.js'

const {values} = parseArgs({
  options: {volumes: {type: 'string', default: '10000'}, runs: {type: 'string', default: '3'}},
})
const volumes = Number(values.volumes)
const runs = Number(values.runs)

const dir = mkdtempSync(path.join(os.tmpdir(), 'pvctl-picker-bench-'))
try {
  const file = path.join(dir, 'cluster.json')
  writeCluster(file, generateCluster(volumes))
  const {state} = await loadSnapshot(file)
  const req = {gates: defaultFeatureGates, onlyRelevant: false}
  for (let run = 1; run <= runs; run++) {
    const t0 = performance.now()
    // What runExplainSession does before its first prompt.
    const explainer = controllerExplainer(state, req).with({onlyRelevant: false, candidates: LIST_CANDIDATES})
    const explanations = claimsInScope(explainer, {}).map((c) =>
      explainer.listItem(c.metadata.namespace ?? '', c.metadata.name ?? '')!,
    )
    const t1 = performance.now()
    const choices = claimChoices(explanations)
    const t2 = performance.now()
    const terms = ['t', 'te', 'tea', 'team-01', 'team-01 nomatch']
    for (const term of terms) filterChoices(choices, term)
    const t3 = performance.now()
    console.log(
      `run ${run}: ${volumes.toLocaleString('en')} volumes, ${explanations.length.toLocaleString('en')} entries: verdicts ${ms(t1 - t0)}, choices (order, alignment) ${ms(t2 - t1)}, to the prompt ${ms(t2 - t0)}; filter ${ms((t3 - t2) / terms.length)} a keystroke`,
    )
  }
} finally {
  rmSync(dir, {recursive: true, force: true})
}

function ms(n: number): string {
  return `${Math.round(n).toLocaleString('en')} ms`
}
