#!/usr/bin/env node
// Runs the test files under test/ with node's own runner (Node 20 does not expand globs itself): every
// one, or those under the folders and files named (`node scripts/run-tests.js test/cli test/engine`).
// Other arguments are passed to the runner (e.g. --test-name-pattern).
import {spawnSync} from 'node:child_process'
import {existsSync, readdirSync, statSync} from 'node:fs'
import path from 'node:path'

function collect(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name)
      if (statSync(full).isDirectory()) return collect(full)
      return name.endsWith('.test.ts') ? [full] : []
    })
}

const args = process.argv.slice(2)
const named = args.filter((a) => !a.startsWith('-') && existsSync(a))
const options = args.filter((a) => !named.includes(a))
const files = (named.length > 0 ? named : ['test']).flatMap((p) => (statSync(p).isDirectory() ? collect(p) : [p]))
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...options, ...files], {stdio: 'inherit'})
process.exit(result.status ?? 1)
