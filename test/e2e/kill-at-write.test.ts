// A repair killed at any of its writes, then run again, ends as a run that was never interrupted, and says
// so: the re-run finishes what is left, or finds it done ("already reclaimed", "already relinked"), exit 0,
// never advising to delete anything. The built CLI runs against the API-server emulator; at the write
// chosen, a hook SIGKILLs the pvctl process at one of the three moments a run can die at a write: before
// the server applies it (the request is then dropped), once the server applied it but before the answer
// is sent, and once the answer is sent. Each row is a crash-and-resume state, as the controller's own test
// tables have them ("1-8 - complete bind after crash").
import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {bin, cleanEnv, repoRoot, runCli} from '../cli/run-cli.js'
import {type Emulator, startEmulator} from '../emulator/emulator.js'
import {tempDir} from '../temp-dir.js'

const dir = tempDir('kill')

async function cluster(example: string): Promise<{api: Emulator; kubeconfig: string}> {
  const {state} = await loadSnapshot(example)
  const api = await startEmulator({
    tls: true,
    listItemTypeMeta: false,
    objects: structuredClone([...state.classes, ...state.volumes, ...state.claims]) as never,
  })
  const kubeconfig = path.join(dir, `kubeconfig-${api.port}.yaml`)
  writeFileSync(kubeconfig, api.kubeconfig())
  return {api, kubeconfig}
}

const MOMENTS = ['before apply', 'after apply', 'after answer'] as const
type Moment = (typeof MOMENTS)[number]
type Write = {resource: 'pv' | 'pvc'; name: string}

/**
 * Runs pvctl with `args` and SIGKILLs it at its write `at`, at `moment`. Resolves once the process is gone,
 * with whether it ended there: killed, or (after the answer) killed or done on its own once answered.
 */
async function killedAt(
  api: Emulator,
  kubeconfig: string,
  args: string[],
  at: Write,
  moment: Moment,
): Promise<boolean> {
  const child = spawn(process.execPath, [bin, ...args, '--kubeconfig', kubeconfig], {
    cwd: repoRoot,
    env: cleanEnv({HOME: dir}),
    stdio: ['ignore', 'ignore', 'ignore'],
  })
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  let killed = false
  const kill = async () => {
    killed = child.kill('SIGKILL')
    await exited
  }
  const write = {verb: 'update', resource: at.resource, name: at.name, subresource: '', count: 1} as const
  if (moment === 'before apply') {
    api.faults.add({...write, effect: {type: 'hook', run: kill}})
    api.faults.add({...write, effect: {type: 'drop'}})
  } else {
    api.faults.add({...write, effect: {type: moment === 'after apply' ? 'beforeAnswer' : 'afterAnswer', run: kill}})
  }
  await exited
  api.faults.clear()
  const answered = api.requests.some((r) => r.verb === 'update' && r.name === at.name && r.status === 200)
  return killed || (moment === 'after answer' && answered)
}

const pvctl = (kubeconfig: string, ...args: string[]) =>
  runCli([...args, '--kubeconfig', kubeconfig], {env: {HOME: dir}})

/** What a repair writes of an object and what the controller reads of it: its spec, annotations, labels and phase. */
function written(api: Emulator, objects: readonly Write[]): unknown[] {
  return objects.map((o) => {
    const obj = api.get(o.resource, o.resource === 'pv' ? null : 'shop', o.name) as unknown as {
      metadata: {annotations?: object; labels?: object}
      spec: object
      status?: {phase?: string}
    }
    return {
      object: `${o.resource}/${o.name}`,
      spec: obj.spec,
      annotations: obj.metadata.annotations ?? null,
      labels: obj.metadata.labels ?? null,
      phase: obj.status?.phase ?? null,
    }
  })
}

interface Scenario {
  name: string
  example: string
  args: string[]
  /** Its writes, in the order it makes them. */
  writes: Write[]
  /** The re-run's words once every write was applied. */
  already: RegExp
}

const scenarios: Scenario[] = [
  {
    name: 'reclaim --for',
    example: 'examples/reclaim.yaml',
    args: ['reclaim', 'pv/pv-0004', '--for', 'shop/db', '--yes'],
    writes: [{resource: 'pv', name: 'pv-0004'}],
    already:
      /^Already reclaimed: pv-0004 is pre-bound to shop\/db \(Released, no uid\): the next sync binds pvc\/shop\/db to pv-0004$/m,
  },
  {
    name: 'reclaim',
    example: 'examples/reclaim.yaml',
    args: ['reclaim', 'pv/pv-0004', '--yes'],
    writes: [{resource: 'pv', name: 'pv-0004'}],
    already: /^Already reclaimed: pv-0004 has no claimRef \(Released\): the next sync binds pvc\/shop\/db to pv-0004$/m,
  },
  {
    name: 'relink',
    example: 'examples/relink.yaml',
    args: ['relink', 'pvc/logs', '-n', 'shop', '--yes'],
    writes: [
      {resource: 'pv', name: 'pv-0006'},
      {resource: 'pvc', name: 'logs'},
    ],
    already:
      /^Already relinked: pv\/pv-0006 and pvc\/shop\/logs name each other \(uid 7c2d4e00-3333-4e3c-9d00-0000000000d4\): the next sync binds pvc\/shop\/logs to pv-0006$/m,
  },
]

for (const s of scenarios) {
  // The state an uninterrupted run leaves, which every interrupted one must end in.
  let uninterrupted: unknown[] | undefined
  const reference = async () => {
    if (uninterrupted !== undefined) return uninterrupted
    const {api, kubeconfig} = await cluster(s.example)
    try {
      const run = await pvctl(kubeconfig, ...s.args)
      assert.equal(run.code, 0, run.stderr)
      uninterrupted = written(api, s.writes)
      return uninterrupted
    } finally {
      await api.stop()
    }
  }
  s.writes.forEach((at, i) => {
    for (const moment of MOMENTS) {
      test(`${s.name}: killed at its write of ${at.resource}/${at.name} (${moment}), run again: as an uninterrupted run, exit 0, nothing to delete`, async () => {
        const expected = await reference()
        const {api, kubeconfig} = await cluster(s.example)
        try {
          assert.equal(await killedAt(api, kubeconfig, s.args, at, moment), true, 'ended at the write')
          const rerun = await pvctl(kubeconfig, ...s.args)
          assert.equal(rerun.code, 0, rerun.stderr)
          const said = rerun.stdout + rerun.stderr
          const allApplied = i === s.writes.length - 1 && moment !== 'before apply'
          if (allApplied) assert.match(said, s.already)
          else assert.doesNotMatch(said, /already/i, 'what is left is written')
          assert.doesNotMatch(said, /\bdelete (the|that|this) claim|kubectl delete|changed since it was read/i)
          assert.deepEqual(written(api, s.writes), expected)
        } finally {
          await api.stop()
        }
      })
    }
  })
}
