// `pvctl relink` from the built CLI on examples/relink.yaml (a simulation: -f): every refusal exits 2 with
// one line naming the pair and the check, nothing written and no stack trace; an allowed pair exits 1 and
// says what the controller does next; the usage errors are kubectl's.
import assert from 'node:assert/strict'
import path from 'node:path'
import {describe, test} from 'node:test'

import {editedSnapshot} from './edited-snapshot.js'
import {repoRoot, runCli} from './run-cli.js'

const snapshot = path.join(repoRoot, 'examples', 'relink.yaml')
const relink = (...args: string[]) => runCli(['relink', ...args, '-f', snapshot])

describe('relink on a snapshot', () => {
  const allowed: Array<{args: string[]; next: RegExp; writes: RegExp[]}> = [
    {
      args: ['pvc/db', '-n', 'shop'],
      next: /^Next: the next sync binds pvc\/shop\/db to pv-0004$/m,
      writes: [
        /^Write \(simulated\): pv\/pv-0004 remove \/spec\/claimRef\/resourceVersion, replace \/spec\/claimRef\/uid "7c2d4e00-3333-4e3c-9d00-0000000000d1"$/m,
      ],
    },
    {
      args: ['pv/pv-0005'],
      next: /^Next: the next sync binds pvc\/shop\/cache to pv-0005$/m,
      writes: [/^Write \(simulated\): pv\/pv-0005 replace/m],
    },
    {
      args: ['pvc', 'logs', '-n', 'shop'],
      next: /^Next: the next sync binds pvc\/shop\/logs to pv-0006$/m,
      writes: [
        /^Write \(simulated\): pv\/pv-0006 replace/m,
        /^Write \(simulated\): pvc\/shop\/logs add \/spec\/volumeName "pv-0006"$/m,
      ],
    },
  ]
  for (const row of allowed) {
    test(`${row.args.join(' ')}: allowed, a simulation, exit 1`, async () => {
      const run = await relink(...row.args)
      assert.equal(run.code, 1, run.stderr)
      assert.match(run.stdout, row.next)
      for (const w of row.writes) assert.match(run.stdout, w)
      assert.match(run.stderr, /the relink is a simulation/)
    })
  }

  test('pvc/sessions: the volume is gone: refused with what the operator can do, exit 2, one line', async () => {
    const run = await relink('pvc/sessions', '-n', 'shop')
    assert.equal(run.code, 2, run.stderr)
    assert.match(
      run.stderr,
      /^error: pvc\/sessions -n shop is not relinked: VolumeExists: volume pv-0007, which pvc\/shop\/sessions names, does not exist .*kubectl apply -f pv-0007\.yaml, or velero restore create --from-backup BACKUP .*kubectl delete pvc sessions -n shop/m,
    )
    assert.match(run.stdout, /^VolumeExists +blocked/m)
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace')
  })

  test('a pair whose pointers close already: "already relinked", exit 0, nothing judged', async () => {
    const done = await editedSnapshot(
      'relink.yaml',
      (s) => void (s.volumes[0].spec.claimRef!.uid = s.claims[0].metadata.uid),
    )
    const run = await runCli(['relink', 'pvc/db', '-n', 'shop', '-f', done])
    assert.equal(run.code, 0, run.stderr)
    assert.equal(
      run.stdout,
      'Relink pvc/shop/db (Pending, uid 7c2d4e00-3333-4e3c-9d00-0000000000d1) and pv/pv-0004 (Bound, claimRef uid 7c2d4e00-3333-4e3c-9d00-0000000000d1): a simulation on a snapshot, nothing is written\n' +
        'Already relinked: pv/pv-0004 and pvc/shop/db name each other (uid 7c2d4e00-3333-4e3c-9d00-0000000000d1): the next sync binds pvc/shop/db to pv-0004\n',
    )
  })

  test("--all -n NS: only the pairs of that namespace's claims", async () => {
    const pairs = async (ns: string) =>
      (
        JSON.parse((await relink('--all', '-n', ns, '-o', 'json')).stdout) as {pairs: Array<{command: string}>}
      ).pairs.map((p) => p.command)
    assert.deepEqual(await pairs('shop'), [
      'pvctl relink pv/pv-0004',
      'pvctl relink pv/pv-0005',
      'pvctl relink pv/pv-0006',
    ])
    assert.deepEqual(await pairs('other'), [])
  })

  test('--all leaves out a claim re-created under the old name (no spec.volumeName, not restored), names it, and takes it with --owner', async () => {
    const file = await editedSnapshot('relink.yaml', (s) => {
      const db = s.claims.find((c) => c.metadata.name === 'db')!
      delete db.metadata.labels
      delete db.spec.volumeName
    })
    const commands = (stdout: string) =>
      (JSON.parse(stdout) as {pairs: Array<{command: string}>}).pairs.map((p) => p.command)
    const all = await runCli(['relink', '--all', '-f', file, '-o', 'json'])
    assert.equal(all.code, 1, all.stderr)
    assert.deepEqual(commands(all.stdout), ['pvctl relink pv/pv-0005', 'pvctl relink pv/pv-0006'])
    assert.match(
      all.stderr,
      /^pvctl: pvctl relink pv\/pv-0004: left out of --all: pvc\/shop\/db was re-created .*: it may be a new claim, not the owner of the data; if it is the owner, relink it by name \(pvctl relink pv\/pv-0004\) or add --owner shop\/db$/m,
    )
    const owned = await runCli(['relink', '--all', '--owner', 'shop/db', '-f', file, '-o', 'json'])
    assert.equal(owned.code, 1, owned.stderr)
    assert.deepEqual(commands(owned.stdout), [
      'pvctl relink pv/pv-0004',
      'pvctl relink pv/pv-0005',
      'pvctl relink pv/pv-0006',
    ])
    assert.doesNotMatch(owned.stderr, /left out of --all/)
    // By name, it is the operator's choice.
    assert.equal((await runCli(['relink', 'pv/pv-0004', '-f', file])).code, 1)
  })

  test('--all: every relinkable pair, each said with its command (-o json)', async () => {
    const run = await relink('--all', '-o', 'json')
    assert.equal(run.code, 1, run.stderr)
    const report = JSON.parse(run.stdout) as {pairs: Array<{command: string; allowed: boolean; next: string}>}
    assert.deepEqual(
      report.pairs.map((p) => [p.command, p.allowed]),
      [
        ['pvctl relink pv/pv-0004', true],
        ['pvctl relink pv/pv-0005', true],
        ['pvctl relink pv/pv-0006', true],
      ],
    )
  })

  test('-o diff: the volume, then the claim', async () => {
    const run = await relink('pvc/logs', '-n', 'shop', '-o', 'diff')
    assert.equal(run.code, 1, run.stderr)
    assert.ok(
      run.stdout.indexOf('live/pv/pv-0006') < run.stdout.indexOf('live/pvc/shop/logs') &&
        run.stdout.includes('+  volumeName: pv-0006'),
      run.stdout,
    )
  })
})

describe('relink: usage errors, exit 2, one line', () => {
  const rows: Array<{args: string[]; stderr: RegExp}> = [
    {args: [], stderr: /^error: name the pair to relink: pvc\/NAME \(-n NS\) or pv\/NAME, or --all/m},
    {
      args: ['--all', 'pvc/db'],
      stderr: /^error: --all relinks every relinkable pair: do not name one too \(pvc\/db\)$/m,
    },
    {
      args: ['pvc/db', 'pv/pv-0004'],
      stderr: /^error: Unexpected argument: pv\/pv-0004 \(relink takes one pvc\/NAME or pv\/NAME\)$/m,
    },
    {
      args: ['pvc/db'],
      stderr:
        /^error: persistentvolumeclaim "db" not found in namespace "default"; it exists in namespace shop: add -n shop/m,
    },
    {args: ['pv/pv-0009'], stderr: /^error: persistentvolume "pv-0009" not found; did you mean pv\/pv-0004/m},
    {args: ['sc/standard'], stderr: /^error: object "sc\/standard": unknown type "sc"/m},
  ]
  for (const row of rows) {
    test(row.args.join(' ') || '(no argument)', async () => {
      const run = await relink(...row.args)
      assert.equal(run.code, 2, run.stderr)
      assert.match(run.stderr, row.stderr)
      assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace')
    })
  }
})
