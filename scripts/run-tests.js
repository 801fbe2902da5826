#!/usr/bin/env node
// Runs the test files under test/ with node's own runner (Node 20 does not expand globs itself): every
// one, those of a lane (`--lane fast` or `--lane e2e`, scripts/test-lanes.js), or those under the folders
// and files named (`node scripts/run-tests.js test/cli test/engine`). Other arguments are passed to the
// runner (e.g. --test-name-pattern).
import {spawnSync} from 'node:child_process'
import {existsSync, readdirSync, statSync} from 'node:fs'
import path from 'node:path'

import {FAST_LANE} from './test-lanes.js'

function collect(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name)
      if (statSync(full).isDirectory()) return collect(full)
      return name.endsWith('.test.ts') ? [full] : []
    })
}

const filesOf = (paths) => paths.flatMap((p) => (statSync(p).isDirectory() ? collect(p) : [p]))

/** The files of a lane: the fast lane's, or every other one. */
function lane(name) {
  const fast = filesOf(FAST_LANE)
  if (name === 'fast') return fast
  if (name === 'e2e') return filesOf(['test']).filter((f) => !fast.includes(f))
  console.error(`no test lane ${name}: fast or e2e`)
  process.exit(2)
}

const args = process.argv.slice(2)
const laneAt = args.indexOf('--lane')
const laneName = laneAt === -1 ? undefined : args.splice(laneAt, 2)[1]
const named = args.filter((a) => !a.startsWith('-') && existsSync(a))
const options = args.filter((a) => !named.includes(a))
const files = laneName !== undefined ? lane(laneName) : filesOf(named.length > 0 ? named : ['test'])
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...options, ...files], {stdio: 'inherit'})
process.exit(result.status ?? 1)
