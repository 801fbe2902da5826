// Loading the conformance cases: test/conformance/{cases,engine}/*.json (README.md beside them), or the
// folder $PVCTL_CONFORMANCE_DIR names (the same layout), to try a case set under change without copying it.
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import type {ClusterState} from '../../src/engine/api/model.js'
import type {ObjectRef} from '../../src/engine/simulation/plan.js'

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

export function conformanceDir(): string {
  const dir = process.env.PVCTL_CONFORMANCE_DIR ?? path.join(repoRoot, 'test/conformance')
  if (!existsSync(path.join(dir, 'cases'))) {
    throw new Error(
      `conformance cases not found at ${dir}: expected ${path.join(dir, 'cases')} (check PVCTL_CONFORMANCE_DIR)`,
    )
  }
  return dir
}

export interface ConformanceCase {
  name: string
  source: string
  group: string
  test: 'syncClaim' | 'syncVolume' | 'multiSync'
  target: string
  firstCall?: string
  initial: {items: Array<Record<string, unknown>>}
  expected: {volumes: Array<Record<string, unknown>>; claims: Array<Record<string, unknown>>}
  expectedEvents: string[]
  expectError: boolean
  featureGates: Record<string, boolean> | null
  featureGateVariants?: Array<Record<string, unknown>>
  reactorErrors: unknown[]
  pluginMock: unknown
  dependsOnPluginMock: boolean
  dependsOnHarness: boolean
  notes: string | null
}

export function loadCases(sub: 'cases' | 'engine'): Array<{file: string; cases: any[]}> {
  const dir = path.join(conformanceDir(), sub)
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({file, cases: JSON.parse(readFileSync(path.join(dir, file), 'utf8')).cases}))
}

/** A case's initial List as the engine's ClusterState (a copy). */
export function stateOf(c: ConformanceCase): ClusterState {
  const items = c.initial.items as Array<{kind: string}>
  const of = (kind: string) => structuredClone(items.filter((i) => i.kind === kind)) as never[]
  return {
    volumes: of('PersistentVolume'),
    claims: of('PersistentVolumeClaim'),
    classes: of('StorageClass'),
    pods: of('Pod'),
    nodes: of('Node'),
  }
}

/** A case's target ("PersistentVolumeClaim/ns/name" or "PersistentVolume/name") as an ObjectRef. */
export function refOf(target: string): ObjectRef {
  const [kind, ...rest] = target.split('/')
  return kind === 'PersistentVolume'
    ? {kind: 'PersistentVolume', name: rest[0]}
    : {kind: 'PersistentVolumeClaim', namespace: rest[0], name: rest[1]}
}
