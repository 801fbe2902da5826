// `npm run real-cluster` serves until a signal, then ends every process it started: no etcd,
// kube-apiserver or kube-controller-manager is left behind, and its state folder is gone.
import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {repoRoot} from '../cli/run-cli.js'
import {waitFor} from '../loop/loop-harness.js'
import {noRealCluster, realCluster} from './live.js'

/** The pids whose parent is `pid` (/proc). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8')
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid
      } catch {
        return false
      }
    })
    .map(Number)
}

/** The program a pid runs, for the failure message. */
function commandOf(pid: number): string {
  try {
    return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]}`
  } catch {
    return `${pid} (gone)`
  }
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(
    `npm run real-cluster: on ${signal} every process it started ends, and its state folder goes`,
    {skip: noRealCluster, timeout: 120_000},
    async () => {
      const version = realCluster().plane.kubernetes
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          path.join(repoRoot, 'test', 'real-cluster', 'main.ts'),
          '--version',
          version,
          '--empty',
          '--controller-manager',
        ],
        {cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe']},
      )
      let out = ''
      child.stdout.on('data', (b: Buffer) => (out += b.toString()))
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
      try {
        await waitFor('the KUBECONFIG line', () => /export KUBECONFIG=/.test(out) || undefined, 90_000)
        const dir = /State, certificates and logs in (\S+);/.exec(out)?.[1]
        assert.ok(dir !== undefined && existsSync(dir), out)
        const started = childrenOf(child.pid!)
        assert.ok(started.length >= 4, `etcd, kube-apiserver and two kube-controller-managers: ${started.join(', ')}`)
        child.kill(signal)
        assert.equal(await exited, 0)
        // tsx's esbuild service, a child too, ends when the pipe to its parent closes, just after the parent:
        // wait for every process to be gone rather than look once.
        const left = () => started.filter((pid) => existsSync(`/proc/${pid}`))
        await waitFor('every process it started to end', () => (left().length === 0 ? true : undefined), 15_000).catch(
          () => undefined,
        )
        assert.deepEqual(left(), [], `no process left: ${left().map(commandOf).join(', ')}`)
        assert.equal(existsSync(dir), false, 'the state folder is removed')
      } finally {
        child.kill('SIGKILL')
      }
    },
  )
}
