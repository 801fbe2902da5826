// `npm run demo` then `pvctl sync --yes` (issue part 3): the demo's stand-in kubelet completes the
// recycler and cleanup pods, so the example's recycle (pv-0005) and delete (pv-0006) finish.
import assert from 'node:assert/strict'
import {spawn, spawnSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {parse} from 'yaml'

import {cleanEnv, repoRoot, runCli, tempDir} from '../cli/run-cli.js'

test(
  'npm run demo, then pvctl sync --yes: pv-0005 is recycled (Available), pv-0006 deleted',
  {timeout: 120_000},
  async () => {
    const demo = spawn(
      'npm',
      ['run', '--silent', 'demo', '--', '--kubeconfig-out', path.join(tempDir('demo'), 'kubeconfig')],
      {cwd: repoRoot, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true},
    )
    let out = ''
    let err = ''
    demo.stderr.on('data', (b: Buffer) => (err += b))
    try {
      const kubeconfig = await new Promise<string>((resolve, reject) => {
        demo.stdout.on('data', (b: Buffer) => {
          out += b
          const m = /export KUBECONFIG=(\S+)/.exec(out)
          if (m) resolve(m[1])
        })
        demo.on('exit', (code) =>
          reject(new Error(`the demo exited (${code}) before printing a KUBECONFIG:\n${out}\n${err}`)),
        )
      })
      assert.match(out, /pvctl sync --dry-run/)
      assert.match(out, /kubectl get pv,pvc -A/)
      const home = tempDir('demo-home')
      const run = await runCli(['sync', '--yes'], {env: {KUBECONFIG: kubeconfig, HOME: home}})
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`)

      const server = (parse(readFileSync(kubeconfig, 'utf8')) as {clusters: Array<{cluster: {server: string}}>})
        .clusters[0].cluster.server
      const pv = await fetch(`${server}/api/v1/persistentvolumes/pv-0005`).then(
        (r) => r.json() as Promise<{status: {phase: string}}>,
      )
      assert.equal(pv.status.phase, 'Available')
      const gone = await fetch(`${server}/api/v1/persistentvolumes/pv-0006`)
      assert.equal(gone.status, 404)
      assert.ok(path.isAbsolute(kubeconfig))
    } finally {
      // npm and the demo under it: the process group the demo was started in.
      if (demo.exitCode === null) process.kill(-demo.pid!, 'SIGTERM')
    }
  },
)

test("npm run demo -- --help lists the demo's options, and the README shows each, after npm's --", () => {
  const help = spawnSync('npm', ['run', '--silent', 'demo', '--', '--help'], {
    cwd: repoRoot,
    env: cleanEnv(),
    encoding: 'utf8',
  })
  assert.equal(help.status, 0, help.stderr)
  const options = [...help.stdout.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)]
    .map((m) => m[1])
    .filter((o) => o !== '--help')
  assert.deepEqual(options, ['--port', '--file', '--kubeconfig-out'])
  const line = readFileSync(path.join(repoRoot, 'README.md'), 'utf8').match(/`npm run demo -- [^`]*`/)?.[0] ?? ''
  for (const option of options)
    assert.ok(
      line.includes(option) || (option === '--file' && line.includes('-f ')),
      `the README's \`npm run demo -- …\` shows ${option}: ${line}`,
    )
})
