// The chunked `-o json|yaml|diff` renderers: joined, their chunks are byte for byte the one-string rendering
// (JSON.stringify and kubectlYaml of the whole document, the diff's sections), and no chunk holds more than
// its share of the lists — the property that lets a report larger than V8's 512 MiB string limit print.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {clusterJson, generateCluster} from '../../bench/generate-cluster.js'
import type {SyncReport} from '../../src/engine/simulation/sync-report.js'
import {planSync} from '../../src/engine/simulation/plan-sync.js'
import {parseSnapshotText} from '../../src/cluster/snapshot.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import {plain} from '../../src/render/color.js'
import {kubectlYaml} from '../../src/render/kubectl-yaml.js'
import {reportJsonChunks, reportYamlChunks} from '../../src/render/report-doc.js'
import {syncDiffChunks} from '../../src/render/sync-diff.js'

/** A generated cluster (every kind of volume and claim the bench has), planned as `sync --dry-run` does. */
function plannedReport(volumes: number): SyncReport {
  const {state} = parseSnapshotText(clusterJson(generateCluster(volumes)), 'cluster.json')
  return planSync(state, {dryRun: true, gates: defaultFeatureGates})
}

const report = plannedReport(60)
const empty: SyncReport = {...report, rounds: 1, actions: [], events: [], errors: [], objects: [], before: []}

/** What the renderers printed before they were chunked: the whole document, as one string. */
function wholeDocument(r: SyncReport): object {
  const {before: _before, ...rest} = r
  const {apiVersion, kind, kubernetesVersion, dryRun, rounds, converged, summary, actions, events, errors, objects} =
    rest
  return {apiVersion, kind, kubernetesVersion, dryRun, rounds, converged, summary, actions, events, errors, objects}
}

const formats = [
  {name: 'json', chunks: reportJsonChunks, whole: (r: SyncReport) => JSON.stringify(wholeDocument(r), null, 2) + '\n'},
  {name: 'yaml', chunks: reportYamlChunks, whole: (r: SyncReport) => kubectlYaml(wholeDocument(r))},
]

const listLengths = (r: SyncReport) => [r.actions.length, r.events.length, r.errors.length, r.objects.length]

describe('reportJsonChunks / reportYamlChunks', () => {
  it('the generated report has lists long enough to be split', () => {
    assert.ok(report.actions.length > 10 && report.objects.length > 100, JSON.stringify(listLengths(report)))
  })

  for (const format of formats) {
    for (const [label, r] of [
      ['planned', report],
      ['empty', empty],
    ] as const) {
      for (const itemsPerChunk of [1, 2, 7, 10_000]) {
        it(`${format.name}, ${label} report, ${itemsPerChunk} per chunk: joined, the whole document`, () => {
          assert.equal([...format.chunks(r, itemsPerChunk)].join(''), format.whole(r))
        })
      }
    }

    it(`${format.name}: a chunk holds at most its share of a list, never the whole report`, () => {
      const itemsPerChunk = 7
      const chunks = [...format.chunks(report, itemsPerChunk)]
      // At least one chunk per slice of every list (the scalars and the summary add more).
      const slices = listLengths(report).reduce((n, length) => n + Math.ceil(length / itemsPerChunk), 0)
      assert.ok(chunks.length >= slices, `${chunks.length} chunks for ${slices} slices`)
      // Each chunk is bounded by the largest slice of objects, not by the report.
      const objectTexts = report.objects.map((o) => format.whole({...empty, objects: [o]}).length)
      const largestSlice = Math.max(...objectTexts) * itemsPerChunk
      const total = chunks.reduce((n, c) => n + c.length, 0)
      assert.ok(Math.max(...chunks.map((c) => c.length)) <= largestSlice, 'a chunk larger than a slice of objects')
      assert.ok(largestSlice < total / 4, 'the test report is too small to tell a slice from the whole')
    })
  }
})

describe('syncDiffChunks', () => {
  it('one chunk per changed object (the goldens pin what is in them)', () => {
    const chunks = [...syncDiffChunks(report, plain)]
    assert.ok(chunks.length > 1)
    for (const chunk of chunks) assert.equal(chunk.match(/^diff -u -N /gm)?.length, 1, chunk)
  })
})
