// The -o html page of a generated cluster, measured: its size, the CLI's time to write it, and in Debian's
// headless Chromium its load, a filter's re-render, and scrolling (frame times) of the first page and of
// every finding shown. Medians of RUNS runs; docs/performance.md ("The audit's HTML page") has the numbers.
//
//   npm run build && npx tsx bench/html-report.ts [volumes]
import {spawnSync} from 'node:child_process'
import {statSync} from 'node:fs'
import path from 'node:path'
import {pathToFileURL} from 'node:url'

import type {Page} from 'playwright-core'

import {launchChromium} from '../test/browser/chromium.js'
import {repoRoot, tempDir} from '../test/cli/run-cli.js'
import {generateCluster, writeCluster} from './generate-cluster.js'

/**
 * Scrolls the page top to bottom, 600 px a frame, and returns the frame times' 95th percentile and max (ms).
 * Source text, not a function: tsx names functions with a helper the page does not have.
 */
async function scroll(tab: Page): Promise<{p95: number; max: number; frames: number; height: number}> {
  return tab.evaluate(SCROLL)
}

const SCROLL = `new Promise((resolve) => {
  window.scrollTo(0, 0)
  const gaps = []
  let last = performance.now()
  const step = () => {
    const now = performance.now()
    gaps.push(now - last)
    last = now
    if (window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 1) {
      const sorted = gaps.slice(1).sort((a, b) => a - b)
      resolve({p95: sorted[Math.floor(sorted.length * 0.95)] ?? 0, max: sorted[sorted.length - 1] ?? 0, frames: sorted.length, height: document.documentElement.scrollHeight})
    } else {
      window.scrollBy(0, 600)
      requestAnimationFrame(step)
    }
  }
  requestAnimationFrame(step)
})`

const RUNS = 3
const size = Number(process.argv[2] ?? 10_000)

const dir = tempDir('bench-html')
const snapshot = path.join(dir, 'cluster.json')
writeCluster(snapshot, generateCluster(size))
const page = path.join(dir, 'report.html')

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const runs: Array<Record<string, number>> = []
const browser = await launchChromium({width: 1280, height: 900})
for (let i = 0; i < RUNS; i++) {
  const started = performance.now()
  const cli = spawnSync(
    'bash',
    ['-c', `node ${path.join(repoRoot, 'bin', 'run.js')} audit -f ${snapshot} -o html > ${page}`],
    {encoding: 'utf8'},
  )
  const write = (performance.now() - started) / 1000
  if (cli.status !== 0 && cli.status !== 1) throw new Error(cli.stderr)
  const tab = await browser.newPage()
  await tab.goto(pathToFileURL(page).href)
  const nav = await tab.evaluate<{domContentLoaded: number; load: number}>(`(() => {
    const n = performance.getEntriesByType('navigation')[0]
    return {domContentLoaded: n.domContentLoadedEventEnd, load: n.loadEventEnd}
  })()`)
  const firstPage = await scroll(tab)
  // A filter's change: the script's pass over every finding and the layout it forces.
  const filter = await tab.evaluate<number>(`(() => {
    const select = document.querySelector('select[name=code]')
    const t0 = performance.now()
    select.value = 'VolumeFailed'
    select.dispatchEvent(new Event('change', {bubbles: true}))
    void document.body.offsetHeight
    const t1 = performance.now()
    select.value = ''
    select.dispatchEvent(new Event('change', {bubbles: true}))
    return t1 - t0
  })()`)
  // Every finding shown: "Show more" until it hides.
  while (await tab.isVisible('button.more')) await tab.click('button.more')
  const everything = await scroll(tab)
  await tab.close()
  runs.push({
    write,
    ...nav,
    filter,
    firstPageP95: firstPage.p95,
    firstPageMax: firstPage.max,
    allP95: everything.p95,
    allMax: everything.max,
    allFrames: everything.frames,
    height: everything.height,
  })
}
await browser.close()
const result = Object.fromEntries(
  Object.keys(runs[0]).map((k) => [k, Math.round(median(runs.map((r) => r[k])) * 100) / 100]),
)
console.log(JSON.stringify({volumes: size, claims: size, bytes: statSync(page).size, ...result}))
