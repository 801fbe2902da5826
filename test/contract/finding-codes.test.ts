// docs/codes.md's table and the audit report schema's code enum are generated from FINDING_CODES
// (src/engine/audit/findings.ts): each code with its severity and meaning, in FINDING_CODES' order. The fix
// column is written by hand in docs/codes.md (what to do, with links to usage.md) and kept by code. A
// drift fails here; UPDATE_GOLDEN=1 regenerates both files (review the diff; a new code then needs its fix
// written in the table). A test rather than a build step: the build never rewrites docs/ or schema/
// behind a developer's back, and CI fails on a drift instead of hiding it.
import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {FINDING_CODES} from '../../src/engine/audit/findings.js'
import {repoRoot} from '../cli/run-cli.js'

const UPDATE = process.env.UPDATE_GOLDEN === '1'
const CODES_PAGE = path.join(repoRoot, 'docs/codes.md')
const AUDIT_SCHEMA = path.join(repoRoot, 'schema/audit-report.schema.json')
const TABLE_HEAD = '| code | severity | meaning | fix |\n| --- | --- | --- | --- |\n'

/** The page with its code table made from FINDING_CODES, the fixes kept from the table as it is. */
function codesPage(page: string): {page: string; withoutFix: string[]} {
  const start = page.indexOf(TABLE_HEAD)
  assert.notEqual(start, -1, `docs/codes.md has no table headed ${JSON.stringify(TABLE_HEAD)}`)
  const rowsAt = start + TABLE_HEAD.length
  const end = page.indexOf('\n\n', rowsAt)
  const fixes = new Map(
    page
      .slice(rowsAt, end)
      .split('\n')
      .map((row) => {
        const [code, , , ...fix] = row.slice('| '.length, -' |'.length).split(' | ')
        return [code.replaceAll('`', ''), fix.join(' | ')] as const
      }),
  )
  const rows = Object.entries(FINDING_CODES).map(
    ([code, c]) => `| \`${code}\` | ${c.severity} | ${c.meaning} | ${fixes.get(code) ?? ''} |`,
  )
  const withoutFix = Object.keys(FINDING_CODES).filter((code) => (fixes.get(code) ?? '') === '')
  return {page: page.slice(0, rowsAt) + rows.join('\n') + page.slice(end), withoutFix}
}

function auditSchema(text: string): string {
  const schema = JSON.parse(text) as {$defs: {code: {enum: string[]}}}
  schema.$defs.code.enum = Object.keys(FINDING_CODES)
  return `${JSON.stringify(schema, null, 2)}\n`
}

for (const {name, file, make} of [
  {name: "docs/codes.md's table", file: CODES_PAGE, make: (text: string) => codesPage(text).page},
  {name: "the audit report schema's code enum", file: AUDIT_SCHEMA, make: auditSchema},
]) {
  test(`${name} is FINDING_CODES`, () => {
    const text = readFileSync(file, 'utf8')
    const made = make(text)
    if (UPDATE) writeFileSync(file, made)
    else
      assert.equal(
        text,
        made,
        `${path.relative(repoRoot, file)} drifted from FINDING_CODES: UPDATE_GOLDEN=1 regenerates it`,
      )
  })
}

test('every finding code has its fix written in docs/codes.md', () => {
  assert.deepEqual(codesPage(readFileSync(CODES_PAGE, 'utf8')).withoutFix, [])
})
