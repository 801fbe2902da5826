// `pvctl audit` through the built CLI: exit status (0, 1, 2), --fail-on, --ignore, -o json, the capacity bars
// on a terminal (script(1) gives the CLI one) and with -o wide. docs/codes.md is held to the finding codes by
// test/contract/finding-codes.test.ts.
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {parse as parseYaml} from 'yaml'

import {skipWithout} from '../tools.js'
import {bin, cleanEnv, example, IN_SYNC_SNAPSHOT, keptVolumeSnapshot, repoRoot, runCli, tempDir} from './run-cli.js'

const rows: Array<{name: string; args: string[]; stdin?: string; code: number; stdout?: RegExp; stderr?: RegExp}> = [
  {
    name: 'the bundled example: findings and planned changes',
    args: ['audit', '-f', example],
    code: 1,
    stdout:
      /^Audit: 3\/7 claims and 6\/7 volumes healthy; 3 errors, 1 warning, 1 info; the controller would make 11 writes first/,
  },
  {
    name: 'a state in sync and healthy exits 0',
    args: ['audit', '-f', '-'],
    stdin: IN_SYNC_SNAPSHOT,
    code: 0,
    stdout: /0 errors, 0 warnings, 0 info; no changes planned\./,
  },
  {
    name: 'an unknown --ignore code is a usage error, with the code meant',
    args: ['audit', '-f', example, '--ignore', 'ClaimLots'],
    code: 2,
    stderr: /^error: --ignore: unknown finding code ClaimLots \(did you mean "ClaimLost"\?\)$/m,
  },
  {
    name: '-o junit: the JUnit XML, the same exit status',
    args: ['audit', '-f', example, '-o', 'junit'],
    code: 1,
    stdout:
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="pvctl audit" tests="15" failures="5" errors="0">\n/,
  },
  {
    name: '-o junit --fail-on none: nothing fails, the plan and the findings are told',
    args: ['audit', '-f', example, '-o', 'junit', '--fail-on', 'none'],
    code: 0,
    stdout: /<testsuites name="pvctl audit" tests="15" failures="0" errors="0">/,
  },
  {
    name: '-o markdown: a section, the summary, a table per severity',
    args: ['audit', '-f', example, '-o', 'markdown'],
    code: 1,
    stdout:
      /^## pvctl audit\n\nDecided as Kubernetes v1\.31 \(the default: which release the cluster runs is not known\)\.\n\nAudit: 3\/7 claims .*\n\n### Errors \(3\)\n\n\| Code \| Object \| Message \| Fix \|\n/,
  },
  {
    name: 'a volume without the annotation: its warning fails the audit',
    args: ['audit', '-f', '-'],
    stdin: keptVolumeSnapshot(),
    code: 1,
    stdout: /0 errors, 1 warning, 0 info; no changes planned\./,
  },
  {
    name: 'pvctl.io/audit-ignore silences it there: counted, exit 0',
    args: ['audit', '-f', '-'],
    stdin: keptVolumeSnapshot('VolumeReleasedRetained'),
    code: 0,
    stdout: /0 errors, 0 warnings, 0 info \(1 ignored\); no changes planned\./,
  },
  {
    name: 'an unknown code in the annotation silences nothing, and stderr says so',
    args: ['audit', '-f', '-'],
    stdin: keptVolumeSnapshot('VolumeReleasedRetaind'),
    code: 1,
    stdout: /1 warning/,
    stderr:
      /^pvctl: pv\/pv-kept: pvctl\.io\/audit-ignore names VolumeReleasedRetaind, not a finding code: it silences nothing/m,
  },
  {
    name: '-o wide: capacity per class and per namespace after the summary',
    args: ['audit', '-f', example, '-o', 'wide'],
    code: 1,
    stdout:
      /^Audit: .*\n\nCapacity by class: .*\nCLASS +REQUESTED .*\n[^]*\nstandard +33Gi +31Gi +5Gi +8Gi +0B +█+▒+▓+\n\nCapacity by namespace: .*\nNAMESPACE +REQUESTED/,
  },
  {
    name: '-o html: the page on stdout',
    args: ['audit', '-f', example, '-o', 'html'],
    code: 1,
    stdout: /^<!DOCTYPE html>\n[^]*<article class="finding" id="pvc\.shop\.reports-b"[^]*<\/html>\n$/,
  },
  {
    name: '--ignore is counted in the summary',
    args: ['audit', '-f', example, '--ignore', 'ClaimLost,ClaimMisbound'],
    code: 1,
    stdout: /1 error, 1 warning, 1 info \(2 ignored\)/,
  },
]

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

// A scope that matches nothing: the same notice and --fail-on-empty as sync's, and the namespace meant.
const scopes: Array<{args: string[]; notice: string}> = [
  {
    args: ['-n', 'nope'],
    notice: 'no PersistentVolumeClaims, and no PersistentVolumes bound to one, in namespace "nope"',
  },
  {args: ['-l', 'app=nothing'], notice: 'no PersistentVolumes or PersistentVolumeClaims matching -l app=nothing'},
  {
    args: ['-n', 'Shop'],
    notice:
      'no PersistentVolumeClaims, and no PersistentVolumes bound to one, in namespace "Shop" (did you mean "shop"?)',
  },
]
for (const command of [['audit'], ['sync', '--dry-run']]) {
  for (const scope of scopes) {
    rows.push(
      {
        name: `${command[0]} ${scope.args.join(' ')}: a scope that matches nothing is said`,
        args: [...command, '-f', example, ...scope.args],
        code: 0,
        stderr: new RegExp(`^pvctl: ${escaped(scope.notice)}$`, 'm'),
      },
      {
        name: `${command[0]} ${scope.args.join(' ')} --fail-on-empty: an error`,
        args: [...command, '-f', example, ...scope.args, '--fail-on-empty'],
        code: 2,
        stderr: new RegExp(`^error: ${escaped(scope.notice)}$`, 'm'),
      },
    )
  }
}

for (const row of rows) {
  test(`audit: ${row.name}`, async () => {
    const r = await runCli(row.args, {stdin: row.stdin})
    assert.equal(r.code, row.code, r.stderr)
    if (row.stdout) assert.match(r.stdout, row.stdout)
    if (row.stderr) assert.match(r.stderr, row.stderr)
  })
}

test('audit in a pipe: the table without capacity bars, as kubectl keeps extras off a pipe', async () => {
  const r = await runCli(['audit', '-f', example])
  assert.doesNotMatch(r.stdout, /Capacity by/)
})

test(
  'audit on a terminal: capacity per class after the summary, not per namespace; NO_COLOR keeps the glyphs, drops the colour',
  {skip: skipWithout('script', 'the audit on a pseudo-terminal')},
  async () => {
    const onTty = (env: Record<string, string>) =>
      spawnSync('script', ['-qec', `node ${bin} audit -f ${example}`, '/dev/null'], {
        env: cleanEnv({COLUMNS: '200', ...env}),
        encoding: 'utf8',
      }).stdout.replace(/\r\n/g, '\n')
    const coloured = onTty({})
    assert.match(coloured, /^Audit: .*\n\n\u001b\[1mCapacity by class:\u001b\[22m /)
    assert.match(coloured, /\u001b\[32m█+\u001b\[39m/)
    assert.doesNotMatch(coloured, /Capacity by namespace/)
    const plain = onTty({NO_COLOR: '1'})
    assert.match(plain, /^Audit: .*\n\nCapacity by class: █ bound/)
    assert.doesNotMatch(plain, /\u001b\[/)
  },
)

test('audit -o html of the example: the golden page of test/render/audit-html.test.ts but for the time it was made', async () => {
  const r = await runCli(['audit', '-f', 'examples/cluster.yaml', '-o', 'html'])
  const time = /<time datetime="([^"]+)">/.exec(r.stdout)?.[1]
  assert.ok(time !== undefined && !Number.isNaN(Date.parse(time)), 'an RFC 3339 time')
  const goldenPage = readFileSync(path.join(repoRoot, 'test/render/golden/audit-html-example.txt'), 'utf8')
  assert.equal(r.stdout, goldenPage.replaceAll('2026-03-01T12:00:00.000Z', time))
})

test('audit -o json: an AuditReport with nothing else on stdout', async () => {
  const r = await runCli(['audit', '-f', example, '-o', 'json'])
  const doc = JSON.parse(r.stdout)
  assert.deepEqual(Object.keys(doc), [
    'apiVersion',
    'kind',
    'kubernetesVersion',
    'summary',
    'plannedChanges',
    'findings',
  ])
  assert.deepEqual(doc.kubernetesVersion, {version: 'v1.31', source: 'default'})
  assert.equal(doc.kind, 'AuditReport')
  assert.equal(doc.plannedChanges.writes, 11)
  for (const f of doc.findings)
    assert.deepEqual(Object.keys(f), ['code', 'severity', 'object', 'message', 'evidence', 'fix'])
  assert.deepEqual(doc.summary.ignoredByAnnotation, {})
})

test("each pvctl fix audit prints for the bundled example runs through the CLI as printed, --dry-run: accepted (exit 0 or 1), a sync step's plan read by the steps after it", async () => {
  const doc = JSON.parse((await runCli(['audit', '-f', example, '-o', 'json'])).stdout) as {
    findings: Array<{fix: string}>
  }
  const fixes = doc.findings.map((f) => f.fix).filter((f) => f.startsWith('pvctl '))
  assert.ok(
    fixes.some((f) => f.includes(' && ')),
    'a fix in steps (pv-0004: sync, then reclaim)',
  )
  const dir = tempDir('audit-fixes')
  for (const fix of fixes) {
    let file = example
    for (const step of fix.split(' && ')) {
      const args = step
        .split(' ')
        .slice(1)
        .map((a) => (a === example ? file : a))
      // explain writes nothing and has no --dry-run.
      const r = await runCli([
        ...args,
        ...(args[0] === 'explain' ? [] : ['--dry-run']),
        ...(args[0] === 'sync' ? ['-o', 'json'] : []),
      ])
      assert.ok(r.code === 0 || r.code === 1, `${step}: exit ${r.code}: ${r.stderr}`)
      if (args[0] === 'sync') {
        // The step after a sync reads the state its plan leaves: the snapshot with the plan's objects in place.
        const planned = (
          JSON.parse(r.stdout) as {objects: Array<{kind: string; metadata: {name: string; namespace?: string}}>}
        ).objects
        const key = (o: {kind: string; metadata: {name: string; namespace?: string}}) =>
          `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`
        const before = (
          parseYaml(readFileSync(file, 'utf8')) as {
            items: Array<{kind: string; metadata: {name: string; namespace?: string}}>
          }
        ).items
        const replaced = new Map(planned.map((o) => [key(o), o]))
        file = path.join(dir, `after-${fixes.indexOf(fix)}.json`)
        writeFileSync(
          file,
          JSON.stringify({apiVersion: 'v1', kind: 'List', items: before.map((o) => replaced.get(key(o)) ?? o)}),
        )
      }
    }
  }
})

test('audit -o json: what the annotation silenced, counted apart from --ignore', async () => {
  const r = await runCli(['audit', '-f', '-', '-o', 'json'], {stdin: keptVolumeSnapshot('VolumeReleasedRetained')})
  const doc = JSON.parse(r.stdout)
  assert.deepEqual(
    [doc.summary.ignored, doc.summary.ignoredByAnnotation, doc.findings],
    [{VolumeReleasedRetained: 1}, {VolumeReleasedRetained: 1}, []],
  )
})

test('a fix that is a pvctl command reads what the audit read: the -f it ran with', async () => {
  const r = await runCli(['audit', '-f', 'examples/cluster.yaml', '-o', 'json'])
  const logs = JSON.parse(r.stdout).findings.find((f: {object: {name: string}}) => f.object.name === 'logs')
  assert.equal(logs.fix, 'pvctl explain pvc/logs -n shop -f examples/cluster.yaml')
})
