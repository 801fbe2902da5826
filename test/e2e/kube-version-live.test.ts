// The release pvctl decides as on a live cluster: the API server's /version (the emulator told to answer
// v1.34.2, or v1.31.9), --kube-version over it, and the binds each release makes of a claim and a volume
// of VolumeAttributesClass gold beside a plain pair (the fixture of test/cli/kube-version.test.ts).
import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, test} from 'node:test'

import {parse as parseYaml} from 'yaml'

import {runCli, repoRoot} from '../cli/run-cli.js'
import {startEmulator} from '../emulator/emulator.js'
import type {K8sObject} from '../emulator/types.js'
import {tempDir} from '../temp-dir.js'

const dir = tempDir('e2e-kube-version')
const objects = (
  parseYaml(readFileSync(path.join(repoRoot, 'test', 'fixtures', 'kube-version', 'vac.yaml'), 'utf8')) as {
    items: K8sObject[]
  }
).items

async function withCluster(version: string, run: (kubeconfig: string) => Promise<void>): Promise<void> {
  const api = await startEmulator({tls: true, version, objects: structuredClone(objects)})
  try {
    const kubeconfig = path.join(dir, `kubeconfig-${api.port}.yaml`)
    writeFileSync(kubeconfig, api.kubeconfig({}))
    await run(kubeconfig)
  } finally {
    await api.stop()
  }
}

const cli = (kubeconfig: string, ...args: string[]) => runCli([...args, '--kubeconfig', kubeconfig], {env: {HOME: dir}})

type Json = Record<string, any>
const boundTo = (report: Json, claim: string) =>
  report.objects.find((o: Json) => o.kind === 'PersistentVolumeClaim' && o.metadata.name === claim)?.spec.volumeName

describe('the release of a live cluster (API-server emulator)', () => {
  test('a v1.34 server: sync, explain and audit decide as v1.34, from its /version', async () => {
    await withCluster('v1.34.2', async (kubeconfig) => {
      const [sync, explain, audit] = await Promise.all([
        cli(kubeconfig, 'sync', '--dry-run', '-o', 'json'),
        cli(kubeconfig, 'explain', 'pvc/b-gold', '-n', 'shop', '-o', 'json'),
        cli(kubeconfig, 'audit', '-o', 'json'),
      ])
      const report = JSON.parse(sync.stdout) as Json
      assert.deepEqual(report.kubernetesVersion, {version: 'v1.34', source: 'server', observed: 'v1.34.2'})
      assert.deepEqual([boundTo(report, 'a-plain'), boundTo(report, 'b-gold')], ['pv-plain', 'pv-gold'])
      assert.equal(sync.stderr, '', 'the server said which release: nothing to say about it')
      const e = JSON.parse(explain.stdout) as Json
      assert.deepEqual([e.verdict, e.volume, e.kubernetesVersion.version], ['WillBind', 'pv-gold', 'v1.34'])
      assert.deepEqual(JSON.parse(audit.stdout).kubernetesVersion, {
        version: 'v1.34',
        source: 'server',
        observed: 'v1.34.2',
      })
    })
  })

  test('a v1.31 server: the gold claim is refused, the plain claim never gets the gold volume; --kube-version overrides the server', async () => {
    await withCluster('v1.31.9', async (kubeconfig) => {
      const [asServer, asFlag] = await Promise.all([
        cli(kubeconfig, 'sync', '--dry-run', '-o', 'json'),
        cli(kubeconfig, 'sync', '--dry-run', '-o', 'json', '--kube-version', '1.34'),
      ])
      const report = JSON.parse(asServer.stdout) as Json
      assert.deepEqual(report.kubernetesVersion, {version: 'v1.31', source: 'server', observed: 'v1.31.9'})
      assert.deepEqual([boundTo(report, 'a-plain'), boundTo(report, 'b-gold')], ['pv-plain', undefined])
      assert.match(report.errors[0].message, /feature-gate VolumeAttributesClass is disabled/)
      const forced = JSON.parse(asFlag.stdout) as Json
      assert.deepEqual(forced.kubernetesVersion, {version: 'v1.34', source: 'flag'})
      assert.equal(boundTo(forced, 'b-gold'), 'pv-gold')
    })
  })

  test("a gate the server's release locks is refused before anything is written", async () => {
    await withCluster('v1.36.0', async (kubeconfig) => {
      const r = await cli(kubeconfig, 'sync', '--yes', '--feature-gates', 'HonorPVReclaimPolicy=true')
      assert.equal(r.code, 2)
      assert.equal(
        r.stderr,
        'error: --feature-gates: unrecognized feature gate: HonorPVReclaimPolicy (removed in v1.36; pvctl decides as v1.36)\n',
      )
    })
  })
})
