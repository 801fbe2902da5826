// pvctl audit -o html: the page of the bundled example kept as a golden file (its time is passed in, so it
// is stable), what is on it (counts, anchors, pictures, chart), a fleet's table of clusters, and strings of
// the cluster that cannot break out of their element or attribute. Regenerate after a deliberate change with
//   UPDATE_GOLDEN=1 node --import tsx --test test/render/audit-html.test.ts
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {auditState} from '../../src/engine/audit/audit-state.js'
import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {unreadClusterReport} from '../../src/engine/audit/fleet.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {ClusterState} from '../../src/engine/api/model.js'
import {escapeHtml, objectAnchor, renderAuditHtml} from '../../src/render/audit-html.js'
import {pod, pv, pvc, state as makeState} from '../engine/builders.js'
import {fullReport, HOSTILE} from './audit-fixtures.js'
import {golden} from './golden.js'

const GENERATED_AT = '2026-03-01T12:00:00.000Z'
const {state} = await loadSnapshot(['examples/cluster.yaml'])
const opts = {gates: defaultFeatureGates, failOn: 'warning' as const, ignore: new Set<string>()}
const example = auditState(state, {...opts, sourceArgs: ['-f', 'examples/cluster.yaml']})
const count = (html: string, re: RegExp) => (html.match(re) ?? []).length

describe('audit -o html', () => {
  const html = renderAuditHtml([example], {generatedAt: GENERATED_AT, origin: 'snapshot examples/cluster.yaml'})

  it('the example, as a golden file', () => golden('audit-html-example', html))

  it('the time is the one passed in, and the page is the same for the same report', () => {
    assert.equal(count(html, /2026-03-01T12:00:00\.000Z/g), 2, 'the <time> element, its datetime and its text')
    assert.equal(
      renderAuditHtml([example], {generatedAt: 'T', origin: 'snapshot examples/cluster.yaml'}),
      html.replaceAll(GENERATED_AT, 'T'),
    )
  })

  it("a finding an article, each with its fix; the summary counts are the report's", () => {
    assert.equal(count(html, /<article class="finding"/g), example.findings.length)
    assert.equal(count(html, /<div class="fix">/g), example.findings.length)
    for (const sev of ['error', 'warning', 'info'] as const)
      assert.match(html, new RegExp(`<span data-count="${sev}">${example.summary.findings[sev]}</span>`))
    assert.match(html, /<span data-count="claims">7<\/span> \(3 healthy\): 3 Bound, 2 Lost, 2 Pending/)
  })

  it('the Lost, misbound, stuck claims and the orphaned volume have their pictures, the broken arrows marked', () => {
    for (const [anchor, broken, unset] of [
      ['pvc.shop.sessions', 1, 0],
      ['pvc.shop.reports-b', 1, 0],
      ['pvc.shop.logs', 0, 1],
      ['pv.pv-0004', 1, 0],
    ] as const) {
      const article = new RegExp(`<article class="finding" id="${anchor.replace(/\./g, '\\.')}"[^]*?</article>`).exec(
        html,
      )?.[0]
      assert.ok(article !== undefined, `an article with the anchor ${anchor}`)
      assert.equal(count(article, /<figure class="pointers">/g), 1, anchor)
      assert.equal(count(article, /data-state="broken"/g), broken, `${anchor}: broken arrows`)
      assert.equal(count(article, /data-state="unset"/g), unset, `${anchor}: unset arrows`)
    }
  })

  it('capacity by class: a row of bars per class, the released storage of standard among them', () => {
    assert.equal(count(html, /<g class="class-row"/g), example.capacity!.byClass.length)
    assert.match(html, /<title>standard: released \(data kept\) 8Gi<\/title>/)
  })

  it('paged: past the first page a finding is `later` (not displayed), and so is a section holding only such', () => {
    const paged = renderAuditHtml([example], {generatedAt: GENERATED_AT, pageSize: 2})
    assert.deepEqual(
      [...paged.matchAll(/<article class="finding( later)?" id="([^"]+)"/g)].map((m) => `${m[2]}${m[1] ?? ''}`),
      ['pvc.shop.logs', 'pvc.shop.reports-b', 'pvc.shop.sessions later', 'pv.pv-0004 later', 'pvc.shop.search later'],
    )
    assert.match(paged, /<section class="severity sev-block-warning later" data-severity="warning">/)
    assert.match(paged, /<section class="severity sev-block-error" data-severity="error">/)
    assert.match(
      paged,
      /<noscript><p>3 more findings: the page shows them with its script, and prints them all\.<\/p><\/noscript>/,
    )
    assert.doesNotMatch(html, /<noscript>|class="finding later"/, 'one page holds the example')
  })

  it('self-contained: no address to fetch, one script, a policy that forbids loading anything', () => {
    assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//)
    assert.equal(count(html, /<script/g), 1)
    assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none';/)
  })
})

describe('audit -o html: a fleet', () => {
  const shop = {...example, context: 'shop'}
  const down = unreadClusterReport(
    {
      context: 'down',
      server: 'https://10.0.0.9:6443',
      cause: 'unreachable',
      status: 0,
      error: 'ECONNREFUSED',
      kubeconfigArgs: [],
    },
    new Set(),
  )
  const html = renderAuditHtml([shop, down], {generatedAt: GENERATED_AT})

  it('a table of clusters first, then a section per cluster, anchors prefixed by the context', () => {
    assert.ok(html.indexOf('<section id="clusters">') < html.indexOf('<section class="cluster"'))
    assert.equal(count(html, /<section class="cluster"/g), 2)
    assert.match(html, /<td><a href="#cluster-shop">shop<\/a><\/td><td data-label="State">read<\/td>/)
    assert.match(
      html,
      /<td><a href="#cluster-down">down<\/a><\/td><td data-label="State"><span class="sev-error">ClusterUnreachable<\/span>/,
    )
    assert.match(html, /id="shop\/pvc\.shop\.sessions"/)
    assert.match(html, /id="down\/cluster\.down"/)
    const downSection = html.slice(html.indexOf('<section class="cluster" id="cluster-down"'))
    assert.match(
      downSection,
      /<p class="line">Audit: the cluster could not be read, nothing of it was audited; 1 error, 0 warnings, 0 info\.<\/p>/,
    )
    assert.doesNotMatch(downSection, /Capacity by storage class/)
  })
})

describe('audit -o html: escaping', () => {
  const NAME = `x"><script>alert(1)</script><img src=x onerror=alert(2)>'`
  const hostile: ClusterState = makeState({
    claims: [pvc(NAME, 'u1', {namespace: 'shop', phase: 'Lost', volumeName: `pv-"<b>`, annotations: {note: HOSTILE}})],
    volumes: [pv('pv-4', {phase: 'Released', claim: {namespace: 'shop', name: `<svg onload=alert(3)>`, uid: 'u"9'}})],
    pods: [pod(`p'<i>`, NAME, {namespace: 'shop'})],
  })
  const report = auditState(hostile, opts)
  const html = renderAuditHtml([report, {...fullReport(), context: `c"<u>`}], {generatedAt: '<now>'})

  it('names, messages, evidence and contexts cannot inject markup', () => {
    assert.ok(
      report.findings.some((f) => f.object.name === NAME),
      'the hostile claim has a finding',
    )
    assert.equal(count(html, /<script/g), 1, "only the page's own script")
    for (const tag of ['<img', '<svg onload', '<b>', '<i>', '<u>', '<now>'])
      assert.ok(!html.includes(tag), `${tag} is escaped`)
    assert.ok(html.includes(escapeHtml(NAME)))
    assert.ok(
      !HOSTILE.split('\n').some((line) => line.includes('<') && html.includes(line)),
      "the fixture's tags are escaped",
    )
  })

  it('an anchor holds no character that needs quoting', () => {
    for (const id of html.matchAll(/ id="([^"]*)"/g)) assert.match(id[1], /^[A-Za-z0-9._\/-]+$/)
  })
})

describe('objectAnchor', () => {
  for (const [object, context, anchor] of [
    [{kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'db.primary'}, undefined, 'pvc.shop.db.primary'],
    [{kind: 'PersistentVolume', name: 'pv-1'}, undefined, 'pv.pv-1'],
    [{kind: 'StorageClass', name: 'fast'}, 'prod eu', 'prod_20eu/sc.fast'],
    [{kind: 'PersistentVolumeClaim', namespace: 'a', name: 'b_"c'}, 'x/y', 'x_2fy/pvc.a.b_5f_22c'],
  ] as const) {
    it(`${anchor}`, () => assert.equal(objectAnchor(object, context), anchor))
  }
})
