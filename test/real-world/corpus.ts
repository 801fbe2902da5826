// The corpus of real states (README.md beside this file): each case a folder of cases/ with the snapshot a
// user pasted in a public thread (snapshot.yaml) and what the thread found (case.yaml). Loaded and run here
// as pvctl runs them: the snapshot read as `-f` reads it, the plan of `sync --dry-run`, the verdict of
// `explain`, the findings of `audit`.
import {readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {parse} from 'yaml'

import {auditState} from '../../src/engine/audit/audit-state.js'
import {auditEvidence} from '../../src/app/audit-evidence.js'
import {explainState} from '../../src/engine/repair/explain-state.js'
import {auditFails} from '../../src/engine/audit/report.js'
import {loadClusterState, podsRead} from '../../src/app/load-cluster-state.js'
import {planSync} from '../../src/engine/simulation/plan-sync.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {ClaimExplanation, VolumeExplanation} from '../../src/engine/explain/model.js'
import type {ObjectRef} from '../../src/engine/simulation/plan.js'

export const corpusDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'cases')

/** case.yaml: the thread, what it found, and what pvctl must say of it. */
export interface RealWorldCase {
  /** The folder's name. */
  id: string
  /** The thread's address. */
  source: string
  title: string
  /** What the user saw. */
  reported: string
  /** The cause the thread found. */
  cause: string
  /** What the right advice is. */
  advice: string
  /** What the snapshot holds that the thread did not paste, each with why. */
  inferred?: string[]
  /** The clock the evidence (events' ages) is read at (ISO time); default: the snapshot's newest timestamp. */
  now?: string
  /** The object the thread is about: pvc/NAMESPACE/NAME, pv/NAME or storageclass/NAME (audit only). */
  subject: string
  expect: {
    /** The plan of `pvctl sync --dry-run`, "ACTION pvc/NS/NAME" or "ACTION pv/NAME", in order: what the thread says the controller did. */
    plan: string[]
    /** explain's verdict on the subject (a claim), or its state (a volume): a pattern matching all of it; none for a class. */
    verdict?: string
    /**
     * Every finding of `pvctl audit`, "SEVERITY CODE pvc/NS/NAME" (or pv/NAME, storageclass/NAME), in report
     * order: each a pattern matching all of the finding's line (a pending case may not know a code's name).
     */
    findings: string[]
    /** audit's exit status (--fail-on warning). */
    exitCode: number
    /** A pattern explain's first suggestion on the subject matches. */
    first?: string
    /** A pattern the fix of the subject's first audit finding matches. */
    fix?: string
  }
  /**
   * Why today's advice is not yet the right one (what is needed, and where): the advice expectations are
   * skipped with this reason, the plan is checked all the same.
   */
  pending?: string
  /** Run through the built CLI as well. */
  cli?: boolean
}

export function loadCorpus(): RealWorldCase[] {
  return readdirSync(corpusDir, {withFileTypes: true})
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .map((id) => ({
      id,
      ...(parse(readFileSync(path.join(corpusDir, id, 'case.yaml'), 'utf8')) as Omit<RealWorldCase, 'id'>),
    }))
}

export const snapshotOf = (c: RealWorldCase) => path.join(corpusDir, c.id, 'snapshot.yaml')

/** "pvc/NS/NAME" or "pv/NAME" as the ObjectRef of explain and sync. */
export function refOf(subject: string): ObjectRef | undefined {
  const [kind, a, b] = subject.split('/')
  if (kind === 'storageclass') return undefined
  if (kind === 'pv') return {kind: 'PersistentVolume', name: a}
  if (kind === 'pvc' && b !== undefined) return {kind: 'PersistentVolumeClaim', namespace: a, name: b}
  throw new Error(`subject ${subject}: expected pvc/NAMESPACE/NAME or pv/NAME`)
}

const short = (o: {kind: string; namespace?: string; name: string}) =>
  o.kind === 'PersistentVolumeClaim'
    ? `pvc/${o.namespace ?? ''}/${o.name}`
    : o.kind === 'PersistentVolume'
      ? `pv/${o.name}`
      : `${o.kind.toLowerCase()}/${o.name}`

/** What pvctl says of a case, read as `-f snapshot.yaml` reads it, in the words case.yaml expects. */
export interface Said {
  plan: string[]
  verdict: string | undefined
  findings: string[]
  exitCode: number
  first: string | undefined
  fix: string | undefined
  /** The subject's explanation (none for a class), for a message that shows what was said. */
  explanation: ClaimExplanation | VolumeExplanation | undefined
}

export async function pvctlOn(c: RealWorldCase): Promise<Said> {
  const file = snapshotOf(c)
  const sourceArgs = ['-f', path.relative(process.cwd(), file)]
  const loaded = await loadClusterState(
    {filename: [file], stdin: process.stdin, qps: 5, burst: 10},
    {notice: () => undefined, spinner: async () => ({text: () => undefined, stop: () => undefined})},
  )
  if (loaded.source !== 'snapshot') throw new Error('a snapshot was loaded live')
  const state = loaded.state
  const now = Date.parse(c.now ?? newestTimestamp(readFileSync(file, 'utf8')))
  const evidence = await auditEvidence(loaded, () => now)
  const gates = defaultFeatureGates
  const plan = planSync(state, {gates, dryRun: true}).actions.map((a) => `${a.action} ${short(a.object)}`)
  const report = auditState(state, {gates, failOn: 'warning', ignore: new Set(), evidence, sourceArgs})
  const target = refOf(c.subject)
  const explanation =
    target === undefined
      ? undefined
      : (explainState(state, {gates, onlyRelevant: false, target, evidence, pods: podsRead(loaded), sourceArgs})
          .document as ClaimExplanation | VolumeExplanation)
  const verdict =
    explanation === undefined
      ? undefined
      : explanation.kind === 'ClaimExplanation'
        ? explanation.verdict
        : explanation.state
  const subjectFindings = report.findings.filter((f) => short(f.object) === c.subject)
  return {
    plan,
    verdict,
    findings: report.findings.map((f) => `${f.severity} ${f.code} ${short(f.object)}`),
    exitCode: auditFails(report, 'warning') ? 1 : 0,
    first: explanation?.suggestions[0],
    fix: subjectFindings[0]?.fix,
    explanation,
  }
}

/** The newest RFC 3339 time the snapshot mentions (an event's lastTimestamp, a creationTimestamp). */
function newestTimestamp(text: string): string {
  const times = [...text.matchAll(/"?(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"?/g)].map((m) => m[1]).sort()
  return times.at(-1) ?? '2026-01-01T00:00:00Z'
}
