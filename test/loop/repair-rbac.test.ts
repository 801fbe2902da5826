// deploy/repair-rbac.yaml is the least privilege of `pvctl reclaim` and `pvctl relink`: derived from what
// the code calls (reclaimPermissions, relinkPermissions), it grants all of that and nothing more; a repair
// run by a user bound to it alone succeeds, and with any one of its permissions taken away fails before it
// writes, naming what is missing.
import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {reclaimPermissions, relinkPermissions} from '../../src/executor/permissions.js'
import {repoRoot, runCli} from '../cli/run-cli.js'
import {type DenyRule, type Emulator, startEmulator} from '../emulator/emulator.js'
import {allows, clusterRoleGrantsOf, denyAllBut, unusedGrants} from './rbac-grants.js'
import {tempDir} from '../temp-dir.js'

const dir = tempDir('repair-rbac')
// pv-0004 Released (Retain) by the deleted shop/old-db; shop/db Pending.
const {state: snapshot} = await loadSnapshot('examples/reclaim.yaml')
const grants = clusterRoleGrantsOf(path.join(repoRoot, 'deploy', 'repair-rbac.yaml'), 'pvctl-repair')
const reclaimNeeds = reclaimPermissions('pv-0004', {namespace: 'shop', name: 'old-db'})
// examples/relink.yaml: pv-0006 names shop/logs with an old uid, and shop/logs lost its spec.volumeName.
const {state: relinkSnapshot} = await loadSnapshot('examples/relink.yaml')
const relinkNeeds = relinkPermissions([
  {volume: 'pv-0006', claim: {namespace: 'shop', name: 'logs'}, writes: ['PersistentVolume', 'PersistentVolumeClaim']},
])
const needed = [...reclaimNeeds, ...relinkNeeds]
const WRITES = new Set(['create', 'update', 'patch', 'delete', 'deletecollection'])

async function reclaimAs(deny: DenyRule[]): Promise<{api: Emulator; code: number | null; stderr: string}> {
  return repairAs(deny, snapshot, ['reclaim', 'pv/pv-0004', '--for', 'shop/db', '--yes'])
}

async function relinkAs(deny: DenyRule[]): Promise<{api: Emulator; code: number | null; stderr: string}> {
  return repairAs(deny, relinkSnapshot, ['relink', 'pvc/logs', '-n', 'shop', '--yes'])
}

async function repairAs(
  deny: DenyRule[],
  from: typeof snapshot,
  args: string[],
): Promise<{api: Emulator; code: number | null; stderr: string}> {
  const objects = structuredClone([...from.classes, ...from.volumes, ...from.claims])
  const api = await startEmulator({
    tls: true,
    listItemTypeMeta: false,
    objects: objects as never,
    tokens: {'operator-token': {user: 'operator', deny}},
  })
  const kubeconfig = path.join(dir, `kubeconfig-${api.port}.yaml`)
  writeFileSync(kubeconfig, api.kubeconfig({token: 'operator-token'}))
  const run = await runCli([...args, '--kubeconfig', kubeconfig], {env: {HOME: dir}})
  await api.stop()
  return {api, code: run.code, stderr: run.stderr}
}

/** Writes other than the SelfSubjectAccessReviews (a create every user may make, and no change). */
const writesOf = (api: Emulator) =>
  api.requests.filter((r) => WRITES.has(r.verb) && r.resource !== 'selfsubjectaccessreviews')

test('deploy/repair-rbac.yaml grants every permission a reclaim and a relink need, and nothing they do not use', () => {
  for (const p of needed)
    assert.ok(
      grants.some((g) => allows(g, p)),
      `not granted: ${JSON.stringify(p)}`,
    )
  assert.deepEqual(unusedGrants(grants, needed), [], 'granted but never used')
})

test('a user bound to pvctl-repair alone reclaims a volume, and is refused nothing', async () => {
  const {api, code, stderr} = await reclaimAs(denyAllBut(grants))
  assert.equal(code, 0, stderr)
  assert.deepEqual(
    api.requests.filter((r) => r.status === 403).map((r) => `${r.verb} ${r.resource} ${r.namespace}/${r.name}`),
    [],
    'nothing was forbidden',
  )
  assert.deepEqual(
    writesOf(api).map((r) => `${r.verb} ${r.resource}/${r.subresource ?? ''} ${r.name}`),
    ['update persistentvolumes/ pv-0004'],
  )
  const used = new Set(api.requests.map((r) => `${r.verb} ${r.resource}`))
  for (const p of reclaimNeeds)
    assert.ok(used.has(`${p.verb} ${p.resource}`), `a call of each kind granted: ${p.verb} ${p.resource}`)
})

// One row per verb of each rule, taken away. The guard's calls are asked (SelfSubjectAccessReview) before
// the first of them and named in one line; a list of the load is refused by the API server itself, before
// anything is decided (the claims the guard lists again are the load's list). A reclaim gets no claim:
// relink's rows take that verb away.
const rows: Array<{without: DenyRule & {verb: 'get' | 'list' | 'update'}; stderr: RegExp}> = [
  {
    without: {verb: 'get', resource: 'persistentvolumes'},
    stderr: /^error: missing permissions: get persistentvolumes named pv-0004 \(cluster-wide\)$/m,
  },
  {
    without: {verb: 'update', resource: 'persistentvolumes'},
    stderr: /^error: missing permissions: update persistentvolumes named pv-0004 \(cluster-wide\)$/m,
  },
  {
    without: {verb: 'list', resource: 'volumeattachments', group: 'storage.k8s.io'},
    stderr: /^error: missing permissions: list volumeattachments\.storage\.k8s\.io \(cluster-wide\)$/m,
  },
  {without: {verb: 'list', resource: 'persistentvolumes'}, stderr: /cannot list resource "persistentvolumes"/},
  {
    without: {verb: 'list', resource: 'persistentvolumeclaims'},
    stderr: /cannot list resource "persistentvolumeclaims"/,
  },
  {without: {verb: 'list', resource: 'pods'}, stderr: /cannot list resource "pods"/},
  // The load's list is across namespaces; the guard's, of the old claim's namespace, is its own call.
  {
    without: {verb: 'list', resource: 'pods', namespace: 'shop'},
    stderr: /^error: missing permissions: list pods in namespace shop$/m,
  },
  {without: {verb: 'list', resource: 'nodes'}, stderr: /cannot list resource "nodes"/},
  {
    without: {verb: 'list', resource: 'storageclasses', group: 'storage.k8s.io'},
    stderr: /cannot list resource "storageclasses"/,
  },
]

test('a user bound to pvctl-repair alone relinks a pair, volume first, and is refused nothing', async () => {
  const {api, code, stderr} = await relinkAs(denyAllBut(grants))
  assert.equal(code, 0, stderr)
  assert.deepEqual(
    api.requests.filter((r) => r.status === 403).map((r) => `${r.verb} ${r.resource} ${r.namespace}/${r.name}`),
    [],
    'nothing was forbidden',
  )
  assert.deepEqual(
    writesOf(api).map((r) => `${r.verb} ${r.resource}/${r.subresource ?? ''} ${r.name}`),
    ['update persistentvolumes/ pv-0006', 'update persistentvolumeclaims/ logs'],
  )
})

// relink's own calls, each taken away: asked before the first write and named in one line.
const relinkRows: Array<{without: DenyRule & {verb: 'get' | 'update'}; stderr: RegExp}> = [
  {
    without: {verb: 'update', resource: 'persistentvolumeclaims'},
    stderr: /^error: missing permissions: update persistentvolumeclaims named logs in namespace shop$/m,
  },
  {
    without: {verb: 'get', resource: 'persistentvolumeclaims'},
    stderr: /^error: missing permissions: get persistentvolumeclaims named logs in namespace shop$/m,
  },
  {
    without: {verb: 'update', resource: 'persistentvolumes'},
    stderr: /^error: missing permissions: update persistentvolumes named pv-0006 \(cluster-wide\)$/m,
  },
]

test('every verb of every rule has its row', () => {
  const granted = grants
    .flatMap((g) => g.verbs.flatMap((verb) => g.resources.map((resource) => `${verb} ${resource}`)))
    .sort()
  assert.deepEqual(
    [...new Set([...rows, ...relinkRows].map((r) => `${r.without.verb} ${r.without.resource}`))].sort(),
    granted,
  )
})

for (const row of relinkRows) {
  test(`relink without ${row.without.verb} ${row.without.resource}: refused before any write, the permission named, exit 3`, async () => {
    const {api, code, stderr} = await relinkAs([...denyAllBut(grants), {...row.without, group: ''}])
    assert.equal(code, 3, stderr)
    assert.match(stderr, row.stderr)
    assert.deepEqual(writesOf(api), [], 'no write request')
  })
}

for (const row of rows) {
  test(`without ${row.without.verb} ${row.without.resource}${row.without.namespace ? ` in ${row.without.namespace}` : ''}: refused before any write, the permission named, exit 3`, async () => {
    const {api, code, stderr} = await reclaimAs([
      ...denyAllBut(grants),
      {...row.without, group: row.without.group ?? ''},
    ])
    assert.equal(code, 3, stderr)
    assert.match(stderr, row.stderr)
    assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace')
    assert.deepEqual(writesOf(api), [], 'no write request')
  })
}
