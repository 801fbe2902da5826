// The RelinkReport of docs/output-contract.md, pinned by schema/relink-report.schema.json: what the built
// CLI prints (`relink -o json` and `-o yaml`: one pair allowed, one refused, --all) validates, the YAML
// equals the JSON; broken reports (one rule each) are rejected, so the schema cannot become vacuous.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {Ajv2020} from 'ajv/dist/2020.js'
import {parse as parseYaml} from 'yaml'

import {repoRoot, runCli} from '../cli/run-cli.js'

type Json = Record<string, any>

const schema = JSON.parse(readFileSync(path.join(repoRoot, 'schema', 'relink-report.schema.json'), 'utf8')) as Json
const ajv = new Ajv2020({allErrors: true, strict: true, strictRequired: false})
const validate = ajv.compile(schema)
const snapshot = path.join(repoRoot, 'examples', 'relink.yaml')

test('relink -o json and -o yaml match the schema, and each other (allowed, refused, --all)', async () => {
  for (const args of [
    ['relink', 'pvc/logs', '-n', 'shop', '-f', snapshot],
    ['relink', 'pvc/sessions', '-n', 'shop', '-f', snapshot],
    ['relink', '--all', '-f', snapshot],
  ]) {
    const json = await runCli([...args, '-o', 'json'])
    const yaml = await runCli([...args, '-o', 'yaml'])
    const doc = JSON.parse(json.stdout) as Json
    assert.ok(validate(doc), ajv.errorsText(validate.errors))
    assert.deepEqual(parseYaml(yaml.stdout), doc)
  }
})

const broken: Array<{name: string; breakIt: (d: Json) => void}> = [
  {name: 'an unknown check', breakIt: (d) => (d.pairs[0].checks[0].name = 'PairIsNice')},
  {name: 'a check overridden', breakIt: (d) => (d.pairs[0].checks[0].forced = true)},
  {name: 'an unknown outcome', breakIt: (d) => (d.pairs[0].writes[0].outcome = 'maybe')},
  {name: 'three writes for one pair', breakIt: (d) => d.pairs[0].writes.push(d.pairs[0].writes[0])},
  {name: 'a claim without its namespace', breakIt: (d) => delete d.pairs[0].claim.namespace},
  {name: 'another kind', breakIt: (d) => (d.kind = 'ReclaimReport')},
  {name: 'an extra top-level field', breakIt: (d) => (d.extra = 1)},
]

test('the schema rejects broken reports', async () => {
  const base = JSON.parse((await runCli(['relink', 'pvc/logs', '-n', 'shop', '-f', snapshot, '-o', 'json'])).stdout) as Json
  for (const row of broken) {
    const doc = structuredClone(base)
    row.breakIt(doc)
    assert.equal(validate(doc), false, row.name)
  }
})
