// A repair killed at any of its writes leaves a state that a re-run of the command, or `pvctl sync`,
// completes. The built CLI runs against the API-server emulator; at the write chosen, a hook SIGKILLs the
// pvctl process either before the server serves the request, which is then dropped (the write never
// applied), or once the server has applied it, before the answer is sent: the two ways a run dies at a write.
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
  const api = await startEmulator({tls: true, listItemTypeMeta: false, objects: structuredClone([...state.classes, ...state.volumes, ...state.claims]) as never})
  const kubeconfig = path.join(dir, `kubeconfig-${api.port}.yaml`)
  writeFileSync(kubeconfig, api.kubeconfig())
  return {api, kubeconfig}
}

/**
 * Runs pvctl with `args`, and SIGKILLs it at its write to `resource`/`name` (`applied`: the server still
 * applies that write). Resolves once the process is gone, with whether the kill fired.
 */
async function killedAt(api: Emulator, kubeconfig: string, args: string[], at: {resource: 'pv' | 'pvc'; name: string; applied: boolean}): Promise<boolean> {
  const child = spawn(process.execPath, [bin, ...args, '--kubeconfig', kubeconfig], {cwd: repoRoot, env: cleanEnv({HOME: dir}), stdio: ['ignore', 'ignore', 'ignore']})
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  let killed = false
  const kill = async () => {
    killed = child.kill('SIGKILL')
    await exited
  }
  const write = {verb: 'update', resource: at.resource, name: at.name, subresource: '', count: 1} as const
  if (at.applied) {
    api.faults.add({...write, effect: {type: 'beforeAnswer', run: kill}})
  } else {
    api.faults.add({...write, effect: {type: 'hook', run: kill}})
    api.faults.add({...write, effect: {type: 'drop'}})
  }
  await exited
  api.faults.clear()
  return killed
}

const pvctl = (kubeconfig: string, ...args: string[]) => runCli([...args, '--kubeconfig', kubeconfig], {env: {HOME: dir}})

type Volume = {spec: {claimRef?: Record<string, string>}; status: {phase: string}}
type Claim = {metadata: {uid: string}; spec: {volumeName?: string}; status: {phase: string}}

function assertBound(api: Emulator, volume: string, namespace: string, claim: string): void {
  const c = api.get('pvc', namespace, claim) as unknown as Claim
  const v = api.get('pv', null, volume) as unknown as Volume
  assert.deepEqual([c.spec.volumeName, c.status.phase, v.spec.claimRef?.uid, v.status.phase], [volume, 'Bound', c.metadata.uid, 'Bound'])
}

// relink pvc/logs writes pv-0006, then pvc shop/logs. Killed before the claim's write, only a re-run
// completes it (the controller keeps a claim Lost whose spec.volumeName is empty); killed once both were
// applied, the pointers close and the re-run says so (exit 2): the sync binds them.
const relinkRows: Array<{at: {resource: 'pv' | 'pvc'; name: string; applied: boolean}; rerun: number}> = [
  {at: {resource: 'pv', name: 'pv-0006', applied: false}, rerun: 0},
  {at: {resource: 'pv', name: 'pv-0006', applied: true}, rerun: 0},
  {at: {resource: 'pvc', name: 'logs', applied: false}, rerun: 0},
  {at: {resource: 'pvc', name: 'logs', applied: true}, rerun: 2},
]

for (const row of relinkRows) {
  test(`relink killed at its write of ${row.at.resource}/${row.at.name} (${row.at.applied ? 'applied' : 'not applied'}): a re-run, then pvctl sync, binds the pair`, async () => {
    const {api, kubeconfig} = await cluster('examples/relink.yaml')
    try {
      const args = ['relink', 'pvc/logs', '-n', 'shop', '--yes']
      assert.equal(await killedAt(api, kubeconfig, args, row.at), true, 'killed at the write')
      const rerun = await pvctl(kubeconfig, ...args)
      assert.equal(rerun.code, row.rerun, rerun.stderr)
      if (row.rerun === 2) assert.match(rerun.stderr, /PointersBroken: the pointers of pv\/pv-0006 and pvc\/shop\/logs close already/)
      const sync = await pvctl(kubeconfig, 'sync', 'pvc/logs', '-n', 'shop', '--yes')
      assert.equal(sync.code, 0, sync.stderr)
      assertBound(api, 'pv-0006', 'shop', 'logs')
    } finally {
      await api.stop()
    }
  })
}

// reclaim pv/pv-0004 --for shop/db has one write, the volume. Not applied: the re-run reclaims it; applied:
// the volume is Available and pre-bound, the re-run says it is not Released (exit 2), the sync binds it.
for (const applied of [false, true]) {
  test(`reclaim killed at its write (${applied ? 'applied' : 'not applied'}): a re-run, then pvctl sync, binds the claim`, async () => {
    const {api, kubeconfig} = await cluster('examples/reclaim.yaml')
    try {
      const args = ['reclaim', 'pv/pv-0004', '--for', 'shop/db', '--yes']
      assert.equal(await killedAt(api, kubeconfig, args, {resource: 'pv', name: 'pv-0004', applied}), true, 'killed at the write')
      const rerun = await pvctl(kubeconfig, ...args)
      assert.equal(rerun.code, applied ? 2 : 0, rerun.stderr)
      const sync = await pvctl(kubeconfig, 'sync', '--yes')
      assert.equal(sync.code, 0, sync.stderr)
      assertBound(api, 'pv-0004', 'shop', 'db')
    } finally {
      await api.stop()
    }
  })
}
