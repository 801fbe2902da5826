// kubectl's conventions at the command line: -h, version and --version, TYPE NAME arguments.
import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {startEmulator} from '../emulator/emulator.js'
import {example, runCli, tempDir} from './run-cli.js'

test('pvctl -h is pvctl --help; pvctl sync -h is pvctl sync --help', async () => {
  const [short, long, syncShort, syncLong] = await Promise.all([
    runCli(['-h']),
    runCli(['--help']),
    runCli(['sync', '-h']),
    runCli(['sync', '--help']),
  ])
  assert.equal(short.code, 0, short.stderr)
  assert.equal(short.stdout, long.stdout)
  assert.equal(syncShort.code, 0, syncShort.stderr)
  assert.equal(syncShort.stdout, syncLong.stdout)
  assert.match(syncShort.stdout, /^USAGE/m)
})

test("pvctl --version and pvctl version --client: the client version, as text and as kubectl's JSON", async () => {
  const [text, json, viaFlag] = await Promise.all([
    runCli(['--version']),
    runCli(['version', '--client', '-o', 'json']),
    runCli(['--version', '-o', 'json']),
  ])
  assert.equal(text.code, 0, text.stderr)
  assert.equal(
    text.stdout,
    'Client Version: v0.1.0\nDecided as Kubernetes v1.31 (the default: which release the cluster runs is not known)\n',
  )
  assert.equal(json.code, 0, json.stderr)
  const doc = JSON.parse(json.stdout)
  assert.deepEqual(Object.keys(doc), ['clientVersion', 'kubernetesVersion'])
  assert.deepEqual(doc.kubernetesVersion, {version: 'v1.31', source: 'default'})
  assert.equal(doc.clientVersion.gitVersion, 'v0.1.0')
  assert.match(doc.clientVersion.platform, /^[a-z0-9]+\/[a-z0-9]+$/)
  assert.equal(viaFlag.stdout, json.stdout)
})

test('pvctl version with a reachable cluster prints the server version too (GET /version), and the release pvctl decides as', async () => {
  const api = await startEmulator({version: 'v1.34.2'})
  try {
    const kubeconfig = path.join(tempDir('version'), 'kubeconfig')
    writeFileSync(kubeconfig, api.kubeconfig({namespace: 'default'}))
    const [text, json, forced] = await Promise.all([
      runCli(['version', '--kubeconfig', kubeconfig]),
      runCli(['version', '--kubeconfig', kubeconfig, '-o', 'json']),
      runCli(['version', '--kubeconfig', kubeconfig, '--kube-version', '1.31', '-o', 'json']),
    ])
    assert.equal(text.code, 0, text.stderr)
    assert.equal(
      text.stdout,
      "Client Version: v0.1.0\nServer Version: v1.34.2\nDecided as Kubernetes v1.34 (the API server's /version, v1.34.2)\n",
    )
    const doc = JSON.parse(json.stdout)
    assert.deepEqual(Object.keys(doc), ['clientVersion', 'serverVersion', 'kubernetesVersion'])
    assert.equal(doc.serverVersion.gitVersion, 'v1.34.2')
    assert.equal(doc.serverVersion.minor, '34')
    assert.deepEqual(doc.kubernetesVersion, {version: 'v1.34', source: 'server', observed: 'v1.34.2'})
    assert.deepEqual(JSON.parse(forced.stdout).kubernetesVersion, {version: 'v1.31', source: 'flag'})
  } finally {
    await api.stop()
  }
})

test('pvctl version with an unreachable cluster prints the client version, then an error', async () => {
  const kubeconfig = path.join(tempDir('version'), 'kubeconfig')
  writeFileSync(
    kubeconfig,
    `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:1", insecure-skip-tls-verify: true}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`,
  )
  const r = await runCli(['version', '--kubeconfig', kubeconfig])
  assert.equal(
    r.stdout,
    'Client Version: v0.1.0\nDecided as Kubernetes v1.31 (the default: which release the cluster runs is not known)\n',
  )
  assert.match(r.stderr, /^error: /)
  assert.equal(r.code, 3)
})

/**
 * A plan stamps the volumes whose phase it changes with the API server's clock, now, as kube-apiserver does
 * (status.lastPhaseTransitionTime): two runs of the same command a second apart differ there and only there.
 */
function unstamped(output: string): string {
  return output.replace(/"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"/g, '"(the API server\'s clock)"')
}

test('TYPE NAME as well as TYPE/NAME: explain pvc logs -n shop, sync pv pv-0006', async () => {
  const [typeName, slashed, syncTypeName, syncSlashed] = await Promise.all([
    runCli(['explain', 'pvc', 'logs', '-n', 'shop', '-f', example, '-o', 'json']),
    runCli(['explain', 'pvc/logs', '-n', 'shop', '-f', example, '-o', 'json']),
    runCli(['sync', 'pv', 'pv-0006', '--dry-run', '-f', example, '-o', 'json']),
    runCli(['sync', 'pv/pv-0006', '--dry-run', '-f', example, '-o', 'json']),
  ])
  assert.equal(typeName.code, slashed.code, typeName.stderr)
  assert.equal(typeName.stdout, slashed.stdout)
  assert.equal(syncTypeName.code, 1, syncTypeName.stderr)
  assert.equal(unstamped(syncTypeName.stdout), unstamped(syncSlashed.stdout))
  assert.ok(JSON.parse(syncTypeName.stdout).actions.length > 0)
})

test("flags before the command, as kubectl's: every command answers as with them after it", async () => {
  const reclaim = path.join(path.dirname(example), 'reclaim.yaml')
  const relink = path.join(path.dirname(example), 'relink.yaml')
  const rows: Array<{before: string[]; after: string[]}> = [
    {
      before: ['-n', 'shop', 'explain', 'pvc/logs', '-f', example, '-o', 'json'],
      after: ['explain', 'pvc/logs', '-n', 'shop', '-f', example, '-o', 'json'],
    },
    {before: ['-n', 'shop', '-f', example, 'why', 'pvc/logs'], after: ['why', 'pvc/logs', '-n', 'shop', '-f', example]},
    {
      before: ['--namespace=shop', '-f', example, 'sync', '--dry-run', '-o', 'json'],
      after: ['sync', '--dry-run', '-o', 'json', '--namespace=shop', '-f', example],
    },
    {before: ['-f', example, '-A', 'audit', '-o', 'json'], after: ['audit', '-f', example, '-A', '-o', 'json']},
    {
      before: ['-f', reclaim, 'reclaim', 'pv/pv-0004', '--for', 'shop/db', '-o', 'json'],
      after: ['reclaim', 'pv/pv-0004', '--for', 'shop/db', '-f', reclaim, '-o', 'json'],
    },
    {
      before: ['-nshop', '-f', relink, 'relink', 'pvc/db', '-o', 'json'],
      after: ['relink', 'pvc/db', '-n', 'shop', '-f', relink, '-o', 'json'],
    },
    {before: ['-o', 'json', 'version', '--client'], after: ['version', '--client', '-o', 'json']},
    {before: ['--help', 'sync'], after: ['sync', '--help']},
  ]
  const runs = await Promise.all(rows.map((r) => Promise.all([runCli(r.before), runCli(r.after)])))
  runs.forEach(([before, after], i) => {
    const line = rows[i].before.join(' ')
    assert.equal(before.stderr, after.stderr, line)
    assert.equal(unstamped(before.stdout), unstamped(after.stdout), line)
    assert.equal(before.code, after.code, line)
    assert.ok(before.code !== 2 && before.stdout !== '', `${line}: ${before.stderr}`)
  })
})

test('--context and --kubeconfig before the command reach a live cluster', async () => {
  const api = await startEmulator({})
  try {
    const kubeconfig = path.join(tempDir('flags-first'), 'kubeconfig')
    writeFileSync(kubeconfig, api.kubeconfig({namespace: 'default', name: 'demo'}))
    const r = await runCli(['--kubeconfig', kubeconfig, '--context', 'demo', 'sync', '--dry-run'])
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /^No changes/)
  } finally {
    await api.stop()
  }
})

test("flags with no command after them, and kubectl's -v: one clear error each, exit 2", async () => {
  const [flagsOnly, v] = await Promise.all([runCli(['-n', 'shop']), runCli(['-v'])])
  assert.equal(flagsOnly.code, 2)
  assert.match(
    flagsOnly.stderr,
    /^error: no command after "-n": pvctl \[FLAGS\] COMMAND \[FLAGS\], e\.g\. pvctl -n shop explain pvc\/NAME; its commands: audit, /,
  )
  assert.equal(v.code, 2)
  assert.equal(
    v.stderr,
    'error: "-v" is not the version: it is loop mode\'s log level, as kubectl\'s (pvctl sync --watch -v 2); the version: pvctl --version\n',
  )
})

test('bin/kubectl-pvctl.js (kubectl pvctl): the help names the command as kubectl runs it', async () => {
  const {spawnSync} = await import('node:child_process')
  const {cleanEnv, repoRoot} = await import('./run-cli.js')
  const pjson = JSON.parse((await import('node:fs')).readFileSync(path.join(repoRoot, 'package.json'), 'utf8'))
  assert.equal(pjson.bin['kubectl-pvctl'], './bin/kubectl-pvctl.js')
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'kubectl-pvctl.js'), 'sync', '-h'], {
    env: cleanEnv(),
    encoding: 'utf8',
  })
  assert.equal(r.status, 0, r.stderr)
  assert.match(r.stdout, /^ {2}\$ kubectl pvctl sync \[OBJECTS\.\.\.\]/m)
  assert.match(r.stdout, /\$ kubectl pvctl sync --dry-run -f examples\/cluster\.yaml/)
  assert.doesNotMatch(r.stdout, /\$ pvctl /)
})

test('in a pipe the sync table is never truncated: every reason whole', async () => {
  const [table, json] = await Promise.all([
    runCli(['sync', '--dry-run', '-f', example]),
    runCli(['sync', '--dry-run', '-f', example, '-o', 'json']),
  ])
  assert.equal(table.code, 1, table.stderr)
  assert.ok(!table.stdout.includes('…'), table.stdout)
  for (const a of JSON.parse(json.stdout).actions as Array<{reason: string}>)
    assert.ok(table.stdout.includes(a.reason.replace(/\s*\n\s*/g, ' ')), a.reason)
})

test("-o name, as kubectl's name printer: RESOURCE/NAME without the namespace, each object once, the exit status unchanged", async () => {
  const [sync, syncJson, audit, auditJson, explainList, explainClaim, explainVolume] = await Promise.all([
    runCli(['sync', '--dry-run', '-f', example, '-o', 'name']),
    runCli(['sync', '--dry-run', '-f', example, '-o', 'json']),
    runCli(['audit', '-f', example, '-o', 'name']),
    runCli(['audit', '-f', example, '-o', 'json']),
    runCli(['explain', '-A', '-f', example, '-o', 'name']),
    runCli(['explain', 'pvc', 'logs', '-n', 'shop', '-f', example, '-o', 'name']),
    runCli(['explain', 'pv/pv-0004', '-f', example, '-o', 'name']),
  ])
  const resource = (o: {kind: string; name: string}) =>
    `${o.kind === 'PersistentVolumeClaim' ? 'persistentvolumeclaim' : o.kind === 'PersistentVolume' ? 'persistentvolume' : 'storageclass.storage.k8s.io'}/${o.name}`
  const once = (names: string[]) => [...new Set(names)].map((n) => `${n}\n`).join('')
  assert.equal(sync.code, syncJson.code, sync.stderr)
  assert.equal(
    sync.stdout,
    once(
      (JSON.parse(syncJson.stdout).actions as Array<{object: {kind: string; name: string}}>).map((a) =>
        resource(a.object),
      ),
    ),
  )
  assert.match(sync.stdout, /^persistentvolumeclaim\/carts\npersistentvolume\/pv-0002\n/)
  assert.equal(audit.code, auditJson.code, audit.stderr)
  assert.equal(
    audit.stdout,
    once(
      (JSON.parse(auditJson.stdout).findings as Array<{object: {kind: string; name: string}}>).map((f) =>
        resource(f.object),
      ),
    ),
  )
  assert.equal(
    explainList.stdout,
    'persistentvolumeclaim/carts\npersistentvolumeclaim/logs\npersistentvolumeclaim/orders\npersistentvolumeclaim/reports-b\npersistentvolumeclaim/search\npersistentvolumeclaim/sessions\n',
  )
  assert.equal(explainClaim.stdout, 'persistentvolumeclaim/logs\n')
  assert.equal(explainClaim.code, 1)
  assert.equal(explainVolume.stdout, 'persistentvolume/pv-0004\n')
})

test('--no-headers: every table without its header line, the rows as they were', async () => {
  const runs = [
    {
      args: ['sync', '--dry-run', '-f', example],
      headers: [/^ACTION +OBJECT +REASON$/m, /^TYPE +REASON +OBJECT +MESSAGE$/m],
    },
    {args: ['audit', '-f', example], headers: [/^CODE +OBJECT +MESSAGE$/m]},
    {args: ['explain', 'pvc/logs', '-n', 'shop', '-f', example], headers: [/^VOLUME +CAPACITY +MODES/m]},
    {
      args: ['explain', '-A', '-f', example],
      headers: [/^NAMESPACE +NAME +PHASE +VERDICT/m, /^VOLUME +CAPACITY +MODES/m],
    },
  ]
  for (const run of runs) {
    const [withHeaders, without] = await Promise.all([runCli(run.args), runCli([...run.args, '--no-headers'])])
    assert.equal(without.code, withHeaders.code, without.stderr)
    for (const header of run.headers) {
      assert.match(withHeaders.stdout, header)
      assert.doesNotMatch(without.stdout, header, run.args.join(' '))
    }
    // Nothing but the header lines went: the other lines are the same, column widths aside.
    const squeeze = (text: string) => text.split('\n').map((l) => l.replace(/ {3,}/g, '   ').trimEnd())
    const kept = squeeze(withHeaders.stdout).filter((l) => !run.headers.some((h) => new RegExp(h.source).test(l)))
    assert.deepEqual(squeeze(without.stdout), kept, run.args.join(' '))
  }
})
