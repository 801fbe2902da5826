// Every documented conformance exception is listed in the README, and every listed one is checked.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {repoRoot} from './cases.js'
import {KNOWN_EXCEPTIONS} from './exceptions.js'

test('the README lists exactly the checked conformance exceptions', () => {
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('### Conformance exceptions'))
  const listed = [...section.matchAll(/^\| (\d+-\d+(?:-\d+)?) /gm)].map((m) => m[1]).sort()
  const checked = Object.keys(KNOWN_EXCEPTIONS).map((name) => name.split(' ')[0]).sort()
  assert.deepEqual(listed, checked)
})
