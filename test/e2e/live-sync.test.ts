// `pvctl sync` against a live API over real HTTPS: the built CLI, @kubernetes/client-node, and the
// API-server emulator (test/emulator). Each row starts a fresh emulator holding the bundled example.
import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {PersistentVolume, PersistentVolumeClaim} from '../../src/engine/api/model.js'
import {reconcile} from '../../src/engine/simulation/reconcile.js'
import {cleanEnv, runCli} from '../cli/run-cli.js'
import {repoRoot} from '../conformance/cases.js'
import type {VolumeOperations} from '../../src/engine/controller/volume-operations.js'
import {type DenyRule, type Emulator, startEmulator} from '../emulator/emulator.js'
import {kubelet} from './kubelet.js'
import {tempDir} from '../temp-dir.js'
import {skipWithout} from '../tools.js'

const TOKEN = 'e2e-secret-token-5f2c'
const dir = tempDir('e2e')
const {state: example} = await loadSnapshot('examples/cluster.yaml')

/** A fresh emulator with the example; a kubelet completes the plugin pods pvctl starts. */
async function cluster(opts: {deny?: DenyRule[]} = {}): Promise<{api: Emulator; kubeconfig: string}> {
  const api = await startEmulator({
    tls: true,
    listItemTypeMeta: false,
    objects: structuredClone([
      ...example.classes,
      ...example.volumes,
      ...example.claims,
      ...example.pods,
      ...example.nodes,
    ]) as never,
    tokens: {[TOKEN]: {user: 'alice', deny: opts.deny}},
  })
  const kubeconfig = path.join(dir, `kubeconfig-${api.port}.yaml`)
  writeFileSync(kubeconfig, api.kubeconfig({token: TOKEN}))
  const stopKubelet = kubelet(api, 'Succeeded')
  const stop = api.stop.bind(api)
  api.stop = async () => {
    stopKubelet()
    await stop()
  }
  return {api, kubeconfig}
}

/** Plugins that always succeed: what the simulation predicts when every recycle and delete works. */
const succeeding: VolumeOperations = {
  recycle: () => undefined,
  delete: () => ({}),
  provision: () => ({provisionError: 'no provisioner'}),
}

/** Writes to the objects pvctl manages (SelfSubjectAccessReviews are creates too, but change nothing). */
const objectWrites = (api: Emulator) =>
  api.countWrites({resource: 'pv'}) + api.countWrites({resource: 'pvc'}) + api.countWrites({resource: 'ev'})

const pvctl = (kubeconfig: string, ...args: string[]) =>
  runCli(['sync', '--kubeconfig', kubeconfig, ...args], {env: {HOME: dir}})

/** What the controller writes, for comparing the emulator's objects with the simulation. */
function written(o: PersistentVolume | PersistentVolumeClaim): unknown {
  const spec = o.spec as Record<string, unknown>
  const ref = spec.claimRef as {namespace?: string; name?: string; uid?: string} | undefined
  return {
    name: `${o.metadata.namespace ?? ''}/${o.metadata.name}`,
    annotations: o.metadata.annotations ?? {},
    claimRef: ref ? {namespace: ref.namespace, name: ref.name, uid: ref.uid} : null,
    volumeName: spec.volumeName ?? null,
    status: {
      phase: o.status?.phase,
      message: o.status?.message ?? null,
      capacity: (o.status as {capacity?: unknown})?.capacity ?? null,
    },
  }
}

function noSecrets(...outputs: string[]): void {
  for (const out of outputs) assert.ok(!out.includes(TOKEN), 'the token must never be printed')
}

test('sync --yes reaches the state the simulation predicts; a dry run afterwards has nothing to write', async () => {
  const {api, kubeconfig} = await cluster()
  try {
    const run = await pvctl(kubeconfig, '--yes', '-o', 'json')
    assert.equal(run.code, 0, run.stderr)
    noSecrets(run.stdout, run.stderr)
    const report = JSON.parse(run.stdout)
    assert.equal(report.dryRun, false)
    assert.ok(
      report.actions.length > 0 &&
        report.actions.every((a: {outcome: string}) => /^(written|executed|conflict-replanned)$/.test(a.outcome)),
    )

    const sim = reconcile(example, {gates: defaultFeatureGates, operations: succeeding})
    const live = [
      ...(api.list('pv') as unknown as PersistentVolume[]),
      ...(api.list('pvc') as unknown as PersistentVolumeClaim[]),
    ].map(written)
    const want = [...sim.volumes, ...sim.claims].map(written)
    const byName = (a: unknown, b: unknown) => ((a as {name: string}).name < (b as {name: string}).name ? -1 : 1)
    assert.deepEqual(live.sort(byName), want.sort(byName))
    assert.ok(
      (api.list('ev') as Array<{source?: {component?: string}}>).some((e) => e.source?.component === 'pvctl'),
      'events recorded',
    )

    api.clearRequests()
    const again = await pvctl(kubeconfig, '--dry-run', '-o', 'json')
    assert.equal(again.code, 0, again.stdout)
    assert.deepEqual(JSON.parse(again.stdout).actions, [])
    assert.equal(objectWrites(api), 0, 'a dry run writes nothing')
  } finally {
    await api.stop()
  }
})

test('sync --yes keeps the fields it does not know: those of a newer API server survive its writes', async () => {
  // Fields of a Kubernetes newer than the client library's models, in spec, status and metadata, and a
  // timestamp with its exact text: a write must send back the object as it was read, plus its change.
  const newer = (o: {spec?: object; status?: object}) => ({
    ...o,
    spec: {...o.spec, futureSpecField: {mode: 'fast'}},
    status: {...o.status, futureStatusField: 'kept'},
  })
  const api = await startEmulator({
    tls: true,
    listItemTypeMeta: false,
    objects: structuredClone([
      ...example.classes,
      ...example.volumes.map((v) => ({
        ...newer(v),
        metadata: {...v.metadata, creationTimestamp: '2026-01-02T03:04:05Z'},
      })),
      ...example.claims.map(newer),
      ...example.pods,
      ...example.nodes,
    ]) as never,
    tokens: {[TOKEN]: {user: 'alice'}},
  })
  const kubeconfig = path.join(dir, `kubeconfig-${api.port}.yaml`)
  writeFileSync(kubeconfig, api.kubeconfig({token: TOKEN}))
  const stopKubelet = kubelet(api, 'Succeeded')
  try {
    const run = await pvctl(kubeconfig, '--yes', '-o', 'json')
    assert.equal(run.code, 0, run.stderr)
    const report = JSON.parse(run.stdout) as {
      actions: Array<{object: {kind: string; namespace?: string; name: string}; outcome: string}>
    }
    const written = new Set(
      report.actions
        .filter((a) => a.outcome === 'written')
        .map((a) => `${a.object.kind}/${a.object.namespace ?? ''}/${a.object.name}`),
    )
    assert.ok(written.size > 0)
    const objects = [
      ...(api.list('pv') as Array<Record<string, any>>),
      ...(api.list('pvc') as Array<Record<string, any>>),
    ]
    // Those still there (a volume written and then deleted by its reclaim policy is not).
    const checked = objects.filter((o) => written.has(`${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`))
    assert.deepEqual([...new Set(checked.map((o) => o.kind))].sort(), ['PersistentVolume', 'PersistentVolumeClaim'])
    for (const o of checked) {
      const name = `${o.kind} ${o.metadata.name}`
      assert.deepEqual(o.spec.futureSpecField, {mode: 'fast'}, `${name}: spec.futureSpecField`)
      assert.equal(o.status?.futureStatusField, 'kept', `${name}: status.futureStatusField`)
      if (o.kind === 'PersistentVolume' && !o.metadata.name.startsWith('pvc-'))
        assert.equal(o.metadata.creationTimestamp, '2026-01-02T03:04:05Z', `${name}: creationTimestamp`)
    }
  } finally {
    stopKubelet()
    await api.stop()
  }
})

test('--dry-run performs zero writes and paginates its lists', async () => {
  const {api, kubeconfig} = await cluster()
  try {
    const run = await pvctl(kubeconfig, '--dry-run')
    assert.equal(run.code, 1, run.stderr)
    assert.equal(api.countWrites(), 0)
    const lists = api.requests.filter((r) => r.verb === 'list')
    assert.equal(lists.length, 5)
    assert.ok(
      lists.every((r) => new URLSearchParams(r.query).get('limit') === '500'),
      'every list is paginated',
    )
  } finally {
    await api.stop()
  }
})

test('without a terminal and without --yes it refuses to write (exit 2)', async () => {
  const {api, kubeconfig} = await cluster()
  try {
    const run = await pvctl(kubeconfig)
    assert.equal(run.code, 2)
    assert.match(run.stderr.trim(), /^error: refusing to write without confirmation: .*--yes/)
    assert.equal(objectWrites(api), 0)
  } finally {
    await api.stop()
  }
})

const faultRows: Array<{
  name: string
  deny?: DenyRule[]
  fault?: Parameters<Emulator['faults']['add']>[0]
  exit: number
  stderr: RegExp
  writes?: 'none' | 'some'
  outcome?: RegExp
}> = [
  {
    name: 'a permission the plan needs is missing: named before anything is written (exit 3)',
    deny: [{verb: 'update', resource: 'persistentvolumes', subresource: 'status'}],
    exit: 3,
    stderr: /^error: missing permissions: update persistentvolumes\/status \(cluster-wide\)$/,
    writes: 'none',
  },
  {
    // The example recycles and deletes: their pods are part of the plan's needs, asked before any write.
    name: "a permission only the volume plugins need (the recycler's pod) is named before anything is written (exit 3)",
    deny: [{verb: 'create', resource: 'pods'}],
    exit: 3,
    stderr: /^error: missing permissions: create pods in namespace default$/,
    writes: 'none',
  },
  {
    name: 'a 500 storm: the writes fail, the run says so (exit 3)',
    fault: {verb: 'update', resource: 'pvc', effect: {type: 'status', code: 500}},
    exit: 3,
    stderr: /write\(s\) failed .*a re-run completes the job/,
    outcome: /^failed: update persistentvolumeclaims/,
  },
  {
    name: 'a 429 with Retry-After is waited out and retried',
    fault: {verb: 'update', resource: 'pv', count: 1, effect: {type: 'throttle', retryAfterSeconds: 1}},
    exit: 0,
    stderr: /writes made/,
  },
  {
    name: 'a dropped connection is retried',
    fault: {verb: 'update', resource: 'pvc', count: 1, effect: {type: 'drop'}},
    exit: 0,
    stderr: /writes made/,
  },
  {
    name: 'a conflict re-reads and re-plans',
    fault: {verb: 'update', resource: 'pv', name: 'pv-0002', count: 1, effect: {type: 'conflict'}},
    exit: 0,
    stderr: /writes made/,
    outcome: /^conflict-replanned$/,
  },
]

for (const row of faultRows) {
  test(row.name, async () => {
    const {api, kubeconfig} = await cluster({deny: row.deny})
    try {
      if (row.fault) api.faults.add(row.fault)
      const run = await pvctl(kubeconfig, '--yes', '-o', 'json')
      noSecrets(run.stdout, run.stderr)
      assert.equal(run.code, row.exit, run.stderr)
      const lines = run.stderr.trim().split('\n')
      assert.ok(
        lines.some((l) => row.stderr.test(l)),
        run.stderr,
      )
      assert.ok(!/\n\s+at /.test(run.stderr), 'no stack trace')
      if (row.writes === 'none') assert.equal(objectWrites(api), 0)
      if (row.outcome) {
        const report = JSON.parse(run.stdout)
        assert.ok(
          report.actions.some((a: {outcome: string}) => row.outcome!.test(a.outcome)),
          JSON.stringify(report.actions.map((a: {outcome: string}) => a.outcome)),
        )
      }
    } finally {
      await api.stop()
    }
  })
}

test('a writer that changes a claim between our read and our write keeps its change', async () => {
  const {api, kubeconfig} = await cluster()
  try {
    // The other writer acts when pvctl's update of the claim arrives, just before the server serves it.
    const other = api.faults.add({
      verb: 'update',
      resource: 'pvc',
      name: 'orders',
      count: 1,
      effect: {
        type: 'hook',
        run: () => {
          const claim = api.get('pvc', 'shop', 'orders') as unknown as PersistentVolumeClaim
          api.update({...claim, metadata: {...claim.metadata, labels: {owner: 'someone-else'}}} as never)
        },
      },
    })
    const run = await pvctl(kubeconfig, '--yes', '-o', 'json')
    assert.equal(other.fired, 1, 'the other writer acted between our read and our write')
    assert.equal(run.code, 0, run.stderr)
    const after = api.get('pvc', 'shop', 'orders') as unknown as PersistentVolumeClaim
    assert.deepEqual(after.metadata.labels, {owner: 'someone-else'})
    assert.equal(after.spec.volumeName, 'pv-0002')
    assert.equal(after.status?.phase, 'Bound')
  } finally {
    await api.stop()
  }
})

test('a kubeconfig user with a tokenFile sends the token the file holds (as in a pod)', async () => {
  const {api} = await cluster()
  try {
    const tokenFile = path.join(dir, `token-${api.port}`)
    writeFileSync(tokenFile, `${TOKEN}\n`)
    const kubeconfig = path.join(dir, `kubeconfig-tokenfile-${api.port}.yaml`)
    writeFileSync(kubeconfig, api.kubeconfig({}).replace('user: {}', `user:\n      tokenFile: ${tokenFile}`))
    const run = await pvctl(kubeconfig, '--dry-run')
    assert.equal(run.code, 1, run.stderr)
    assert.ok(
      api.requests.length > 0 && api.requests.every((r) => r.user === 'alice'),
      "every request authenticated as the token's user",
    )
    noSecrets(run.stdout, run.stderr)
  } finally {
    await api.stop()
  }
})

test('an unknown token: Unauthorized, exit 3, and the token is not printed', async () => {
  const {api, kubeconfig} = await cluster()
  try {
    const bad = path.join(dir, 'bad-token.yaml')
    writeFileSync(bad, api.kubeconfig({token: 'expired-token-0000'}))
    const run = await pvctl(bad, '--dry-run')
    assert.equal(run.code, 3)
    assert.match(run.stderr.trim(), /^error: list \S+: Unauthorized/)
    assert.ok(!run.stderr.includes('expired-token-0000'))
  } finally {
    await api.stop()
  }
})

test('an unreachable API server: one line, exit 3', async () => {
  const {api, kubeconfig} = await cluster()
  await api.stop()
  const run = await pvctl(kubeconfig, '--dry-run')
  assert.equal(run.code, 3)
  assert.match(run.stderr.trim(), /^error: cannot reach the API server at https:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/)
})

test('a server certificate the kubeconfig does not trust: a TLS error, exit 3', async () => {
  const {api} = await cluster()
  try {
    const untrusted = path.join(dir, 'untrusted.yaml')
    writeFileSync(untrusted, api.kubeconfig({token: TOKEN}).replace(/^\s*certificate-authority-data: .*$/m, ''))
    const run = await pvctl(untrusted, '--dry-run')
    assert.equal(run.code, 3)
    assert.match(
      run.stderr.trim(),
      /^error: TLS verification of the API server at https:\/\/127\.0\.0\.1:\d+ failed: \S+$/,
    )
  } finally {
    await api.stop()
  }
})

test('--request-timeout: a request not answered in time fails the run (exit 3)', async () => {
  const {api, kubeconfig} = await cluster()
  try {
    api.faults.add({verb: 'list', resource: 'pv', effect: {type: 'latency', ms: 5000}})
    const run = await pvctl(kubeconfig, '--dry-run', '--request-timeout', '300ms')
    assert.equal(run.code, 3, run.stderr)
    assert.match(run.stderr.trim(), /^error: listVolumes: no answer within --request-timeout \(300 ms\)$/)
  } finally {
    await api.stop()
  }
})

test('Ctrl-C stops issuing writes, lets the one in flight finish, and a re-run completes the job', async () => {
  const {api, kubeconfig} = await cluster()
  try {
    const child = spawn(
      process.execPath,
      [
        path.join(repoRoot, 'bin/run.js'),
        'sync',
        '--kubeconfig',
        kubeconfig,
        '--yes',
        '--concurrency',
        '1',
        '-o',
        'json',
      ],
      {
        env: cleanEnv({HOME: dir}),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (b: Buffer) => (stdout += b))
    const noted = new Promise<void>((resolve) =>
      child.stderr.on('data', (b: Buffer) => {
        stderr += b
        if (/interrupted: finishing the writes in flight, issuing no more/.test(stderr)) resolve()
      }),
    )
    // Ctrl-C while the second write is in flight: the request is served once pvctl has taken the interrupt.
    const interrupted = api.faults.add({
      verb: 'update',
      skip: 1,
      count: 1,
      effect: {
        type: 'hook',
        run: async () => {
          child.kill('SIGINT')
          await noted
        },
      },
    })
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    const code = await exited
    assert.equal(interrupted.fired, 1, stderr)
    assert.equal(code, 130, stderr)
    assert.match(
      stderr,
      /interrupted: \d+ writes? made \(\d+ of the \d+ planned\); the rest not issued; run pvctl sync again to complete the job/,
    )
    const report = JSON.parse(stdout)
    assert.equal(report.converged, false, 'a run that was stopped did not converge')
    const made = report.actions.filter((a: {outcome: string}) => a.outcome === 'written').length
    assert.equal(made, 2, 'the write before the interrupt and the one in flight, no more')
    assert.equal(
      api.countWrites({resource: 'pv'}) + api.countWrites({resource: 'pvc'}),
      made,
      'no write was issued that the report does not show',
    )

    const rerun = await pvctl(kubeconfig, '--yes', '-o', 'json')
    assert.equal(rerun.code, 0, rerun.stderr)
    const after = await pvctl(kubeconfig, '--dry-run', '-o', 'json')
    assert.equal(after.code, 0, after.stdout)
  } finally {
    await api.stop()
  }
})

/**
 * `pvctl sync` on a terminal (a pseudo-terminal from util-linux `script`, 100 columns), answering the
 * prompt with `answer` once it shows; its exit status and how much was written.
 */
async function answerPrompt(kubeconfig: string, answer: string): Promise<{code: number | null; output: string}> {
  const command = `stty cols 100 rows 40; exec ${JSON.stringify(process.execPath)} bin/run.js sync --kubeconfig ${JSON.stringify(kubeconfig)}`
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: repoRoot,
    env: cleanEnv({HOME: dir, CI: undefined, TERM: 'xterm'}),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let output = ''
  let answered = false
  const onData = (b: Buffer) => {
    output += b.toString()
    if (!answered && /type "yes" to continue/.test(output)) {
      answered = true
      child.stdin.write(answer)
    }
  }
  child.stdout.on('data', onData)
  child.stderr.on('data', onData)
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  clearTimeout(timer)
  return {code, output}
}

const noTerminal = skipWithout('script', 'the confirmation on a pseudo-terminal')

for (const [what, answer] of [
  ['Ctrl-D', '\u0004'],
  ['"no"', 'no\r'],
] as const) {
  test(
    `the confirmation answered with ${what}: nothing written, exit 1 (changes not made), not 0`,
    {skip: noTerminal},
    async () => {
      const {api, kubeconfig} = await cluster()
      try {
        const {code, output} = await answerPrompt(kubeconfig, answer)
        assert.match(output, /nothing written \(not confirmed\)/, output.slice(-2000))
        // The plan was shown before the question; declined, it is not printed a second time.
        assert.equal(output.match(/Plan: /g)?.length, 1, output.slice(-2000))
        assert.equal(code, 1)
        assert.equal(api.countWrites(), 0)
      } finally {
        await api.stop()
      }
    },
  )
}
