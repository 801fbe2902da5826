// deploy/rbac.yaml is the least privilege of loop mode: derived from what the code calls
// (src/loop/permissions.ts), it grants all of that and nothing more, and pvctl runs as the binder
// against an emulator that grants nothing else (rbac-grants.ts: how the emulator enforces a manifest).
import assert from 'node:assert/strict'
import path from 'node:path'
import {test} from 'node:test'

import {loopPermissions} from '../../src/loop/permissions.js'
import {microTime} from '../../src/loop/client-go/leader-election.js'
import {repoRoot} from '../cli/run-cli.js'
import type {DenyRule} from '../emulator/emulator.js'
import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {kubelet} from '../e2e/kubelet.js'
import {allows, boundGrantsOf, denyAllBut as denyAllButGrants, unusedGrants} from './rbac-grants.js'
import {
  claim,
  cluster,
  FAST,
  getClaim,
  getLease,
  getVolume,
  Pvctl,
  SHORT_LEASE,
  volume,
  waitFor,
} from './loop-harness.js'

const {state: example} = await loadSnapshot('examples/cluster.yaml')

const SA = {kind: 'ServiceAccount', name: 'pvctl', namespace: 'pvctl-system'}
const LEASE = {namespace: 'pvctl-system', name: 'pvctl'}

const grants = boundGrantsOf(path.join(repoRoot, 'deploy', 'rbac.yaml'), SA)
const denyAllBut = () => denyAllButGrants(grants)

/** Everything `pvctl sync --watch --yes --leader-elect` asks for, in every configuration that asks more. */
const needed = loopPermissions({
  dryRun: false,
  events: true,
  lease: LEASE,
  readsKcmLease: true,
  recyclerNamespace: 'default',
})

test('deploy/rbac.yaml grants every permission loop mode needs (names included)', () => {
  for (const p of needed)
    assert.ok(
      grants.some((g) => allows(g, p)),
      `not granted: ${JSON.stringify(p)}`,
    )
})

test('deploy/rbac.yaml grants nothing loop mode does not use', () => {
  assert.deepEqual(unusedGrants(grants, needed), [], 'granted but never used')
})

test('pvctl runs as the binder, leader-elected, with only the permissions of deploy/rbac.yaml', async () => {
  const deny = denyAllBut()
  const now = new Date(Date.now() - 60_000)
  const expiredKcm = {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {name: 'kube-controller-manager', namespace: 'kube-system'},
    spec: {
      holderIdentity: 'master-0_0000',
      leaseDurationSeconds: 15,
      renewTime: microTime(now),
      acquireTime: microTime(now),
    },
  }
  // And the volume plugins: pv-0005 (NFS, Recycle) and pv-0006 (host path, Delete), their claims gone.
  const reclaimed = example.volumes.filter((v) => v.metadata.name === 'pv-0005' || v.metadata.name === 'pv-0006')
  const {api, kubeconfig} = await cluster(
    [volume('pv-a'), volume('pv-b', {storage: '5Gi'}), ...reclaimed, expiredKcm],
    {'sa-token': {user: 'system:serviceaccount:pvctl-system:pvctl', deny}},
  )
  const stopKubelet = kubelet(api, 'Succeeded')
  // One conflict, so that the executor's re-read (get) is exercised too.
  api.faults.add({verb: 'update', resource: 'pv', count: 1, effect: {type: 'conflict'}})
  const pvctl = new Pvctl(kubeconfig(), [
    '--watch',
    '--yes',
    '--leader-elect',
    '--leader-elect-namespace',
    LEASE.namespace,
    ...SHORT_LEASE,
    ...FAST,
  ])
  try {
    await pvctl.line(/Writing as the PersistentVolume binder/)
    api.create(claim('team', 'data', {storage: '2Gi'}) as never)
    // No volume is this large: the controller says so with an event (FailedBinding).
    api.create(claim('team', 'huge', {storage: '100Gi'}) as never)
    await waitFor('the claim to be bound', () => getClaim(api, 'team', 'data')?.status?.phase === 'Bound')
    await waitFor('an event', () => api.countWrites({resource: 'ev'}) > 0)
    await waitFor(
      'pv-0005 recycled',
      () => getVolume(api, 'pv-0005')?.status?.phase === 'Available' || undefined,
      20_000,
    )
    await waitFor('pv-0006 deleted', () => getVolume(api, 'pv-0006') === undefined || undefined, 20_000)
    await pvctl.stop()
    assert.equal(pvctl.exitCode, 0, pvctl.err.join('\n'))
    const refused = api.requests.filter((r) => r.status === 403)
    assert.deepEqual(
      refused.map((r) => `${r.verb} ${r.resource}/${r.subresource} ${r.namespace}/${r.name}`),
      [],
      'nothing was forbidden',
    )
    const used = new Set(
      api.requests
        .filter((r) => r.resource !== '')
        .map((r) => `${r.verb} ${r.resource}${r.subresource ? `/${r.subresource}` : ''}`),
    )
    for (const call of [
      'list persistentvolumes',
      'watch persistentvolumeclaims',
      'get persistentvolumes',
      'update persistentvolumes',
      'update persistentvolumeclaims/status',
      'create events',
      'create leases',
      'update leases',
      'get leases',
      'create pods',
      'get pods',
      'delete pods',
      'delete persistentvolumes',
      'list events',
    ]) {
      assert.ok(used.has(call), `pvctl made a call of each kind: ${call}`)
    }
    assert.equal(getLease(api, LEASE.namespace, LEASE.name)?.spec?.holderIdentity ?? '', '', 'released on SIGTERM')
  } finally {
    stopKubelet()
    await pvctl.stop()
    await api.stop()
  }
})

test('with one permission less, pvctl names it and exits 3 before it does anything', async () => {
  const deny = [...denyAllBut(), {verb: 'update', resource: 'persistentvolumes', subresource: 'status'} as DenyRule]
  const {api, kubeconfig} = await cluster([volume('pv-a')], {
    'sa-token': {user: 'system:serviceaccount:pvctl-system:pvctl', deny},
  })
  const pvctl = new Pvctl(kubeconfig(), [
    '--watch',
    '--yes',
    '--controllers=*,-persistentvolume-binder-controller',
    ...FAST,
  ])
  try {
    assert.equal(await pvctl.exited, 3)
    assert.match(pvctl.err.join('\n'), /error: missing permissions: update persistentvolumes\/status \(cluster-wide\)/)
    assert.equal(api.countWrites({resource: 'pv'}) + api.countWrites({resource: 'pvc'}), 0)
  } finally {
    await pvctl.stop()
    await api.stop()
  }
})
