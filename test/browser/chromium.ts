// Debian's Chromium, headless, driven by playwright-core: never a browser downloaded by playwright (CI has
// no network for it). .ci/run installs the package; without it the tests fail, unless
// PVCTL_SKIP_BROWSER=1 says to skip them (and they print why).
import {existsSync} from 'node:fs'
import path from 'node:path'

import {chromium, type BrowserContext, type Page} from 'playwright-core'
import {tempDir} from '../temp-dir.js'

export const CHROMIUM = process.env.PVCTL_CHROMIUM ?? '/usr/bin/chromium'

/** Why the browser tests cannot run here (undefined: they can); the skip is allowed only when asked for. */
export function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined
  const why = `${CHROMIUM} not found: install Debian's package (apt-get install -y chromium), as .ci/run does`
  if (process.env.PVCTL_SKIP_BROWSER === '1') return why
  throw new Error(`${why}; PVCTL_SKIP_BROWSER=1 skips the browser tests`)
}

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

/** A browser with a fresh profile of its own. */
export function launchChromium(viewport = {width: 1100, height: 900}): Promise<BrowserContext> {
  const profile = tempDir('chromium')
  return chromium.launchPersistentContext(profile, {executablePath: CHROMIUM, headless: true, args: ARGS, viewport})
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
