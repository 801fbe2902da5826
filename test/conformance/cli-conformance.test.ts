// Every case of test/conformance/cases that needs no volume plugin, through the built CLI:
//   pvctl sync -f CASE.json --dry-run -o json [pvc/NAME -n NS | pv/NAME] [--rounds 1] --kube-version V [--feature-gates ...]
// compared with the Go test's expectations by the rules of that README (judge.ts), once as v1.31 and once
// as the newest release pvctl knows (versions.ts says how a case's gates are set at each).
// Cases that contradict the seed are listed in KNOWN_EXCEPTIONS, each checked for exactly the
// documented difference (docs/fidelity.md, "Conformance exceptions").
import assert from 'node:assert/strict'
import {execFile} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {promisify} from 'node:util'

import {type ConformanceCase, loadCases, repoRoot} from './cases.js'
import {extraEventsAt} from './exceptions.js'
import {apiServerTime} from '../../src/engine/simulation/plan-sync.js'
import {parseKubeVersion} from '../../src/engine/api/kube-version.js'
import {diffEvents, diffObjects, phaseTransitionsStamped} from './judge.js'
import {CONFORMANCE_VERSIONS, type GateRun, gateRunAt} from './versions.js'
import {tempDir} from '../temp-dir.js'

const exec = promisify(execFile)
const bin = path.join(repoRoot, 'bin', 'run.js')
const work = tempDir('conformance')

function cliArgs(c: ConformanceCase, file: string, run: GateRun): string[] {
  const args = [bin, 'sync', '-f', file, '--dry-run', '-o', 'json', '--kube-version', run.kubeVersion]
  if (c.test === 'syncClaim' || c.test === 'syncVolume') {
    const [kind, ...rest] = c.target.split('/')
    if (kind === 'PersistentVolumeClaim') args.push(`pvc/${rest[1]}`, '-n', rest[0])
    else args.push(`pv/${rest[0]}`)
    args.push('--rounds', '1')
  }
  if (run.featureGates !== '') args.push('--feature-gates', run.featureGates)
  return args
}

async function runCase(c: ConformanceCase, run: GateRun): Promise<void> {
  const file = path.join(work, `${c.group}-${c.name.replace(/[^A-Za-z0-9-]+/g, '_')}-${run.kubeVersion}.json`)
  writeFileSync(file, JSON.stringify(c.initial))
  const args = cliArgs(c, file, run)
  const from = apiServerTime(new Date())
  let stdout: string
  try {
    ;({stdout} = await exec(process.execPath, args, {maxBuffer: 64 << 20}))
  } catch (err) {
    const e = err as {code?: number; stdout?: string; stderr?: string}
    // Exit 1 means "changes planned": the report is on stdout all the same.
    if (e.code !== 1 || e.stdout === undefined)
      throw new Error(`pvctl ${args.slice(1).join(' ')} failed (${e.code}): ${e.stderr}`)
    stdout = e.stdout
  }
  const to = apiServerTime(new Date(Date.now() + 1000))
  const report = JSON.parse(stdout)
  assert.equal(report.kind, 'SyncReport')
  assert.deepEqual(report.kubernetesVersion, {version: `v${run.kubeVersion}`, source: 'flag'})
  const expectedEvents = [...c.expectedEvents, ...extraEventsAt(c.name, parseKubeVersion(run.kubeVersion)!)]
  const problems = [
    ...diffObjects(report.objects, c.expected),
    ...diffEvents(report.events, expectedEvents),
    ...phaseTransitionsStamped(c.initial.items as never, report.objects, from, to),
  ]
  if (c.expectError) {
    if (report.errors.length === 0) problems.push('expected the sync to fail, it did not')
  } else if (report.errors.length > 0) {
    problems.push(`unexpected sync errors: ${JSON.stringify(report.errors)}`)
  }
  assert.deepEqual(problems, [], `${c.name}: pvctl ${args.slice(1).join(' ')}\n${problems.join('\n')}`)
}

for (const {file, cases} of loadCases('cases')) {
  test(`conformance ${file}`, {concurrency: 2}, async (t) => {
    const running: Array<Promise<void>> = []
    for (const c of cases as ConformanceCase[]) {
      if (c.dependsOnPluginMock) {
        running.push(
          t.test(
            c.name,
            {skip: 'needs the mock volume plugin: runs through the engine plugin seam in plugin-conformance.test.ts'},
            () => {},
          ),
        )
        continue
      }
      const variants =
        c.featureGateVariants !== undefined && c.featureGateVariants.length > 0
          ? c.featureGateVariants
          : [c.featureGates ?? {}]
      for (const variant of variants) {
        const gates = {...(c.featureGates ?? {}), ...variant}
        for (const version of CONFORMANCE_VERSIONS) {
          const run = gateRunAt(gates, version)
          const label = `${c.name} [${run.label}]`
          running.push('skip' in run ? t.test(label, {skip: run.skip}, () => {}) : t.test(label, () => runCase(c, run)))
        }
      }
    }
    await Promise.all(running)
  })
}
