// The plan names the plugin of each operation it hands to one (recycle, delete, provision): the one the
// controller found for it (findRecyclablePluginBySpec, findDeletablePluginBySpec,
// findProvisionablePluginByName), which the executor then runs, rather than working a plugin out again.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import type {PersistentVolume} from '../../src/engine/api/model.js'
import {defaultVolumePluginMgr} from '../../src/engine/controller/volume-plugins.js'
import {isOperation, operationKey} from '../../src/engine/simulation/plan.js'
import {reconcile} from '../../src/engine/simulation/reconcile.js'
import {pv, pvc, sc, state} from './builders.js'

/** A volume bound to a claim that is gone: released, then reclaimed by its policy. */
const orphan = (name: string, policy: string, source: Record<string, unknown>): PersistentVolume =>
  pv(name, {
    policy,
    source,
    phase: 'Bound',
    claim: {namespace: 'ns', name: `gone-${name}`, uid: `uid-gone-${name}`},
    annotations: {'pv.kubernetes.io/bound-by-controller': 'yes'},
  })

const rows: Array<{name: string; volume?: PersistentVolume; provision?: boolean; operation: string; plugin: string}> = [
  {
    name: 'a recycle of an nfs volume',
    volume: orphan('nfs-0', 'Recycle', {nfs: {server: 'nfs', path: '/exports/a'}}),
    operation: 'recycle:pv/nfs-0',
    plugin: 'kubernetes.io/nfs',
  },
  {
    name: 'a recycle of a host-path volume',
    volume: orphan('hp-0', 'Recycle', {hostPath: {path: '/tmp/a'}}),
    operation: 'recycle:pv/hp-0',
    plugin: 'kubernetes.io/host-path',
  },
  {
    name: 'a delete of a host-path volume',
    volume: orphan('hp-1', 'Delete', {hostPath: {path: '/tmp/b'}}),
    operation: 'delete:pv/hp-1',
    plugin: 'kubernetes.io/host-path',
  },
  {
    name: 'a delete of a local volume (--local-volume-deleter)',
    volume: orphan('local-0', 'Delete', {local: {path: '/mnt/disks/a'}}),
    operation: 'delete:pv/local-0',
    plugin: 'kubernetes.io/local-volume',
  },
  {
    name: 'a provision of a host-path class (--enable-hostpath-provisioner)',
    provision: true,
    operation: 'provision:pvc/ns/scratch',
    plugin: 'kubernetes.io/host-path',
  },
]

for (const row of rows) {
  test(`the plan names the plugin of ${row.name}`, () => {
    const plan = reconcile(
      state({
        volumes: row.volume === undefined ? [] : [row.volume],
        claims: row.provision ? [pvc('scratch', 'uid-scratch', {namespace: 'ns', className: 'hostpath'})] : [],
        classes: row.provision ? [sc('hostpath', 'kubernetes.io/host-path', {mode: 'Immediate'})] : [],
      }),
      {plugins: defaultVolumePluginMgr({hostPathProvisioning: true, localVolumeDeleter: true})},
    )
    const operations = plan.actions.filter(isOperation).map(operationKey)
    assert.deepEqual(operations, [row.operation])
    assert.deepEqual(plan.operationPlugins, {[row.operation]: row.plugin})
  })
}

test('a plan with no operation names no plugin', () => {
  assert.deepEqual(reconcile(state({volumes: [pv('pv-0')]})).operationPlugins, {})
})
