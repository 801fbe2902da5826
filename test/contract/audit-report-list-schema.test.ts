// The AuditReportList of a fleet audit (docs/output-contract.md), pinned by schema/audit-report-list.schema.json
// (its items by schema/audit-report.schema.json): the rendered list of the fleet golden validates (the built
// CLI's is validated in test/e2e/audit-fleet.test.ts, against emulators); broken lists, one rule each, are
// rejected, so the schema cannot become vacuous.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {Ajv2020} from 'ajv/dist/2020.js'

import {repoRoot} from '../cli/run-cli.js'

type Json = Record<string, any>

const schemaOf = (name: string) => JSON.parse(readFileSync(path.join(repoRoot, 'schema', name), 'utf8')) as Json
const ajv = new Ajv2020({allErrors: true, strict: true, strictRequired: false})
ajv.addSchema(schemaOf('audit-report.schema.json'))
const validate = ajv.compile(schemaOf('audit-report-list.schema.json'))
const list = JSON.parse(
  readFileSync(path.join(repoRoot, 'test', 'render', 'golden', 'audit-fleet-json.txt'), 'utf8'),
) as Json

test('the AuditReportList of a fleet (a cluster read, one not read, an empty one) matches the schema', () => {
  assert.ok(validate(list), ajv.errorsText(validate.errors))
  assert.deepEqual(
    list.items.map((i: Json) => i.context),
    ['shop', 'down', 'empty'],
  )
})

const broken: Array<{name: string; breakIt: (d: Json) => void}> = [
  {name: 'an item without its context', breakIt: (d) => delete d.items[0].context},
  {name: 'an empty context', breakIt: (d) => (d.items[0].context = '')},
  {name: 'an item that is no AuditReport', breakIt: (d) => (d.items[1].kind = 'SyncReport')},
  {name: 'an item with an unknown code', breakIt: (d) => (d.items[1].findings[0].code = 'ClusterDown')},
  {name: 'an object of an unknown kind', breakIt: (d) => (d.items[1].findings[0].object.kind = 'Context')},
  {name: 'no items', breakIt: (d) => (d.items = [])},
  {name: 'a List of another kind', breakIt: (d) => (d.kind = 'List')},
  {name: 'an extra top-level field', breakIt: (d) => (d.metadata = {})},
]

test('the schema rejects broken lists', () => {
  for (const row of broken) {
    const doc = structuredClone(list)
    row.breakIt(doc)
    assert.equal(validate(doc), false, row.name)
  }
})
