// The plan leaves its input alone and records every change it makes. The controller copies an object
// before it modifies it; pvctl skips the copies that would change nothing (copyOnWrite in
// storage-helpers.ts) and shares untouched parts between an object and its next version. A copy skipped
// where it mattered shows up here, over every conformance case: as a write into the (frozen) input, or as
// an object that changed without a planned write — the objects after the plan must be exactly the input
// with every planned patch applied in order.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {planSync} from '../../src/engine/simulation/plan-sync.js'
import {
  claimKey,
  type ClusterState,
  type PersistentVolume,
  type PersistentVolumeClaim,
} from '../../src/engine/api/model.js'
import type {Action} from '../../src/engine/simulation/plan.js'
import {reconcile, type ReconcileOptions} from '../../src/engine/simulation/reconcile.js'
import {applyPatch} from '../../src/engine/simulation/apply-patch.js'
import {type ConformanceCase, loadCases, stateOf} from '../conformance/cases.js'
import {asTheCaseRuns, caseGates, caseOptions} from './conformance-options.js'

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}

/** An object as JSON, without the resourceVersion a write bumps (patches leave it out). */
function content(obj: PersistentVolume | PersistentVolumeClaim): unknown {
  const copy = JSON.parse(JSON.stringify(obj)) as PersistentVolume
  delete copy.metadata.resourceVersion
  return copy
}

/**
 * The input with the plan's writes applied in order. A volume the plan creates has no patch to replay
 * (its content is the plugin's): it is left out, with every later write to it.
 */
function replay(
  state: ClusterState,
  actions: readonly Action[],
): {volumes: Map<string, PersistentVolume>; claims: Map<string, PersistentVolumeClaim>; created: Set<string>} {
  const volumes = new Map(state.volumes.map((v) => [v.metadata.name ?? '', v]))
  const claims = new Map(state.claims.map((c) => [claimKey(c), c]))
  const created = new Set<string>()
  for (const a of actions) {
    if (a.object.kind === 'PersistentVolume') {
      const name = a.object.name
      if (a.action === 'create-volume') created.add(name)
      else if (created.has(name)) continue
      else if (a.action === 'delete-volume') volumes.delete(name)
      else volumes.set(name, applyPatch(volumes.get(name)!, a.patch))
    } else {
      const key = `${a.object.namespace}/${a.object.name}`
      claims.set(key, applyPatch(claims.get(key)!, a.patch))
    }
  }
  for (const name of created) volumes.delete(name)
  return {volumes, claims, created}
}

function assertPlanIsTheInputPlusItsPatches(
  label: string,
  input: ClusterState,
  result: {actions: readonly Action[]; volumes: readonly PersistentVolume[]; claims: readonly PersistentVolumeClaim[]},
): void {
  const want = replay(input, result.actions)
  const volumes = result.volumes.filter((v) => !want.created.has(v.metadata.name ?? ''))
  assert.deepEqual(volumes.map((v) => v.metadata.name).sort(), [...want.volumes.keys()].sort(), `${label}: volumes`)
  for (const v of volumes)
    assert.deepEqual(
      content(v),
      content(want.volumes.get(v.metadata.name ?? '')!),
      `${label}: volume ${v.metadata.name}`,
    )
  assert.equal(result.claims.length, want.claims.size, `${label}: claims`)
  for (const c of result.claims)
    assert.deepEqual(content(c), content(want.claims.get(claimKey(c))!), `${label}: claim ${claimKey(c)}`)
}

const runs: ReadonlyArray<{id: string; options: (c: ConformanceCase) => ReconcileOptions}> = [
  {id: 'as the case runs', options: (c) => ({...caseOptions(c), ...asTheCaseRuns(c)})},
  {id: 'rounds until stable', options: caseOptions},
]

test('every conformance case: reconcile writes nothing into its frozen input, and changes nothing it does not patch', () => {
  let checked = 0
  for (const {file, cases} of loadCases('cases')) {
    for (const c of cases as ConformanceCase[]) {
      for (const run of runs) {
        const label = `${file} ${c.name} (${run.id})`
        const input = deepFreeze(stateOf(c))
        const before = JSON.stringify(input)
        // A write into a frozen object throws (ES modules are strict): the plan fails here, not later.
        const result = reconcile(input, run.options(c))
        assert.equal(JSON.stringify(input), before, label)
        assertPlanIsTheInputPlusItsPatches(label, stateOf(c), result)
        checked++
      }
    }
  }
  assert.ok(checked > 100, `only ${checked} runs`)
})

test('every conformance case: planSync leaves the state it is given unchanged, and reports it as "before"', () => {
  let checked = 0
  for (const {file, cases} of loadCases('cases')) {
    for (const c of cases as ConformanceCase[]) {
      const label = `${file} ${c.name}`
      const input = deepFreeze(stateOf(c))
      const before = JSON.stringify(input)
      const report = planSync(input, {dryRun: true, gates: caseGates(c)})
      assert.equal(JSON.stringify(input), before, label)
      // The diff view compares "before" with the objects after the plan: it must be the input as given.
      const given = new Map<string, unknown>([
        ...input.volumes.map((v) => [`PersistentVolume/${v.metadata.name}`, content(v)] as const),
        ...input.claims.map((cl) => [`PersistentVolumeClaim/${claimKey(cl)}`, content(cl)] as const),
      ])
      assert.ok(report.before !== undefined, label)
      for (const obj of report.before) {
        const key =
          obj.kind === 'PersistentVolume'
            ? `PersistentVolume/${obj.metadata.name}`
            : `PersistentVolumeClaim/${claimKey(obj as PersistentVolumeClaim)}`
        assert.deepEqual(content(obj), given.get(key), `${label}: before ${key}`)
      }
      assertPlanIsTheInputPlusItsPatches(label, stateOf(c), {
        actions: report.actions,
        volumes: report.objects.filter((o): o is PersistentVolume => o.kind === 'PersistentVolume'),
        claims: report.objects.filter((o): o is PersistentVolumeClaim => o.kind === 'PersistentVolumeClaim'),
      })
      checked++
    }
  }
  assert.ok(checked > 50, `only ${checked} cases`)
})
