// The release pvctl decides as, through the built CLI on a snapshot: --kube-version, else the nodes'
// kubeletVersion (said on stderr), else v1.31 (said too); every report names it. The fixture holds a claim
// and a volume of VolumeAttributesClass gold and a plain pair, which v1.31 and v1.34 bind differently.
import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, it} from 'node:test'

import {parse as parseYaml, stringify as toYaml} from 'yaml'

import {repoRoot, runCli, tempDir} from './run-cli.js'

const fixture = path.join(repoRoot, 'test', 'fixtures', 'kube-version', 'vac.yaml')

/** The fixture with nodes whose kubelets run these versions. */
function withNodes(...kubeletVersions: string[]): string {
  const list = parseYaml(readFileSync(fixture, 'utf8')) as {items: unknown[]}
  kubeletVersions.forEach((v, i) =>
    list.items.push({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {name: `node-${i}`},
      status: {nodeInfo: {kubeletVersion: v}},
    }),
  )
  const file = path.join(tempDir('kube-version'), `nodes-${kubeletVersions.join('-')}.yaml`)
  writeFileSync(file, toYaml(list))
  return file
}

interface Report {
  kubernetesVersion: unknown
  actions: Array<{action: string; object: {name: string}; reason: string}>
  errors: Array<{message: string}>
  objects: Array<{
    kind: string
    metadata: {name: string}
    spec: {volumeName?: string}
    status?: {currentVolumeAttributesClassName?: string}
  }>
}

async function syncJson(...args: string[]): Promise<{report: Report; stderr: string}> {
  const res = await runCli(['sync', '--dry-run', '-o', 'json', ...args])
  assert.equal(res.code, 1, res.stderr)
  return {report: JSON.parse(res.stdout) as Report, stderr: res.stderr}
}

const boundTo = (r: Report, claim: string) =>
  r.objects.find((o) => o.kind === 'PersistentVolumeClaim' && o.metadata.name === claim)?.spec.volumeName

describe('--kube-version: the binds of the release asked for', () => {
  it("v1.31: the plain claim gets the plain volume, never the gold one; the gold claim is refused with the controller's error", async () => {
    const {report, stderr} = await syncJson('-f', fixture, '--kube-version', '1.31')
    assert.deepEqual(report.kubernetesVersion, {version: 'v1.31', source: 'flag'})
    assert.equal(boundTo(report, 'a-plain'), 'pv-plain')
    assert.equal(boundTo(report, 'b-gold'), undefined)
    assert.match(
      report.errors[0].message,
      /unsupported volumeAttributesClassName is set on claim shop\/b-gold when the feature-gate VolumeAttributesClass is disabled$/,
    )
    assert.equal(stderr, '', 'a release given is not said again')
  })

  it('v1.34: each claim gets the volume of its own VolumeAttributesClass, recorded in its status', async () => {
    const {report} = await syncJson('-f', fixture, '--kube-version', 'v1.34.2')
    assert.deepEqual(report.kubernetesVersion, {version: 'v1.34', source: 'flag'})
    assert.equal(boundTo(report, 'a-plain'), 'pv-plain')
    assert.equal(boundTo(report, 'b-gold'), 'pv-gold')
    assert.equal(
      report.objects.find((o) => o.metadata.name === 'b-gold')?.status?.currentVolumeAttributesClassName,
      'gold',
    )
    assert.deepEqual(report.errors, [])
  })

  it('v1.33 with the gate turned on decides as v1.34 does; v1.36 with it turned off is refused, naming the release', async () => {
    const {report} = await syncJson(
      '-f',
      fixture,
      '--kube-version',
      '1.33',
      '--feature-gates',
      'VolumeAttributesClass=true',
    )
    assert.equal(boundTo(report, 'b-gold'), 'pv-gold')
    const refused = await runCli([
      'sync',
      '--dry-run',
      '-f',
      fixture,
      '--kube-version',
      '1.36',
      '--feature-gates',
      'VolumeAttributesClass=false',
    ])
    assert.equal(refused.code, 2)
    assert.equal(refused.stdout, '')
    assert.equal(
      refused.stderr,
      'error: --feature-gates: cannot set feature gate VolumeAttributesClass to false, feature is locked to true in v1.36\n',
    )
  })

  it('explain and audit decide as the same release', async () => {
    const [old, current, audited] = await Promise.all([
      runCli(['explain', 'pvc/b-gold', '-n', 'shop', '-f', fixture, '--kube-version', '1.31', '-o', 'json']),
      runCli(['explain', 'pvc/b-gold', '-n', 'shop', '-f', fixture, '--kube-version', '1.34', '-o', 'json']),
      runCli(['audit', '-f', fixture, '--kube-version', '1.34', '-o', 'json']),
    ])
    const before = JSON.parse(old.stdout) as {
      verdict: string
      kubernetesVersion: unknown
      candidates: Array<{volume: string; reasons: Array<{code: string}>}>
    }
    assert.equal(before.verdict, 'SyncError')
    assert.deepEqual(before.kubernetesVersion, {version: 'v1.31', source: 'flag'})
    assert.ok(before.candidates.every((c) => c.reasons.some((r) => r.code === 'VolumeAttributesClassUnsupported')))
    const after = JSON.parse(current.stdout) as {verdict: string; volume: string}
    assert.deepEqual([after.verdict, after.volume], ['WillBind', 'pv-gold'])
    const report = JSON.parse(audited.stdout) as {kubernetesVersion: unknown; findings: unknown[]}
    assert.deepEqual(report.kubernetesVersion, {version: 'v1.34', source: 'flag'})
    assert.deepEqual(report.findings, [])
  })

  it('v1.30: the controller does not look at VolumeAttributesClasses yet: the smallest volume, whatever its class', async () => {
    const {report} = await syncJson('-f', fixture, '--kube-version', '1.30')
    assert.deepEqual([boundTo(report, 'a-plain'), boundTo(report, 'b-gold')], ['pv-gold', 'pv-plain'])
    assert.deepEqual(report.errors, [])
  })

  it('the repairs name the release their proof was decided as', async () => {
    const [reclaimed, relinked] = await Promise.all([
      runCli([
        'reclaim',
        'pv/pv-0004',
        '--for',
        'shop/db',
        '-f',
        path.join(repoRoot, 'examples', 'reclaim.yaml'),
        '--kube-version',
        '1.35',
        '-o',
        'json',
      ]),
      runCli([
        'relink',
        'pvc/db',
        '-n',
        'shop',
        '-f',
        path.join(repoRoot, 'examples', 'relink.yaml'),
        '--kube-version',
        '1.35',
        '-o',
        'json',
      ]),
    ])
    for (const r of [reclaimed, relinked])
      assert.deepEqual(JSON.parse(r.stdout).kubernetesVersion, {version: 'v1.35', source: 'flag'}, r.stderr)
  })

  it('a release pvctl does not know is a usage error', async () => {
    for (const v of ['1.28', '2.0', 'latest']) {
      const res = await runCli(['sync', '--dry-run', '-f', fixture, '--kube-version', v])
      assert.equal(res.code, 2, v)
      assert.match(res.stderr, /^error: --kube-version "[^"]+": .*\n$/, v)
    }
  })
})

describe('without --kube-version: what the snapshot shows', () => {
  it("the nodes' newest kubeletVersion, said on stderr", async () => {
    const {report, stderr} = await syncJson('-f', withNodes('v1.33.5', 'v1.34.1-eks-1'))
    assert.deepEqual(report.kubernetesVersion, {version: 'v1.34', source: 'nodes', observed: 'v1.34.1-eks-1'})
    assert.equal(boundTo(report, 'b-gold'), 'pv-gold')
    assert.match(
      stderr,
      /^pvctl: decided as Kubernetes v1\.34, inferred from the nodes' kubeletVersion \(newest v1\.34\.1-eks-1\)/m,
    )
  })

  it('a node newer than the newest release pvctl knows: the newest, said', async () => {
    const {report, stderr} = await syncJson('-f', withNodes('v1.40.0'))
    assert.deepEqual(report.kubernetesVersion, {version: 'v1.37', source: 'nodes', observed: 'v1.40.0'})
    assert.match(stderr, /newer than the newest release pvctl knows: deciding as v1\.37/)
  })

  it('no node: v1.31, said', async () => {
    const {report, stderr} = await syncJson('-f', fixture)
    assert.deepEqual(report.kubernetesVersion, {version: 'v1.31', source: 'default'})
    assert.equal(boundTo(report, 'a-plain'), 'pv-plain')
    assert.equal(
      stderr,
      'pvctl: decided as Kubernetes v1.31: the snapshot does not say which release the cluster runs (no Node with a kubeletVersion); --kube-version says which\n',
    )
  })
})
