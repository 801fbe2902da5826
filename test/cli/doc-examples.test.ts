// The output the README and docs/ show is the output pvctl prints: every `$ pvctl ...` line of a
// ```console block that reads the bundled snapshot (-f examples/...) is run through the built CLI, and
// what it prints must be the lines shown under it, byte for byte. Examples against a live cluster are
// not run here (they need one).
import assert from 'node:assert/strict'
import {readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {repoRoot, runCli} from './run-cli.js'

interface Example {
  page: string
  args: string[]
  shown: string
}

/** The `$ pvctl` commands of a page's console blocks, each with the text shown under it. */
function examplesOf(page: string): Example[] {
  const text = readFileSync(path.join(repoRoot, page), 'utf8')
  const examples: Example[] = []
  for (const block of text.matchAll(/^( *)```console\n([\s\S]*?)^\1```$/gm)) {
    const indent = block[1]!
    const lines = block[2]!.split('\n').map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
    let current: Example | undefined
    for (const line of lines.slice(0, -1)) {
      if (line.startsWith('$ ')) {
        current = line.startsWith('$ pvctl ')
          ? {page, args: line.slice('$ pvctl '.length).split(' '), shown: ''}
          : undefined
        if (current !== undefined) examples.push(current)
      } else if (current !== undefined) {
        current.shown += `${line}\n`
      }
    }
  }
  return examples
}

const pages = [
  'README.md',
  ...readdirSync(path.join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]
const runnable = pages.flatMap(examplesOf).filter((e) => e.args.some((a) => a.startsWith('examples/')))

test('the README stays under 12 KiB: the first page people read, details in docs/', () => {
  const bytes = readFileSync(path.join(repoRoot, 'README.md')).length
  assert.ok(bytes <= 12 * 1024, `README.md is ${bytes} bytes`)
})

test("the README shows the audit's page, a screenshot test/browser/audit-html.test.ts makes", () => {
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8')
  assert.match(readme, /^`pvctl audit -f examples\/cluster\.yaml -o html > report\.html`/m)
  assert.match(readme, /!\[[^\]]*\]\(docs\/audit-report\.png\)/)
  const png = readFileSync(path.join(repoRoot, 'docs', 'audit-report.png'))
  assert.deepEqual([...png.subarray(1, 4)], [...Buffer.from('PNG')])
})

test('the README shows the bundled snapshot audited and explained', () => {
  const readme = runnable.filter((e) => e.page === 'README.md').map((e) => e.args.slice(0, 2).join(' '))
  assert.ok(readme.includes('sync --dry-run'), 'README.md shows `pvctl sync --dry-run -f examples/...`')
  assert.ok(
    readme.some((c) => c.startsWith('explain ')),
    'README.md shows `pvctl explain ... -f examples/...`',
  )
})

test('every example on the bundled snapshot prints what the page shows', async (t) => {
  for (const e of runnable) {
    await t.test(`${e.page}: pvctl ${e.args.join(' ')}`, async () => {
      const r = await runCli(e.args)
      assert.ok(r.code === 0 || r.code === 1, `exit ${r.code}: ${r.stderr}`)
      assert.equal(e.shown, r.stdout)
    })
  }
})

test("the README says that `kubectl pvctl <Tab>` needs bash-completion, as kubectl's own completion does in bash", () => {
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8').replace(/\s+/g, ' ')
  assert.match(readme, /`kubectl pvctl <Tab>` [^.]*\bbash-completion\b/)
})
