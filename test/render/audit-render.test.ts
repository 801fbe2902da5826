// Golden tests of the audit's CI renderers (-o junit, -o markdown), and the Markdown read back by a
// Markdown parser (marked, GitHub-flavoured): every table has the header, the delimiter row and four cells
// in every row, and a cell holds its text whatever the text holds. Regenerate with
//   UPDATE_GOLDEN=1 node --import tsx --test test/render/audit-render.test.ts
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import {marked, type Tokens} from 'marked'

import {renderAuditJunit} from '../../src/render/audit-junit.js'
import {renderAuditMarkdown} from '../../src/render/audit-markdown.js'
import {cleanReport, fullReport, HOSTILE} from './audit-fixtures.js'
import {golden} from './golden.js'

describe('audit -o junit', () => {
  const rows = [
    {name: 'audit-junit-full', render: () => renderAuditJunit([fullReport()], {failOn: 'warning'})},
    {name: 'audit-junit-fail-on-error', render: () => renderAuditJunit([fullReport()], {failOn: 'error'})},
    {name: 'audit-junit-clean', render: () => renderAuditJunit([cleanReport()], {failOn: 'warning'})},
    {
      name: 'audit-junit-fleet',
      render: () => renderAuditJunit([fullReport('prod'), cleanReport('staging')], {failOn: 'warning'}),
    },
  ]
  for (const row of rows) test(row.name, () => golden(row.name, row.render()))

  test('counts: a case per object and one for the plan; failures are the cases that fail, skipped the silenced ones', () => {
    const xml = renderAuditJunit([fullReport()], {failOn: 'warning'})
    // 7 objects audited, the class only a finding names, the plan; pv-kept and the class are silenced.
    assert.match(xml, /<testsuite name="pvctl audit" tests="9" failures="4" errors="0" skipped="2">/)
    assert.match(
      xml,
      /<testcase classname="PersistentVolume" name="pv\/pv-kept">\n {6}<skipped message="silenced: VolumeReleasedRetained \(pvctl.io\/audit-ignore\)"\/>/,
    )
    assert.match(
      xml,
      /<testcase classname="StorageClass" name="storageclass\/fast">\n {6}<skipped message="silenced: MultipleDefaultStorageClasses \(--ignore\)"\/>/,
    )
    assert.match(
      xml,
      /<testcase classname="PersistentVolumeClaim" name="pvc\/shop\/carts"\/>/,
      'a healthy object passes',
    )
  })
  test('--fail-on decides failure or system-out, --fail-on none fails nothing (the plan told in its case)', () => {
    const failures = (failOn: 'error' | 'warning' | 'info' | 'none') =>
      (renderAuditJunit([fullReport()], {failOn}).match(/<failure /g) ?? []).length
    assert.deepEqual([failures('info'), failures('warning'), failures('error'), failures('none')], [5, 4, 2, 0])
    assert.match(
      renderAuditJunit([fullReport()], {failOn: 'none'}),
      /name="the controller has nothing to change">\n {6}<system-out>the controller would make \d+ writes? first/,
    )
  })
  test('a report in sync and healthy has no failure', () =>
    assert.doesNotMatch(renderAuditJunit([cleanReport()], {failOn: 'info'}), /<failure/))
  test('text is escaped: no raw markup, no character XML cannot hold', () => {
    const xml = renderAuditJunit([fullReport()], {failOn: 'warning'})
    assert.ok(
      xml.includes(
        'message="a | pipe, a `tick`, &lt;b&gt;tags&lt;/b&gt; &amp; &quot;quotes&quot;&#10;and a second line\uFFFD"',
      ),
    )
    assert.doesNotMatch(xml, /\u0007|<b>/)
  })
})

describe('audit -o markdown', () => {
  const rows = [
    {name: 'audit-markdown-full', render: () => renderAuditMarkdown([fullReport()])},
    {name: 'audit-markdown-clean', render: () => renderAuditMarkdown([cleanReport()])},
    {name: 'audit-markdown-fleet', render: () => renderAuditMarkdown([fullReport('prod'), cleanReport('staging')])},
  ]
  for (const row of rows) test(row.name, () => golden(row.name, row.render()))

  const tables = (md: string) => marked.lexer(md, {gfm: true}).filter((t): t is Tokens.Table => t.type === 'table')

  test('a table per severity, four cells in every row, the row count of each severity', () => {
    const report = fullReport()
    const found = tables(renderAuditMarkdown([report]))
    assert.deepEqual(
      found.map((t) => t.rows.length),
      [1, 2, 1],
      'errors, warnings, info',
    )
    for (const t of found) {
      assert.deepEqual(
        t.header.map((h) => h.text),
        ['Code', 'Object', 'Message', 'Fix'],
      )
      for (const r of t.rows) assert.equal(r.length, 4)
    }
  })
  test('a cell holds its text: pipes, backticks, tags and line breaks do not leak out of it', () => {
    const warnings = tables(renderAuditMarkdown([fullReport()]))[1]
    const logs = warnings.rows.find((r) => r[1].text.includes('pvc/shop/logs'))!
    const html = marked.parseInline(logs[2].text, {gfm: true}) as string
    assert.equal(
      html,
      'a | pipe, a `tick`, &lt;b&gt;tags&lt;/b&gt; &amp; &quot;quotes&quot;<br>and a second line\uFFFD',
    )
    assert.equal(
      marked.parseInline(logs[3].text, {gfm: true}),
      `<code>pvctl explain pvc/logs -n shop -f &#39;a|b.yaml&#39;</code>`,
    )
    assert.ok(HOSTILE.includes('|'))
  })
  test('one section per report, named by its context', () => {
    const md = renderAuditMarkdown([fullReport('prod'), cleanReport('staging')])
    assert.deepEqual(md.match(/^## .*$/gm), ['## pvctl audit: prod', '## pvctl audit: staging'])
  })
})
