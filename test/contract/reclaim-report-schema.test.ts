// The ReclaimReport of docs/output-contract.md, pinned by schema/reclaim-report.schema.json: what the built
// CLI prints (`reclaim -o json` and `-o yaml`, allowed and refused) validates, the YAML equals the JSON;
// broken reports (one rule each) are rejected, so the schema cannot become vacuous.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {Ajv2020} from 'ajv/dist/2020.js'
import {parse as parseYaml} from 'yaml'

import {example, repoRoot, runCli} from '../cli/run-cli.js'

type Json = Record<string, any>

const schema = JSON.parse(readFileSync(path.join(repoRoot, 'schema', 'reclaim-report.schema.json'), 'utf8')) as Json
const ajv = new Ajv2020({allErrors: true, strict: true, strictRequired: false})
const validate = ajv.compile(schema)
const snapshot = path.join(repoRoot, 'examples', 'reclaim.yaml')

test('reclaim -o json and -o yaml match the schema, and each other (allowed, and refused)', async () => {
  for (const args of [
    ['reclaim', 'pv/pv-0004', '--for', 'shop/db', '-f', snapshot],
    ['reclaim', 'pv/pv-0004', '-f', example],
  ]) {
    const json = await runCli([...args, '-o', 'json'])
    const yaml = await runCli([...args, '-o', 'yaml'])
    const doc = JSON.parse(json.stdout) as Json
    assert.ok(validate(doc), ajv.errorsText(validate.errors))
    assert.deepEqual(parseYaml(yaml.stdout), doc)
  }
})

const broken: Array<{name: string; breakIt: (d: Json) => void}> = [
  {name: 'an unknown check', breakIt: (d) => (d.checks[0].name = 'VolumeIsNice')},
  {name: 'a check without its message', breakIt: (d) => delete d.checks[0].message},
  {name: 'an unknown outcome', breakIt: (d) => (d.write.outcome = 'maybe')},
  {name: 'a target without its namespace', breakIt: (d) => delete d.for.namespace},
  {name: 'another kind', breakIt: (d) => (d.kind = 'SyncReport')},
  {name: 'an extra top-level field', breakIt: (d) => (d.extra = 1)},
]

test('the schema rejects broken reports', async () => {
  const base = JSON.parse((await runCli(['reclaim', 'pv/pv-0004', '--for', 'shop/db', '-f', snapshot, '-o', 'json'])).stdout) as Json
  for (const row of broken) {
    const doc = structuredClone(base)
    row.breakIt(doc)
    assert.equal(validate(doc), false, row.name)
  }
})
