// The conformance cases that need a volume plugin (dependsOnPluginMock: recycle, delete, provision),
// through the engine's plugin seam (VolumeOperations) with the Go tests' mock plugin and reactor errors.
// Judged by the same rules as the CLI cases (judge.ts).
import assert from 'node:assert/strict'
import {test} from 'node:test'

import type {ClusterState} from '../../src/engine/api/model.js'
import {parseFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {ObjectRef} from '../../src/engine/simulation/plan.js'
import {reconcile} from '../../src/engine/simulation/reconcile.js'
import {type ConformanceCase, loadCases, refOf, stateOf} from './cases.js'
import {KNOWN_EXCEPTIONS} from './exceptions.js'
import {diffEvents, diffObjects} from './judge.js'
import {mockMigration, mockOperations, mockPluginMgr, type PluginMock, reactorFaults, type ReactorError} from './mock-plugin.js'


for (const {file, cases} of loadCases('cases')) {
  const pluginCases = (cases as ConformanceCase[]).filter((c) => c.dependsOnPluginMock)
  if (pluginCases.length === 0) continue
  test(`plugin conformance ${file}`, async (t) => {
    for (const c of pluginCases) {
      await t.test(c.name, () => {
        const mock = c.pluginMock as PluginMock
        const gates = parseFeatureGates(Object.entries(c.featureGates ?? {}).map(([k, v]) => `${k}=${v}`).join(','))
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
        const exception = KNOWN_EXCEPTIONS[c.name]
        const expectedEvents = exception === undefined ? c.expectedEvents : [...c.expectedEvents, ...exception.extraEvents]
        const problems = [...diffObjects(objects as never, c.expected as never), ...diffEvents(r.events, expectedEvents)]
        if (c.expectError) {
          if (r.errors.length === 0) problems.push('expected the sync to fail, it did not')
        } else if (r.errors.length > 0) {
          problems.push(`unexpected sync errors: ${JSON.stringify(r.errors)}`)
        }
        assert.deepEqual(problems, [], `${c.name}\n${problems.join('\n')}\nactions: ${JSON.stringify(r.actions.map((a) => [a.action, a.object.name]))}`)
      })
    }
  })
}
