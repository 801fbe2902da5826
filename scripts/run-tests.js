#!/usr/bin/env node
// Runs every test file under test/ with node's own runner (Node 20 does not expand globs itself).
// Extra arguments are passed to the runner (e.g. --test-name-pattern).
import {spawnSync} from 'node:child_process'
import {readdirSync, statSync} from 'node:fs'
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

const files = collect('test')
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...process.argv.slice(2), ...files], {stdio: 'inherit'})
process.exit(result.status ?? 1)
