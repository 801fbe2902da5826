// The benches' measuring processes. A run of the built CLI: its wall time, CPU time and peak RSS, stdout
// to a file (/dev/null when timed), under GNU time when the machine has it, else with a hook that reports
// the peak RSS only. Exit 1 is a dry run's "changes to make", audit's "findings" and explain's "claims
// left pending"; any other failure is an error. A run of bench/measure.ts: the same code in-process, or
// the strict floor, in a fresh process each (a fresh heap, as the CLI's).
import {spawn, spawnSync} from 'node:child_process'
import {closeSync, existsSync, openSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = path.join(repoRoot, 'bin', 'run.js')
const measureScript = path.join(repoRoot, 'bench', 'measure.ts')

export interface CliRun {
  /** Wall time, s. */
  seconds: number
  /** User + system CPU time of the CLI's process, s (NaN without GNU time). */
  cpu: number
  maxRssMB: number
}

const hasGnuTime = existsSync('/usr/bin/time') && spawnSync('/usr/bin/time', ['-f', '%e', 'true']).status === 0
const TIME_MARK = 'PVCTL_BENCH_TIME'

/** `pvctl ARGS`, stdout to `out`: see the top of this file. */
export function runCli(pvctlArgs: readonly string[], out = '/dev/null'): Promise<CliRun> {
  const cliArgs = [bin, ...pvctlArgs]
  const [command, args] = hasGnuTime
    ? ['/usr/bin/time', ['-f', `${TIME_MARK} %U %S %e %M`, process.execPath, ...cliArgs]]
    : [process.execPath, ['--import', path.join(repoRoot, 'bench', 'max-rss-hook.mjs'), ...cliArgs]]
  return new Promise((resolve, reject) => {
    const fd = openSync(out, 'w')
    const started = performance.now()
    const env: NodeJS.ProcessEnv = {...process.env, CI: 'true'}
    delete env.NODE_OPTIONS
    const child = spawn(command, args, {cwd: repoRoot, stdio: ['ignore', fd, 'pipe'], env})
    let err = ''
    child.stderr!.on('data', (b: Buffer) => (err += b.toString()))
    child.on('error', reject)
    child.on('close', (code) => {
      const seconds = (performance.now() - started) / 1000
      closeSync(fd)
      const time = new RegExp(`${TIME_MARK} ([\\d.]+) ([\\d.]+) [\\d.:]+ (\\d+)`).exec(err)
      const hook = /PVCTL_MAX_RSS_KB (\d+)/.exec(err)
      if (code !== 0 && code !== 1)
        reject(
          new Error(
            `pvctl ${pvctlArgs.join(' ')} failed (exit ${code}): ${err.trim().split('\n').slice(0, 5).join(' ')}`,
          ),
        )
      else if (time !== null)
        resolve({seconds, cpu: Number(time[1]) + Number(time[2]), maxRssMB: Number(time[3]) / 1024})
      else if (hook !== null) resolve({seconds, cpu: Number.NaN, maxRssMB: Number(hook[1]) / 1024})
      else reject(new Error(`no peak RSS reported: ${err.trim()}`))
    })
  })
}

/** bench/measure.ts MODE FILE in a process of its own: the numbers it prints (see its top). */
export function runMeasure(
  mode: 'sync' | 'floor' | 'compare',
  file: string,
): Promise<Record<string, number | boolean>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', measureScript, mode, file], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (b: Buffer) => (out += b.toString()))
    child.stderr.on('data', (b: Buffer) => (err += b.toString()))
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`measure ${mode} ${file} failed (exit ${code}): ${err.trim()}`))
      else resolve(JSON.parse(out.trim().split('\n').pop()!) as Record<string, number | boolean>)
    })
  })
}
