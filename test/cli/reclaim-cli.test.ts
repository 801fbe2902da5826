// `pvctl reclaim` on snapshots: a simulation says so and exits 1; every mistake and every refusal is one
// `error:` line naming the object or the check, exit 2, no stack trace; the diff is the one edit.
import assert from 'node:assert/strict'
import path from 'node:path'
import {test} from 'node:test'

import type {PersistentVolumeClaim} from '../../src/engine/api/model.js'
import {editedSnapshot} from './edited-snapshot.js'
import {example, repoRoot, runCli} from './run-cli.js'

const snapshot = path.join(repoRoot, 'examples', 'reclaim.yaml')

const usageRows: Array<{name: string; args: string[]; error: RegExp}> = [
  {name: 'no volume named', args: ['-f', snapshot], error: /^error: name the volume to reclaim: pv\/NAME/},
  {
    name: 'a claim named instead of a volume',
    args: ['pvc/db', '-f', snapshot],
    error: /^error: object "pvc\/db": reclaim takes a volume \(pv\/NAME\); to give a volume to this claim, use --for$/,
  },
  {
    name: 'two volumes',
    args: ['pv', 'pv-0004', 'pv-0005', '-f', snapshot],
    error: /^error: Unexpected argument: pv-0005 \(reclaim takes one volume\)$/,
  },
  {
    name: 'no such volume',
    args: ['pv/pv-0040', '-f', snapshot],
    error: /^error: persistentvolume "pv-0040" not found; did you mean pv\/pv-0004\?$/,
  },
  {
    name: 'a malformed --for',
    args: ['pv/pv-0004', '--for', 'shop/db/x', '-f', snapshot],
    error: /^error: --for "shop\/db\/x": expected NS\/CLAIM or CLAIM/,
  },
  {
    name: 'a malformed --not-owner',
    args: ['pv/pv-0004', '--not-owner', 'Old_DB', '-f', snapshot],
    error: /^error: --not-owner "Old_DB": expected NS\/CLAIM or CLAIM, e.g. --not-owner shop\/db/,
  },
  {
    name: 'refused: the volume is not Released yet',
    args: ['pv/pv-0004', '-f', example],
    error: /^error: pv\/pv-0004 is not reclaimed: VolumeReleased: pv-0004 is Bound, and the next sync releases it/,
  },
  {
    name: 'refused: the claim does not fit',
    args: ['pv/pv-0004', '--for', 'shop/logs', '-f', example],
    error:
      /TargetClaimFits: pvc\/shop\/logs does not fit pv-0004: AccessModesMismatch: .*; CapacityTooSmall: 8Gi < requested 100Gi$/,
  },
]

for (const row of usageRows) {
  test(`exit 2, one line: ${row.name}`, async () => {
    const r = await runCli(['reclaim', ...row.args])
    assert.equal(r.code, 2, r.stderr)
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '))
    assert.equal(errors.length, 1, r.stderr)
    assert.match(errors[0], row.error)
    assert.doesNotMatch(r.stderr, /\n\s+at /)
  })
}

test('on a snapshot the reclaim is a simulation: it says so, and exits 1', async () => {
  const r = await runCli(['reclaim', 'pv', 'pv-0004', '--for', 'db', '-n', 'shop', '-f', snapshot])
  assert.equal(r.code, 1, r.stderr)
  assert.match(r.stdout, /^Reclaim pv\/pv-0004 .* for pvc\/shop\/db: a simulation on a snapshot, nothing is written$/m)
  assert.match(r.stdout, /^Next: the next sync binds pvc\/shop\/db to pv-0004$/m)
  assert.match(r.stdout, /^Its data stays on the volume and becomes visible to the pods of pvc\/shop\/db\.$/m)
  assert.match(
    r.stderr,
    /^pvctl: the state came from a snapshot \(-f\): nothing was written; the reclaim is a simulation$/m,
  )
})

test('-o diff shows the one edit: claimRef pointed at the claim, without uid', async () => {
  const r = await runCli(['reclaim', 'pv/pv-0004', '--for', 'shop/db', '-f', snapshot, '-o', 'diff'])
  assert.equal(r.code, 1, r.stderr)
  assert.match(r.stdout, /^diff -u -N live\/pv\/pv-0004 planned\/pv\/pv-0004$/m)
  assert.match(r.stdout, /^-    uid: 7c2d4e00-3333-4e3c-9d00-0000000000a1$/m)
  assert.match(r.stdout, /^\+    name: db$/m)
  assert.doesNotMatch(r.stdout, /^\+.*uid/m)
})

/** A snapshot's extra objects, fed on stdin beside examples/reclaim.yaml (`-f reclaim.yaml -f -`). */
const attachmentOf = (volume: string) =>
  `apiVersion: storage.k8s.io/v1\nkind: VolumeAttachment\nmetadata:\n  name: csi-abc\nspec:\n  attacher: hostpath.csi.k8s.io\n  nodeName: node-1\n  source:\n    persistentVolumeName: ${volume}\n`
const podOf = (claim: string, o: {phase: string; nodeName?: string}) =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: app-0\n  namespace: shop\nspec:\n${o.nodeName === undefined ? '' : `  nodeName: ${o.nodeName}\n`}  volumes:\n  - name: data\n    persistentVolumeClaim:\n      claimName: ${claim}\nstatus:\n  phase: ${o.phase}\n`

// What the snapshot holds decides each result: a kind it holds none of is `not read`, never `ok`, and
// stops nothing; what it holds is judged; --force turns an overridable block into `forced`.
const resultRows: Array<{
  name: string
  extra: string[]
  force?: boolean
  code: number
  results: {OldClaimUnused: string; VolumeDetached: string}
}> = [
  {
    name: 'neither Pods nor VolumeAttachments',
    extra: [],
    code: 1,
    results: {OldClaimUnused: 'not-read', VolumeDetached: 'not-read'},
  },
  {
    name: 'a VolumeAttachment of another volume, a pod of another claim',
    extra: [attachmentOf('pv-9999'), podOf('other', {phase: 'Running', nodeName: 'node-1'})],
    code: 1,
    results: {OldClaimUnused: 'ok', VolumeDetached: 'ok'},
  },
  {
    name: 'a VolumeAttachment names the volume',
    extra: [attachmentOf('pv-0004')],
    code: 2,
    results: {OldClaimUnused: 'not-read', VolumeDetached: 'blocked'},
  },
  {
    name: 'a VolumeAttachment names the volume, --force',
    extra: [attachmentOf('pv-0004')],
    force: true,
    code: 1,
    results: {OldClaimUnused: 'not-read', VolumeDetached: 'forced'},
  },
  {
    name: 'a pod on a node uses the old claim',
    extra: [podOf('old-db', {phase: 'Running', nodeName: 'node-1'})],
    code: 2,
    results: {OldClaimUnused: 'blocked', VolumeDetached: 'not-read'},
  },
  {
    name: 'a pod no node runs uses the old claim, --force',
    extra: [podOf('old-db', {phase: 'Pending'})],
    force: true,
    code: 1,
    results: {OldClaimUnused: 'forced', VolumeDetached: 'not-read'},
  },
]

for (const row of resultRows) {
  test(`the checks' results, table and JSON: ${row.name}`, async () => {
    const args = [
      'reclaim',
      'pv/pv-0004',
      '--for',
      'shop/db',
      '-f',
      snapshot,
      ...(row.extra.length > 0 ? ['-f', '-'] : []),
      ...(row.force === true ? ['--force'] : []),
    ]
    const stdin = row.extra.join('---\n')
    const [table, json] = await Promise.all([runCli(args, {stdin}), runCli([...args, '-o', 'json'], {stdin})])
    assert.equal(table.code, row.code, table.stderr)
    assert.equal(json.code, row.code, json.stderr)
    const checks = (JSON.parse(json.stdout) as {checks: Array<{name: string; result: string}>}).checks
    for (const [name, result] of Object.entries(row.results)) {
      assert.equal(checks.find((c) => c.name === name)?.result, result, json.stdout)
      assert.match(table.stdout, new RegExp(`^${name} +${result.replace('-', ' ')} `, 'm'), table.stdout)
    }
  })
}

/** shop/old-db created again under its name, with a new uid: by hand, or restored by Velero (naming pv-0004). */
const oldDbAgain = (restored: boolean): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: {
    name: 'old-db',
    namespace: 'shop',
    uid: 'u-again',
    ...(restored ? {labels: {'velero.io/restore-name': 'nightly-1'}} : {}),
  },
  spec: {
    accessModes: ['ReadWriteOnce'],
    resources: {requests: {storage: '8Gi'}},
    storageClassName: 'standard',
    ...(restored ? {volumeName: 'pv-0004'} : {}),
  },
  status: {phase: 'Pending'},
})

test('a claim of the old name re-created: refused, --not-owner NS/CLAIM overrides it (and says so), --force does not', async () => {
  const file = await editedSnapshot('reclaim.yaml', (s) => void s.claims.push(oldDbAgain(false)))
  const args = ['reclaim', 'pv/pv-0004', '--for', 'shop/db', '-f', file]
  const refused = await runCli(args)
  assert.equal(refused.code, 2, refused.stderr)
  // The relink it names is relink's own decision, with the -f that reads the same snapshot.
  assert.ok(
    refused.stdout.includes(
      `OldNameFree              blocked    pvc/shop/old-db was re-created (uid u-again; the volume held 7c2d4e00-3333-4e3c-9d00-0000000000a1) and names no volume: it may be the data's owner come back; if it is, pvctl relink pv/pv-0004 -f ${file} gives the volume back to it; if it is not, add --not-owner shop/old-db\n`,
    ),
    refused.stdout,
  )
  assert.match(refused.stdout, /^Not reclaimed: nothing is written\. --not-owner overrides OldNameFree\.$/m)
  const forced = await runCli([...args, '--force'])
  assert.equal(forced.code, 2, forced.stderr)
  assert.doesNotMatch(forced.stderr, /--force overrides/)
  const disowned = await runCli([...args, '--not-owner', 'old-db', '-n', 'shop'])
  assert.equal(disowned.code, 1, disowned.stderr)
  assert.match(
    disowned.stdout,
    /^OldNameFree +forced +pvc\/shop\/old-db was re-created .*: --not-owner says it is not the owner of the data$/m,
  )
  assert.match(disowned.stdout, /^Next: the next sync binds pvc\/shop\/db to pv-0004$/m)
})

test('the old claim restored by Velero, naming the volume: refused, the relink named, --not-owner does not override it', async () => {
  const file = await editedSnapshot('reclaim.yaml', (s) => void s.claims.push(oldDbAgain(true)))
  const r = await runCli(['reclaim', 'pv/pv-0004', '--for', 'shop/db', '--not-owner', 'shop/old-db', '-f', file])
  assert.equal(r.code, 2, r.stderr)
  assert.ok(
    r.stdout.includes(
      `NoRestoredOwner          blocked    pvc/shop/old-db, restored by nightly-1 (uid u-again), names pv-0004: it is the data's owner; pvctl relink pvc/old-db -n shop -f ${file} reunites them\n`,
    ),
    r.stdout,
  )
  assert.match(r.stdout, /^OldNameFree +blocked /m)
})

test('a volume found as the reclaim leaves it: "already reclaimed", exit 0, nothing judged', async () => {
  const file = await editedSnapshot('reclaim.yaml', (s) => {
    s.volumes[0].spec.claimRef = {apiVersion: 'v1', kind: 'PersistentVolumeClaim', name: 'db', namespace: 'shop'}
  })
  const r = await runCli(['reclaim', 'pv/pv-0004', '--for', 'shop/db', '-f', file])
  assert.equal(r.code, 0, r.stderr)
  assert.equal(
    r.stdout,
    'Reclaim pv/pv-0004 (Released, Retain, claimRef shop/db) for pvc/shop/db: a simulation on a snapshot, nothing is written\nAlready reclaimed: pv-0004 is pre-bound to shop/db (Released, no uid): the next sync binds pvc/shop/db to pv-0004\n',
  )
  const json = JSON.parse(
    (await runCli(['reclaim', 'pv/pv-0004', '--for', 'shop/db', '-f', file, '-o', 'json'])).stdout,
  )
  assert.deepEqual(
    [json.write.outcome, json.write.patch, json.checks, json.already],
    [
      'already-done',
      [],
      [],
      'already reclaimed: pv-0004 is pre-bound to shop/db (Released, no uid): the next sync binds pvc/shop/db to pv-0004',
    ],
  )
})
