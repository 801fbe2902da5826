// deploy/Dockerfile (no Docker engine runs here, so it is read, not built): the image is the release's
// single-file executable for the platform being built, which the build context lets through, run as a
// non-root user. test/release/release.test.ts checks that `npm run release` makes the files it copies.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {repoRoot} from '../cli/run-cli.js'

const lines = readFileSync(path.join(repoRoot, 'deploy', 'Dockerfile'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'))
const stages: string[][] = []
for (const line of lines) {
  if (/^FROM\s/i.test(line)) stages.push([])
  stages.at(-1)?.push(line)
}
const final = stages.at(-1)!

test('the final stage runs as a non-root user', () => {
  const user = final.filter((l) => /^USER\s/i.test(l)).at(-1)
  assert.ok(user !== undefined, 'no USER line in the final stage')
  const who = user.split(/\s+/)[1].split(':')[0]
  assert.notEqual(who, 'root')
  assert.notEqual(who, '0')
})

test("the image runs the release's executable of the platform being built, which the build context holds", () => {
  const copy = final.map((l) => /^COPY\s+(\S+)\s+(\S+)$/i.exec(l)).find((m) => m !== null)
  assert.ok(copy, 'a COPY of the executable')
  assert.equal(copy[1], 'release/linux-${TARGETARCH}/pvctl')
  assert.ok(final.includes('ARG TARGETARCH'), 'TARGETARCH is declared in the stage that uses it')
  assert.match(final.find((l) => l.startsWith('ENTRYPOINT')) ?? '', new RegExp(`^ENTRYPOINT \\["${copy[2]}"\\]$`))
  const ignore = readFileSync(path.join(repoRoot, 'deploy', 'Dockerfile.dockerignore'), 'utf8')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
  for (const arch of ['amd64', 'arm64'])
    assert.ok(ignore.includes(`!release/linux-${arch}/pvctl`), `the context holds release/linux-${arch}/pvctl`)
})
