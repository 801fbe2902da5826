// `npm run differential -- --version 1.31 --clusters N [--seed S] [--first I] [--parallel P] [--out DIR]`:
// the differential oracle (differential.ts) on N generated clusters (from the I-th of seed S's) against a
// real control plane of that version (P of them, each taking every P-th cluster). Prints one line a
// cluster that is not an agreement, writes each such cluster to DIR, and ends with
// `differential: N clusters, D disagreements` (exit 1 when D > 0). Order-dependent differences (the
// controller's choice among equal candidates) are counted apart and are not disagreements.
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {parseArgs} from 'node:util'

import {startControlPlane} from './control-plane.js'
import {compareOne, gatesFor, generatedClusters, writeOutcome} from './differential.js'
import {goMissing, kubeBinaries, kubeRelease} from './kube-binaries.js'
import {clients} from './seed.js'

const {values} = parseArgs({
  options: {
    version: {type: 'string', default: '1.31'},
    clusters: {type: 'string', default: '20'},
    seed: {type: 'string', default: '1'},
    first: {type: 'string', default: '0'},
    out: {type: 'string'},
    'sync-period': {type: 'string', default: '1s'},
    parallel: {type: 'string', default: '1'},
  },
})
const log = (line: string) => process.stderr.write(`${line}\n`)
const count = Number(values.clusters)
const seed = Number(values.seed)
const first = Number(values.first)
const parallel = Number(values.parallel)
if (!Number.isInteger(parallel) || parallel < 1)
  throw new Error(`--parallel ${values.parallel}: expected a positive integer`)
if (!Number.isInteger(count) || count < 1) throw new Error(`--clusters ${values.clusters}: expected a positive integer`)
if (!Number.isInteger(seed)) throw new Error(`--seed ${values.seed}: expected an integer`)

const missing = await goMissing()
if (missing !== undefined) {
  process.stdout.write(`differential: skipped: ${missing}\n`)
  process.exit(0)
}
const binaries = await kubeBinaries(kubeRelease(values.version), log)
const planes = await Promise.all(Array.from({length: parallel}, () => startControlPlane(binaries, {log})))
const stopAll = () => Promise.all(planes.map((p) => p.stop()))
const interrupted = () => void stopAll().then(() => process.exit(130))
process.on('SIGINT', interrupted)
process.on('SIGTERM', interrupted)
const out = values.out ?? mkdtempSync(path.join(tmpdir(), `pvctl-differential-${binaries.release.kubernetes}-`))
const gates = gatesFor(binaries.release.kubernetes)

const clusters = generatedClusters(first + count, seed).slice(first)
const tally = {agree: 0, 'order-dependent': 0, disagree: 0}
const started = Date.now()
let refusedObjects = 0
try {
  process.stdout.write(
    `differential: Kubernetes ${binaries.release.kubernetes}, ${count} generated clusters (seed ${seed}${first > 0 ? `, from #${first}` : ''}); differences written to ${out}\n`,
  )
  await Promise.all(
    planes.map(async (plane, worker) => {
      const options = {plane, api: clients(plane.kubeconfig), gates, syncPeriod: values['sync-period']}
      for (let i = worker; i < clusters.length; i += parallel) {
        const outcome = await compareOne(options, clusters[i]!, first + i)
        tally[outcome.verdict]++
        refusedObjects += outcome.refused.length
        if (outcome.verdict !== 'agree') {
          const folder = writeOutcome(out, outcome)
          process.stdout.write(
            `cluster #${outcome.index}: ${outcome.verdict} (${outcome.differences.length} differences): ${folder}\n${outcome.differences.map((d) => `  ${d}`).join('\n')}\n`,
          )
        }
      }
    }),
  )
} finally {
  await stopAll()
}
process.stdout.write(
  `${tally.agree} agree, ${tally['order-dependent']} differ only in order-dependent choices; ${refusedObjects} generated objects the API server refused were left out; ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
)
process.stdout.write(`differential: ${count} clusters, ${tally.disagree} disagreements\n`)
process.exit(tally.disagree > 0 ? 1 : 0)
