// The conformance cases that need a volume plugin (dependsOnPluginMock: recycle, delete, provision),
// through the engine's plugin seam (VolumeOperations) with the Go tests' mock plugin and reactor errors.
// Judged by the same rules as the CLI cases (judge.ts), as v1.31 and as the newest release (versions.ts).
import assert from 'node:assert/strict'
import {test} from 'node:test'

import type {ClusterState} from '../../src/engine/api/model.js'
import {defaultGatesAt, parseFeatureGates} from '../../src/engine/api/feature-gates.js'
import {parseKubeVersion} from '../../src/engine/api/kube-version.js'
import type {ObjectRef} from '../../src/engine/simulation/plan.js'
import {reconcile} from '../../src/engine/simulation/reconcile.js'
import {type ConformanceCase, loadCases, refOf, stateOf} from './cases.js'
import {extraEventsAt} from './exceptions.js'
import {diffEvents, diffObjects} from './judge.js'
import {CONFORMANCE_VERSIONS, gateRunAt} from './versions.js'
import {
  mockMigration,
  mockOperations,
  mockPluginMgr,
  type PluginMock,
  reactorFaults,
  type ReactorError,
} from './mock-plugin.js'

for (const {file, cases} of loadCases('cases')) {
  const pluginCases = (cases as ConformanceCase[]).filter((c) => c.dependsOnPluginMock)
  if (pluginCases.length === 0) continue
  test(`plugin conformance ${file}`, async (t) => {
    for (const c of pluginCases)
      for (const version of CONFORMANCE_VERSIONS) {
        const run = gateRunAt(c.featureGates ?? {}, version)
        if ('skip' in run) {
          await t.test(`${c.name} [${run.label}]`, {skip: run.skip}, () => {})
          continue
        }
        await t.test(`${c.name} [${run.label}]`, () => {
          const mock = c.pluginMock as PluginMock
          const gates = parseFeatureGates(run.featureGates, defaultGatesAt(parseKubeVersion(run.kubeVersion)!))
          const single = c.test !== 'multiSync'
          const r = reconcile(stateOf(c), {
            gates,
            plugins: mockPluginMgr(mock),
            operations: mockOperations(mock),
            apiFaults: reactorFaults((c.reactorErrors ?? []) as ReactorError[]),
            ...(mock.csiMigration ? {migration: mockMigration(mock.csiMigration)} : {}),
            ...(single ? {targets: [refOf(c.target)], maxRounds: 1} : {}),
          })
          const objects = [
            ...r.volumes.map((v) => ({...v, kind: 'PersistentVolume'})),
            ...r.claims.map((cl) => ({...cl, kind: 'PersistentVolumeClaim'})),
          ]
          const expectedEvents = [...c.expectedEvents, ...extraEventsAt(c.name, gates.version)]
          const problems = [
            ...diffObjects(objects as never, c.expected as never),
            ...diffEvents(r.events, expectedEvents),
          ]
          if (c.expectError) {
            if (r.errors.length === 0) problems.push('expected the sync to fail, it did not')
          } else if (r.errors.length > 0) {
            problems.push(`unexpected sync errors: ${JSON.stringify(r.errors)}`)
          }
          assert.deepEqual(
            problems,
            [],
            `${c.name}\n${problems.join('\n')}\nactions: ${JSON.stringify(r.actions.map((a) => [a.action, a.object.name]))}`,
          )
        })
      }
  })
}
