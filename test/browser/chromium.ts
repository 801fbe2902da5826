// The machine's Chromium (Debian's package in CI), headless, driven by playwright-core: never a browser
// downloaded by playwright (CI has no network for it). Without one the browser tests are skipped, saying
// what to install (test/tools.ts); CI installs it and allows no skip.
import {chromium, type BrowserContext, type Page} from 'playwright-core'

import {tempDir} from '../temp-dir.js'
import {findTool} from '../tools.js'

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** A browser with a fresh profile of its own. */
export function launchChromium(viewport = {width: 1100, height: 900}): Promise<BrowserContext> {
  const profile = tempDir('chromium')
  const executablePath = findTool('chromium')
  if (executablePath === undefined) throw new Error('no Chromium on this machine (test/tools.ts says what to install)')
  return chromium.launchPersistentContext(profile, {executablePath, headless: true, args: ARGS, viewport})
}

/** The console errors and uncaught exceptions of a page, as they come. */
export function pageProblems(page: Page): string[] {
  const problems: string[] = []
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console.${m.type()}: ${m.text()}`)
    else {
      // log, info, debug: not a problem.
    }
  })
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`))
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`))
  return problems
}
