// One-shot `pvctl sync` that writes while kube-controller-manager runs (its Lease kube-system/kube-controller-
// manager live): two binders race. pvctl says so, naming the holder, and refuses a plan that releases,
// recycles or deletes a volume unless --controllers says the built-in binder is disabled, as loop mode reads it.
import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {runCli} from '../cli/run-cli.js'
import {type Emulator, startEmulator} from '../emulator/emulator.js'
import {kubelet} from './kubelet.js'
import {tempDir} from '../temp-dir.js'

const dir = tempDir('beside-kcm')
const {state: example} = await loadSnapshot('examples/cluster.yaml')

/** kube-controller-manager's Lease, renewed `renewedSeconds` ago for 15 s. */
function kcmLease(renewedSeconds: number) {
  const renewTime = new Date(Date.now() - renewedSeconds * 1000).toISOString().replace('Z', '000Z')
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {name: 'kube-controller-manager', namespace: 'kube-system'},
    spec: {holderIdentity: 'master-1_4f1c', leaseDurationSeconds: 15, renewTime, acquireTime: renewTime},
  }
}

async function cluster(lease?: object): Promise<{api: Emulator; kubeconfig: string}> {
  const objects = [
    ...example.classes,
    ...example.volumes,
    ...example.claims,
    ...example.pods,
    ...example.nodes,
    ...(lease === undefined ? [] : [lease]),
  ]
  const api = await startEmulator({tls: true, listItemTypeMeta: false, objects: structuredClone(objects) as never})
  const kubeconfig = path.join(dir, `kubeconfig-${api.port}.yaml`)
  writeFileSync(kubeconfig, api.kubeconfig())
  return {api, kubeconfig}
}

const objectWrites = (api: Emulator) => api.countWrites({resource: 'pv'}) + api.countWrites({resource: 'pvc'})
const sync = (kubeconfig: string, ...args: string[]) =>
  runCli(['sync', '--kubeconfig', kubeconfig, '--yes', ...args], {env: {HOME: dir}})
const RUNNING =
  /^pvctl: kube-controller-manager is running \(Lease kube-system\/kube-controller-manager held by master-1_4f1c\) and its persistentvolume-binder-controller syncs the same claims and volumes: pvctl's writes race with it/m

test('a plan that releases, recycles or deletes: refused while the Lease is live, nothing written, exit 2', async () => {
  const {api, kubeconfig} = await cluster(kcmLease(2))
  try {
    const r = await sync(kubeconfig)
    assert.equal(r.code, 2, r.stderr)
    assert.match(
      r.stderr,
      /^error: refusing to write: kube-controller-manager is running \(Lease kube-system\/kube-controller-manager held by master-1_4f1c\) and its persistentvolume-binder-controller syncs the same claims and volumes, and this plan releases, recycles or deletes 3 volumes$/m,
    )
    assert.equal(objectWrites(api), 0)
  } finally {
    await api.stop()
  }
})

test('a plan that only binds: written, with a warning naming the live controller', async () => {
  const {api, kubeconfig} = await cluster(kcmLease(2))
  try {
    const r = await sync(kubeconfig, '-n', 'shop', 'pvc/orders', 'pvc/carts')
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stderr, RUNNING)
    assert.ok(objectWrites(api) > 0)
  } finally {
    await api.stop()
  }
})

for (const [why, lease, args] of [
  ['--controllers says the binder is disabled', kcmLease(2), ['--controllers=*,-persistentvolume-binder-controller']],
  ['the Lease has expired', kcmLease(60), []],
  ['there is no Lease', undefined, []],
] as const) {
  test(`${why}: the whole plan is written, no word of a controller`, async () => {
    const {api, kubeconfig} = await cluster(lease)
    const stop = kubelet(api, 'Succeeded')
    try {
      const r = await sync(kubeconfig, ...args)
      assert.equal(r.code, 0, r.stderr)
      assert.doesNotMatch(r.stderr, /kube-controller-manager/)
    } finally {
      stop()
      await api.stop()
    }
  })
}
