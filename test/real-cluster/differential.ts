// The differential oracle: generated clusters (the property tests' generator, test/engine/
// differential-arbitraries.ts) created in a real kube-apiserver, the real PV controller
// (kube-controller-manager, only persistentvolume-binder-controller) run on each to quiescence, and its
// end state compared with pvctl's plan from the same starting state, read from the same API server:
// phases, claimRefs, volumeNames, annotations, and events by reason.
//
// Where the two end states differ only in what depends on the order of the syncs (which of two claims got
// a volume, an event of a state one order passes through: the controller's order is its informers' and
// two workers', pvctl's is sorted; see onlyOrderDependent), the difference is order-dependent, not a
// disagreement, when also pvctl plans nothing more on the controller's end state, and the real controller,
// run on the state pvctl writes (`pvctl sync --yes`), writes nothing: each accepts the other's end state.
import {mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'

import fc from 'fast-check'
import {stringify} from 'yaml'

import {openLiveSession} from '../../src/app/live-session.js'
import {planSync} from '../../src/engine/simulation/plan-sync.js'
import {loadLiveState} from '../../src/cluster/live-loader.js'
import {defaultFeatureGates, type FeatureGates} from '../../src/engine/api/feature-gates.js'
import type {ClusterState, PersistentVolume, PersistentVolumeClaim} from '../../src/engine/api/model.js'
import type {SyncReport} from '../../src/engine/simulation/sync-report.js'
import type {Action} from '../../src/engine/simulation/plan.js'
import {runCli} from '../cli/run-cli.js'
import {clusterArb} from '../engine/differential-arbitraries.js'
import type {ControlPlane} from './control-plane.js'
import {listedSettling, waitForQuiescence, writtenFingerprint} from './quiescence.js'
import {type ApiClients, seed, stateAsList, wipe} from './seed.js'
import {standInKubelet} from './stand-in-kubelet.js'

/** What is compared of one end state. */
export interface EndState {
  volumes: Map<string, {phase: string; claimRef: string | null; annotations: Record<string, string>}>
  claims: Map<string, {phase: string; volumeName: string | null; annotations: Record<string, string>}>
  /** "Kind namespace/name Reason", once each. */
  events: Set<string>
}

export type Verdict = 'agree' | 'order-dependent' | 'disagree'

export interface ClusterOutcome {
  index: number
  verdict: Verdict
  differences: string[]
  /** Objects the API server refused (invalid in the generated cluster): left out of this run. */
  refused: Array<{object: string; message: string}>
  start: ClusterState
  controller: EndState
  pvctl: EndState
}

const claimRefText = (ref: {namespace?: string; name?: string; uid?: string} | null | undefined) =>
  ref == null ? null : `${ref.namespace ?? ''}/${ref.name ?? ''} ${ref.uid ?? ''}`

export function endState(
  volumes: readonly PersistentVolume[],
  claims: readonly PersistentVolumeClaim[],
  events: Iterable<{kind: string; namespace?: string; name: string; reason: string}>,
): EndState {
  return {
    volumes: new Map(
      volumes.map((v) => [
        v.metadata.name ?? '',
        {
          phase: v.status?.phase ?? '',
          claimRef: claimRefText(v.spec.claimRef),
          annotations: {...v.metadata.annotations},
        },
      ]),
    ),
    claims: new Map(
      claims.map((c) => [
        `${c.metadata.namespace}/${c.metadata.name}`,
        {phase: c.status?.phase ?? '', volumeName: c.spec.volumeName ?? null, annotations: {...c.metadata.annotations}},
      ]),
    ),
    events: new Set([...events].map((e) => `${e.kind} ${e.namespace ?? ''}/${e.name} ${e.reason}`)),
  }
}

function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  return `{${Object.keys(value as object)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
    .join(',')}}`
}

/** Every difference between two end states, one line each ("pv/pv-a phase: controller Bound, pvctl Available"). */
export function differencesOf(controller: EndState, pvctl: EndState): string[] {
  const out: string[] = []
  const compareMaps = <T extends object>(kind: string, a: Map<string, T>, b: Map<string, T>) => {
    for (const name of [...new Set([...a.keys(), ...b.keys()])].sort()) {
      const x = a.get(name)
      const y = b.get(name)
      if (x === undefined || y === undefined) {
        out.push(
          `${kind}/${name}: ${x === undefined ? 'gone' : 'present'} after the controller, ${y === undefined ? 'gone' : 'present'} after pvctl`,
        )
        continue
      }
      for (const field of Object.keys(x) as Array<keyof T>) {
        const l = stableJson(x[field])
        const r = stableJson(y[field])
        if (l !== r) out.push(`${kind}/${name} ${String(field)}: controller ${l}, pvctl ${r}`)
      }
    }
  }
  compareMaps('pv', controller.volumes, pvctl.volumes)
  compareMaps('pvc', controller.claims, pvctl.claims)
  for (const e of [...controller.events].sort()) if (!pvctl.events.has(e)) out.push(`event ${e}: controller only`)
  for (const e of [...pvctl.events].sort()) if (!controller.events.has(e)) out.push(`event ${e}: pvctl only`)
  return out
}

/** The objects a difference line names ("pv/pv-a", "pvc/team-a/db"); events name theirs by kind. */
function objectOf(line: string): string {
  const event = /^event (PersistentVolume|PersistentVolumeClaim) \/?(\S+) /.exec(line)
  if (event !== null) return `${event[1] === 'PersistentVolume' ? 'pv' : 'pvc'}/${event[2]}`
  return line.split(/[ :]/)[0] ?? line
}

/** The annotations a provisioning attempt leaves on a claim (setClaimProvisioner): kept after a later binding. */
const PROVISIONER_ANNOTATIONS = [
  'volume.kubernetes.io/storage-provisioner',
  'volume.beta.kubernetes.io/storage-provisioner',
]

/**
 * Whether every difference comes from the order the syncs ran in (the controller's is its informers' and
 * two workers', pvctl's is claims then volumes, sorted), in one of two ways:
 *
 * - contended volumes: a volume the two sides bound to different claims (or one side to none), and every
 *   claim either side binds to it or names for it (spec.volumeName): which claim got it, and what the
 *   others became (Pending, or Lost/ClaimMisbound for one that named it), with their events;
 * - passing states: an object both sides end alike, but not as it started, where one side also emitted an
 *   event on the way, or tried provisioning for a claim before the volume it then bound was made Available
 *   (the provisioner annotations stay on the claim).
 *
 * Which claim gets a volume can decide whether another claim is bound at all (the volume it names taken by
 * one that fitted it, of equal candidates the other one): what makes either end state one the controller
 * could reach is that each side accepts the other's, checked apart (compareOne).
 */
export function onlyOrderDependent(
  start: EndState,
  controller: EndState,
  pvctl: EndState,
  differences: readonly string[],
): boolean {
  const contended = new Set<string>()
  for (const [name, a] of controller.volumes) if (pvctl.volumes.get(name)?.claimRef !== a.claimRef) contended.add(name)
  for (const [key, a] of controller.claims) {
    const b = pvctl.claims.get(key)
    if (b !== undefined && a.volumeName !== b.volumeName)
      for (const v of [a.volumeName, b.volumeName]) if (v !== null) contended.add(v)
  }
  const involved = new Set([...contended].map((v) => `pv/${v}`))
  for (const side of [controller, pvctl]) {
    for (const v of contended) {
      const ref = side.volumes.get(v)?.claimRef
      if (ref != null) involved.add(`pvc/${ref.split(' ')[0]}`)
    }
    for (const [key, c] of side.claims)
      if (c.volumeName !== null && contended.has(c.volumeName)) involved.add(`pvc/${key}`)
  }
  const withoutProvisioner = (c: {annotations: Record<string, string>}) => ({
    ...c,
    annotations: Object.fromEntries(
      Object.entries(c.annotations).filter(([k]) => !PROVISIONER_ANNOTATIONS.includes(k)),
    ),
  })
  const passing = (object: string, line: string): boolean => {
    const [kind, ...rest] = object.split('/')
    const key = rest.join('/')
    if (kind === 'pv') {
      const [s, a, b] = [start.volumes, controller.volumes, pvctl.volumes].map((m) => m.get(key))
      return (
        line.startsWith('event ') &&
        a !== undefined &&
        b !== undefined &&
        stableJson(a) === stableJson(b) &&
        stableJson(a) !== stableJson(s)
      )
    }
    const [s, a, b] = [start.claims, controller.claims, pvctl.claims].map((m) => m.get(key))
    if (a === undefined || b === undefined || s === undefined) return false
    const changed = a.phase !== s.phase || a.volumeName !== s.volumeName
    const alike = stableJson(withoutProvisioner(a)) === stableJson(withoutProvisioner(b))
    return changed && alike && (line.startsWith('event ') || / annotations: /.test(line))
  }
  return differences.every((d) => involved.has(objectOf(d)) || passing(objectOf(d), d))
}

export interface DifferentialOptions {
  plane: ControlPlane
  api: ApiClients
  gates: FeatureGates
  syncPeriod: string
}

async function liveState(kubeconfig: string): Promise<ClusterState> {
  const session = openLiveSession({kubeconfig, qps: 1000, burst: 1000})
  return loadLiveState(session.api, {})
}

async function controllerEndState(api: ApiClients): Promise<EndState> {
  const [volumes, claims, events] = await Promise.all([
    api.core.listPersistentVolume(),
    api.core.listPersistentVolumeClaimForAllNamespaces(),
    api.core.listEventForAllNamespaces(),
  ])
  return endState(
    volumes.items as unknown as PersistentVolume[],
    claims.items as unknown as PersistentVolumeClaim[],
    events.items.map((e) => ({
      kind: e.involvedObject.kind ?? '',
      namespace: e.involvedObject.namespace,
      name: e.involvedObject.name ?? '',
      reason: e.reason ?? '',
    })),
  )
}

function planEndState(report: SyncReport): EndState {
  const volumes = report.objects.filter((o): o is PersistentVolume => o.kind === 'PersistentVolume')
  const claims = report.objects.filter((o): o is PersistentVolumeClaim => o.kind === 'PersistentVolumeClaim')
  return endState(
    volumes,
    claims,
    report.events.map((e) => ({
      kind: e.object.kind,
      namespace: e.object.namespace,
      name: e.object.name,
      reason: e.reason,
    })),
  )
}

/**
 * A recycle, delete or provision: the controller runs one in a goroutine that waits for a pod no kubelet
 * here runs, so on its end state pvctl plans it again. Not a write to a volume or a claim.
 */
export function isOperation(a: Action): boolean {
  return a.action === 'recycle' || a.action === 'delete' || a.action === 'provision'
}

/** Runs the real controller on what the API server holds now until it settles; then stops it. */
async function runController(o: DifferentialOptions): Promise<void> {
  const manager = await o.plane.startControllerManager({syncPeriod: o.syncPeriod})
  try {
    await waitForQuiescence(listedSettling(o.api, () => manager.metrics()))
  } finally {
    await manager.stop()
  }
}

/** Does the real controller write nothing on the state `pvctl sync --yes` leaves from this cluster? */
async function controllerAcceptsPvctl(o: DifferentialOptions, cluster: ClusterState): Promise<string | undefined> {
  await wipe(o.api)
  await seed(o.api, cluster)
  // No kubelet runs the recycler and cleanup pods pvctl starts: one stands in, so that its run ends.
  const stopKubelet = standInKubelet(o.api)
  const write = await runCli(['sync', '--yes', '--kubeconfig', o.plane.kubeconfig, '-o', 'json']).finally(stopKubelet)
  if (write.code !== 0) return `pvctl sync --yes exited ${write.code}: ${write.stderr.trim()}`
  const volumesAndClaims = async () =>
    (await writtenFingerprint(o.api))
      .split('\n')
      .filter((l) => !l.startsWith('event '))
      .join('\n')
  const before = await volumesAndClaims()
  await runController(o)
  return (await volumesAndClaims()) === before ? undefined : 'the real controller changed the state pvctl wrote'
}

/** One generated cluster through both; the API server is left holding the controller's end state. */
export async function compareOne(
  o: DifferentialOptions,
  cluster: ClusterState,
  index: number,
): Promise<ClusterOutcome> {
  await wipe(o.api)
  const {refused} = await seed(o.api, cluster)
  const start = await liveState(o.plane.kubeconfig)
  const report = planSync(start, {dryRun: true, gates: o.gates})
  const pvctl = planEndState(report)
  await runController(o)
  const controller = await controllerEndState(o.api)
  const differences = differencesOf(controller, pvctl)
  let verdict: Verdict = differences.length === 0 ? 'agree' : 'disagree'
  if (
    verdict === 'disagree' &&
    onlyOrderDependent(endState(start.volumes, start.claims, []), controller, pvctl, differences)
  ) {
    // The controller's end state must be one pvctl has nothing to add to, and pvctl's one the controller leaves.
    const onControllers = planSync(await liveState(o.plane.kubeconfig), {dryRun: true, gates: o.gates}).actions.filter(
      (a) => !isOperation(a),
    )
    const rejected =
      onControllers.length > 0
        ? `pvctl plans ${onControllers.length} writes on the controller's end state`
        : await controllerAcceptsPvctl(o, cluster)
    if (rejected === undefined) verdict = 'order-dependent'
    else differences.push(rejected)
  }
  return {index, verdict, differences, refused, start, controller, pvctl}
}

const asObject = (s: EndState) => ({
  volumes: Object.fromEntries(s.volumes),
  claims: Object.fromEntries(s.claims),
  events: [...s.events].sort(),
})

/** A disagreement as files: the start state (a snapshot `pvctl sync -f` reads), both end states, the differences. */
export function writeOutcome(dir: string, outcome: ClusterOutcome): string {
  const folder = path.join(dir, `cluster-${String(outcome.index).padStart(4, '0')}-${outcome.verdict}`)
  mkdirSync(folder, {recursive: true})
  writeFileSync(path.join(folder, 'start.yaml'), stringify(stateAsList(outcome.start)))
  writeFileSync(path.join(folder, 'controller.yaml'), stringify(asObject(outcome.controller)))
  writeFileSync(path.join(folder, 'pvctl.yaml'), stringify(asObject(outcome.pvctl)))
  writeFileSync(path.join(folder, 'differences.txt'), `${outcome.differences.join('\n')}\n`)
  if (outcome.refused.length > 0)
    writeFileSync(
      path.join(folder, 'refused.txt'),
      outcome.refused.map((r) => `${r.object}: ${r.message}`).join('\n') + '\n',
    )
  return folder
}

/** The generated clusters of a run: the same seed, the same clusters. */
export function generatedClusters(count: number, seed: number): ClusterState[] {
  return fc.sample(clusterArb(), {seed, numRuns: count}).map(creatable)
}

/**
 * The generator also makes objects no API server accepts, for the engine's sake (a volume without capacity
 * or access modes, a claim without a request, a CSI driver named example.com/csi): here they get the
 * smallest valid value (1Gi, ReadWriteOnce, csi.example.com) rather than being refused. What the server
 * still refuses (a size of 0, the Bogus reclaim policy, a selector's In without values, ReadWriteOncePod
 * with other modes) is left out and counted.
 */
export function creatable(cluster: ClusterState): ClusterState {
  const copy = structuredClone(cluster) as ClusterState
  for (const v of copy.volumes) {
    const spec = v.spec as {capacity?: unknown; accessModes?: string[]; csi?: {driver?: string}}
    spec.capacity ??= {storage: '1Gi'}
    if (!spec.accessModes?.length) spec.accessModes = ['ReadWriteOnce']
    // A CSI driver's name is a DNS subdomain: the generator's example.com/csi is not one.
    if (spec.csi?.driver === 'example.com/csi') spec.csi.driver = 'csi.example.com'
  }
  for (const c of copy.claims) {
    const spec = c.spec as {resources?: unknown; accessModes?: string[]}
    spec.resources ??= {requests: {storage: '1Gi'}}
    if (!spec.accessModes?.length) spec.accessModes = ['ReadWriteOnce']
  }
  return copy
}

/** The feature gates pvctl plans with to match the release's defaults. */
export function gatesFor(kubernetes: string): FeatureGates {
  const minor = Number(kubernetes.replace(/^v/, '').split('.')[1])
  // VolumeAttributesClass is on by default from v1.34 (GA).
  return {...defaultFeatureGates, VolumeAttributesClass: minor >= 34}
}
