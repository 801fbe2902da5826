// The live list path over real HTTPS: openLiveSession (kubeconfig, @kubernetes/client-node, TLS, the rate
// limit) and the loader's pagination against the API-server emulator. Pages must add up to the list the
// server holds — every object once, in the server's key order, from one snapshot (writes between pages do
// not show), with that snapshot's resourceVersion — and a continue token the server has forgotten (410
// Expired) makes the loader list the kind again in one request, as client-go's pager does.
import assert from 'node:assert/strict'
import {rmSync, writeFileSync} from 'node:fs'
import {get} from 'node:https'
import path from 'node:path'
import {after, before, describe, test} from 'node:test'

import {openLiveSession} from '../../src/app/live-session.js'
import {runCli} from '../cli/run-cli.js'
import {ApiError} from '../../src/cluster/api-errors.js'
import {listAll, listKind, loadLiveState, PAGE_SIZE} from '../../src/cluster/live-loader.js'
import {type Emulator, type K8sObject, startEmulator} from '../emulator/emulator.js'
import {pv, pvc} from '../emulator/fixtures.js'
import {tempDir} from '../temp-dir.js'

const dir = tempDir('live-list')
const VOLUMES = 1234
const names = (objs: readonly {metadata: {name?: string}}[]) => objs.map((o) => o.metadata.name)

/** Volumes pv-0000 ... in random order: the server, not the seeding, must put them in order. */
function volumes(n: number): K8sObject[] {
  const all = Array.from({length: n}, (_, i) => pv(`pv-${String(i).padStart(4, '0')}`, {storage: `${1 + (i % 50)}Gi`}))
  for (let i = all.length - 1; i > 0; i--) {
    const j = (i * 7919) % (i + 1)
    ;[all[i], all[j]] = [all[j]!, all[i]!]
  }
  return all
}

let api: Emulator

interface ListBody {
  items: K8sObject[]
  metadata: {continue?: string; remainingItemCount?: number}
}

/** A GET over the emulator's HTTPS, trusting its CA (fetch cannot be given one). */
function getJson(urlPath: string): Promise<ListBody> {
  return new Promise((resolve, reject) => {
    get(`${api.url}${urlPath}`, {ca: api.ca, headers: {Authorization: 'Bearer any'}}, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () =>
        res.statusCode === 200
          ? resolve(JSON.parse(body) as ListBody)
          : reject(new Error(`${urlPath}: HTTP ${res.statusCode} ${body}`)),
      )
    }).on('error', reject)
  })
}
let kubeconfig: string
const session = () => openLiveSession({kubeconfig, qps: 1000, burst: 1000})

before(async () => {
  // Items without apiVersion/kind, as the real apiserver sends them; the whole history kept, so that only
  // an explicit compaction expires a token.
  api = await startEmulator({tls: true, listItemTypeMeta: false, watchHistory: 100_000, objects: volumes(VOLUMES)})
  kubeconfig = path.join(dir, 'kubeconfig.yaml')
  writeFileSync(kubeconfig, api.kubeconfig({token: 'any'}))
})
after(async () => {
  await api.stop()
  rmSync(dir, {recursive: true, force: true})
})

describe('pagination over many pages', () => {
  const rows = [
    {name: "kubectl's default chunk size", chunkSize: undefined, pages: Math.ceil(VOLUMES / PAGE_SIZE)},
    {name: 'small chunks', chunkSize: 100, pages: Math.ceil(VOLUMES / 100)},
    {name: 'a chunk size that divides the list', chunkSize: 617, pages: 2},
    {name: 'chunk size 0: one request', chunkSize: 0, pages: 1},
    {name: 'a chunk bigger than the list', chunkSize: 5000, pages: 1},
  ]
  for (const row of rows) {
    test(`${row.name}: every volume once, in order, from one snapshot with its resourceVersion`, async () => {
      const {api: client} = session()
      const expected = api.list('pv')
      const listRv = api.resourceVersion
      api.clearRequests()
      let pages = 0
      let added = ''
      const listed = await listKind((p) => client.listVolumes(p), {
        chunkSize: row.chunkSize,
        onPage: () => {
          // Writes between pages: a new volume, and a change to one not read yet. Neither may show up.
          if (pages++ === 0) {
            added = `pv-extra-${api.resourceVersion}`
            api.create(pv(added))
            api.update({
              ...api.get('pv', null, 'pv-1233')!,
              metadata: {...api.get('pv', null, 'pv-1233')!.metadata, labels: {changed: 'yes'}},
            })
          }
        },
      })
      assert.equal(pages, row.pages)
      assert.equal(api.countRequests({verb: 'list', resource: 'pv'}), row.pages)
      assert.equal(listed.relisted, false)
      assert.equal(listed.resourceVersion, listRv)
      assert.deepEqual(names(listed.items), names(expected))
      assert.equal(new Set(names(listed.items)).size, VOLUMES, 'no volume twice')
      // The wire objects themselves, untouched: no field dropped, no timestamp rewritten.
      assert.deepEqual(
        listed.items,
        expected.map(({apiVersion: _a, kind: _k, ...rest}) => rest),
      )
      assert.ok(!names(listed.items).includes(added))
      api.delete('pv', null, added)
    })
  }
})

describe('a continue token the server has forgotten (410 Expired)', () => {
  test('the kind is listed again in one request, at the latest state, never mixed with the pages read', async () => {
    const {api: client} = session()
    api.clearRequests()
    let pages = 0
    const progress: number[] = []
    const listed = await listKind((p) => client.listVolumes(p), {
      chunkSize: 100,
      onPage: (n) => {
        progress.push(n)
        if (pages++ === 1) {
          // After the second page: a new volume, then a compaction past the list's revision.
          api.create(pv('pv-late'))
          api.compact()
        }
      },
    })
    assert.equal(listed.relisted, true)
    assert.equal(listed.resourceVersion, api.resourceVersion)
    assert.deepEqual(names(listed.items), names(api.list('pv')))
    assert.ok(names(listed.items).includes('pv-late'))
    const lists = api.requests.filter((r) => r.verb === 'list' && r.resource === 'persistentvolumes')
    assert.deepEqual(
      lists.map((r) => [
        r.status,
        new URLSearchParams(r.query).has('continue'),
        new URLSearchParams(r.query).get('limit'),
      ]),
      [
        [200, false, '100'],
        [200, true, '100'],
        [410, true, '100'],
        [200, false, null],
      ],
    )
    // The progress counter goes back to 0 before the full list is counted.
    assert.deepEqual(progress, [100, 100, -200, VOLUMES + 1])
    api.delete('pv', null, 'pv-late')
  })

  test('an error of the full list is the error pvctl reports', async () => {
    const {api: client} = session()
    api.faults.add({verb: 'list', resource: 'pv', skip: 1, count: 1, effect: {type: 'status', code: 410}})
    api.faults.add({verb: 'list', resource: 'pv', skip: 2, effect: {type: 'status', code: 403}})
    try {
      await assert.rejects(
        listAll((p) => client.listVolumes(p), {chunkSize: 100}),
        (err: unknown) =>
          err instanceof ApiError && err.status === 403 && /^list persistentvolumes: /.test(err.message),
      )
    } finally {
      api.faults.clear()
    }
  })
})

test('loadLiveState passes --chunk-size to every kind it lists', async () => {
  const claims = Array.from({length: 30}, (_, i) => pvc(`team-${i % 3}`, `data-${String(i).padStart(2, '0')}`))
  for (const c of claims) api.create(c)
  try {
    api.clearRequests()
    const state = await loadLiveState(session().api, {chunkSize: 7})
    assert.equal(state.volumes.length, VOLUMES)
    assert.deepEqual(
      state.claims.map((c) => `${c.metadata.namespace}/${c.metadata.name}`),
      claims.map((c) => `${c.metadata.namespace}/${c.metadata.name}`).sort(),
    )
    const limits = new Set(
      api.requests.filter((r) => r.verb === 'list').map((r) => new URLSearchParams(r.query).get('limit')),
    )
    assert.deepEqual([...limits], ['7'])
    assert.equal(api.countRequests({verb: 'list', resource: 'pvc'}), Math.ceil(30 / 7))
  } finally {
    for (const c of claims) api.delete('pvc', c.metadata.namespace, c.metadata.name!)
  }
})

test('the emulator pages a namespace as the apiserver does: its objects only, in order, with what remains', async () => {
  const claims = Array.from({length: 25}, (_, i) => pvc(`ns-${'abc'[i % 3]}`, `c-${String(i).padStart(2, '0')}`))
  for (const c of claims) api.create(c)
  try {
    const want = claims
      .filter((c) => c.metadata.namespace === 'ns-b')
      .map((c) => c.metadata.name)
      .sort()
    const got: string[] = []
    const remaining: Array<number | undefined> = []
    let token: string | undefined
    do {
      const q = `limit=3${token ? `&continue=${encodeURIComponent(token)}` : ''}`
      const page = await getJson(`/api/v1/namespaces/ns-b/persistentvolumeclaims?${q}`)
      got.push(...page.items.map((o) => o.metadata.name!))
      remaining.push(page.metadata.remainingItemCount)
      token = page.metadata.continue
    } while (token)
    assert.deepEqual(got, want)
    assert.deepEqual(remaining, [5, 2, undefined])
  } finally {
    for (const c of claims) api.delete('pvc', c.metadata.namespace, c.metadata.name!)
  }
})

describe('--chunk-size on the command line (the built CLI)', () => {
  const rows = [
    {args: ['sync', '--dry-run', '--chunk-size', '300'], code: 0, limit: '300', pages: Math.ceil(VOLUMES / 300)},
    {args: ['sync', '--dry-run', '--chunk-size', '0'], code: 0, limit: null, pages: 1},
    {args: ['sync', '--dry-run'], code: 0, limit: String(PAGE_SIZE), pages: Math.ceil(VOLUMES / PAGE_SIZE)},
    {args: ['explain', 'pv/pv-0001', '--chunk-size', '1000'], code: 0, limit: '1000', pages: 2},
  ]
  for (const row of rows) {
    test(`pvctl ${row.args.join(' ')}: ${row.pages} page(s) of volumes, limit ${row.limit}`, async () => {
      api.clearRequests()
      const run = await runCli([...row.args, '--kubeconfig', kubeconfig], {env: {HOME: dir}})
      assert.equal(run.code, row.code, run.stderr)
      const lists = api.requests.filter((r) => r.verb === 'list' && r.resource === 'persistentvolumes')
      assert.equal(lists.length, row.pages)
      assert.ok(
        lists.every((r) => new URLSearchParams(r.query).get('limit') === row.limit),
        JSON.stringify(lists.map((r) => r.query)),
      )
    })
  }

  test('a negative --chunk-size is a usage error (exit 2, one line)', async () => {
    const run = await runCli(['sync', '--dry-run', '--chunk-size', '-1', '--kubeconfig', kubeconfig], {
      env: {HOME: dir},
    })
    assert.equal(run.code, 2)
    assert.match(run.stderr.trim(), /^error: .*chunk-size/)
    assert.equal(run.stderr.trim().split('\n').length, 1)
  })
})
