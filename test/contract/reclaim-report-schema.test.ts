// The ReclaimReport of docs/output-contract.md, pinned by schema/reclaim-report.schema.json: what the built
// CLI prints (`reclaim -o json` and `-o yaml`, allowed and refused) validates, the YAML equals the JSON;
// broken reports (one rule each) are rejected, so the schema cannot become vacuous.
import path from 'node:path'
import {test} from 'node:test'

import {editedSnapshot} from '../cli/edited-snapshot.js'
import {example, repoRoot} from '../cli/run-cli.js'
import {type Json, reportContract} from './repair-report-schema.js'

const contract = reportContract('reclaim-report.schema.json')
const snapshot = path.join(repoRoot, 'examples', 'reclaim.yaml')

test('reclaim -o json and -o yaml match the schema, and each other (allowed, refused, overridden, reclaimed already)', async () => {
  const recreated = await editedSnapshot('reclaim.yaml', (s) => {
    const again = structuredClone(s.claims[0])
    again.metadata = {name: 'old-db', namespace: 'shop', uid: 'u-again'}
    s.claims.push(again)
  })
  const done = await editedSnapshot('reclaim.yaml', (s) => void delete s.volumes[0].spec.claimRef)
  await contract.validates([
    ['reclaim', 'pv/pv-0004', '--for', 'shop/db', '-f', snapshot],
    ['reclaim', 'pv/pv-0004', '-f', example],
    ['reclaim', 'pv/pv-0004', '--for', 'shop/db', '-f', recreated],
    ['reclaim', 'pv/pv-0004', '--for', 'shop/db', '--not-owner', 'shop/old-db', '-f', recreated],
    ['reclaim', 'pv/pv-0004', '-f', done],
  ])
})

const broken: Array<{name: string; breakIt: (d: Json) => void}> = [
  {name: 'an unknown check', breakIt: (d) => (d.checks[0].name = 'VolumeIsNice')},
  {name: 'a check without its message', breakIt: (d) => delete d.checks[0].message},
  {name: 'an unknown result', breakIt: (d) => (d.checks[0].result = 'fine')},
  {name: 'an unknown outcome', breakIt: (d) => (d.write.outcome = 'maybe')},
  {name: 'a target without its namespace', breakIt: (d) => delete d.for.namespace},
  {name: 'another kind', breakIt: (d) => (d.kind = 'SyncReport')},
  {name: 'an extra top-level field', breakIt: (d) => (d.extra = 1)},
  {name: 'an empty already', breakIt: (d) => (d.already = '')},
]

test('the schema rejects broken reports', async () => {
  await contract.rejects(['reclaim', 'pv/pv-0004', '--for', 'shop/db', '-f', snapshot], broken)
})
