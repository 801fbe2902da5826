// The committed man pages are generated from the commands' help: a changed flag or summary must be
// followed by `npm run man`. Needs the oclif manifest (npm test builds first).
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

const root = path.resolve(import.meta.dirname, '..')

test('man pages are up to date with the help', () => {
  assert.ok(existsSync(path.join(root, 'oclif.manifest.json')), 'run npm run build first (npm test does)')
  const r = spawnSync(process.execPath, [path.join(root, 'scripts/gen-man.js'), '--check'], {cwd: root, encoding: 'utf8'})
  assert.equal(r.status, 0, r.stderr)
})

test('package.json lists every man page', async () => {
  const pkg = (await import(path.join(root, 'package.json'), {with: {type: 'json'}})).default
  for (const page of pkg.man as string[]) assert.ok(existsSync(path.join(root, page)), `${page} is listed but missing`)
})
