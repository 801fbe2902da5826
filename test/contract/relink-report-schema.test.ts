// The RelinkReport of docs/output-contract.md, pinned by schema/relink-report.schema.json: what the built
// CLI prints (`relink -o json` and `-o yaml`: one pair allowed, one refused, --all) validates, the YAML
// equals the JSON; broken reports (one rule each) are rejected, so the schema cannot become vacuous.
import path from 'node:path'
import {test} from 'node:test'

import {editedSnapshot} from '../cli/edited-snapshot.js'
import {repoRoot} from '../cli/run-cli.js'
import {type Json, reportContract} from './repair-report-schema.js'

const contract = reportContract('relink-report.schema.json')
const snapshot = path.join(repoRoot, 'examples', 'relink.yaml')

test('relink -o json and -o yaml match the schema, and each other (allowed, refused, --all, relinked already)', async () => {
  // pv-0004's claimRef holds the uid of shop/db as restored: the pair closes.
  const done = await editedSnapshot(
    'relink.yaml',
    (s) => void (s.volumes[0].spec.claimRef!.uid = s.claims[0].metadata.uid),
  )
  await contract.validates([
    ['relink', 'pvc/logs', '-n', 'shop', '-f', snapshot],
    ['relink', 'pvc/sessions', '-n', 'shop', '-f', snapshot],
    ['relink', '--all', '-f', snapshot],
    ['relink', 'pvc/db', '-n', 'shop', '-f', done],
  ])
})

const broken: Array<{name: string; breakIt: (d: Json) => void}> = [
  {name: 'an unknown check', breakIt: (d) => (d.pairs[0].checks[0].name = 'PairIsNice')},
  {name: 'a check overridden', breakIt: (d) => (d.pairs[0].checks[0].forced = true)},
  {name: 'a check not read', breakIt: (d) => (d.pairs[0].checks[0].result = 'not-read')},
  {name: 'an unknown outcome', breakIt: (d) => (d.pairs[0].writes[0].outcome = 'maybe')},
  {name: 'three writes for one pair', breakIt: (d) => d.pairs[0].writes.push(d.pairs[0].writes[0])},
  {name: 'a claim without its namespace', breakIt: (d) => delete d.pairs[0].claim.namespace},
  {name: 'another kind', breakIt: (d) => (d.kind = 'ReclaimReport')},
  {name: 'an extra top-level field', breakIt: (d) => (d.extra = 1)},
]

test('the schema rejects broken reports', async () => {
  await contract.rejects(['relink', 'pvc/logs', '-n', 'shop', '-f', snapshot], broken)
})
