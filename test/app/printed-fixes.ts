// Runs a fix as pvctl prints it, on the state it was printed for: each `pvctl` step of it (steps joined by
// ` && `) through the use-case its command runs (runReclaim, runRelink, planSync, explainInState), the state
// written to a snapshot file the step reads with -f in place of the file it names, and `--dry-run` added, as
// an operator tries it first. A `pvctl sync` step moves the state on: the steps after it read the state after
// its plan, as they would on the cluster once it ran; so does a `kubectl patch pv NAME -p '{…}'` (a merge
// patch of the volume). Other kubectl steps are not run (no cluster here): they are returned as such, for the
// caller to check their form.
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {Readable} from 'node:stream'

import {explainInState} from '../../src/app/explain.js'
import {runReclaim} from '../../src/app/reclaim.js'
import {runRelink} from '../../src/app/relink.js'
import {saidAsUsage} from '../../src/app/request-errors.js'
import {parseObjectArgs} from '../../src/cli/object-args.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {ClusterState} from '../../src/engine/api/model.js'
import {withPlanApplied} from '../../src/engine/simulation/plan-applied.js'
import {planSync} from '../../src/engine/simulation/plan-sync.js'
import {ExitCode, UsageError} from '../../src/errors.js'
import {tempDir} from '../temp-dir.js'

export interface StepRun {
  step: string
  /** The exit status the command gives (0, 1: accepted; 2: refused or a usage error); null: not run (kubectl). */
  exitCode: number | null
  /** Why it was refused, when it was. */
  message?: string
}

const gates = defaultFeatureGates
const quiet = {notice: () => {}, spinner: async () => ({text: () => {}, stop: () => {}})}
const repairUi = {...quiet, showPlan: () => {}, syncUi: {...quiet, report: () => {}} as never}
const load = {stdin: Readable.from([]), qps: 50, burst: 100}
const repair = {dryRun: true, yes: false, sync: false, gates, concurrency: 1, events: false}

/** The steps of a printed fix, in order. */
export function stepsOf(fix: string): string[] {
  return fix.split(' && ').map((s) => s.trim())
}

/** Each step of `fix` run on `state` (a sync moving it on), until one is refused. */
export async function runPrintedFix(fix: string, state: ClusterState): Promise<StepRun[]> {
  const runs: StepRun[] = []
  let current = state
  for (const step of stepsOf(fix)) {
    const patch = /^kubectl patch pv (\S+) -p '([^']*)'$/.exec(step)
    if (patch !== null) {
      // A merge patch of the volume, as kubectl applies it (pvctl prints one to set a reclaim policy).
      current = {
        ...current,
        volumes: current.volumes.map((v) =>
          v.metadata.name === patch[1] ? mergePatch(v, JSON.parse(patch[2]) as object) : v,
        ),
      }
      runs.push({step, exitCode: ExitCode.Ok})
      continue
    } else if (!step.startsWith('pvctl ')) {
      runs.push({step, exitCode: null})
      continue
    }
    const {run, next} = await runStep(step, current)
    runs.push(run)
    if (run.exitCode !== ExitCode.Ok && run.exitCode !== ExitCode.Changes) break
    current = next
  }
  return runs
}

async function runStep(step: string, state: ClusterState): Promise<{run: StepRun; next: ClusterState}> {
  const {verb, objects, flags} = parsePvctl(step)
  const file = path.join(tempDir('printed-fix-'), 'state.json')
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: [...state.classes, ...state.volumes, ...state.claims, ...state.pods, ...state.nodes],
    }),
  )
  const namespace = flags.get('-n') ?? 'default'
  try {
    switch (verb) {
      case 'reclaim': {
        const [target] = parseObjectArgs(objects, namespace)
        const forClaim = flags.get('--for')
        const [ns, name] = forClaim === undefined ? [] : forClaim.split('/')
        const r = await runReclaim(
          {
            ...repair,
            ...load,
            filename: [file],
            volumeName: target.name,
            target: forClaim === undefined ? undefined : {namespace: ns, name},
            force: false,
          },
          repairUi,
        )
        return {run: {step, exitCode: r.exitCode, message: r.refusal?.message}, next: state}
      }
      case 'relink': {
        const [target] = parseObjectArgs(objects, namespace)
        const relinkTarget =
          target.kind === 'PersistentVolume'
            ? {kind: target.kind, name: target.name}
            : {kind: target.kind, namespace: target.namespace ?? namespace, name: target.name}
        const r = await runRelink({...repair, ...load, filename: [file], target: relinkTarget, all: false}, repairUi)
        return {run: {step, exitCode: r.exitCode, message: r.refusal?.message}, next: state}
      }
      case 'sync': {
        const report = planSync(state, {gates, dryRun: true, targets: parseObjectArgs(objects, namespace)})
        return {
          run: {step, exitCode: report.actions.length > 0 ? ExitCode.Changes : ExitCode.Ok},
          next: withPlanApplied(state, report.objects),
        }
      }
      case 'explain': {
        const [target] = parseObjectArgs(objects, namespace)
        const r = explainInState(state, {gates, onlyRelevant: false, target, namespace})
        return {run: {step, exitCode: r.exitCode}, next: state}
      }
      default:
        return {run: {step, exitCode: ExitCode.Usage, message: `the test does not run pvctl ${verb}`}, next: state}
    }
  } catch (thrown) {
    // The engine's refusal, as the command says it.
    const err = saidAsUsage(thrown)
    if (err instanceof UsageError) return {run: {step, exitCode: ExitCode.Usage, message: err.message}, next: state}
    throw err
  }
}

/** RFC 7386: `patch` merged into `target` (null removes a field). */
function mergePatch<T>(target: T, patch: object): T {
  const out: Record<string, unknown> = {...(target as Record<string, unknown>)}
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key]
    else if (typeof value === 'object' && !Array.isArray(value))
      out[key] = mergePatch((out[key] ?? {}) as object, value as object)
    else out[key] = value
  }
  return out as T
}

/** The flags pvctl's printed fixes use, each with a value; anything else is an error of the fix. */
const VALUED = new Set(['-n', '-f', '--for', '--context'])
/** Flags without a value a printed command may carry: --dry-run (the runner adds it anyway). */
const BOOLEAN = new Set(['--dry-run'])

function parsePvctl(step: string): {verb: string; objects: string[]; flags: Map<string, string>} {
  const [, verb, ...rest] = step.split(/\s+/)
  const objects: string[] = []
  const flags = new Map<string, string>()
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]
    if (VALUED.has(arg)) flags.set(arg, rest[++i])
    else if (BOOLEAN.has(arg)) flags.set(arg, '')
    else if (arg.startsWith('-')) throw new Error(`a printed fix uses a flag the test does not know: ${arg} (${step})`)
    else objects.push(arg)
  }
  return {verb, objects, flags}
}
