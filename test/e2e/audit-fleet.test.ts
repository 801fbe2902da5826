// `pvctl audit --context a,b` and `--all-contexts`: several clusters of one kubeconfig audited in one run,
// through the built CLI, against API-server emulators on 127.0.0.1 — the bundled example, a healthy cluster,
// one that refuses the list of claims, one whose answer cannot be trusted — and a context pointing at a
// closed port. A cluster not read is a finding of its own and the others are still audited; a --context
// the kubeconfig lacks is a usage error before any cluster is read.
import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:net'
import path from 'node:path'
import {after, before, describe, test} from 'node:test'

import {Ajv2020} from 'ajv/dist/2020.js'
import {parse as parseYaml, stringify} from 'yaml'

import {example, IN_SYNC_SNAPSHOT, repoRoot, runCli, tempDir} from '../cli/run-cli.js'
import {type Emulator, startEmulator} from '../emulator/emulator.js'
import {loadObjects} from '../emulator/load-objects.js'

type Json = Record<string, any>

const TOKEN = 'e2e-fleet-token-51c0'
const dir = tempDir('e2e-fleet')
const emulators: Record<string, Emulator> = {}
let kubeconfig: string
/** The port of a socket opened and closed again: nothing listens there. */
let closedPort: number

const schemaOf = (name: string) => JSON.parse(readFileSync(path.join(repoRoot, 'schema', name), 'utf8')) as Json
const ajv = new Ajv2020({allErrors: true, strict: true, strictRequired: false})
ajv.addSchema(schemaOf('audit-report.schema.json'))
const validateList = ajv.compile(schemaOf('audit-report-list.schema.json'))

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const {port} = server.address() as {port: number}
      server.close(() => resolve(port))
    })
    server.on('error', reject)
  })
}

before(async () => {
  const healthy = path.join(dir, 'healthy.yaml')
  writeFileSync(healthy, IN_SYNC_SNAPSHOT)
  emulators.shop = await startEmulator({objects: loadObjects(example)})
  emulators.healthy = await startEmulator({objects: loadObjects(healthy)})
  emulators.healthy2 = await startEmulator({objects: loadObjects(healthy)})
  // TLS, as the token must not travel over plain HTTP (pvctl would warn).
  emulators.forbidden = await startEmulator({
    tls: true,
    objects: loadObjects(healthy),
    tokens: {[TOKEN]: {user: 'alice', deny: [{verb: 'list', resource: 'persistentvolumeclaims'}]}},
  })
  emulators.liar = await startEmulator({objects: loadObjects(healthy)})
  emulators.liar.faults.add({
    verb: 'list',
    resource: 'persistentvolumes',
    effect: {type: 'body', code: 200, body: '[]'},
  })
  closedPort = await freePort()
  // One kubeconfig, a context per cluster, as `kubectl config view --flatten` of several would be.
  const docs = Object.entries(emulators).map(
    ([name, api]) =>
      parseYaml(
        api.kubeconfig({
          name,
          ...(name === 'forbidden' ? {token: TOKEN} : {}),
          ...(name === 'healthy' ? {namespace: 'app'} : {}),
        }),
      ) as Json,
  )
  // A closed port, and a context whose cluster entry is missing.
  const down = {
    clusters: [
      {
        name: 'down',
        cluster: {server: `https://user:s3cret@127.0.0.1:${closedPort}`, 'insecure-skip-tls-verify': true},
      },
    ],
    users: [{name: 'down', user: {}}],
    contexts: [
      {name: 'down', context: {cluster: 'down', user: 'down'}},
      {name: 'broken', context: {cluster: 'nowhere', user: 'down'}},
    ],
  }
  const merged = {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'shop',
    clusters: [] as Json[],
    users: [] as Json[],
    contexts: [] as Json[],
  }
  for (const d of [...docs, down])
    for (const key of ['clusters', 'users', 'contexts'] as const) merged[key].push(...d[key])
  kubeconfig = path.join(dir, 'kubeconfig.yaml')
  writeFileSync(kubeconfig, stringify(merged))
})

after(async () => {
  for (const api of Object.values(emulators)) await api.stop()
})

const audit = (...args: string[]) => runCli(['audit', '--kubeconfig', kubeconfig, ...args], {env: {HOME: dir}})
const items = (stdout: string) => (JSON.parse(stdout) as Json).items as Json[]

describe('pvctl audit of a fleet (API-server emulators)', () => {
  test('the table: a total, a table of the clusters, then a section per context; the closed port is a finding, exit 1', async () => {
    const r = await audit('--context', 'shop,down')
    assert.equal(r.code, 1, r.stderr)
    assert.equal(r.stderr, '')
    const lines = r.stdout.split('\n')
    assert.equal(
      lines[0],
      'Fleet: 2 clusters (1 not read); 4 errors, 1 warning, 1 info; the controllers would make 11 writes first.',
    )
    assert.match(lines[2], /^CONTEXT +STATUS +HEALTHY CLAIMS +HEALTHY VOLUMES +ERRORS +WARNINGS +INFO +WRITES$/)
    assert.match(lines[3], /^shop +Read +3\/7 +6\/7 +3 +1 +1 +11$/)
    assert.match(lines[4], /^down +NotRead +<unknown> +<unknown> +1 +0 +0 +<unknown>$/)
    const shop = r.stdout.indexOf(
      '=== context shop ===\nAudit: 3/7 claims and 6/7 volumes healthy; 3 errors, 1 warning, 1 info;',
    )
    const down = r.stdout.indexOf(
      '=== context down ===\nAudit: the cluster could not be read, nothing of it was audited; 1 error, 0 warnings, 0 info.',
    )
    assert.ok(shop > 0 && down > shop, r.stdout)
    assert.match(
      r.stdout,
      new RegExp(
        `ClusterUnreachable +cluster/down +The cluster of context down could not be audited: cannot reach the API server at https://<redacted>@127\\.0\\.0\\.1:${closedPort}: ECONNREFUSED\\.`,
      ),
    )
    assert.ok(!r.stdout.includes('s3cret'), 'no credentials in the output')
    // Each kubectl fix aims at its own cluster; where the codes are described is said once.
    assert.match(
      r.stdout,
      new RegExp(`pvc/shop/sessions: kubectl delete pvc sessions -n shop --kubeconfig ${kubeconfig} --context shop\\n`),
    )
    assert.match(
      r.stdout,
      new RegExp(`cluster/down: kubectl cluster-info --kubeconfig ${kubeconfig} --context down\\n`),
    )
    assert.equal(
      r.stdout.split('Every code is described in pvctl audit --help (FINDING CODES) and man pvctl-audit.').length,
      2,
    )
  })

  test('-o json: an AuditReportList, one AuditReport per context in the order given, valid against the schema; -o yaml the same', async () => {
    const json = await audit('--context', 'down,shop', '-o', 'json')
    const yaml = await audit('--context', 'down,shop', '-o', 'yaml')
    assert.deepEqual([json.code, yaml.code], [1, 1], json.stderr + yaml.stderr)
    const doc = JSON.parse(json.stdout) as Json
    assert.ok(validateList(doc), ajv.errorsText(validateList.errors))
    assert.deepEqual(parseYaml(yaml.stdout), doc)
    assert.deepEqual([doc.apiVersion, doc.kind], ['pvctl/v1alpha1', 'AuditReportList'])
    assert.deepEqual(
      doc.items.map((i: Json) => [i.kind, i.context, Object.keys(i).slice(0, 3).join(',')]),
      [
        ['AuditReport', 'down', 'apiVersion,kind,context'],
        ['AuditReport', 'shop', 'apiVersion,kind,context'],
      ],
    )
    const [unread, shop] = doc.items
    assert.deepEqual(
      unread.findings.map((f: Json) => [f.code, f.severity, f.object]),
      [['ClusterUnreachable', 'error', {kind: 'Cluster', name: 'down'}]],
    )
    assert.deepEqual(unread.findings[0].evidence, {
      context: 'down',
      server: `https://<redacted>@127.0.0.1:${closedPort}`,
      cause: 'unreachable',
      status: 0,
      error: `cannot reach the API server at https://<redacted>@127.0.0.1:${closedPort}: ECONNREFUSED`,
    })
    assert.deepEqual([unread.summary.claims, unread.summary.plannedWrites], [0, 0])
    assert.deepEqual([shop.summary.claims, shop.plannedChanges.writes, shop.findings.length], [7, 11, 5])
  })

  const rows: Array<{
    name: string
    args: string[]
    code: number
    contexts?: string[]
    codes?: string[][]
    stderr?: RegExp
    read?: string[]
  }> = [
    {
      name: 'healthy clusters only: exit 0',
      args: ['--context', 'healthy,healthy2'],
      code: 0,
      contexts: ['healthy', 'healthy2'],
      codes: [[], []],
    },
    {
      name: 'a forbidden list is ClusterForbidden, fixed by asking kubectl auth can-i',
      args: ['--context', 'healthy,forbidden'],
      code: 1,
      contexts: ['healthy', 'forbidden'],
      codes: [[], ['ClusterForbidden']],
    },
    {
      name: 'an answer pvctl cannot trust is ClusterUnreachable, never an empty cluster',
      args: ['--context', 'liar,healthy'],
      code: 1,
      contexts: ['liar', 'healthy'],
      codes: [['ClusterUnreachable'], []],
    },
    {
      name: '--ignore silences a cluster not read: exit 0',
      args: ['--context', 'healthy,down', '--ignore', 'ClusterUnreachable'],
      code: 0,
      contexts: ['healthy', 'down'],
      codes: [[], []],
    },
    {
      name: 'no cluster read at all: exit 3, the report still printed',
      args: ['--context', 'down,liar'],
      code: 3,
      contexts: ['down', 'liar'],
      codes: [['ClusterUnreachable'], ['ClusterUnreachable']],
      stderr: /^pvctl: none of the 2 clusters could be read: nothing was audited\n$/,
    },
    {
      name: 'a context listed twice is audited once',
      args: ['--context', 'healthy,healthy'],
      code: 0,
      contexts: ['healthy'],
      codes: [[]],
    },
    {
      name: 'a --context the kubeconfig lacks: exit 2 before any cluster is read',
      args: ['--context', 'healthy,nope'],
      code: 2,
      stderr:
        /^error: --context: .* has no context "nope" \(it has shop, healthy, healthy2, forbidden, liar, down, broken\)\n/,
      read: [],
    },
    {
      name: 'a --context the kubeconfig cannot resolve: exit 2 before any cluster is read',
      args: ['--context', 'healthy,broken'],
      code: 2,
      stderr: /^error: .*: context "broken" names cluster "nowhere", which does not exist\n/,
      read: [],
    },
    {
      name: '-f with several contexts: exit 2',
      args: ['-f', example, '--context', 'healthy,shop'],
      code: 2,
      stderr: /^error: -f reads one snapshot: it cannot go with several contexts/,
      read: [],
    },
    {
      name: '--all-contexts with --context: exit 2',
      args: ['--all-contexts', '--context', 'healthy'],
      code: 2,
      stderr: /cannot also be provided when using/,
      read: [],
    },
  ]
  for (const row of rows) {
    test(row.name, async () => {
      const before = Object.fromEntries(Object.entries(emulators).map(([name, api]) => [name, api.requests.length]))
      const r = await audit(...row.args, ...(row.code === 2 ? [] : ['-o', 'json']))
      assert.equal(r.code, row.code, r.stderr)
      if (row.stderr) assert.match(r.stderr, row.stderr)
      else assert.equal(r.stderr, '')
      if (row.contexts)
        assert.deepEqual(
          items(r.stdout).map((i) => i.context),
          row.contexts,
        )
      if (row.codes)
        assert.deepEqual(
          items(r.stdout).map((i) => i.findings.map((f: Json) => f.code)),
          row.codes,
        )
      if (row.read) {
        const read = Object.entries(emulators)
          .filter(([name, api]) => api.requests.length > before[name])
          .map(([name]) => name)
        assert.deepEqual(read, row.read)
      }
    })
  }

  test("--all-contexts: every context in the kubeconfig's order; one the kubeconfig cannot resolve is that cluster's finding", async () => {
    const r = await audit('--all-contexts', '-o', 'json')
    assert.equal(r.code, 1, r.stderr)
    assert.deepEqual(
      items(r.stdout).map((i) => [
        i.context,
        i.findings
          .filter((f: Json) => f.object.kind === 'Cluster')
          .map((f: Json) => f.code)
          .join(),
      ]),
      [
        ['shop', ''],
        ['healthy', ''],
        ['healthy2', ''],
        ['forbidden', 'ClusterForbidden'],
        ['liar', 'ClusterUnreachable'],
        ['down', 'ClusterUnreachable'],
        ['broken', 'ClusterUnreachable'],
      ],
    )
    const broken = items(r.stdout).at(-1)!.findings[0]
    assert.deepEqual(
      [broken.evidence.cause, broken.evidence.server, broken.fix],
      ['kubeconfig', null, `kubectl config view --minify --kubeconfig ${kubeconfig} --context broken`],
    )
  })

  test("--all-contexts -o html: a table of the clusters, then a section per context, each cluster's findings in its own", async () => {
    const r = await audit('--all-contexts', '-o', 'html')
    assert.equal(r.code, 1, r.stderr)
    const contexts = ['shop', 'healthy', 'healthy2', 'forbidden', 'liar', 'down', 'broken']
    const table = /<section id="clusters">[^]*?<\/section>/.exec(r.stdout)?.[0] ?? ''
    assert.deepEqual(
      [...table.matchAll(/<td><a href="#cluster-([^"]+)">/g)].map((m) => m[1]),
      contexts,
    )
    assert.deepEqual(
      [...r.stdout.matchAll(/<section class="cluster" id="cluster-([^"]+)"/g)].map((m) => m[1]),
      contexts,
    )
    const shop = r.stdout.slice(
      r.stdout.indexOf('<section class="cluster" id="cluster-shop"'),
      r.stdout.indexOf('<section class="cluster" id="cluster-healthy"'),
    )
    assert.equal((shop.match(/<article class="finding"/g) ?? []).length, 5)
    assert.match(shop, /<article class="finding" id="shop\/pvc\.shop\.sessions"/)
    assert.match(
      r.stdout,
      /<article class="finding" id="down\/cluster\.down" data-severity="error" data-code="ClusterUnreachable"/,
    )
    assert.ok(!r.stdout.includes('s3cret'), 'no credentials in the page')
  })

  test('ClusterForbidden says which list was refused and how to check the permission', async () => {
    const r = await audit('--context', 'forbidden,down', '-o', 'json')
    const f = items(r.stdout)[0].findings[0]
    assert.deepEqual([f.evidence.cause, f.evidence.status], ['forbidden', 403])
    assert.match(
      f.message,
      /persistentvolumeclaims is forbidden: User "alice" cannot list resource "persistentvolumeclaims"/,
    )
    assert.equal(
      f.fix,
      `kubectl auth can-i list persistentvolumeclaims --all-namespaces --kubeconfig ${kubeconfig} --context forbidden`,
    )
  })

  test('one --context keeps the audit of one cluster: the same output as without --context, an unreachable cluster exit 3', async () => {
    const one = await audit('--context', 'shop', '-o', 'json')
    const current = await audit('-o', 'json')
    assert.equal(one.code, 1, one.stderr)
    assert.equal(JSON.parse(one.stdout).kind, 'AuditReport')
    assert.equal('context' in JSON.parse(one.stdout), false)
    assert.equal(one.stdout.replaceAll(' --context shop', ''), current.stdout)
    const down = await audit('--context', 'down')
    assert.equal(down.code, 3)
    assert.equal(down.stdout, '')
    assert.match(down.stderr, /^error: cannot reach the API server/)
  })

  test("pvc/NAME without -n is in each context's namespace; a cluster without it ends the run, naming the context", async () => {
    const both = await audit('--context', 'healthy,healthy2', '-n', 'app', 'pvc/data', '-o', 'json')
    assert.equal(both.code, 0, both.stderr)
    assert.deepEqual(
      items(both.stdout).map((i) => [i.context, i.summary.claims]),
      [
        ['healthy', 1],
        ['healthy2', 1],
      ],
    )
    // Context healthy's namespace is app, healthy2's none (default).
    const one = await audit('--context', 'healthy,healthy2', 'pvc/data', '-o', 'json')
    assert.equal(one.code, 2)
    assert.equal(one.stdout, '')
    assert.equal(
      one.stderr,
      'error: context healthy2: persistentvolumeclaim "data" not found in namespace "default"; it exists in namespace app: add -n app\n',
    )
  })

  test('--concurrency 1: one cluster at a time, each read whole before the next begins', async () => {
    const log: string[] = []
    const hooks = ['healthy', 'healthy2', 'shop'].map((name) =>
      emulators[name].faults.add({effect: {type: 'hook', run: () => void log.push(name)}}),
    )
    try {
      const r = await audit('--context', 'healthy,healthy2,shop', '--concurrency', '1', '-o', 'json')
      assert.equal(r.code, 1, r.stderr)
      const runs = log.filter((name, i) => i === 0 || log[i - 1] !== name)
      assert.deepEqual(runs, ['healthy', 'healthy2', 'shop'], `requests in the order ${log.join(' ')}`)
    } finally {
      for (const h of hooks) h.remove()
    }
  })

  test("by default several clusters are read at once: the first cluster's requests wait for the second's", async () => {
    let arrived!: () => void
    const second = new Promise<void>((resolve) => (arrived = resolve))
    const hooks = [
      emulators.healthy.faults.add({count: 1, effect: {type: 'hook', run: () => second}}),
      emulators.healthy2.faults.add({count: 1, effect: {type: 'hook', run: () => arrived()}}),
    ]
    try {
      // With one cluster at a time the first would wait forever: --request-timeout makes that a failure, not a hang.
      const r = await audit('--context', 'healthy,healthy2', '--request-timeout', '60s', '-o', 'json')
      assert.equal(r.code, 0, r.stdout)
      assert.deepEqual(
        items(r.stdout).map((i) => i.findings.length),
        [0, 0],
      )
    } finally {
      for (const h of hooks) h.remove()
    }
  })
})
