// deploy/Dockerfile builds (no Docker engine runs here): its build stage's COPY set is reproduced in a
// temporary folder and its RUN steps run there, as `docker build` would; then the final stage's
// COPY --from=build set must exist and the CLI it makes must start. The image runs as a non-root user.
import assert from 'node:assert/strict'
import {execSync, spawnSync} from 'node:child_process'
import {cpSync, existsSync, mkdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {cleanEnv, repoRoot, tempDir} from '../cli/run-cli.js'

const dockerfile = readFileSync(path.join(repoRoot, 'deploy', 'Dockerfile'), 'utf8')
const lines = dockerfile.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'))
const stages: string[][] = []
for (const line of lines) {
  if (/^FROM\s/i.test(line)) stages.push([])
  stages.at(-1)?.push(line)
}

test('the final stage runs as a non-root user', () => {
  const user = stages.at(-1)!.filter((l) => /^USER\s/i.test(l)).at(-1)
  assert.ok(user !== undefined, 'no USER line in the final stage')
  const who = user.split(/\s+/)[1].split(':')[0]
  assert.notEqual(who, 'root')
  assert.notEqual(who, '0')
})

test("the build stage's COPY set and RUN steps build pvctl; the final stage's files exist and run", {timeout: 600_000}, () => {
  const work = tempDir('docker')
  const [build, final] = [stages[0], stages.at(-1)!]
  for (const line of build) {
    const copy = /^COPY\s+(.+)$/i.exec(line)
    if (copy) {
      const parts = copy[1].split(/\s+/)
      assert.ok(!parts[0].startsWith('--'), `unsupported COPY option in ${line}`)
      const dest = parts.pop()!
      for (const src of parts) {
        const to = dest.endsWith('/') ? path.join(work, dest, path.basename(src)) : path.join(work, dest)
        mkdirSync(path.dirname(to), {recursive: true})
        cpSync(path.join(repoRoot, src), to, {recursive: true})
      }
      continue
    }
    const run = /^RUN\s+(.+)$/i.exec(line)
    if (run) {
      // The registry packages come from npm's cache when it has them (the registry is reachable otherwise).
      execSync(run[1], {cwd: work, stdio: 'pipe', env: cleanEnv({npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', OCLIF_SKIP_NEW_VERSION_CHECK: 'true'})})
    }
  }
  const image = tempDir('docker-image')
  for (const line of final) {
    const copy = /^COPY\s+--from=build\s+(\S+)\s+(\S+)$/i.exec(line)
    if (!copy) continue
    const from = path.join(work, path.relative('/src', copy[1]))
    assert.ok(existsSync(from), `${line}: ${copy[1]} was not built`)
    const to = path.join(image, copy[2].endsWith('/') ? path.basename(copy[1]) : copy[2])
    mkdirSync(path.dirname(to), {recursive: true})
    cpSync(from, to, {recursive: true})
  }
  const r = spawnSync(process.execPath, [path.join(image, 'bin', 'run.js'), 'sync', '--help'], {env: cleanEnv(), encoding: 'utf8'})
  assert.equal(r.status, 0, r.stderr)
  assert.match(r.stdout, /\$ pvctl sync/)
})
