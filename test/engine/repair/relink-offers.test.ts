// relink is offered where the problem is seen, and only where its decision allows it: explain's suggestion
// (engine/explain, which may not import the repair, asks relink's decision through its port, as pvctl
// explain wires it) names relink's way, and only where there is one, on every claim of every example snapshot; audit's fixes name `pvctl relink` for every pair
// that `relink --all` relinks, and each command they name is one relink allows.
import assert from 'node:assert/strict'
import {readdirSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {snapshotState} from '../../fixtures/states.js'
import {defaultFeatureGates} from '../../../src/engine/api/feature-gates.js'
import {explainClaim} from '../../../src/engine/explain/explainer.js'
import {relinkPort} from '../../../src/engine/repair/explain-state.js'
import {defaultVolumePluginMgr} from '../../../src/engine/controller/volume-plugins.js'
import {decideRelink, relinkWay} from '../../../src/engine/repair/relink.js'
import {repoRoot, runCli} from '../../cli/run-cli.js'
import {bound, byController, pv, pvc, state} from '../builders.js'

const examples = readdirSync(path.join(repoRoot, 'examples'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => path.join('examples', f))

test("explain's relink suggestion and relink's decision agree on every claim of the examples (and on the states around a restore)", async () => {
  const states = [
    ...(await Promise.all(examples.map(async (f) => ({name: f, state: await snapshotState(f)})))),
    // Around the restore: another claim naming the volume, volumes of reclaimPolicy Delete.
    {
      name: 'another claim names the volume',
      state: state({
        volumes: [
          pv('pv-1', {phase: 'Bound', className: '', claim: {name: 'db', uid: 'u-old'}, annotations: byController}),
        ],
        claims: [
          pvc('db', 'u-new', {className: '', volumeName: 'pv-1'}),
          pvc('x', 'u-x', {className: '', volumeName: 'pv-1', phase: 'Lost', annotations: bound}),
        ],
      }),
    },
    {
      name: 'Bound with Delete, an external deleter',
      state: state({
        volumes: [
          pv('pv-1', {
            phase: 'Bound',
            policy: 'Delete',
            className: '',
            claim: {name: 'db', uid: 'u-old'},
            annotations: byController,
            source: {csi: {driver: 'ebs.csi.aws.com', volumeHandle: 'v'}},
          }),
        ],
        claims: [pvc('db', 'u-new', {className: '', volumeName: 'pv-1'})],
      }),
    },
    {
      name: 'Bound with Delete, the controller deletes it',
      state: state({
        volumes: [
          pv('pv-1', {
            phase: 'Bound',
            policy: 'Delete',
            className: '',
            claim: {name: 'db', uid: 'u-old'},
            annotations: byController,
            source: {hostPath: {path: '/tmp/x'}},
          }),
        ],
        claims: [pvc('db', 'u-new', {className: '', volumeName: 'pv-1'})],
      }),
    },
    {
      name: 'spec.volumeName cleared, the volume names the claim as it is',
      state: state({
        volumes: [
          pv('pv-1', {phase: 'Bound', className: '', claim: {name: 'db', uid: 'u-1'}, annotations: byController}),
        ],
        claims: [pvc('db', 'u-1', {className: '', phase: 'Lost', annotations: bound})],
      }),
    },
    {
      name: 'spec.volumeName cleared, another claim holds the volume',
      state: state({
        volumes: [
          pv('pv-1', {phase: 'Bound', className: '', claim: {name: 'db', uid: 'u-1'}, annotations: byController}),
        ],
        claims: [
          pvc('db', 'u-1', {className: '', phase: 'Lost', annotations: bound}),
          pvc('x', 'u-x', {className: '', volumeName: 'pv-1'}),
        ],
      }),
    },
    {
      name: 'Released with Delete',
      state: state({
        volumes: [
          pv('pv-1', {
            phase: 'Released',
            policy: 'Delete',
            className: '',
            claim: {name: 'db', uid: 'u-old'},
            source: {csi: {driver: 'ebs.csi.aws.com', volumeHandle: 'v'}},
          }),
        ],
        claims: [pvc('db', 'u-new', {className: '', volumeName: 'pv-1'})],
      }),
    },
  ]
  let offered = 0
  for (const {name, state: s} of states) {
    for (const c of s.claims) {
      const ns = c.metadata.namespace ?? ''
      const claim = c.metadata.name ?? ''
      const e = explainClaim(s, ns, claim, {
        gates: defaultFeatureGates,
        relink: relinkPort(s, defaultFeatureGates, defaultVolumePluginMgr(), []),
      })!
      const suggests = e.suggestions.some((line) => line.endsWith(`pvctl relink pvc/${claim} -n ${ns}`))
      const target = {kind: 'PersistentVolumeClaim' as const, namespace: ns, name: claim}
      // Allowed as it is, or once Retain is set (the way then says that step first).
      const allowed =
        decideRelink({state: s, target, gates: defaultFeatureGates})!.allowed ||
        relinkWay({state: s, target, gates: defaultFeatureGates})?.way !== undefined
      // explain offers relink where a volume names the claim and the claim does not bind it: its verdicts
      // RequestedVolumeBoundElsewhere, Misbound, and Lost (a spec.volumeName cleared).
      if (e.verdict === 'RequestedVolumeBoundElsewhere' || e.verdict === 'Misbound' || e.verdict === 'Lost')
        assert.equal(suggests, allowed, `${name}: pvc/${ns}/${claim} (${e.verdict}): ${e.suggestions.join(' | ')}`)
      else assert.equal(suggests, false, `${name}: pvc/${ns}/${claim} (${e.verdict})`)
      if (suggests) offered++
    }
  }
  assert.ok(offered >= 2, 'the examples offer the relink (the agreement is not vacuous)')
})

test("audit's fixes name pvctl relink for every pair relink --all relinks, and each is one relink allows", async () => {
  const file = path.join(repoRoot, 'examples', 'relink.yaml')
  const audit = JSON.parse((await runCli(['audit', '-f', file, '-o', 'json'])).stdout) as {
    findings: Array<{code: string; fix: string}>
  }
  const fixes = [...new Set(audit.findings.map((f) => f.fix).filter((fix) => fix.startsWith('pvctl relink ')))]
  const all = JSON.parse((await runCli(['relink', '--all', '-f', file, '-o', 'json'])).stdout) as {
    pairs: Array<{command: string; allowed: boolean}>
  }
  for (const p of all.pairs.filter((x) => x.allowed))
    assert.ok(fixes.includes(`${p.command} -f ${file}`), `${p.command} is among audit's fixes: ${fixes.join(', ')}`)
  assert.deepEqual(
    [...new Set(audit.findings.filter((f) => f.fix.startsWith('pvctl relink ')).map((f) => f.code))].sort(),
    [
      'ClaimLost',
      'ClaimMisbound',
      'ClaimRequestedVolumeBoundElsewhere',
      'RestoredUidMismatch',
      'VolumeClaimRefUidMismatch',
      'VolumeReleasedRetained',
    ],
  )
  for (const fix of fixes) {
    const run = await runCli(fix.replace(/^pvctl /, '').split(' '))
    assert.equal(run.code, 1, `${fix}: allowed, a simulation: ${run.stderr}`)
  }
})
