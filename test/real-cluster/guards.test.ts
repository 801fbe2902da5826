// The double-checks and the mass-release guard against a real kube-apiserver: a plan that would release
// most of the cluster is refused before anything is written, and a volume rescued between pvctl's last
// read and its PV DELETE is kept, because the DELETE's preconditions (uid, resourceVersion) make the real
// server refuse it (409), and the volume taken by another claim after pvctl released it is not deleted.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {openLiveSession} from '../../src/app/live-session.js'
import {loadLiveState} from '../../src/cluster/live-loader.js'
import type {WorkloadApi} from '../../src/cluster/workload-api.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import {executeSync} from '../../src/executor/executor.js'
import {LiveVolumePlugins} from '../../src/volume-plugins/live-plugins.js'
import {example, noRealCluster, PVCTL, realCluster, type RealCluster, standInKubelet} from './live.js'

/** 30 bound Retain volumes whose claims are gone: a claim list that lost them looks just like this. */
const orphans = Array.from({length: 30}, (_, i) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: {name: `orphan-${String(i).padStart(2, '0')}`},
  spec: {
    capacity: {storage: '1Gi'},
    accessModes: ['ReadWriteOnce'],
    persistentVolumeReclaimPolicy: 'Retain',
    hostPath: {path: `/data/orphan-${i}`},
    claimRef: {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      namespace: 'gone',
      name: `claim-${i}`,
      uid: `uid-claim-${i}`,
    },
  },
  status: {phase: 'Bound'},
}))

test(
  'real kube-apiserver: a plan that releases more than the mass-release guard allows is refused before anything is written (exit 2); --allow-mass-release lets it through',
  {skip: noRealCluster, timeout: 180_000},
  async () => {
    const cluster = realCluster()
    const state = await example('cluster')
    await cluster.fresh({...state, volumes: [...state.volumes, ...(orphans as never[])]})
    const before = cluster.writesBy(PVCTL).length
    const refused = await cluster.pvctl('sync', '--yes')
    assert.equal(refused.code, 2, refused.stderr)
    assert.match(
      refused.stderr,
      /^error: refusing to write: mass release guard: 33 volumes would be released, recycled or deleted at once, more than 20 /m,
    )
    assert.deepEqual(cluster.writesBy(PVCTL).slice(before), [], 'nothing written')

    const stopKubelet = standInKubelet(cluster.api)
    try {
      const allowed = await cluster.pvctl('sync', '--yes', '--allow-mass-release')
      assert.equal(allowed.code, 0, allowed.stderr)
    } finally {
      await stopKubelet()
    }
    assert.equal((await cluster.volume('orphan-29'))?.status?.phase, 'Released')
  },
)

/** An admin's hand: a new claim, and the volume bound to it by uid, as a binder writes it. */
async function bindToNewClaim(cluster: RealCluster, volume: string, claim: string): Promise<void> {
  const made = await cluster.api.core.createNamespacedPersistentVolumeClaim({
    namespace: 'shop',
    body: {
      metadata: {name: claim},
      spec: {accessModes: ['ReadWriteOnce'], resources: {requests: {storage: '1Gi'}}, storageClassName: 'standard'},
    },
  })
  const pv = await cluster.api.core.readPersistentVolume({name: volume})
  pv.spec!.claimRef = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    namespace: 'shop',
    name: claim,
    uid: made.metadata?.uid,
  }
  const written = await cluster.api.core.replacePersistentVolume({name: volume, body: pv})
  written.status = {phase: 'Bound'}
  await cluster.api.core.replacePersistentVolumeStatus({name: volume, body: written})
}

/** The workload port, with `before` run (once) just before the first call of `method` for `volume`. */
function raceBefore(
  workload: WorkloadApi,
  method: 'deleteVolume' | 'createPod',
  volume: string,
  before: () => Promise<void>,
): WorkloadApi {
  let done = false
  return new Proxy(workload, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown
      if (prop !== method || typeof value !== 'function')
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
      return async (...args: unknown[]) => {
        const about = method === 'deleteVolume' ? args[0] : (args[0] as {metadata?: {name?: string}}).metadata?.name
        if (!done && typeof about === 'string' && about.endsWith(volume)) {
          done = true
          await before()
        }
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args)
      }
    },
  })
}

for (const row of [
  {
    at: 'deleteVolume' as const,
    what: "between its cleanup pod and the PV DELETE: the DELETE's preconditions make the real server refuse it (409)",
  },
  {at: 'createPod' as const, what: 'before its cleanup pod: the guard reads it again and stops the delete'},
]) {
  test(
    `real kube-apiserver: pv-0006 (Delete) bound to a new claim ${row.what}; the volume is kept for it`,
    {skip: noRealCluster, timeout: 120_000},
    async () => {
      const cluster = realCluster()
      await cluster.fresh(await example('cluster'))
      const session = openLiveSession({kubeconfig: cluster.kubeconfig, qps: 1000, burst: 1000})
      const state = await loadLiveState(session.api, {})
      let rescued = false
      const workload = raceBefore(session.workload, row.at, 'pv-0006', async () => {
        await bindToNewClaim(cluster, 'pv-0006', 'rescue')
        rescued = true
      })
      const stopKubelet = standInKubelet(cluster.api)
      try {
        const plugins = new LiveVolumePlugins(workload, {pollMs: 50})
        await executeSync(session.api, state, {
          gates: defaultFeatureGates,
          maxRounds: 100,
          concurrency: 4,
          events: false,
          destructive: true,
          plugins,
          workload,
        })
      } finally {
        await stopKubelet()
      }
      assert.ok(rescued, 'the admin acted')
      const pv = await cluster.volume('pv-0006')
      assert.equal(pv?.metadata.deletionTimestamp, undefined, 'the PV object is not deleted')
      assert.equal(pv?.spec.claimRef?.name, 'rescue')
    },
  )
}
