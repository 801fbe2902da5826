// A bounded explanation (`explain` with no claim named, `--candidates N`): one pass that keeps the nearest
// N candidates must give exactly the first N of the full explanation's sorted candidates, the same count
// of volumes, and the same verdict, summary and suggestions, whatever the state. The oracle is the
// unbounded explanation of the same claim (every volume judged and sorted), over generated clusters large
// enough that most volumes are dropped unjudged (bound to other claims) and over the conformance cases.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {describe, test} from 'node:test'

import {clusterJson, generateCluster} from '../../bench/generate-cluster.js'
import {snapshotTextState} from '../fixtures/states.js'
import {claimsToExplain, Explainer} from '../../src/engine/explain/explainer.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {ClusterState} from '../../src/engine/api/model.js'

interface Row {
  id: string
  state: () => ClusterState
  limits: number[]
  onlyRelevant: boolean
}

const generated = (volumes: number, seed: number) => () =>
  snapshotTextState(clusterJson(generateCluster(volumes, seed)), `generated-${volumes}-${seed}`)

const rows: Row[] = [
  {id: '300 volumes, seed 1', state: generated(300, 1), limits: [1, 5], onlyRelevant: false},
  {id: '300 volumes, seed 2, only relevant', state: generated(300, 2), limits: [1, 5], onlyRelevant: true},
  {id: '1000 volumes, seed 3', state: generated(1000, 3), limits: [3, 40], onlyRelevant: false},
  {
    id: 'the bundled example',
    state: () => snapshotTextState(bundledExample(), 'examples/cluster.yaml'),
    limits: [1, 2],
    onlyRelevant: false,
  },
]

describe('explain: a bounded explanation is the head of the full one', () => {
  for (const row of rows) {
    test(row.id, () => {
      const state = row.state()
      const full = new Explainer(state, {gates: defaultFeatureGates, onlyRelevant: row.onlyRelevant})
      const claims = claimsToExplain(full)
      assert.ok(claims.length > 0, 'the state has claims to explain')
      for (const limit of row.limits) {
        const bounded = new Explainer(state, {
          gates: defaultFeatureGates,
          onlyRelevant: row.onlyRelevant,
          candidates: limit,
        })
        for (const c of claims) {
          const ns = c.metadata.namespace ?? ''
          const name = c.metadata.name ?? ''
          const want = full.claim(ns, name)!
          const got = bounded.claim(ns, name)!
          const where = `${ns}/${name} --candidates ${limit}`
          assert.deepEqual(got.candidates, want.candidates.slice(0, limit), where)
          assert.equal(got.candidatesTotal, want.candidates.length, where)
          const {candidates: _g, candidatesTotal: _t, ...gotRest} = got
          const {candidates: _w, ...wantRest} = want
          assert.deepEqual(gotRest, wantRest, `${where}: all but the candidates as explained in full`)
        }
      }
    })
  }
})

describe('explain: --candidates 0 and pvc/NAME list every volume', () => {
  const table = [
    {id: 'options without a bound', options: {}},
    {id: '--candidates 0', options: {candidates: 0}},
  ]
  for (const row of table) {
    test(row.id, () => {
      const state = generated(200, 4)()
      const e = new Explainer(state, {gates: defaultFeatureGates, ...row.options})
      for (const c of claimsToExplain(e)) {
        const got = e.claim(c.metadata.namespace ?? '', c.metadata.name ?? '')!
        assert.equal(got.candidates.length, state.volumes.length)
        assert.equal('candidatesTotal' in got, false, 'no extra field when nothing is left out')
      }
    })
  }
})

function bundledExample(): string {
  // Read here, not at import: a missing file fails this row only.
  return readFileSync(new URL('../../examples/cluster.yaml', import.meta.url), 'utf8')
}
