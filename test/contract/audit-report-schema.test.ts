// The AuditReport of docs/output-contract.md, pinned by schema/audit-report.schema.json: what the built CLI
// prints (`audit -o json` and `-o yaml`) validates, the YAML equals the JSON; broken reports (one rule
// each) are rejected, so the schema cannot become vacuous.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {Ajv2020} from 'ajv/dist/2020.js'
import {parse as parseYaml} from 'yaml'

import {FINDING_CODES} from '../../src/engine/audit/findings.js'
import {example, repoRoot, runCli} from '../cli/run-cli.js'

type Json = Record<string, any>

const schema = JSON.parse(readFileSync(path.join(repoRoot, 'schema', 'audit-report.schema.json'), 'utf8')) as Json
const ajv = new Ajv2020({allErrors: true, strict: true, strictRequired: false})
const validate = ajv.compile(schema)

test('audit -o json and -o yaml of the bundled example match the schema, and each other', async () => {
  const json = await runCli(['audit', '-f', example, '-o', 'json'])
  const yaml = await runCli(['audit', '-f', example, '-o', 'yaml'])
  const doc = JSON.parse(json.stdout) as Json
  assert.ok(validate(doc), ajv.errorsText(validate.errors))
  assert.ok(doc.findings.length > 0, 'the example has findings')
  assert.deepEqual(parseYaml(yaml.stdout), doc)
})

test("the schema's codes are every finding code", () =>
  assert.deepEqual([...(schema.$defs.code.enum as string[])].sort(), Object.keys(FINDING_CODES).sort()))

const broken: Array<{name: string; breakIt: (d: Json) => void}> = [
  {name: 'an unknown code', breakIt: (d) => (d.findings[0].code = 'ClaimLots')},
  {name: 'an unknown severity', breakIt: (d) => (d.findings[0].severity = 'fatal')},
  {name: 'a fix that is no command', breakIt: (d) => (d.findings[0].fix = 'delete it')},
  {name: 'a finding without evidence', breakIt: (d) => delete d.findings[0].evidence},
  {name: 'another kind', breakIt: (d) => (d.kind = 'SyncReport')},
  {name: 'an extra top-level field', breakIt: (d) => (d.extra = 1)},
  {name: 'an annotation count of an unknown code', breakIt: (d) => (d.summary.ignoredByAnnotation = {ClaimLots: 1})},
  {name: 'an annotation count of zero', breakIt: (d) => (d.summary.ignoredByAnnotation = {ClaimLost: 0})},
]

test('a report with findings silenced by pvctl.io/audit-ignore matches the schema; one without ignoredByAnnotation still does', async () => {
  const annotated = readFileSync(example, 'utf8').replace(
    /(\n {4}name: pv-0004\n {4}annotations:\n)/,
    '$1      pvctl.io/audit-ignore: VolumeReleasedRetained\n',
  )
  assert.notEqual(annotated, readFileSync(example, 'utf8'), 'the example has pv-0004 to annotate')
  const doc = JSON.parse((await runCli(['audit', '-f', '-', '-o', 'json'], {stdin: annotated})).stdout) as Json
  assert.deepEqual(doc.summary.ignoredByAnnotation, {VolumeReleasedRetained: 1})
  assert.ok(validate(doc), ajv.errorsText(validate.errors))
  delete doc.summary.ignoredByAnnotation
  assert.ok(validate(doc), 'a report of before the annotation stays valid')
})

test('the schema rejects broken reports', async () => {
  const base = JSON.parse((await runCli(['audit', '-f', example, '-o', 'json'])).stdout) as Json
  for (const row of broken) {
    const doc = structuredClone(base)
    row.breakIt(doc)
    assert.equal(validate(doc), false, row.name)
  }
})
