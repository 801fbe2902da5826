// `pvctl sync` through the built CLI: exit status, output formats and colour, snapshot sources (file, dir,
// stdin), scoping (-n, named objects), rounds and help. One row per behaviour of docs/output-contract.md and README.md;
// each row runs the CLI once and checks its exit status, then what it printed.
import assert from 'node:assert/strict'
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {
  type CliResult,
  example,
  IN_SYNC_SNAPSHOT,
  keptVolumeSnapshot,
  runCli,
  tempDir,
  withoutVersionNotice,
} from './run-cli.js'

// Reports are read loosely: the schema test (test/contract) pins their shape.
type Json = Record<string, any>

const ANSI = /\u001b\[[0-9;]*m/

const work = tempDir('sync-cli')
const inSync = path.join(work, 'in-sync.yaml')
writeFileSync(inSync, IN_SYNC_SNAPSHOT)

// A directory snapshot: the example plus a second namespace, with a volume bound into it and a claim
// that stays Pending (no class, no match), so -n has something to leave out.
const twoNamespaces = path.join(work, 'two-namespaces')
const OTHER_NAMESPACE = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: PersistentVolume
  metadata:
    name: pv-other
    annotations: {pv.kubernetes.io/bound-by-controller: "yes"}
    uid: u-pv-other
    resourceVersion: "900"
  spec:
    accessModes: [ReadWriteOnce]
    capacity: {storage: 1Gi}
    hostPath: {path: /tmp/pv-other}
    persistentVolumeReclaimPolicy: Retain
    storageClassName: ""
    claimRef: {apiVersion: v1, kind: PersistentVolumeClaim, namespace: other, name: bound, uid: u-bound}
  status: {phase: Bound}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata:
    name: bound
    namespace: other
    annotations: {pv.kubernetes.io/bind-completed: "yes", pv.kubernetes.io/bound-by-controller: "yes"}
    uid: u-bound
    resourceVersion: "901"
  spec:
    accessModes: [ReadWriteOnce]
    resources: {requests: {storage: 1Gi}}
    storageClassName: ""
    volumeName: pv-other
  status: {phase: Bound, accessModes: [ReadWriteOnce], capacity: {storage: 1Gi}}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: pending, namespace: other, uid: u-pending, resourceVersion: "902"}
  spec:
    accessModes: [ReadWriteOnce]
    resources: {requests: {storage: 1Gi}}
    storageClassName: ""
  status: {phase: Pending}
`
mkdirSync(twoNamespaces)
writeFileSync(path.join(twoNamespaces, 'cluster.yaml'), readFileSync(example, 'utf8'))
writeFileSync(path.join(twoNamespaces, 'other.yml'), OTHER_NAMESPACE)
writeFileSync(path.join(twoNamespaces, 'notes.txt'), 'not a snapshot: not .yaml, .yml or .json')

// A volume written by hand, without status, whose claim is gone: the controller releases it.
const releasedNoStatus = path.join(work, 'released-no-status.yaml')
writeFileSync(
  releasedNoStatus,
  `apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-x, uid: u-pv-x}
spec:
  accessModes: [ReadWriteOnce]
  capacity: {storage: 1Gi}
  hostPath: {path: /tmp/pv-x}
  persistentVolumeReclaimPolicy: Retain
  claimRef: {namespace: gone, name: claim, uid: u-claim}
`,
)

// In sync, but not healthy (audit finds a warning); the same with the warning silenced by the annotation.
const inSyncUnhealthy = path.join(work, 'in-sync-unhealthy.yaml')
writeFileSync(inSyncUnhealthy, keptVolumeSnapshot())
const inSyncSilenced = path.join(work, 'in-sync-silenced.yaml')
writeFileSync(inSyncSilenced, keptVolumeSnapshot('VolumeReleasedRetained'))
const IN_SYNC_LINE = 'No changes: the cluster is in sync with the controller.\n'

const report = (res: CliResult): Json => JSON.parse(res.stdout) as Json
const namespaces = (r: Json): string[] =>
  [...new Set<string>(r.objects.map((o: Json) => o.metadata.namespace ?? '<none>'))].sort()
const names = (r: Json): string[] => r.objects.map((o: Json) => o.metadata.name)

interface Row {
  name: string
  args: string[]
  stdin?: string
  env?: Record<string, string | undefined>
  /** Adds --dry-run to the arguments unless false. */
  dryRun?: false
  expectExit: number
  check?: (res: CliResult) => void
  /** A known src/ bug: the row runs, and its failure is reported as TODO until the bug is fixed. */
}

const rows: Row[] = [
  // Exit status (docs/output-contract.md, as kubectl diff): 1 when a dry run finds changes, 0 in sync.
  {
    name: 'the bundled example has changes: exit 1',
    args: ['-f', example],
    expectExit: 1,
    check: (res) => {
      assert.match(res.stdout, /pv\/pv-0002/)
      assert.equal(withoutVersionNotice(res.stderr), '')
      assert.doesNotMatch(res.stdout, ANSI, 'no colour when stdout is not a terminal')
    },
  },
  {
    name: 'a snapshot in sync: exit 0',
    args: ['-f', inSync],
    expectExit: 0,
    check: (res) => assert.equal(withoutVersionNotice(res.stderr), ''),
  },
  {
    name: 'a snapshot in sync, -o json: exit 0 and no actions',
    args: ['-f', inSync, '-o', 'json'],
    expectExit: 0,
    check: (res) => assert.deepEqual(report(res).actions, []),
  },
  {
    name: 'without --dry-run a snapshot is still only simulated, and says so on stderr',
    args: ['-f', example, '-o', 'json'],
    dryRun: false,
    expectExit: 1,
    check: (res) => {
      assert.equal(report(res).dryRun, true)
      assert.match(withoutVersionNotice(res.stderr), /^pvctl: .*snapshot.*nothing was written.*\n$/)
    },
  },

  // -o diff and colour (src/render/color.ts shouldColor: the flag, then NO_COLOR, then FORCE_COLOR, then TTY).
  {
    name: '-o diff: kubectl-diff headers, no ANSI off a terminal',
    args: ['-f', example, '-o', 'diff'],
    expectExit: 1,
    check: (res) => {
      assert.match(res.stdout, /^diff -u -N live\/pv\/pv-0002 planned\/pv\/pv-0002$/m)
      assert.match(res.stdout, /^--- live\/pv\/pv-0002$/m)
      assert.match(res.stdout, /^\+\+\+ planned\/pv\/pv-0002$/m)
      assert.match(res.stdout, /^--- live\/pvc\/shop\/orders$/m)
      assert.match(res.stdout, /^\+\+\+ planned\/pvc\/shop\/orders$/m)
      assert.match(res.stdout, /^-  phase: Available$/m)
      assert.match(res.stdout, /^\+  phase: Bound$/m)
      assert.doesNotMatch(res.stdout, ANSI)
    },
  },
  {
    name: '-o diff of a snapshot in sync is empty',
    args: ['-f', inSync, '-o', 'diff'],
    expectExit: 0,
    check: (res) => assert.equal(res.stdout, ''),
  },
  {
    name: '--color forces ANSI off a terminal',
    args: ['-f', example, '-o', 'diff', '--color'],
    expectExit: 1,
    check: (res) => assert.match(res.stdout, ANSI),
  },
  {
    name: '--color wins over NO_COLOR=1',
    args: ['-f', example, '-o', 'diff', '--color'],
    env: {NO_COLOR: '1'},
    expectExit: 1,
    check: (res) => assert.match(res.stdout, ANSI),
  },
  {
    name: 'FORCE_COLOR=1 colours off a terminal',
    args: ['-f', example, '-o', 'diff'],
    env: {FORCE_COLOR: '1'},
    expectExit: 1,
    check: (res) => assert.match(res.stdout, ANSI),
  },
  {
    name: 'NO_COLOR=1 wins over FORCE_COLOR=1',
    args: ['-f', example, '-o', 'diff'],
    env: {NO_COLOR: '1', FORCE_COLOR: '1'},
    expectExit: 1,
    check: (res) => assert.doesNotMatch(res.stdout, ANSI),
  },
  {
    name: '--no-color wins over FORCE_COLOR=1',
    args: ['-f', example, '-o', 'diff', '--no-color'],
    env: {FORCE_COLOR: '1'},
    expectExit: 1,
    check: (res) => assert.doesNotMatch(res.stdout, ANSI),
  },
  {
    name: '--color colours the table too',
    args: ['-f', example, '--color'],
    expectExit: 1,
    check: (res) => assert.match(res.stdout, ANSI),
  },
  {
    name: '--color never colours -o json',
    args: ['-f', example, '-o', 'json', '--color'],
    expectExit: 1,
    check: (res) => assert.doesNotMatch(res.stdout, ANSI),
  },

  // Sources: -f FILE, -f DIR, -f -.
  {
    name: '-f - reads the snapshot from stdin',
    args: ['-f', '-', '-o', 'json'],
    stdin: readFileSync(example, 'utf8'),
    expectExit: 1,
    check: (res) => assert.equal(report(res).objects.length, 14),
  },
  {
    name: '-f - reads a snapshot in sync from stdin: exit 0',
    args: ['-f', '-'],
    stdin: IN_SYNC_SNAPSHOT,
    expectExit: 0,
  },
  {
    name: '-f DIR reads every .yaml/.yml/.json file in it',
    args: ['-f', twoNamespaces, '-o', 'json'],
    expectExit: 1,
    check: (res) => {
      assert.deepEqual(namespaces(report(res)), ['<none>', 'other', 'shop'])
      assert.ok(names(report(res)).includes('pv-other'), 'other.yml is read')
    },
  },
  {
    name: '-f repeated: the files are one cluster, and a claim named after them stays an argument',
    args: [
      '-f',
      path.join(twoNamespaces, 'cluster.yaml'),
      '-f',
      path.join(twoNamespaces, 'other.yml'),
      'pvc/pending',
      '-n',
      'other',
      '-o',
      'json',
    ],
    // pvc/other/pending has no class and no volume that fits: in sync, nothing to write.
    expectExit: 0,
    check: (res) => assert.deepEqual(report(res).actions, []),
  },
  {
    name: '-f A,B and stdin among them: one cluster',
    args: ['-f', `${path.join(twoNamespaces, 'other.yml')},-`, '-o', 'json'],
    stdin: readFileSync(example, 'utf8'),
    expectExit: 1,
    check: (res) => assert.deepEqual(namespaces(report(res)), ['<none>', 'other', 'shop']),
  },
  {
    name: '-f the same objects twice: exit 2, naming both places',
    args: ['-f', example, '-f', twoNamespaces],
    expectExit: 2,
    check: (res) => {
      assert.match(
        res.stderr,
        /^error: .*cluster\.yaml: StorageClass standard: duplicate object \(items\[0\]\); first defined in .*examples\/cluster\.yaml \(items\[0\]\)\n$/,
      )
      assert.equal(res.stdout, '')
    },
  },
  {
    name: 'a claim without a uid (a hand-written manifest) is planned with the uid the API server would give it: the plan settles, and stderr says so',
    args: ['-f', '-', '-o', 'json', '--rounds', '6'],
    stdin: `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: PersistentVolume, metadata: {name: pv1}, spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], hostPath: {path: /tmp/x}, claimRef: {namespace: default, name: data}}, status: {phase: Bound}}
- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: data, namespace: default, annotations: {pv.kubernetes.io/bind-completed: "yes"}}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}, volumeName: pv1, storageClassName: ""}, status: {phase: Bound}}
`,
    expectExit: 1,
    check: (res) => {
      // As in a cluster: the claim completed binding, and the volume's claimRef has no uid of it: Misbound.
      assert.equal(report(res).converged, true)
      const claim = report(res).objects.find((o: {kind: string}) => o.kind === 'PersistentVolumeClaim')
      assert.match(claim.metadata.uid, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      assert.equal(claim.status.phase, 'Lost')
      assert.equal(
        withoutVersionNotice(res.stderr),
        'pvctl: 1 PersistentVolumeClaim has no metadata.uid (default/data): planned with the uid the API server would give it on create, derived from namespace and name\n',
      )
    },
  },
  {
    name: 'a snapshot without uids that converges: no word about uids',
    args: ['-f', '-', '-o', 'json'],
    stdin:
      '{apiVersion: v1, kind: PersistentVolume, metadata: {name: pv1}, spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], hostPath: {path: /tmp/x}}, status: {phase: Available}}\n',
    expectExit: 0,
    check: (res) => {
      assert.equal(report(res).converged, true)
      assert.equal(withoutVersionNotice(res.stderr), '')
    },
  },

  // Scope: -n, -A, named objects.
  {
    name: '-n shop: only shop claims, and the volumes unbound or bound into shop',
    args: ['-f', twoNamespaces, '-n', 'shop', '-o', 'json'],
    expectExit: 1,
    check: (res) => {
      const r = report(res)
      assert.deepEqual(namespaces(r), ['<none>', 'shop'])
      assert.ok(!names(r).includes('pv-other'), 'pv-other is bound into namespace other')
      assert.ok(names(r).includes('pv-0001'), "an unbound volume is in every namespace's scope")
      for (const e of [...r.actions, ...r.events]) assert.notEqual(e.object.namespace, 'other')
    },
  },
  {
    name: '-n other: the other namespace only, in sync but for an event',
    args: ['-f', twoNamespaces, '-n', 'other', '-o', 'json'],
    expectExit: 0,
    check: (res) => {
      const r = report(res)
      assert.deepEqual(names(r), ['pv-0001', 'pv-0002', 'pv-other', 'bound', 'pending'])
      assert.deepEqual(
        r.events.map((e: Json) => `${e.object.namespace}/${e.object.name} ${e.reason}`),
        ['other/pending FailedBinding'],
      )
    },
  },
  {
    name: '-A overrides -n',
    args: ['-f', twoNamespaces, '-n', 'shop', '-A', '-o', 'json'],
    expectExit: 1,
    check: (res) => assert.deepEqual(namespaces(report(res)), ['<none>', 'other', 'shop']),
  },
  {
    name: 'pv/NAME syncs that volume only',
    args: ['-f', example, 'pv/pv-0004', '-o', 'json'],
    expectExit: 1,
    check: (res) => {
      const r = report(res)
      assert.deepEqual(
        r.actions.map((a: Json) => `${a.action} ${a.object.name}`),
        ['set-volume-phase pv-0004'],
      )
      assert.deepEqual(r.events, [])
    },
  },
  {
    name: 'persistentvolumeclaim/NAME -n NS syncs that claim (and the volume it binds)',
    args: ['-f', example, 'persistentvolumeclaim/orders', '-n', 'shop', '-o', 'json'],
    expectExit: 1,
    check: (res) => {
      const touched = new Set(report(res).actions.map((a: Json) => `${a.object.kind}/${a.object.name}`))
      assert.deepEqual([...touched].sort(), ['PersistentVolume/pv-0002', 'PersistentVolumeClaim/orders'])
    },
  },
  {
    name: 'a named object already in sync: exit 0',
    args: ['-f', example, 'pv/pv-0001'],
    expectExit: 0,
  },

  // Rounds.
  {
    name: 'until stable by default: converged',
    args: ['-f', example, '-o', 'json'],
    expectExit: 1,
    check: (res) => {
      const r = report(res)
      assert.equal(r.converged, true)
      assert.ok(r.rounds >= 2, 'the last round wrote nothing, so there were at least two')
    },
  },
  {
    name: '--rounds 1 stops after a round that wrote: not converged',
    args: ['-f', example, '--rounds', '1', '-o', 'json'],
    expectExit: 1,
    check: (res) => {
      const r = report(res)
      assert.equal(r.rounds, 1)
      assert.equal(r.converged, false)
      assert.ok(r.actions.length > 0 && r.actions.every((a: Json) => a.round === 1))
    },
  },
  {
    name: '--rounds 1 on a snapshot in sync: converged',
    args: ['-f', inSync, '--rounds', '1', '-o', 'json'],
    expectExit: 0,
    check: (res) => assert.equal(report(res).converged, true),
  },

  // Summary.
  {
    name: 'the summary counts a release of a volume that had no status',
    args: ['-f', releasedNoStatus, '-o', 'json'],
    expectExit: 1,
    check: (res) => {
      const r = report(res)
      assert.deepEqual(
        r.actions.map((a: Json) => a.reason),
        ['<none> -> Released: claim gone/claim is gone'],
      )
      assert.equal(r.summary.releases, 1, 'releases')
      assert.equal(r.summary.phaseChanges, 1, 'phaseChanges')
    },
  },

  // In sync is not healthy: the last line on stderr points to pvctl audit, the exit status stays the plan's.
  {
    name: 'in sync, but the audit finds a warning: the last stderr line points to audit with the same -f',
    args: ['-f', inSyncUnhealthy],
    expectExit: 0,
    check: (res) => {
      assert.equal(res.stdout, IN_SYNC_LINE)
      assert.equal(
        res.stderr.split('\n').at(-2),
        `pvctl: in sync with the controller; 1 problem the controller leaves to you: pvctl audit -f ${inSyncUnhealthy}`,
      )
    },
  },
  {
    name: 'in sync and unhealthy, -o json: the report as before, the pointer on stderr',
    args: ['-f', inSyncUnhealthy, '-o', 'json'],
    expectExit: 0,
    check: (res) => {
      assert.deepEqual(report(res).actions, [])
      assert.match(
        withoutVersionNotice(res.stderr),
        /^pvctl: in sync with the controller; 1 problem .*: pvctl audit -f \S+\n$/,
      )
    },
  },
  {
    name: 'the pointer carries the scope: -n other and the -f directory',
    args: ['-f', twoNamespaces, '-n', 'other'],
    expectExit: 0,
    check: (res) =>
      assert.equal(
        res.stderr.split('\n').at(-2),
        `pvctl: in sync with the controller; 1 problem the controller leaves to you: pvctl audit -n other -f ${twoNamespaces}`,
      ),
  },
  {
    name: 'the snapshot read from stdin: the pointer names a file to save it to, not -f - (stdin is spent)',
    args: ['-f', '-'],
    stdin: readFileSync(inSyncUnhealthy, 'utf8'),
    expectExit: 0,
    check: (res) =>
      assert.equal(
        res.stderr.split('\n').at(-2),
        'pvctl: in sync with the controller; 1 problem the controller leaves to you: pvctl audit -f SNAPSHOT.yaml (SNAPSHOT.yaml: the snapshot read from stdin, saved to a file)',
      ),
  },
  {
    name: 'in sync and the problem silenced by pvctl.io/audit-ignore: no pointer',
    args: ['-f', inSyncSilenced],
    expectExit: 0,
    check: (res) => assert.equal(withoutVersionNotice(res.stderr), ''),
  },

  // Help.
  {
    name: '--help documents the exit status',
    args: ['--help'],
    dryRun: false,
    expectExit: 0,
    check: (res) => {
      assert.match(res.stdout, /^\s*EXIT STATUS$/m)
      for (const code of [0, 1, 2, 3])
        assert.match(res.stdout, new RegExp(`^\\s+${code}\\s+\\S`, 'm'), `exit code ${code}`)
      assert.equal(withoutVersionNotice(res.stderr), '')
    },
  },
]

test('pvctl sync through the built CLI', {concurrency: 4}, async (t) => {
  await Promise.all(
    rows.map((row) =>
      t.test(row.name, async () => {
        const res = await runCli(['sync', ...(row.dryRun === false ? [] : ['--dry-run']), ...row.args], {
          stdin: row.stdin,
          env: row.env,
        })
        const shown = `exit ${res.code}\n--- stderr\n${res.stderr}--- stdout\n${res.stdout.slice(0, 800)}`
        assert.equal(res.code, row.expectExit, `exit status\n${shown}`)
        row.check?.(res)
      }),
    ),
  )
})

test('the command the pointer prints audits what sync read: it finds the problem', async () => {
  const sync = await runCli(['sync', '--dry-run', '-f', inSyncUnhealthy])
  const command = /: pvctl (audit .*)$/m.exec(sync.stderr)![1].split(' ')
  const audit = await runCli(command)
  assert.equal(audit.code, 1)
  assert.match(
    audit.stdout,
    /^Audit: 0\/0 claims and 0\/1 volumes healthy; 0 errors, 1 warning, 0 info; no changes planned\./,
  )
})
