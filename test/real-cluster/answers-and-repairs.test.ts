// explain, audit, reclaim and relink against a real kube-apiserver: the answers on the live cluster are
// the answers on a snapshot of it, and the guarded repairs write what the next sync then binds.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {example, noRealCluster, PVCTL, realCluster, snapshotFile} from './live.js'

type Explanation = {
  verdict: string
  volume: string | null
  candidates: Array<{volume: string; eligible: boolean; reasons: Array<{code: string}>}>
}
type Audit = {
  findings: Array<{code: string; severity: string; object: {kind: string; namespace?: string; name: string}}>
  plannedChanges: Record<string, number>
}

const json = <T>(run: {code: number | null; stdout: string; stderr: string}, codes: number[]): T => {
  assert.ok(run.code !== null && codes.includes(run.code), `exit ${run.code}: ${run.stderr}`)
  return JSON.parse(run.stdout) as T
}

test(
  'real kube-apiserver: explain answers each claim of the example as on a snapshot of the same cluster',
  {skip: noRealCluster, timeout: 180_000},
  async () => {
    const cluster = realCluster()
    await cluster.fresh(await example('cluster'))
    const file = await snapshotFile(cluster, 'explain.json')
    const claims = (await cluster.api.core.listNamespacedPersistentVolumeClaim({namespace: 'shop'})).items.map(
      (c) => c.metadata?.name ?? '',
    )
    assert.ok(claims.length >= 5)
    const verdicts = new Set<string>()
    for (const name of claims) {
      const live = json<Explanation>(await cluster.pvctl('explain', `pvc/${name}`, '-n', 'shop', '-o', 'json'), [0, 1])
      const snapshot = json<Explanation>(
        await cluster.pvctlAs(cluster.kubeconfig, 'explain', `pvc/${name}`, '-n', 'shop', '-f', file, '-o', 'json'),
        [0, 1],
      )
      const shape = (e: Explanation) => ({
        verdict: e.verdict,
        volume: e.volume,
        candidates: e.candidates.map((c) => [c.volume, c.eligible, c.reasons.map((r) => r.code)]),
      })
      assert.deepEqual(shape(live), shape(snapshot), `pvc/${name}`)
      verdicts.add(live.verdict)
    }
    assert.ok(verdicts.size >= 3, `several verdicts met: ${[...verdicts].join(', ')}`)
  },
)

test(
  'real kube-apiserver: audit finds on the live cluster what it finds on its snapshot',
  {skip: noRealCluster, timeout: 120_000},
  async () => {
    const cluster = realCluster()
    await cluster.fresh(await example('cluster'))
    const file = await snapshotFile(cluster, 'audit.json')
    const live = json<Audit>(await cluster.pvctl('audit', '-o', 'json'), [0, 1, 4])
    const snapshot = json<Audit>(
      await cluster.pvctlAs(cluster.kubeconfig, 'audit', '-f', file, '-o', 'json'),
      [0, 1, 4],
    )
    const findings = (a: Audit) =>
      a.findings
        .map((f) => `${f.severity} ${f.code} ${f.object.kind}/${f.object.namespace ?? ''}/${f.object.name}`)
        .sort()
    assert.deepEqual(findings(live), findings(snapshot))
    assert.deepEqual(live.plannedChanges, snapshot.plannedChanges)
    assert.ok(
      live.findings.some((f) => f.code === 'ClaimMisbound'),
      "the example's misbound claim is found",
    )
  },
)

test(
  'real kube-apiserver: reclaim hands a Released Retain volume to a new claim (one PUT); the next sync binds them',
  {skip: noRealCluster, timeout: 120_000},
  async () => {
    const cluster = realCluster()
    await cluster.fresh(await example('reclaim'))
    const before = await cluster.volume('pv-0004')
    const run = await cluster.pvctl('reclaim', 'pv/pv-0004', '--for', 'shop/db', '--yes', '-o', 'json')
    assert.equal(run.code, 0, run.stderr)
    const report = JSON.parse(run.stdout) as {write: {outcome: string}; next: string}
    assert.equal(report.write.outcome, 'written')
    assert.equal(report.next, 'the next sync binds pvc/shop/db to pv-0004')
    const after = await cluster.volume('pv-0004')
    assert.deepEqual(after?.spec.claimRef, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      name: 'db',
      namespace: 'shop',
    })
    assert.equal(Number(after?.metadata.resourceVersion) > Number(before?.metadata.resourceVersion), true)

    const sync = await cluster.pvctl('sync', '--yes')
    assert.equal(sync.code, 0, sync.stderr)
    const claim = await cluster.claim('shop', 'db')
    assert.equal(claim?.spec.volumeName, 'pv-0004')
    assert.equal(claim?.status?.phase, 'Bound')
    assert.equal((await cluster.volume('pv-0004'))?.spec.claimRef?.uid, claim?.metadata.uid)
  },
)

test(
  'real kube-apiserver: reclaim --dry-run and a refused reclaim write nothing',
  {skip: noRealCluster, timeout: 120_000},
  async () => {
    const cluster = realCluster()
    await cluster.fresh(await example('reclaim'))
    const before = cluster.writesBy(PVCTL).length
    const dry = await cluster.pvctl('reclaim', 'pv/pv-0004', '--for', 'shop/db', '--dry-run')
    assert.equal(dry.code, 1, `a dry run with a write to make exits 1: ${dry.stderr}`)
    const refused = await cluster.pvctl('reclaim', 'pv/pv-0004', '--for', 'shop/db')
    assert.equal(refused.code, 2, 'no terminal and no --yes: refused')
    assert.deepEqual(cluster.writesBy(PVCTL).slice(before), [], 'nothing written')
  },
)

test(
  "real kube-apiserver: relink points a restored claim's volume at its new uid (one PUT); the next sync binds them",
  {skip: noRealCluster, timeout: 120_000},
  async () => {
    const cluster = realCluster()
    await cluster.fresh(await example('relink'))
    const run = await cluster.pvctl('relink', 'pvc/db', '-n', 'shop', '--yes', '-o', 'json')
    assert.equal(run.code, 0, run.stderr)
    const report = JSON.parse(run.stdout) as {
      pairs: Array<{writes: Array<{object: {name: string}; outcome: string}>; next: string}>
    }
    assert.deepEqual(
      report.pairs[0]?.writes.map((w) => [w.object.name, w.outcome]),
      [['pv-0004', 'written']],
    )
    const db = await cluster.claim('shop', 'db')
    assert.equal((await cluster.volume('pv-0004'))?.spec.claimRef?.uid, db?.metadata.uid)

    const sync = await cluster.pvctl('sync', 'pvc/db', '-n', 'shop', '--yes')
    assert.equal(sync.code, 0, sync.stderr)
    const bound = await cluster.claim('shop', 'db')
    assert.equal(bound?.spec.volumeName, 'pv-0004')
    assert.equal(bound?.status?.phase, 'Bound')
    assert.equal((await cluster.volume('pv-0004'))?.status?.phase, 'Bound')
  },
)

test(
  'real kube-apiserver: relink --sync mends a Lost claim that lost its spec.volumeName: volume, claim, then bound',
  {skip: noRealCluster, timeout: 120_000},
  async () => {
    const cluster = realCluster()
    await cluster.fresh(await example('relink'))
    const run = await cluster.pvctl('relink', 'pvc/logs', '-n', 'shop', '--sync', '--yes')
    assert.equal(run.code, 0, run.stderr)
    const logs = await cluster.claim('shop', 'logs')
    assert.equal(logs?.spec.volumeName, 'pv-0006')
    assert.equal(logs?.status?.phase, 'Bound')
    assert.equal((await cluster.volume('pv-0006'))?.spec.claimRef?.uid, logs?.metadata.uid)
  },
)
