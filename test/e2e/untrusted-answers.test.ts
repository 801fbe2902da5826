// Issue 18: a picture pvctl cannot trust is an error, not an empty cluster. The built CLI against the
// API-server emulator over HTTPS, whose `body` fault answers a request with any status, headers and raw
// body: a LIST answered `[]`, `{}`, a Status with 200, items that are not an array, null, JSON nested
// 200,000 deep; a write answered with null or with an object that is not the one written; a 429 asking to
// wait an hour. Each is exit 3 with one `error:` line naming the request (a failed write: the executor's
// report of it), nothing written, no stack trace, no "internal error", and no hang.
import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {after, before, describe, test} from 'node:test'

import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {MAX_RETRY_AFTER_SECONDS} from '../../src/cluster/throttled-api.js'
import {MAX_ANSWER_DEPTH} from '../../src/cluster/json-depth.js'
import {runCli, type CliResult} from '../cli/run-cli.js'
import {type Emulator, type FaultEffect, type FaultSpec, startEmulator} from '../emulator/emulator.js'
import {tempDir} from '../temp-dir.js'

const TOKEN = 'e2e-untrusted-token-3b7e'
const dir = tempDir('e2e-untrusted')
const {state: example} = await loadSnapshot('examples/cluster.yaml')

let api: Emulator
let kubeconfig: string

// One emulator for every row: no row commits a write (each checks the revision stays), so each starts
// from the same example cluster.
before(async () => {
  api = await startEmulator({
    tls: true,
    listItemTypeMeta: false,
    objects: structuredClone([
      ...example.classes,
      ...example.volumes,
      ...example.claims,
      ...example.pods,
      ...example.nodes,
    ]) as never,
    tokens: {[TOKEN]: {user: 'alice'}},
  })
  kubeconfig = path.join(dir, 'kubeconfig.yaml')
  writeFileSync(kubeconfig, api.kubeconfig({token: TOKEN}))
})
after(() => api.stop())

const pvctl = (...args: string[]) => runCli([...args, '--kubeconfig', kubeconfig], {env: {HOME: dir}})

/** Writes to the cluster's objects (SelfSubjectAccessReviews, the permission checks, change nothing). */
const objectWrites = () => api.countWrites() - api.countWrites({resource: 'selfsubjectaccessreviews'})

/** Runs pvctl with `fault` in place; the run, and whether it left the cluster as it was. */
async function runWith(fault: Omit<FaultSpec, 'effect'>, effect: FaultEffect, args: string[]): Promise<CliResult> {
  api.faults.clear()
  api.clearRequests()
  const revision = api.resourceVersion
  api.faults.add({...fault, effect})
  try {
    const run = await pvctl(...args)
    assert.equal(api.resourceVersion, revision, 'nothing committed')
    return run
  } finally {
    api.faults.clear()
  }
}

/** Exit 3, and stderr is one `error:` line: the given one. */
function assertClusterError(run: CliResult, message: string): void {
  assert.equal(run.code, 3, run.stderr)
  assert.deepEqual(run.stderr.trim().split('\n'), [`error: ${message}`])
  assert.ok(!/internal error|\n\s+at /.test(run.stderr + run.stdout), 'no internal error, no stack trace')
  assert.ok(!run.stderr.includes(TOKEN) && !run.stdout.includes(TOKEN), 'the token is never printed')
}

const body = (text: string, code = 200): FaultEffect => ({type: 'body', code, body: text})
const status200 = JSON.stringify({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'etcdserver: leader changed',
  reason: 'InternalError',
  code: 500,
})
const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`
const claimList = (extra: object) =>
  JSON.stringify({kind: 'PersistentVolumeClaimList', apiVersion: 'v1', metadata: {resourceVersion: '7'}, ...extra})
const notClaims = (why: string) => `list persistentvolumeclaims: the answer is not a PersistentVolumeClaimList (${why})`
const TOO_DEEP = `the answer nests deeper than ${MAX_ANSWER_DEPTH} levels, deeper than any object of the cluster`

const listRows: Array<{id: string; fault: Omit<FaultSpec, 'effect'>; effect: FaultEffect; message: string}> = [
  // Taken for an empty list before: every bound volume then looked released.
  {
    id: 'the claims answered []',
    fault: {verb: 'list', resource: 'pvc'},
    effect: body('[]'),
    message: notClaims('got a JSON array'),
  },
  {
    id: 'the claims answered {}',
    fault: {verb: 'list', resource: 'pvc'},
    effect: body('{}'),
    message: notClaims('got an empty object'),
  },
  {
    id: 'the claims answered a Status with HTTP 200',
    fault: {verb: 'list', resource: 'pvc'},
    effect: body(status200),
    message: notClaims('got a Status with HTTP 200: etcdserver: leader changed'),
  },
  // Internal errors before.
  {
    id: 'the claims list with items a string',
    fault: {verb: 'list', resource: 'pvc'},
    effect: body(claimList({items: 'orders'})),
    message: notClaims('items is a string'),
  },
  {
    id: 'the claims answered null',
    fault: {verb: 'list', resource: 'pvc'},
    effect: body('null'),
    message: notClaims('got null'),
  },
  {
    id: 'the claims list with items null',
    fault: {verb: 'list', resource: 'pvc'},
    effect: body(claimList({items: null})),
    message: notClaims('items is null'),
  },
  // Exit 0 before, as if nothing were wrong.
  {
    id: 'the claims list nested 200,000 deep',
    fault: {verb: 'list', resource: 'pvc'},
    effect: body(
      claimList({items: [{metadata: {name: 'orders', namespace: 'shop'}, spec: 'x'}]}).replace(
        '"spec":"x"',
        `"spec":${deep(200_000)}`,
      ),
    ),
    message: `list persistentvolumeclaims: ${TOO_DEEP}`,
  },
]

describe('untrusted LIST answers: exit 3, one error line naming the request, nothing written', () => {
  for (const row of listRows) {
    for (const mode of ['--dry-run', '--yes'] as const) {
      test(`sync ${mode}: ${row.id}`, async () => {
        const run = await runWith(row.fault, row.effect, ['sync', mode])
        assertClusterError(run, row.message)
        assert.equal(run.stdout, '', 'no plan printed')
        assert.equal(objectWrites(), 0, 'nothing written')
      })
    }
  }

  const otherKinds: Array<{id: string; fault: Omit<FaultSpec, 'effect'>; effect: FaultEffect; message: string}> = [
    {
      id: 'the volumes answered {}',
      fault: {verb: 'list', resource: 'pv'},
      effect: body('{}'),
      message: 'list persistentvolumes: the answer is not a PersistentVolumeList (got an empty object)',
    },
    {
      id: 'the classes answered a Status with HTTP 200',
      fault: {verb: 'list', resource: 'sc'},
      effect: body(status200),
      message:
        'list storageclasses: the answer is not a StorageClassList (got a Status with HTTP 200: etcdserver: leader changed)',
    },
    {
      id: 'the pods answered []',
      fault: {verb: 'list', resource: 'pods'},
      effect: body('[]'),
      message: 'list pods: the answer is not a PodList (got a JSON array)',
    },
    {
      id: 'the nodes answered a list of another kind',
      fault: {verb: 'list', resource: 'nodes'},
      effect: body(claimList({items: []})),
      message: 'list nodes: the answer is not a NodeList (got a PersistentVolumeClaimList)',
    },
  ]
  for (const row of otherKinds) {
    test(`sync --dry-run: ${row.id}`, async () => {
      const run = await runWith(row.fault, row.effect, ['sync', '--dry-run'])
      assertClusterError(run, row.message)
      assert.equal(objectWrites(), 0, 'nothing written')
    })
  }
})

describe('untrusted write answers: the write fails, exit 3, nothing committed, no internal error', () => {
  const rows: Array<{id: string; effect: FaultEffect; why: RegExp}> = [
    {id: 'every PUT answered null', effect: body('null'), why: /\(got null\)$/},
    {
      id: 'every PUT answered a Status of success',
      effect: body('{"kind":"Status","apiVersion":"v1","status":"Success"}'),
      why: /\(got a Status with HTTP 200: Success\)$/,
    },
    {
      id: 'every PUT answered an object without a kind or a name',
      effect: body('{"spec": {}}'),
      why: /\(got an object without a kind\)$/,
    },
  ]
  for (const row of rows) {
    test(`sync --yes: ${row.id}`, async () => {
      const run = await runWith({verb: 'update'}, row.effect, ['sync', '--yes', '-o', 'json'])
      assert.equal(run.code, 3, run.stderr)
      assert.match(run.stderr, /^pvctl: \d+ write\(s\) failed \(see the report\); 0 made; a re-run completes the job$/m)
      assert.ok(!/internal error|\n\s+at /.test(run.stderr + run.stdout), 'no internal error, no stack trace')
      const outcomes: string[] = JSON.parse(run.stdout).actions.map((a: {outcome: string}) => a.outcome)
      const failed = outcomes.filter((o) => o.startsWith('failed: '))
      assert.ok(failed.length > 0, outcomes.join('\n'))
      for (const f of failed) {
        assert.match(
          f,
          /^failed: update persistentvolume(claim)?s(\/status)? "[^"]+": the answer is not a PersistentVolume(Claim)? \(/,
        )
        assert.match(f, row.why)
      }
      assert.ok(!outcomes.includes('written'), 'no write reported as made')
    })
  }
})

// A pvctl that sat out the wait would not end: the describe's timeout fails it rather than hang the suite.
describe('Retry-After: waited out only within bounds; past them the run ends at once', {timeout: 60_000}, () => {
  const rows: Array<{id: string; effect: FaultEffect; args: string[]; message: string}> = [
    {
      id: 'a 429 asking for 3600 s, with --request-timeout 2s',
      effect: {type: 'throttle', retryAfterSeconds: 3600},
      args: ['--request-timeout', '2s'],
      message: `list persistentvolumeclaims: the server asked to wait 3600 s before a retry (HTTP 429, Retry-After); pvctl does not wait longer than ${MAX_RETRY_AFTER_SECONDS} s`,
    },
    {
      id: 'a bare 429 (no Status) asking for 3600 s, no --request-timeout',
      effect: {type: 'body', code: 429, body: '', headers: {'Retry-After': '3600', 'Content-Type': 'text/plain'}},
      args: [],
      message: `list persistentvolumeclaims: the server asked to wait 3600 s before a retry (HTTP 429, Retry-After); pvctl does not wait longer than ${MAX_RETRY_AFTER_SECONDS} s`,
    },
    {
      id: 'a 429 asking for 5 s, past --request-timeout 2s',
      effect: {type: 'throttle', retryAfterSeconds: 5},
      args: ['--request-timeout', '2s'],
      message:
        'list persistentvolumeclaims: the server asked to wait 5 s before a retry (HTTP 429, Retry-After); pvctl does not wait past --request-timeout (2 s)',
    },
  ]
  for (const row of rows) {
    for (const mode of ['--dry-run', '--yes'] as const) {
      test(`sync ${mode}: ${row.id}`, async () => {
        const run = await runWith({verb: 'list', resource: 'pvc'}, row.effect, ['sync', mode, ...row.args])
        assertClusterError(run, row.message)
        assert.equal(
          api.countRequests({verb: 'list', resource: 'pvc'}),
          1,
          'the wait is refused, not sat out and retried',
        )
        assert.equal(objectWrites(), 0, 'nothing written')
      })
    }
  }
})

describe('pvctl explain', {timeout: 60_000}, () => {
  test('the claims answered []: exit 3, one error line', async () => {
    const run = await runWith({verb: 'list', resource: 'pvc'}, body('[]'), ['explain', 'pvc/orders', '-n', 'shop'])
    assertClusterError(run, notClaims('got a JSON array'))
    assert.equal(run.stdout, '')
  })

  test('the volumes nested 200,000 deep: exit 3, one error line', async () => {
    const run = await runWith(
      {verb: 'list', resource: 'pv'},
      body(`{"kind":"PersistentVolumeList","apiVersion":"v1","items":${deep(200_000)}}`),
      ['explain', 'pvc/orders', '-n', 'shop'],
    )
    assertClusterError(run, `list persistentvolumes: ${TOO_DEEP}`)
  })

  test('a 429 asking for 3600 s with --request-timeout 2s: exit 3 at once', async () => {
    const run = await runWith({verb: 'list', resource: 'pv'}, {type: 'throttle', retryAfterSeconds: 3600}, [
      'explain',
      'pvc/orders',
      '-n',
      'shop',
      '--request-timeout',
      '2s',
    ])
    assertClusterError(
      run,
      `list persistentvolumes: the server asked to wait 3600 s before a retry (HTTP 429, Retry-After); pvctl does not wait longer than ${MAX_RETRY_AFTER_SECONDS} s`,
    )
    assert.equal(api.countRequests({verb: 'list', resource: 'pv'}), 1, 'the wait is refused, not sat out and retried')
  })

  test('the events answered []: the evidence says why it is not available, never "no events"', async () => {
    // Explain's evidence is best-effort by design (a forbidden list degrades the answer): an untrusted
    // answer is reported the same way, with what came back, rather than read as an empty list.
    const run = await runWith({verb: 'list', resource: 'events'}, body('[]'), ['explain', 'pvc/orders', '-n', 'shop'])
    assert.equal(run.code, 0, run.stderr)
    assert.match(
      run.stdout,
      /^Events: not available \(list events: the answer is not an EventList \(got a JSON array\)\)$/m,
    )
  })
})
