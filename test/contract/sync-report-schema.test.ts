// The SyncReport of docs/output-contract.md, pinned by schema/sync-report.schema.json: every report the built
// CLI prints (`sync -o json` and `-o yaml`) and every report golden of test/render must validate, the YAML
// document must equal the JSON one, and `objects` must be sorted by kind, namespace, name. A second table
// proves the schema is not vacuous: each row breaks one rule of the contract and must be rejected.
import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {Ajv2020} from 'ajv/dist/2020.js'
import {parse as parseYaml} from 'yaml'

import {example, IN_SYNC_SNAPSHOT, repoRoot, runCli, tempDir, withoutVersionNotice} from '../cli/run-cli.js'

type Json = Record<string, unknown>

const schema = JSON.parse(readFileSync(path.join(repoRoot, 'schema', 'sync-report.schema.json'), 'utf8')) as Json
const ajv = new Ajv2020({allErrors: true, strict: true, strictRequired: false})
const validate = ajv.compile(schema)

function assertValid(doc: unknown, what: string): void {
  const ok = validate(doc)
  assert.ok(
    ok,
    `${what} does not match schema/sync-report.schema.json:\n${ajv.errorsText(validate.errors, {separator: '\n'})}`,
  )
}

/** kind, namespace, name, compared as Go compares strings (code units, no locale). */
function assertSorted(objects: Json[], what: string): void {
  const key = (o: Json) => {
    const meta = o.metadata as Json
    return [String(o.kind), String(meta.namespace ?? ''), String(meta.name)]
  }
  for (let i = 1; i < objects.length; i++) {
    const [a, b] = [key(objects[i - 1]), key(objects[i])]
    const j = a.findIndex((x, k) => x !== b[k])
    assert.ok(
      j !== -1 && a[j] < b[j],
      `${what}: objects[${i - 1}] ${a.join('/')} must sort before objects[${i}] ${b.join('/')}`,
    )
  }
}

const work = tempDir('contract')
const inSync = path.join(work, 'in-sync.yaml')
writeFileSync(inSync, IN_SYNC_SNAPSHOT)

interface CliRow {
  name: string
  args: string[]
  expectExit: number
  /** What the report must say besides being valid (keeps a vacuous report from passing). */
  check?: (report: Json) => void
}

const cliRows: CliRow[] = [
  {
    name: 'the bundled example',
    args: ['-f', example],
    expectExit: 1,
    check: (r) => {
      assert.equal(r.converged, true)
      assert.ok((r.actions as unknown[]).length > 0, 'the example has changes to make')
      assert.ok((r.events as unknown[]).length > 0, 'the example emits events')
      assert.equal((r.objects as unknown[]).length, 14, 'every PV and PVC of the example')
    },
  },
  {
    name: 'the bundled example, one round',
    args: ['-f', example, '--rounds', '1'],
    expectExit: 1,
    check: (r) => assert.equal(r.converged, false),
  },
  {
    name: 'the bundled example, one volume named',
    args: ['-f', example, 'pv/pv-0004'],
    expectExit: 1,
    check: (r) =>
      assert.deepEqual(
        (r.actions as Json[]).map((a) => a.object),
        [{kind: 'PersistentVolume', name: 'pv-0004'}],
      ),
  },
  {
    name: 'a snapshot in sync',
    args: ['-f', inSync],
    expectExit: 0,
    check: (r) => {
      assert.deepEqual(r.actions, [])
      assert.equal((r.objects as unknown[]).length, 3)
    },
  },
]

/** The document with every status.lastPhaseTransitionTime (in objects and in patches) replaced by one word. */
function unstamped(doc: Json): Json {
  return JSON.parse(JSON.stringify(doc), function (key, value: unknown) {
    if (key === 'lastPhaseTransitionTime') return '<time>'
    if (key === 'value' && (this as {path?: string}).path === '/status/lastPhaseTransitionTime') return '<time>'
    return value
  }) as Json
}

test('sync -o json and -o yaml print a SyncReport that matches the schema', {concurrency: 4}, async (t) => {
  await Promise.all(
    cliRows.map((row) =>
      t.test(row.name, async () => {
        const args = ['sync', '--dry-run', ...row.args]
        const [json, yaml] = await Promise.all([runCli([...args, '-o', 'json']), runCli([...args, '-o', 'yaml'])])
        for (const [format, res] of [
          ['json', json],
          ['yaml', yaml],
        ] as const) {
          assert.equal(res.code, row.expectExit, `-o ${format}: exit status (stderr: ${res.stderr})`)
          assert.equal(
            withoutVersionNotice(res.stderr),
            '',
            `-o ${format}: nothing on stderr but the release decided as`,
          )
        }
        const fromJson = JSON.parse(json.stdout) as Json
        const fromYaml = parseYaml(yaml.stdout) as Json
        assertValid(fromJson, '-o json')
        assertValid(fromYaml, '-o yaml')
        // But for the times the API server stamps on phase changes: each run's own.
        assert.deepEqual(unstamped(fromYaml), unstamped(fromJson), '-o yaml and -o json print the same document')
        assertSorted(fromJson.objects as Json[], '-o json')
        row.check?.(fromJson)
      }),
    ),
  )
})

test('the report goldens of test/render match the schema', async (t) => {
  const golden = (name: string) => readFileSync(path.join(repoRoot, 'test', 'render', 'golden', name), 'utf8')
  for (const name of ['full', 'empty']) {
    await t.test(name, () => {
      const fromJson = JSON.parse(golden(`report-${name}-json.txt`)) as Json
      assertValid(fromJson, `report-${name}-json.txt`)
      assert.deepEqual(
        parseYaml(golden(`report-${name}-yaml.txt`)),
        fromJson,
        `report-${name}-yaml.txt equals the JSON golden`,
      )
      assertSorted(fromJson.objects as Json[], `report-${name}-json.txt`)
    })
  }
})

// ---------------------------------------------------------------------------------------------------------
// The schema rejects what the contract forbids: each row changes one thing in a valid report.

const validReport = (): Json => ({
  apiVersion: 'pvctl/v1alpha1',
  kind: 'SyncReport',
  kubernetesVersion: {version: 'v1.34', source: 'server', observed: 'v1.34.2'},
  dryRun: true,
  rounds: 2,
  converged: true,
  summary: {binds: 1, releases: 0, recycles: 0, deletions: 0, provisions: 0, lostClaims: 0, phaseChanges: 0, writes: 1},
  actions: [
    {
      action: 'bind-volume',
      object: {kind: 'PersistentVolume', name: 'pv1'},
      reason: 'claim default/data matched',
      patch: [{op: 'add', path: '/spec/claimRef', value: {namespace: 'default', name: 'data'}}],
      resourceVersion: '1',
      round: 1,
      sync: 'pvc/default/data',
    },
  ],
  events: [
    {
      object: {kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data'},
      type: 'Normal',
      reason: 'FailedBinding',
      message: '...',
      count: 1,
      sync: 'pvc/default/data',
    },
  ],
  errors: [],
  objects: [
    {apiVersion: 'v1', kind: 'PersistentVolume', metadata: {name: 'pv1'}, spec: {}},
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {name: 'data', namespace: 'default'},
      spec: {},
      status: {phase: 'Bound'},
    },
  ],
})

const at = (r: Json, key: string, i = 0) => (r[key] as Json[])[i]

const invalidRows: Array<{name: string; mutate: (r: Json) => void}> = [
  {name: 'a top-level `before`', mutate: (r) => void (r.before = [])},
  {name: 'another apiVersion', mutate: (r) => void (r.apiVersion = 'pvctl/v1')},
  {name: 'another kind', mutate: (r) => void (r.kind = 'ClaimExplanation')},
  {name: 'no summary', mutate: (r) => void delete r.summary},
  {
    name: 'a release decided as from an unknown source',
    mutate: (r) => void ((r.kubernetesVersion as Json).source = 'guess'),
  },
  {
    name: 'a release decided as that is not v1.N',
    mutate: (r) => void ((r.kubernetesVersion as Json).version = '1.34.2'),
  },
  {name: 'a missing summary count', mutate: (r) => void delete (r.summary as Json).writes},
  {name: 'an unknown action', mutate: (r) => void (at(r, 'actions').action = 'bind')},
  {name: 'an action without round', mutate: (r) => void delete at(r, 'actions').round},
  {name: 'an action in round 0', mutate: (r) => void (at(r, 'actions').round = 0)},
  {name: 'a subresource other than status', mutate: (r) => void (at(r, 'actions').subresource = 'scale')},
  {name: 'a status write outside /status', mutate: (r) => void (at(r, 'actions').subresource = 'status')},
  {name: 'a numeric resourceVersion', mutate: (r) => void (at(r, 'actions').resourceVersion = 1)},
  {name: 'a patch op that is not RFC 6902', mutate: (r) => void ((at(r, 'actions').patch as Json[])[0].op = 'merge')},
  {name: 'an add without value', mutate: (r) => void delete (at(r, 'actions').patch as Json[])[0].value},
  {
    name: 'a path that is not a JSON pointer',
    mutate: (r) => void ((at(r, 'actions').patch as Json[])[0].path = 'spec.claimRef'),
  },
  {name: 'an operation with a patch', mutate: (r) => void (at(r, 'actions').action = 'recycle')},
  {
    name: 'a volume ref with a namespace',
    mutate: (r) => void ((at(r, 'actions').object as Json).namespace = 'default'),
  },
  {name: 'a claim ref without a namespace', mutate: (r) => void delete (at(r, 'events').object as Json).namespace},
  {name: 'an event type other than Normal/Warning', mutate: (r) => void (at(r, 'events').type = 'Error')},
  {name: 'an event without count', mutate: (r) => void delete at(r, 'events').count},
  {
    name: 'an error without message',
    mutate: (r) => void (r.errors = [{object: {kind: 'PersistentVolume', name: 'pv1'}}]),
  },
  {name: 'an object without apiVersion', mutate: (r) => void delete at(r, 'objects').apiVersion},
  {name: 'an object of another kind', mutate: (r) => void (at(r, 'objects').kind = 'ConfigMap')},
  {name: 'an object without metadata.name', mutate: (r) => void delete (at(r, 'objects').metadata as Json).name},
  {
    name: 'a claim object without a namespace',
    mutate: (r) => void delete (at(r, 'objects', 1).metadata as Json).namespace,
  },
]

test('the schema rejects reports that break the contract', async (t) => {
  await t.test('the unbroken report is valid', () => assertValid(validReport(), 'the base report'))
  for (const row of invalidRows) {
    await t.test(row.name, () => {
      const report = validReport()
      row.mutate(report)
      assert.equal(validate(report), false, `the schema accepts ${row.name}`)
    })
  }
})
