// `npm run build` prints what the build did, not news about the tools it runs: oclif's dev CLI (which
// writes the manifest) checks the registry for a newer oclif and, once its cache holds a newer version,
// prints "update available" on every build unless told not to.
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {cleanEnv, repoRoot, tempDir} from '../cli/run-cli.js'

test(
  'the build says nothing of a newer oclif, even when the cache of the update check holds one',
  {timeout: 300_000},
  () => {
    const cache = tempDir('oclif-cache')
    mkdirSync(path.join(cache, 'oclif'))
    // What the update check's background job leaves behind when the registry has a newer oclif.
    writeFileSync(path.join(cache, 'oclif', 'version'), JSON.stringify({latest: '99.0.0'}))
    const run = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'build.js')], {
      cwd: repoRoot,
      encoding: 'utf8',
      env: cleanEnv({XDG_CACHE_HOME: cache, OCLIF_SKIP_NEW_VERSION_CHECK: undefined}),
    })
    assert.equal(run.status, 0, run.stderr)
    assert.doesNotMatch(run.stdout + run.stderr, /update available/i)
    assert.match(run.stdout + run.stderr, /wrote manifest/)
  },
)
