// src/command-index.ts, the table of commands the single-file release hands oclif (its "explicit"
// discovery), names every command of src/commands/, each by the id oclif gives its file there, and
// nothing else: a command added to one and not the other fails here, not in the release.
import assert from 'node:assert/strict'
import {readdirSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {COMMANDS} from '../../src/command-index.js'
import {repoRoot} from './run-cli.js'

test('the explicit command table holds each command of src/commands/ under its id', async () => {
  const dir = path.join(repoRoot, 'src', 'commands')
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort()
  assert.deepEqual(
    Object.keys(COMMANDS).sort(),
    files.map((f) => f.replace(/\.ts$/, '')),
  )
  for (const file of files) {
    const {default: command} = (await import(path.join(dir, file))) as {default: unknown}
    assert.equal(COMMANDS[file.replace(/\.ts$/, '') as keyof typeof COMMANDS], command, file)
  }
})
