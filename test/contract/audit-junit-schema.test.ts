// `pvctl audit -o junit` against the JUnit XML schema CI systems read: the Jenkins xunit plugin's
// junit-10.xsd (test/fixtures/junit/README.md says where it comes from), checked by a real validator:
// libxml2's own xmllint, compiled to WebAssembly (the xmllint-wasm package), so that the check needs
// nothing but npm ci. Broken documents are rejected, so the check is not vacuous; the counts the schema
// cannot check (tests, failures, skipped) are counted here.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {validateXML} from 'xmllint-wasm'

import {renderAuditJunit} from '../../src/render/audit-junit.js'
import {example, IN_SYNC_SNAPSHOT, repoRoot, runCli} from '../cli/run-cli.js'
import {cleanReport, fullReport} from '../render/audit-fixtures.js'

const XSD = {
  fileName: 'junit-10.xsd',
  contents: readFileSync(path.join(repoRoot, 'test', 'fixtures', 'junit', 'junit-10.xsd'), 'utf8'),
}

/** `xmllint --noout --schema junit-10.xsd` of the document. */
async function xmllint(xml: string): Promise<{valid: boolean; output: string}> {
  const r = await validateXML({xml: {fileName: 'report.xml', contents: xml}, schema: XSD})
  return {valid: r.valid, output: r.rawOutput}
}

/** Per suite: the counts it states, and the cases it holds. */
function suites(
  xml: string,
): Array<{stated: Record<string, number>; tests: number; failures: number; skipped: number}> {
  return [...xml.matchAll(/<testsuite ([^>]*)>([\s\S]*?)<\/testsuite>/g)].map(([, attrs, body]) => {
    const stated = Object.fromEntries([...attrs.matchAll(/(\w+)="(\d+)"/g)].map(([, k, v]) => [k, Number(v)]))
    const cases = [...body.matchAll(/<testcase [^>]*?(?:\/>|>([\s\S]*?)<\/testcase>)/g)].map((m) => m[1] ?? '')
    return {
      stated,
      tests: cases.length,
      failures: cases.filter((c) => c.includes('<failure')).length,
      skipped: cases.filter((c) => c.includes('<skipped')).length,
    }
  })
}

const documents: Array<{name: string; xml: () => Promise<string>; exit?: number}> = [
  {
    name: 'the bundled example (the CLI)',
    xml: async () => (await runCli(['audit', '-f', example, '-o', 'junit'])).stdout,
  },
  {
    name: 'a snapshot in sync and healthy (the CLI)',
    xml: async () => (await runCli(['audit', '-f', '-', '-o', 'junit'], {stdin: IN_SYNC_SNAPSHOT})).stdout,
  },
  {
    name: 'every severity, silenced cases, text to escape',
    xml: async () => renderAuditJunit([fullReport()], {failOn: 'info'}),
  },
  {
    name: 'two clusters: a suite each',
    xml: async () => renderAuditJunit([fullReport('prod'), cleanReport('staging')], {failOn: 'warning'}),
  },
]

for (const doc of documents) {
  test(`junit: ${doc.name} is valid against junit-10.xsd and counts its cases`, async () => {
    const xml = await doc.xml()
    const r = await xmllint(xml)
    assert.ok(r.valid, r.output)
    const found = suites(xml)
    assert.ok(found.length > 0)
    for (const s of found) {
      assert.deepEqual(
        {tests: s.stated.tests, failures: s.stated.failures, skipped: s.stated.skipped, errors: s.stated.errors},
        {tests: s.tests, failures: s.failures, skipped: s.skipped, errors: 0},
      )
    }
    const top = /<testsuites [^>]*tests="(\d+)" failures="(\d+)"/.exec(xml)!
    assert.deepEqual(
      [Number(top[1]), Number(top[2])],
      [found.reduce((n, s) => n + s.tests, 0), found.reduce((n, s) => n + s.failures, 0)],
    )
  })
}

test('junit: a case fails exactly when the audit exits 1', async () => {
  for (const [args, stdin] of [
    [['-f', example]],
    [['-f', example, '--fail-on', 'none']],
    [['-f', '-'], IN_SYNC_SNAPSHOT],
  ] as Array<[string[], string?]>) {
    const r = await runCli(['audit', ...args, '-o', 'junit'], {stdin})
    assert.equal(r.code === 1, r.stdout.includes('<failure '), args.join(' '))
  }
})

const broken: Array<{name: string; breakIt: (xml: string) => string}> = [
  {name: 'a suite without tests', breakIt: (x) => x.replace(/(<testsuite name="[^"]*") tests="\d+"/, '$1')},
  {name: 'an element the schema does not know', breakIt: (x) => x.replace('<testcase ', '<verdict/><testcase ')},
  {name: 'a case without a name', breakIt: (x) => x.replace(/(<testcase classname="[^"]*") name="[^"]*"/, '$1')},
  {name: 'an unescaped ampersand', breakIt: (x) => x.replace('&amp;', '&')},
]

test('junit: the validator rejects broken documents', async () => {
  const xml = renderAuditJunit([fullReport()], {failOn: 'warning'})
  for (const row of broken) {
    const changed = row.breakIt(xml)
    assert.notEqual(changed, xml, `${row.name}: the document was not changed`)
    assert.equal((await xmllint(changed)).valid, false, row.name)
  }
})
