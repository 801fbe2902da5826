// Every fix works as printed, and every promise is the engine's. On the bundled examples, every conformance
// case, generated clusters and the states of the advice and finding tables: each pvctl command audit prints
// as a fix, explain names in a suggestion (a claim's, with the repairs offered, and a volume's), and reclaim
// and relink name in a refusal, is run as printed (printed-fixes.ts: the use-case of its command, on a
// snapshot of the state, --dry-run) and must be accepted (exit 0 or 1), the steps of a fix in their order; a
// refusal's "pvctl sync ... binds them" is checked by running the engine on the state.
import assert from 'node:assert/strict'
import path from 'node:path'
import {describe, test} from 'node:test'

import {withSimulatedClaimUids} from '../../src/cluster/simulated-uids.js'
import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import {claimKey, type ClusterState} from '../../src/engine/api/model.js'
import {auditState} from '../../src/engine/audit/audit-state.js'
import {objectName} from '../../src/engine/audit/findings.js'
import type {ClaimExplanation, VolumeExplanation} from '../../src/engine/explain/model.js'
import {decideReclaim} from '../../src/engine/repair/reclaim.js'
import {decideRelink, type RelinkTarget} from '../../src/engine/repair/relink.js'
import {explainState} from '../../src/engine/repair/explain-state.js'
import {withPlanApplied} from '../../src/engine/simulation/plan-applied.js'
import {planSync} from '../../src/engine/simulation/plan-sync.js'
import {ExitCode} from '../../src/errors.js'
import {loadCases, repoRoot, stateOf} from '../conformance/cases.js'
import {rows as findingRows} from '../engine/audit/rows.js'
import {adviceRows} from '../engine/advice-rows.js'
import {byController, pv, pvc, state} from '../engine/builders.js'
import {generatedState} from '../engine/explain-oracle.js'
import {runPrintedFix} from './printed-fixes.js'

const gates = defaultFeatureGates

/** The flags of pvctl's commands that take a value. */
const VALUED = new Set(['-n', '-f', '--for', '--context'])

/** A step pvctl prints before its own (a reclaim policy set), which the runner carries out on the state. */
const KUBECTL_STEP = /^kubectl patch pv \S+ -p '[^']*'/

/**
 * The commands pvctl writes into a sentence: `pvctl VERB`, then its objects (TYPE/NAME) and flags, up to the
 * first word that is neither; steps joined by ` && ` (a `kubectl patch pv` first among them) are one fix,
 * run in their order. A command after a step pvctl cannot take ("recreate it …, then run pvctl …") waits for
 * that step, and a form with placeholders (NS/CLAIM) is to be filled: neither is run as it stands.
 */
function commandsIn(text: string): string[] {
  const found: string[] = []
  for (const m of text.matchAll(/(?:kubectl patch pv \S+ -p '[^']*' && )?pvctl (reclaim|relink|sync|explain) /g)) {
    const before = text.slice(0, m.index)
    if (/&& $/.test(before)) continue
    if (/then (run )?$/.test(before) && !/pvctl [^,;]*, then (run )?$/.test(before)) continue
    const steps: string[] = []
    let rest = text.slice(m.index)
    for (;;) {
      const kubectl = KUBECTL_STEP.exec(rest)
      const step = kubectl === null ? pvctlStep(rest) : {command: kubectl[0], length: kubectl[0].length}
      steps.push(step.command)
      rest = rest.slice(step.length)
      if (!/^ && (pvctl|kubectl patch pv) /.test(rest)) break
      rest = rest.slice(' && '.length)
    }
    const fix = steps.join(' && ')
    if (!/\b[A-Z]{2,}\/[A-Z]{2,}\b|\/NAME\b/.test(fix)) found.push(fix)
  }
  return found
}

/** The pvctl command at the start of `text`, and how much of the text it takes. */
function pvctlStep(text: string): {command: string; length: number} {
  const words = text.split(' ')
  const taken = words.slice(0, 2)
  let length = taken.join(' ').length
  for (let i = 2; i < words.length; i++) {
    const word = words[i].replace(/[,;)]+$/, '')
    const ends = word !== words[i]
    if (VALUED.has(word) && i + 1 < words.length) {
      const value = words[++i].replace(/[,;)]+$/, '')
      taken.push(word, value)
      length += 1 + word.length + 1 + value.length
      if (words[i] !== value) break
    } else if (word.startsWith('-') || word.includes('/')) {
      taken.push(word)
      length += 1 + word.length
    } else {
      break
    }
    if (ends) break
  }
  return {command: taken.join(' '), length}
}

/** What was printed, by whom, on which state. */
interface Printed {
  where: string
  fix: string
}

function printedBy(s: ClusterState): Printed[] {
  const printed: Printed[] = []
  for (const f of auditState(s, {gates, failOn: 'warning', ignore: new Set()}).findings) {
    if (f.fix.startsWith('pvctl ')) printed.push({where: `audit ${f.code} ${f.object.name}`, fix: f.fix})
  }
  for (const c of s.claims) {
    const target = {
      kind: 'PersistentVolumeClaim' as const,
      namespace: c.metadata.namespace ?? '',
      name: c.metadata.name ?? '',
    }
    const e = explainState(s, {gates, onlyRelevant: false, target}).document as ClaimExplanation
    for (const suggestion of e.suggestions)
      for (const fix of commandsIn(suggestion)) printed.push({where: `explain pvc/${claimKey(c)}`, fix})
  }
  for (const v of s.volumes) {
    const e = explainState(s, {
      gates,
      onlyRelevant: false,
      target: {kind: 'PersistentVolume', name: v.metadata.name ?? ''},
    }).document as VolumeExplanation
    for (const suggestion of e.suggestions)
      for (const fix of commandsIn(suggestion)) printed.push({where: `explain pv/${v.metadata.name}`, fix})
  }
  return [...printed, ...refusals(s)]
}

/** The commands reclaim's and relink's refusals name, on every volume and pair of the state. */
function refusals(s: ClusterState): Printed[] {
  const printed: Printed[] = []
  const said = (where: string, messages: string[]) => {
    for (const m of messages) for (const fix of commandsIn(m)) printed.push({where, fix})
  }
  for (const v of s.volumes) {
    const name = v.metadata.name ?? ''
    const d = decideReclaim({
      state: s,
      volumeName: name,
      force: new Set(),
      attachments: {observed: false, reason: 'not read'},
      pods: {observed: true},
      gates,
    })
    if (d !== undefined && !d.allowed)
      said(
        `reclaim pv/${name}`,
        d.checks.filter((c) => !c.ok).map((c) => c.message),
      )
  }
  const targets: RelinkTarget[] = [
    ...s.volumes.map((v) => ({kind: 'PersistentVolume' as const, name: v.metadata.name ?? ''})),
    ...s.claims.map((c) => ({
      kind: 'PersistentVolumeClaim' as const,
      namespace: c.metadata.namespace ?? '',
      name: c.metadata.name ?? '',
    })),
  ]
  for (const target of targets) {
    const d = decideRelink({state: s, target, gates})
    if (d !== undefined && !d.allowed)
      said(
        `relink ${target.kind === 'PersistentVolume' ? 'pv' : 'pvc'}/${target.name}`,
        d.checks.filter((c) => !c.ok).map((c) => c.message),
      )
  }
  return printed
}

/** The fixes that are not accepted as printed, and how many were run. */
async function notAccepted(s: ClusterState): Promise<{problems: string[]; run: number}> {
  const problems: string[] = []
  let run = 0
  const seen = new Set<string>()
  for (const p of printedBy(s)) {
    if (seen.has(p.fix)) continue
    seen.add(p.fix)
    run++
    for (const r of await runPrintedFix(p.fix, s)) {
      if (r.exitCode !== null && r.exitCode !== ExitCode.Ok && r.exitCode !== ExitCode.Changes)
        problems.push(`${p.where}: ${r.step}: exit ${r.exitCode}: ${r.message ?? ''}`)
    }
  }
  return {problems, run}
}

/** A refusal that says the next sync binds a pair (relink's "the next sync binds them: pvctl sync …"): the engine's plan must. */
function brokenPromises(s: ClusterState): string[] {
  const problems: string[] = []
  for (const c of s.claims) {
    const target = {
      kind: 'PersistentVolumeClaim' as const,
      namespace: c.metadata.namespace ?? '',
      name: c.metadata.name ?? '',
    }
    const d = decideRelink({state: s, target, gates})
    const promise = d?.checks.find((k) => !k.ok && /the next sync binds them: pvctl sync/.test(k.message))
    if (d === undefined || promise === undefined || d.volume === null || c.status?.phase === 'Bound') continue
    const after = withPlanApplied(s, planSync(s, {gates, dryRun: true}).objects)
    const claim = after.claims.find((x) => claimKey(x) === claimKey(c))
    const volume = after.volumes.find((v) => v.metadata.name === d.volume!.name)
    const bound =
      claim?.status?.phase === 'Bound' &&
      claim.spec.volumeName === volume?.metadata.name &&
      volume?.spec.claimRef?.uid === claim.metadata.uid
    if (!bound)
      problems.push(
        `relink pvc/${claimKey(c)}: "${promise.message}", but the sync leaves the claim ${claim?.status?.phase ?? 'gone'}`,
      )
  }
  return problems
}

async function example(file: string): Promise<ClusterState> {
  const snapshot = await loadSnapshot([path.join(repoRoot, file)], {stdin: process.stdin})
  return withSimulatedClaimUids(snapshot.state).state
}

describe("every fix pvctl prints works as printed, and every promise is the engine's", () => {
  for (const file of ['examples/cluster.yaml', 'examples/reclaim.yaml', 'examples/relink.yaml']) {
    test(file, async () => {
      const s = await example(file)
      const {problems, run} = await notAccepted(s)
      assert.deepEqual([...problems, ...brokenPromises(s)], [])
      assert.ok(run > 0, 'some fix was run')
    })
  }
  test('the states of the advice and finding tables', async () => {
    const states = [
      ...adviceRows.flatMap((r) => [r.state, r.near]),
      ...findingRows.flatMap((r) => [r.raises, r.near]),
    ].map((s) => withSimulatedClaimUids(s).state)
    const problems: string[] = []
    for (const s of states) problems.push(...(await notAccepted(s)).problems, ...brokenPromises(s))
    assert.deepEqual(problems, [])
  })
  test("each advice row's finding: its fix runs as printed on the row's state", async () => {
    const problems: string[] = []
    for (const row of adviceRows) {
      const o = row.object
      const object = o.kind === 'PersistentVolume' ? `pv/${o.name}` : `pvc/${o.namespace ?? 'default'}/${o.name}`
      const also = row.alsoAudit === undefined ? [] : [row.alsoAudit]
      const wanted = [...(row.audit === undefined ? [] : [{object, code: row.audit.code}]), ...also]
      const findings = auditState(row.state, {gates, failOn: 'warning', ignore: new Set()}).findings
      for (const w of wanted) {
        const f = findings.find((x) => objectName(x.object) === w.object && x.code === w.code)
        if (f === undefined) problems.push(`${row.name}: no ${w.code} on ${w.object}`)
        const runs = f === undefined ? [] : await runPrintedFix(f.fix, row.state)
        const refused = runs.filter(
          (r) => r.exitCode !== null && r.exitCode !== ExitCode.Ok && r.exitCode !== ExitCode.Changes,
        )
        problems.push(...refused.map((r) => `${row.name}: ${r.step}: exit ${r.exitCode}: ${r.message ?? ''}`))
      }
    }
    assert.deepEqual(problems, [])
  })
  test('a relink refused only by the reclaim policy: explain prints Retain set first, then the relink, and the steps run in order are accepted', async () => {
    const csi = {csi: {driver: 'ebs.csi.aws.com', volumeHandle: 'v'}}
    for (const phase of ['Bound', 'Released']) {
      const s = state({
        volumes: [
          pv('pv-1', {
            phase,
            policy: 'Delete',
            className: '',
            claim: {name: 'db', uid: 'u-old'},
            annotations: byController,
            source: csi,
          }),
        ],
        claims: [pvc('db', 'u-new', {className: '', volumeName: 'pv-1'})],
      })
      const fixes = printedBy(s).map((p) => p.fix)
      const chained = `kubectl patch pv pv-1 -p '{"spec":{"persistentVolumeReclaimPolicy":"Retain"}}' && pvctl relink pvc/db -n default`
      assert.ok(fixes.includes(chained), `${phase}: ${fixes.join(' | ')}`)
      // As things are the relink alone is refused; after the patch, the same decision allows it.
      assert.deepEqual(
        (await runPrintedFix(chained, s)).map((r) => r.exitCode),
        [ExitCode.Ok, ExitCode.Changes],
      )
      assert.deepEqual(
        (await runPrintedFix('pvctl relink pvc/db -n default', s)).map((r) => r.exitCode),
        [ExitCode.Usage],
      )
      assert.deepEqual((await notAccepted(s)).problems, [])
    }
  })
  for (const {file, cases} of loadCases('cases')) {
    test(`conformance cases of ${file}`, async () => {
      const problems: string[] = []
      for (const c of cases) {
        const s = withSimulatedClaimUids(stateOf(c)).state
        problems.push(
          ...(await notAccepted(s)).problems.map((p) => `${c.name}: ${p}`),
          ...brokenPromises(s).map((p) => `${c.name}: ${p}`),
        )
      }
      assert.deepEqual(problems, [])
    })
  }
  test('generated clusters', async () => {
    const problems: string[] = []
    for (const seed of [1, 2, 3]) {
      const s = withSimulatedClaimUids(generatedState(60, seed)).state
      problems.push(
        ...(await notAccepted(s)).problems.map((p) => `seed ${seed}: ${p}`),
        ...brokenPromises(s).map((p) => `seed ${seed}: ${p}`),
      )
    }
    assert.deepEqual(problems, [])
  })
})
