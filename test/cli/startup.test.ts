// The CLI runs oclif from the bundle the build makes (dist/vendor/oclif-core.js, scripts/build.js): one
// copy of its classes, and none of the package's 158 files to resolve and read at every start. A file of
// the @oclif/core package loaded by the CLI means an import the build did not rewrite.
import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {example, runCli, tempDir} from './run-cli.js'

// Preloaded into the CLI: on exit, the files of the package among the CommonJS modules loaded (an ES
// module importing a CommonJS one loads it into the same cache).
const probe = path.join(tempDir('startup'), 'probe.cjs')
writeFileSync(
  probe,
  `process.on('exit', () => {
    const loaded = Object.keys(require('node:module')._cache).filter((f) => f.includes('/node_modules/@oclif/core/'))
    process.stderr.write('@oclif/core package files loaded: ' + loaded.length + '\\n')
  })\n`,
)

const cases: Array<[string, string[]]> = [
  ['pvctl --help', ['--help']],
  ['pvctl sync -f example --dry-run', ['sync', '-f', example, '--dry-run']],
  ['pvctl explain --help', ['explain', '--help']],
  ['pvctl bogus (command_not_found hook)', ['bogus']],
]

for (const [name, args] of cases) {
  test(`${name}: oclif comes from the bundle, no file of the package is loaded`, async () => {
    const r = await runCli(args, {env: {NODE_OPTIONS: `--require ${probe}`}})
    assert.match(r.stderr, /@oclif\/core package files loaded: 0\n/, r.stderr)
  })
}
