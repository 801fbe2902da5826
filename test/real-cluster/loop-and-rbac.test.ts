// Loop mode against a real kube-apiserver: `pvctl sync --watch --yes --leader-elect`, two replicas and one
// Lease, binding claims as they come (real watches, bookmarks, resourceVersions), the other replica taking
// over when the leader dies; as the service account of deploy/rbac.yaml under the real RBAC authorizer;
// the repairs as a user bound to deploy/repair-rbac.yaml; and a user granted nothing, told so.
import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import * as k8s from '@kubernetes/client-node'
import {parseAllDocuments} from 'yaml'

import {repoRoot} from '../cli/run-cli.js'
import {FAST, Pvctl, SHORT_LEASE, waitFor} from '../loop/loop-harness.js'
import {kubeconfigYaml} from '../emulator/kubeconfig.js'
import {example, noRealCluster, realCluster, type RealCluster} from './live.js'

const NS = 'pvctl-system'

const volume = (name: string) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: {name},
  spec: {
    capacity: {storage: '1Gi'},
    accessModes: ['ReadWriteOnce'],
    storageClassName: '',
    persistentVolumeReclaimPolicy: 'Retain',
    hostPath: {path: `/data/${name}`},
  },
})
const claim = (name: string) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: {name, namespace: 'team'},
  spec: {accessModes: ['ReadWriteOnce'], storageClassName: '', resources: {requests: {storage: '1Gi'}}},
})

async function addClaimAndVolume(cluster: RealCluster, name: string): Promise<void> {
  await cluster.api.core.createPersistentVolume({body: volume(`pv-${name}`)})
  await cluster.api.core.createNamespacedPersistentVolumeClaim({namespace: 'team', body: claim(name)})
}

const boundTo = async (cluster: RealCluster, name: string) => {
  const c = await cluster.claim('team', name)
  return c?.status?.phase === 'Bound' ? c.spec.volumeName : undefined
}

/** Who holds pvctl's Lease (pvctl-system/pvctl). */
async function holder(cluster: RealCluster): Promise<string | undefined> {
  const kc = new k8s.KubeConfig()
  kc.loadFromFile(cluster.kubeconfig)
  const lease = await kc.makeApiClient(k8s.CoordinationV1Api).readNamespacedLease({namespace: NS, name: 'pvctl'})
  return lease.spec?.holderIdentity ?? undefined
}

/** Creates what a manifest holds (RBAC objects, a namespace, a service account), as kubectl apply would. */
async function apply(cluster: RealCluster, file: string): Promise<void> {
  const kc = new k8s.KubeConfig()
  kc.loadFromFile(cluster.kubeconfig)
  const objects = k8s.KubernetesObjectApi.makeApiClient(kc)
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
    const body = doc.toJS() as k8s.KubernetesObject | null
    if (body === null) continue
    await objects.create(body).catch((e: unknown) => {
      if (!(e instanceof k8s.ApiException && e.code === 409)) throw e
    })
  }
}

async function namespaceAndServiceAccount(cluster: RealCluster): Promise<void> {
  for (const name of [NS, 'team']) {
    await cluster.api.core.createNamespace({body: {metadata: {name}}}).catch((e: unknown) => {
      if (!(e instanceof k8s.ApiException && e.code === 409)) throw e
    })
  }
  await cluster.api.core
    .createNamespacedServiceAccount({namespace: NS, body: {metadata: {name: 'pvctl'}}})
    .catch((e: unknown) => {
      if (!(e instanceof k8s.ApiException && e.code === 409)) throw e
    })
}

/** A kubeconfig with a token of pvctl-system/pvctl from the TokenRequest API, as a pod mounts one. */
async function serviceAccountKubeconfig(cluster: RealCluster): Promise<string> {
  const request = await cluster.api.core.createNamespacedServiceAccountToken({
    namespace: NS,
    name: 'pvctl',
    body: {spec: {audiences: [], expirationSeconds: 3600}},
  })
  const file = path.join(cluster.dir, 'sa.kubeconfig')
  writeFileSync(
    file,
    kubeconfigYaml(cluster.plane.server, readFileSync(path.join(cluster.plane.dir, 'ca.crt'), 'utf8'), {
      token: request.status?.token ?? '',
      name: 'sa',
    }),
  )
  return file
}

test(
  'real kube-apiserver: loop mode, two replicas with leader election: the leader binds claims as they come; when it dies the other takes over',
  {skip: noRealCluster, timeout: 180_000},
  async () => {
    const cluster = realCluster()
    await cluster.fresh()
    await namespaceAndServiceAccount(cluster)
    const args = ['--watch', '--yes', '--leader-elect', '--leader-elect-namespace', NS, ...SHORT_LEASE, ...FAST]
    const replicas = [new Pvctl(cluster.kubeconfig, args), new Pvctl(cluster.kubeconfig, args)]
    try {
      const leader = await Promise.any(
        replicas.map(async (r) => (await r.line(/Writing as the PersistentVolume binder/, {timeoutMs: 60_000}), r)),
      )
      const other = replicas.find((r) => r !== leader)!
      await addClaimAndVolume(cluster, 'first')
      assert.equal(await waitFor('team/first bound', () => boundTo(cluster, 'first'), 30_000), 'pv-first')
      const first = await holder(cluster)
      assert.ok(first, 'the leader holds the Lease')
      leader.kill('SIGKILL')
      await other.line(/Writing as the PersistentVolume binder/, {timeoutMs: 60_000})
      const second = await holder(cluster)
      assert.ok(second !== undefined && second !== first, `the Lease changed hands: ${first} -> ${second}`)
      await addClaimAndVolume(cluster, 'second')
      assert.equal(
        await waitFor('team/second bound by the new leader', () => boundTo(cluster, 'second'), 30_000),
        'pv-second',
      )
      assert.equal(
        (await cluster.volume('pv-second'))?.spec.claimRef?.uid,
        (await cluster.claim('team', 'second'))?.metadata.uid,
      )
    } finally {
      await Promise.all(replicas.map((r) => r.stop()))
    }
  },
)

test(
  'real kube-apiserver: loop mode as the service account of deploy/rbac.yaml, under the RBAC authorizer: binds, records events, holds its Lease',
  {skip: noRealCluster, timeout: 180_000},
  async () => {
    const cluster = realCluster()
    await cluster.fresh()
    await namespaceAndServiceAccount(cluster)
    await apply(cluster, path.join(repoRoot, 'deploy', 'rbac.yaml'))
    const kubeconfig = await serviceAccountKubeconfig(cluster)
    const pvctl = new Pvctl(kubeconfig, [
      '--watch',
      '--yes',
      '--leader-elect',
      '--leader-elect-namespace',
      NS,
      ...SHORT_LEASE,
      ...FAST,
    ])
    try {
      await pvctl.line(/Writing as the PersistentVolume binder/, {timeoutMs: 60_000})
      await addClaimAndVolume(cluster, 'data')
      await cluster.api.core.createNamespacedPersistentVolumeClaim({
        namespace: 'team',
        body: {...claim('huge'), spec: {...claim('huge').spec, resources: {requests: {storage: '100Gi'}}}},
      })
      assert.equal(await waitFor('team/data bound', () => boundTo(cluster, 'data'), 30_000), 'pv-data')
      await waitFor(
        'a FailedBinding event on team/huge',
        async () =>
          (await cluster.api.core.listNamespacedEvent({namespace: 'team'})).items.some(
            (e) => e.involvedObject.name === 'huge' && e.reason === 'FailedBinding',
          ) || undefined,
        30_000,
      )
      assert.ok(await holder(cluster), 'it holds the Lease')
      assert.doesNotMatch(pvctl.err.join('\n'), /forbidden/i, 'no request was refused')
    } finally {
      await pvctl.stop()
    }
  },
)

test(
  'real kube-apiserver: a user bound to deploy/repair-rbac.yaml reclaims a volume; a user granted nothing is told, exit 3, and nothing is written',
  {skip: noRealCluster, timeout: 120_000},
  async () => {
    const cluster = realCluster()
    await cluster.fresh(await example('reclaim'))
    await apply(cluster, path.join(repoRoot, 'deploy', 'repair-rbac.yaml'))
    const kc = new k8s.KubeConfig()
    kc.loadFromFile(cluster.kubeconfig)
    await kc
      .makeApiClient(k8s.RbacAuthorizationV1Api)
      .createClusterRoleBinding({
        body: {
          metadata: {name: 'operator-repairs'},
          roleRef: {apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'pvctl-repair'},
          subjects: [{apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'operator'}],
        },
      })
      .catch((e: unknown) => {
        if (!(e instanceof k8s.ApiException && e.code === 409)) throw e
      })
    const nobody = await cluster.plane.userKubeconfig('nobody')
    const refused = await cluster.pvctlAs(nobody, 'sync', '--dry-run')
    assert.equal(refused.code, 3, refused.stderr)
    assert.match(refused.stderr, /^error: .*forbidden/im)
    assert.equal(
      refused.stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('error:')).length,
      1,
      'one error line',
    )
    assert.doesNotMatch(refused.stderr, /at .*\.js:\d+/, 'no stack trace')
    const denied = await cluster.pvctlAs(nobody, 'reclaim', 'pv/pv-0004', '--for', 'shop/db', '--yes')
    assert.equal(denied.code, 3, denied.stderr)
    assert.deepEqual(cluster.writesBy('nobody'), [], 'nothing written')

    const operator = await cluster.plane.userKubeconfig('operator')
    const run = await cluster.pvctlAs(operator, 'reclaim', 'pv/pv-0004', '--for', 'shop/db', '--yes')
    assert.equal(run.code, 0, run.stderr)
    assert.equal((await cluster.volume('pv-0004'))?.spec.claimRef?.name, 'db')
  },
)
