// Every checked conformance exception is listed in docs/fidelity.md, and every listed one is checked.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {repoRoot} from './cases.js'
import {KNOWN_EXCEPTIONS} from './exceptions.js'

test('docs/fidelity.md lists exactly the checked conformance exceptions', () => {
  const page = readFileSync(path.join(repoRoot, 'docs', 'fidelity.md'), 'utf8')
  const start = page.indexOf('## Conformance exceptions')
  assert.ok(start >= 0, 'docs/fidelity.md has a "Conformance exceptions" section')
  const end = page.indexOf('\n## ', start + 1)
  const section = page.slice(start, end < 0 ? undefined : end)
  const listed = [...section.matchAll(/^\| (\d+-\d+(?:-\d+)?) /gm)].map((m) => m[1]).sort()
  const checked = Object.keys(KNOWN_EXCEPTIONS)
    .map((name) => name.split(' ')[0])
    .sort()
  assert.deepEqual(listed, checked)
})
