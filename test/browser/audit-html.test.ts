// pvctl audit -o html in a real browser (Debian's headless Chromium): the page of the bundled example and of
// a generated 10k + 10k cluster open with no console error, hold as many findings as the AuditReport, filter
// by namespace, code and severity, page the findings, and follow an object's anchor. Screenshots are left
// in test-output/browser/ to look at; UPDATE_SCREENSHOT=1 also writes the README's docs/audit-report.png.
import assert from 'node:assert/strict'
import {mkdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {pathToFileURL} from 'node:url'

import type {BrowserContext, Page} from 'playwright-core'

import {generateCluster, writeCluster} from '../../bench/generate-cluster.js'
import {FINDING_CODES, type FindingCode} from '../../src/engine/audit/findings.js'
import {example, repoRoot, runCli, tempDir, withoutVersionNotice} from '../cli/run-cli.js'
import {skipWithout} from '../tools.js'
import {launchChromium, pageProblems} from './chromium.js'

const OUT = path.join(repoRoot, 'test-output', 'browser')
const MAX_BYTES = 15 * 1024 * 1024
const skip = skipWithout('chromium', 'the browser tests (test/browser/)')

interface Audited {
  file: string
  findings: Array<{code: string; severity: string; object: {kind: string; namespace?: string; name: string}}>
  summary: {findings: Record<string, number>}
}

/** The page and the JSON report of the same snapshot, by the CLI. */
async function audit(name: string, snapshot: string): Promise<Audited> {
  const html = await runCli(['audit', '-f', snapshot, '-o', 'html'])
  assert.equal(withoutVersionNotice(html.stderr), '')
  assert.ok(html.code === 0 || html.code === 1, `exit ${html.code}`)
  const file = path.join(OUT, `${name}.html`)
  writeFileSync(file, html.stdout)
  const json = JSON.parse((await runCli(['audit', '-f', snapshot, '-o', 'json'])).stdout)
  return {file, ...json}
}

/**
 * The page of `snapshot()`'s audit, opened in a tab of `browser()` before the suite's tests and closed after
 * them, with the problems (console errors, page errors, failed requests) it had.
 */
function openedReport(
  browser: () => BrowserContext,
  name: string,
  snapshot: () => string,
): {report: Audited; page: Page; problems: string[]} {
  const opened = {} as {report: Audited; page: Page; problems: string[]}
  before(async () => {
    opened.report = await audit(name, snapshot())
    opened.page = await browser().newPage()
    opened.problems = pageProblems(opened.page)
    await opened.page.goto(pathToFileURL(opened.report.file).href)
  })
  after(async () => {
    await opened.page?.close()
  })
  return opened
}

/** The findings the page shows: not hidden by a filter, not beyond the page. */
const visible = (page: Page) =>
  page.$$eval('article.finding', (as) => as.filter((a) => (a as HTMLElement).offsetParent !== null).length)

/** The arrow labels of the page's pictures that lie under a box (a node) or past the picture's edge. */
function misplacedLabels(page: Page): Promise<string[]> {
  // No function is named inside: tsx would name it with a helper the page does not have.
  return page.$$eval('figure.pointers svg', (svgs) =>
    svgs.flatMap((svg) => {
      const nodes = [...svg.querySelectorAll('g.node rect')].map((e) => (e as SVGGraphicsElement).getBBox())
      const view = (svg as SVGSVGElement).viewBox.baseVal
      return [...svg.querySelectorAll('text.lbl')].flatMap((label) => {
        const l = (label as SVGGraphicsElement).getBBox()
        const under = nodes.some(
          (n) => l.x < n.x + n.width && n.x < l.x + l.width && l.y < n.y + n.height && n.y < l.y + l.height,
        )
        const outside = l.x < 0 || l.y < 0 || l.x + l.width > view.width || l.y + l.height > view.height
        return under || outside
          ? [
              `${svg.getAttribute('aria-label')}: "${label.textContent}"${under ? ' under a box' : ''}${outside ? ' past the edge' : ''}`,
            ]
          : []
      })
    }),
  )
}

describe('audit -o html in Chromium', {skip}, () => {
  let browser: BrowserContext
  before(async () => {
    mkdirSync(OUT, {recursive: true})
    browser = await launchChromium()
  })
  after(async () => {
    await browser?.close()
  })

  describe('the bundled example', () => {
    // Named as the README names it (the CLI runs in the repository): the page, and its screenshot, say so.
    const opened = openedReport(
      () => browser,
      'example',
      () => path.relative(repoRoot, example),
    )
    let report: Audited
    let page: Page
    let problems: string[]
    before(() => ({report, page, problems} = opened))

    it('opens with no console error, and its screenshot is kept', async () => {
      await page.screenshot({path: path.join(OUT, 'example.png'), fullPage: true})
      // The README's: the top of the page (summary, chart, the first pictures), kept small.
      if (process.env.UPDATE_SCREENSHOT === '1')
        await page.screenshot({
          path: path.join(repoRoot, 'docs', 'audit-report.png'),
          fullPage: true,
          clip: {x: 0, y: 0, width: 1100, height: 1500},
        })
      else {
        // The README's picture changes only when asked for.
      }
      assert.deepEqual(problems, [])
    })

    it("holds the report's findings and counts, a pointer picture for each claim and volume", async () => {
      assert.equal(await page.locator('article.finding').count(), report.findings.length)
      for (const sev of ['error', 'warning', 'info'])
        assert.equal(await page.locator(`[data-count="${sev}"]`).textContent(), String(report.summary.findings[sev]))
      const objects = report.findings.filter(
        (f) => f.object.kind === 'PersistentVolumeClaim' || f.object.kind === 'PersistentVolume',
      )
      assert.equal(await page.locator('figure.pointers').count(), objects.length)
      assert.equal(
        await page.locator('#pvc\\.shop\\.sessions [data-state="broken"]').count(),
        1,
        'the Lost claim: its volumeName points at nothing',
      )
      assert.equal(
        await page.locator('#pv\\.pv-0004 [data-state="broken"]').count(),
        1,
        'the orphaned volume: its claimRef points at a deleted claim',
      )
      assert.equal(await page.locator('svg.chart g.class-row').count(), 3, 'a row of bars per class')
    })

    it('filters by code, severity and namespace', async () => {
      const shown = page.locator('form.filters output')
      await page.selectOption('select[name=code]', 'ClaimLost')
      assert.equal(await visible(page), 1)
      assert.equal(await shown.textContent(), `1 of ${report.findings.length} findings`)
      await page.selectOption('select[name=code]', '')
      await page.uncheck('input[name=severity][value=error]')
      assert.equal(await visible(page), report.findings.filter((f) => f.severity !== 'error').length)
      assert.equal(
        await page.locator('section.severity[data-severity=error]').isHidden(),
        true,
        'an emptied severity hides its heading',
      )
      await page.check('input[name=severity][value=error]')
      await page.selectOption('select[name=namespace]', '')
      await page.selectOption('select[name=namespace]', 'shop')
      assert.equal(await visible(page), report.findings.filter((f) => f.object.namespace === 'shop').length)
      await page.selectOption('select[name=namespace]', '')
      assert.equal(await visible(page), report.findings.length)
    })

    it("follows an object's anchor, even to a finding the filters hide", async () => {
      await page.selectOption('select[name=code]', 'ClaimLost')
      await page.goto(`${pathToFileURL(report.file).href}#pv.pv-0004`)
      const target = page.locator('#pv\\.pv-0004')
      assert.equal(await target.isVisible(), true)
      assert.equal(await target.evaluate((el) => el.matches(':target')), true)
      assert.ok(
        await target.evaluate((el) => el.getBoundingClientRect().top < window.innerHeight),
        'scrolled into view',
      )
    })

    it('with a Code filter, every heading counts what the filter keeps', async () => {
      await page.goto(pathToFileURL(report.file).href)
      await page.selectOption('select[name=code]', 'ClaimMisbound')
      const errors = report.findings.filter((f) => f.severity === 'error').length
      assert.ok(errors > 1, 'the example has more errors than ClaimMisbound')
      assert.equal(
        await page.locator('section.severity[data-severity=error] > h3').textContent(),
        `Errors (1 of ${errors})`,
      )
      assert.equal(await page.locator('section.group[data-code=ClaimMisbound] > h4').textContent(), 'ClaimMisbound (1)')
      assert.equal(await page.locator('section.severity[data-severity=warning]').isHidden(), true)
      await page.selectOption('select[name=code]', '')
      assert.equal(await page.locator('section.severity[data-severity=error] > h3').textContent(), `Errors (${errors})`)
    })

    it("gives each code's meaning under its heading; the page names no file of pvctl's sources", async () => {
      const codes = [...new Set(report.findings.map((f) => f.code))]
      for (const code of codes) {
        assert.equal(
          await page.locator(`section.group[data-code=${code}] > p.meaning`).textContent(),
          FINDING_CODES[code as FindingCode].meaning,
        )
      }
      assert.doesNotMatch(await page.content(), /codes\.md/)
    })

    it('writes no arrow label under a box, nor past the edge of its picture', async () => {
      assert.deepEqual(await misplacedLabels(page), [])
    })

    for (const width of [400, 390]) {
      it(`reads on a phone ${width} px wide: nothing wider than the screen, every table and picture whole`, async () => {
        const phone = await browser.newPage()
        const phoneProblems = pageProblems(phone)
        await phone.setViewportSize({width, height: 844})
        await phone.goto(pathToFileURL(report.file).href)
        await phone.selectOption('select[name=code]', 'ClaimMisbound')
        await phone.screenshot({path: path.join(OUT, `example-${width}px.png`), fullPage: true})
        const overflow = await phone.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        )
        // Nothing is cut off: no table or picture runs past the screen, in a box that scrolls or not.
        const cut = await phone.$$eval('table, figure.pointers svg, svg.chart', (els) =>
          els
            .filter((e) => (e as HTMLElement).offsetParent !== null || e.tagName === 'svg')
            .flatMap((e) => {
              const r = e.getBoundingClientRect()
              return r.width > 0 && (r.left < 0 || r.right > document.documentElement.clientWidth)
                ? [`${e.tagName}.${e.getAttribute('class') ?? ''}: ${r.left}–${r.right}`]
                : []
            }),
        )
        // A picture is scaled down no more than its labels stay readable (11px at 0.8: 9px).
        const scales = await phone.$$eval('figure.pointers svg', (svgs) =>
          svgs
            .filter((svg) => svg.getBoundingClientRect().width > 0)
            .map((svg) => svg.getBoundingClientRect().width / Number(svg.getAttribute('width'))),
        )
        await phone.close()
        assert.equal(overflow, 0)
        assert.deepEqual(cut, [])
        for (const scale of scales) assert.ok(scale >= 0.8, `a picture scaled to ${scale.toFixed(2)}`)
        assert.deepEqual(phoneProblems, [])
      })
    }
  })

  describe('volumes named as provisioners name them (pvc-UID)', () => {
    const opened = openedReport(
      () => browser,
      'dynamic-names',
      () => {
        const snapshot = path.join(tempDir('html-dynamic'), 'cluster.yaml')
        let text = readFileSync(example, 'utf8')
        for (const n of ['0004', '0007', '0008'])
          text = text.replaceAll(`pv-${n}`, `pvc-0c9d4b3e-5f6a-4b7c-8d9e-0a1b2c3d${n}`)
        writeFileSync(snapshot, text)
        return snapshot
      },
    )

    it('writes no arrow label under a box, nor past the edge of its picture', async () => {
      assert.ok((await opened.page.content()).includes('pvc-0c9d4b3e-5f6a-4b7c-8d9e-0a1b2c3d0008'))
      assert.deepEqual(await misplacedLabels(opened.page), [])
      await opened.page.screenshot({path: path.join(OUT, 'dynamic-names.png'), fullPage: true})
      assert.deepEqual(opened.problems, [])
    })
  })

  describe('a generated 10k + 10k cluster', () => {
    const opened = openedReport(
      () => browser,
      'cluster-10k',
      () => {
        const snapshot = path.join(tempDir('html-10k'), 'cluster.json')
        writeCluster(snapshot, generateCluster(10_000))
        return snapshot
      },
    )
    let report: Audited
    let page: Page
    let problems: string[]
    before(() => ({report, page, problems} = opened))

    it(`stays under ${MAX_BYTES / 1024 / 1024} MB and opens with no console error`, async () => {
      assert.ok(statSync(report.file).size < MAX_BYTES, `${statSync(report.file).size} bytes`)
      await page.screenshot({path: path.join(OUT, 'cluster-10k.png')})
      assert.deepEqual(problems, [])
    })

    it('holds every finding and shows a page of them; "Show more" shows the next page', async () => {
      assert.ok(report.findings.length > 1000, `${report.findings.length} findings`)
      assert.equal(await page.locator('article.finding').count(), report.findings.length)
      assert.equal(await visible(page), 100)
      await page.click('button.more')
      assert.equal(await visible(page), 200)
    })

    it('a filter counts and pages what it keeps', async () => {
      const kept = report.findings.filter((f) => f.code === 'VolumeFailed').length
      await page.selectOption('select[name=code]', 'VolumeFailed')
      assert.equal(
        await page.locator('form.filters output').textContent(),
        `${kept} of ${report.findings.length} findings, 100 shown`,
      )
      assert.equal(await visible(page), Math.min(100, kept))
      const team = report.findings.filter((f) => f.object.namespace === 'team-007').length
      await page.selectOption('select[name=code]', '')
      await page.selectOption('select[name=namespace]', 'team-007')
      assert.equal(await visible(page), Math.min(100, team))
    })

    it('prints every finding, without the filters', async () => {
      await page.selectOption('select[name=namespace]', '')
      await page.emulateMedia({media: 'print'})
      assert.equal(await visible(page), report.findings.length)
      assert.equal(await page.locator('form.filters').isVisible(), false)
      await page.emulateMedia({media: 'screen'})
      assert.equal(await visible(page), 100)
    })
  })
})
