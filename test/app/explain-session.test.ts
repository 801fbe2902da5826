// explain's interactive flow through its UI port, without a terminal: the picker's order and filter, the
// reclaim the "Next?" menu offers for a claim, and that reclaim carried out as `pvctl reclaim` carries it
// out: a simulation on a snapshot, a typed "yes" and a guarded write on a live cluster (the API-server
// emulator), refusals and missing permissions said, never thrown.
import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, test} from 'node:test'

import {
  type Choice,
  claimChoices,
  type ExplainSessionUi,
  type FilterableChoice,
  filterChoices,
  type NextStep,
  pickerOrder,
  runExplainSession,
} from '../../src/app/explain-session.js'
import {loadExplainState} from '../../src/app/explain.js'
import type {ExplainRequest} from '../../src/engine/repair/explain-state.js'
import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {PersistentVolume} from '../../src/engine/api/model.js'
import type {ClaimExplanation, PartyNote, Verdict} from '../../src/engine/explain/model.js'
import type {ReclaimReport} from '../../src/engine/repair/report.js'
import type {SyncReport} from '../../src/engine/simulation/sync-report.js'
import {claimPickerLabels} from '../../src/render/claim-picker.js'
import {type Emulator, startEmulator} from '../emulator/emulator.js'
import {tempDir} from '../temp-dir.js'

const dir = tempDir('explain-session')
const snapshot = (await loadSnapshot('examples/reclaim.yaml')).state
const quiet = {notice: () => {}, spinner: async () => ({text: () => {}, stop: () => {}})}

/** A UI that answers each prompt with the next of `answers` (given the choices), and records what it was shown. */
function scriptedUi(
  answers: Array<(choices: ReadonlyArray<Choice<unknown>>) => unknown>,
  confirm?: (question: string, warning: string) => Promise<boolean>,
  confirmSync?: (question: string, destructive: boolean) => Promise<boolean>,
) {
  const seen = {
    menus: [] as Array<{message: string; names: string[]}>,
    claims: [] as ClaimExplanation[],
    volumes: [] as PersistentVolume[],
    reclaims: [] as ReclaimReport[],
    plans: [] as SyncReport[],
    notices: [] as string[],
    asked: [] as string[],
  }
  const answer = async <T>(message: string, choices: ReadonlyArray<Choice<T>>): Promise<T | undefined> => {
    seen.menus.push({message, names: choices.map((c) => c.name)})
    const next = answers.shift()
    assert.ok(next !== undefined, `no answer scripted for "${message}"`)
    return next(choices) as T | undefined
  }
  // A question asked is recorded, then answered as scripted.
  const recorded = <A>(ask?: (question: string, more: A) => Promise<boolean>) =>
    ask === undefined
      ? undefined
      : async (question: string, more: A) => (seen.asked.push(question), ask(question, more))
  const ui: ExplainSessionUi = {
    choose: answer,
    search: <T>(message: string, choices: ReadonlyArray<FilterableChoice<T>>) => answer(message, choices),
    showClaim: (e) => void seen.claims.push(e),
    showVolume: (v) => void seen.volumes.push(v),
    showPlan: (r) => void seen.plans.push(r),
    showReclaim: (r) => void seen.reclaims.push(r),
    confirm: recorded(confirm),
    confirmSync: recorded(confirmSync),
    notice: (line) => void seen.notices.push(line),
    spinner: quiet.spinner,
  }
  return {ui, seen}
}

const byName = (name: string) => (choices: ReadonlyArray<Choice<unknown>>) => {
  const c = choices.find((x) => x.name.startsWith(name))
  assert.ok(c !== undefined, `no choice "${name}" in ${choices.map((x) => x.name).join(' | ')}`)
  return c.value
}
const quit = () => ({kind: 'quit'}) satisfies NextStep

function request(sourceArgs: string[]): ExplainRequest {
  return {gates: defaultFeatureGates, onlyRelevant: false, target: undefined, sourceArgs}
}

describe('the picker: the claims that will never bind first, verdicts aligned, typed to filter', () => {
  const e = (namespace: string, name: string, verdict: Verdict, notes?: PartyNote[]) => ({
    claim: {namespace, name},
    verdict,
    notes,
  })
  const bypassing: PartyNote = {
    code: 'PodBypassesScheduler',
    party: 'scheduler',
    objects: ['pod/a/db-0'],
    message: 'pod db-0 names its node itself',
  }
  const orderRows: Array<{name: string; given: ReturnType<typeof e>[]; want: string[]}> = [
    {
      name: 'a wait a note shows never ends (a pod bypassing the scheduler) is a dead end',
      given: [
        e('a', 'waits', 'WaitForFirstConsumer'),
        e('b', 'bypassed', 'WaitForFirstConsumer', [bypassing]),
        e('c', 'stuck', 'NoMatchingVolume'),
      ],
      want: ['b/bypassed', 'c/stuck', 'a/waits'],
    },
    {
      name: 'dead ends, then waits, then WillBind, whatever the names',
      given: [
        e('a', 'binds', 'WillBind'),
        e('a', 'waits', 'WaitForFirstConsumer'),
        e('z', 'stuck', 'NoMatchingVolume'),
        e('b', 'lost', 'Lost'),
        e('a', 'provisioning', 'ExternalProvisioning'),
      ],
      want: ['b/lost', 'z/stuck', 'a/provisioning', 'a/waits', 'a/binds'],
    },
    {
      name: 'within a group by namespace, then name (not by verdict)',
      given: [
        e('shop', 'b', 'StorageClassNotFound'),
        e('shop', 'a', 'RequestedVolumeMismatch'),
        e('db', 'z', 'ProvisioningNotSupported'),
        e('shop', 'c', 'Misbound'),
      ],
      want: ['db/z', 'shop/a', 'shop/b', 'shop/c'],
    },
    {
      name: 'every dead end before any wait',
      given: [
        e('a', 'w', 'WillProvision'),
        e('z', 's', 'SyncError'),
        e('y', 'r', 'RequestedVolumeBoundElsewhere'),
        e('x', 'n', 'RequestedVolumeNotFound'),
      ],
      want: ['x/n', 'y/r', 'z/s', 'a/w'],
    },
  ]
  for (const row of orderRows) {
    test(`order: ${row.name}`, () => {
      assert.deepEqual(
        pickerOrder(row.given).map((x) => `${x.claim.namespace}/${x.claim.name}`),
        row.want,
      )
    })
  }

  const alignRows: Array<{name: string; rows: Array<{key: string; verdict: string}>; cap?: number; want: string[]}> = [
    {
      name: 'padded to the widest',
      rows: [
        {key: 'a/db', verdict: 'WillBind'},
        {key: 'shop/orders', verdict: 'Lost'},
      ],
      want: ['a/db         WillBind', 'shop/orders  Lost'],
    },
    {
      name: 'a name past the cap is shortened in the middle, the column kept',
      rows: [
        {key: 'team-0001/data-000000001', verdict: 'NoMatchingVolume'},
        {key: 'a/b', verdict: 'WillBind'},
      ],
      cap: 13,
      want: ['team…00000001  NoMatchingVolume', 'a/b            WillBind'],
    },
    {name: 'no claims, no lines', rows: [], want: []},
  ]
  for (const row of alignRows) {
    test(`alignment: ${row.name}`, () => {
      const labels = claimPickerLabels(row.rows, row.cap)
      assert.deepEqual(labels, row.want)
      assert.equal(
        new Set(labels.map((l, i) => l.length - row.rows[i].verdict.length)).size <= 1,
        true,
        'every verdict starts in one column',
      )
    })
  }

  const explained = (namespace: string, name: string, verdict: Verdict) =>
    ({claim: {namespace, name}, verdict, summary: `${verdict}.`}) as ClaimExplanation
  const choices = claimChoices([
    explained('shop', 'db', 'WillBind'),
    explained('shop', 'logs', 'NoMatchingVolume'),
    explained('team-a', 'cache', 'WaitForFirstConsumer'),
  ])
  const filterRows: Array<{term: string | undefined; want: string[]}> = [
    {term: undefined, want: ['shop/logs', 'team-a/cache', 'shop/db', 'Quit']},
    {term: 'shop', want: ['shop/logs', 'shop/db', 'Quit']},
    {term: 'nomatch', want: ['shop/logs', 'Quit']},
    {term: 'SHOP willbind', want: ['shop/db', 'Quit']},
    {term: 'a/ca', want: ['team-a/cache', 'Quit']},
    {term: 'absent', want: ['Quit']},
  ]
  for (const row of filterRows) {
    test(`filter ${JSON.stringify(row.term)}: namespace/name and verdict, Quit always`, () => {
      assert.deepEqual(
        filterChoices(choices, row.term).map((c) => c.short ?? c.name),
        row.want,
      )
    })
  }
})

describe('the "Next?" menu offers the reclaim and carries it out', () => {
  test('on a snapshot: offered, named in the suggestions, run as a simulation that says so, then the plan that binds the pair', async () => {
    const loaded = await loadExplainState(
      {
        ...request(['-f', 'examples/reclaim.yaml']),
        filename: ['examples/reclaim.yaml'],
        stdin: process.stdin,
        qps: 5,
        burst: 10,
      },
      quiet,
    )
    const {ui, seen} = scriptedUi([byName('shop/db'), byName('Reclaim pv/pv-0004'), quit], async () =>
      assert.fail('a snapshot asks no consent: nothing is written'),
    )
    await runExplainSession(loaded.loaded, request(['-f', 'examples/reclaim.yaml']), ui)

    assert.deepEqual(seen.menus[0].names, ['shop/db  ProvisioningNotSupported', 'Quit'])
    assert.ok(
      seen.claims[0].suggestions.some((s) =>
        s.endsWith('pvctl reclaim pv/pv-0004 --for shop/db -f examples/reclaim.yaml'),
      ),
      seen.claims[0].suggestions.join('\n'),
    )
    assert.equal(seen.menus[1].names[0], 'Reclaim pv/pv-0004 for this claim')
    assert.equal(seen.reclaims.length, 1)
    assert.equal(seen.reclaims[0].write.outcome, 'simulated')
    assert.ok(
      seen.notices.some((n) => /nothing was written; the reclaim is a simulation/.test(n)),
      seen.notices.join('\n'),
    )
    const binds = seen.plans[0].actions.filter(
      (a) => a.object.kind === 'PersistentVolumeClaim' && a.object.name === 'db',
    )
    assert.ok(binds.length > 0, 'the dry-run sync of the pair binds the claim')
    assert.ok(!seen.menus[2].names.some((n) => n.startsWith('Reclaim')), 'simulated once, not offered again')
  })

  test('a volume reclaimed for one claim is not offered to the next claim picked', async () => {
    // Two claims pv-0004 fits: shop/db, and shop/db-copy.
    const copy = {
      ...structuredClone(snapshot.claims[0]),
      metadata: {...structuredClone(snapshot.claims[0].metadata), name: 'db-copy', uid: 'u-db-copy'},
    }
    const file = path.join(dir, 'two-claims.json')
    writeFileSync(
      file,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [...snapshot.classes, ...snapshot.volumes, ...snapshot.claims, copy],
      }),
    )
    const loaded = await loadExplainState(
      {...request(['-f', file]), filename: [file], stdin: process.stdin, qps: 5, burst: 10},
      quiet,
    )
    const another = () => ({kind: 'another'}) satisfies NextStep
    const {ui, seen} = scriptedUi([
      byName('shop/db '),
      byName('Reclaim pv/pv-0004'),
      another,
      byName('shop/db-copy'),
      quit,
    ])
    await runExplainSession(loaded.loaded, request(['-f', file]), ui)
    assert.equal(seen.menus[1].names[0], 'Reclaim pv/pv-0004 for this claim')
    assert.equal(seen.claims.length, 2)
    const copyMenu = seen.menus.at(-1)!
    assert.equal(copyMenu.message, 'Next?')
    assert.ok(!copyMenu.names.some((n) => n.startsWith('Reclaim')), copyMenu.names.join(' | '))
  })

  async function live(
    tokens?: NonNullable<Parameters<typeof startEmulator>[0]>['tokens'],
  ): Promise<{api: Emulator; loaded: Awaited<ReturnType<typeof loadExplainState>>}> {
    const api = await startEmulator({
      tls: true,
      listItemTypeMeta: false,
      tokens,
      objects: structuredClone([...snapshot.classes, ...snapshot.volumes, ...snapshot.claims]) as never,
    })
    const kubeconfig = path.join(dir, `kubeconfig-${api.port}.yaml`)
    writeFileSync(kubeconfig, api.kubeconfig(tokens === undefined ? {} : {token: Object.keys(tokens)[0]}))
    const loaded = await loadExplainState(
      {...request([]), kubeconfig, stdin: process.stdin, qps: 100, burst: 100},
      quiet,
    )
    return {api, loaded}
  }
  const claimRefOf = (api: Emulator) =>
    (api.get('pv', null, 'pv-0004') as unknown as {spec: {claimRef?: Record<string, string>}}).spec.claimRef

  test('live: the typed "yes" is asked with the context named, the volume written once, then the plan that binds the pair', async () => {
    const {api, loaded} = await live()
    try {
      const {ui, seen} = scriptedUi([byName('shop/db'), byName('Reclaim pv/pv-0004'), quit], async () => true)
      await runExplainSession(loaded.loaded, request([]), ui)
      assert.equal(seen.asked.length, 1)
      assert.match(seen.asked[0], /^Reclaim pv\/pv-0004 for pvc\/shop\/db on context \S+\?$/)
      assert.equal(seen.reclaims.at(-1)?.write.outcome, 'written')
      assert.deepEqual(claimRefOf(api), {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        name: 'db',
        namespace: 'shop',
      })
      assert.equal(api.countWrites({resource: 'pv'}), 1)
      assert.equal(api.countWrites({resource: 'pvc'}), 0, 'the claim is left to the controller')
      assert.ok(seen.plans[0].actions.some((a) => a.object.kind === 'PersistentVolumeClaim' && a.object.name === 'db'))
    } finally {
      await api.stop()
    }
  })

  test('live: after the reclaim the cluster is read again: the claim explained anew, its sync offered and run, then Bound, the YAML as written', async () => {
    const {api, loaded} = await live()
    try {
      const {ui, seen} = scriptedUi(
        [byName('shop/db'), byName('Reclaim pv/pv-0004'), byName('Sync pvc/db now'), byName('Show pv/pv-0004'), quit],
        async () => true,
        async () => true,
      )
      await runExplainSession(loaded.loaded, request([]), ui)
      // Explained when picked, after the reclaim, after the sync: each time on what the cluster held then.
      assert.deepEqual(
        seen.claims.map((c) => c.verdict),
        ['ProvisioningNotSupported', 'WillBind', 'Bound'],
      )
      const afterReclaim = seen.menus[2].names
      assert.ok(!afterReclaim.some((n) => n.startsWith('Reclaim')), afterReclaim.join(' | '))
      assert.equal(afterReclaim[0], 'Sync pvc/db now')
      assert.match(seen.asked[1], /^Write \d+ changes? to context \S+\?$/)
      const afterSync = seen.menus[3].names
      assert.ok(!afterSync.some((n) => n.startsWith('Sync pvc/db now')), 'nothing left to write: not offered')
      // The YAML is the volume as the cluster holds it now, not as first read.
      const stored = api.get('pv', null, 'pv-0004') as unknown as PersistentVolume
      assert.equal(seen.volumes[0].metadata.resourceVersion, stored.metadata.resourceVersion)
      assert.equal(
        seen.volumes[0].spec.claimRef?.uid,
        (api.get('pvc', 'shop', 'db') as unknown as {metadata: {uid: string}}).metadata.uid,
      )
      assert.equal((api.get('pvc', 'shop', 'db') as unknown as {status: {phase: string}}).status.phase, 'Bound')
    } finally {
      await api.stop()
    }
  })

  test("on a snapshot the claim's sync is not offered (nothing can be written): its dry run is", async () => {
    const loaded = await loadExplainState(
      {
        ...request(['-f', 'examples/reclaim.yaml']),
        filename: ['examples/reclaim.yaml'],
        stdin: process.stdin,
        qps: 5,
        burst: 10,
      },
      quiet,
    )
    const {ui, seen} = scriptedUi([byName('shop/db'), quit], undefined, async () =>
      assert.fail('a snapshot asks no consent'),
    )
    await runExplainSession(loaded.loaded, request(['-f', 'examples/reclaim.yaml']), ui)
    assert.ok(!seen.menus[1].names.some((n) => n.startsWith('Sync pvc/db now')), seen.menus[1].names.join(' | '))
    assert.ok(seen.menus[1].names.includes('Show the dry-run sync of pvc/db'))
  })

  test('live, not confirmed: nothing written, the offer stays', async () => {
    const {api, loaded} = await live()
    try {
      const {ui, seen} = scriptedUi([byName('shop/db'), byName('Reclaim pv/pv-0004'), quit], async () => false)
      await runExplainSession(loaded.loaded, request([]), ui)
      assert.equal(api.countWrites(), 0)
      assert.ok(seen.notices.includes('nothing written (not confirmed)'), seen.notices.join('\n'))
      assert.equal(seen.menus[2].names[0], 'Reclaim pv/pv-0004 for this claim')
      assert.equal(seen.plans.length, 0)
    } finally {
      await api.stop()
    }
  })

  test('live, the old claim mounted again before the write: the guard refuses, said in a notice, nothing written', async () => {
    const {api, loaded} = await live()
    try {
      const mounted = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {name: 'old-db-0', namespace: 'shop'},
        spec: {
          nodeName: 'node-1',
          containers: [{name: 'db', image: 'postgres'}],
          volumes: [{name: 'data', persistentVolumeClaim: {claimName: 'old-db'}}],
        },
        status: {phase: 'Running'},
      }
      const {ui, seen} = scriptedUi(
        [byName('shop/db'), byName('Reclaim pv/pv-0004'), quit],
        async () => (api.create(mounted as never), true),
      )
      await runExplainSession(loaded.loaded, request([]), ui)
      assert.equal(api.countWrites({resource: 'pv'}), 0)
      assert.ok(
        seen.notices.some((n) => /^not written: .*OldClaimUnused/.test(n)),
        seen.notices.join('\n'),
      )
    } finally {
      await api.stop()
    }
  })

  test('live, a permission missing: named in a notice, not thrown, nothing written', async () => {
    const {api, loaded} = await live({t: {user: 'viewer', deny: [{verb: 'update', resource: 'persistentvolumes'}]}})
    try {
      const {ui, seen} = scriptedUi([byName('shop/db'), byName('Reclaim pv/pv-0004'), quit], async () => true)
      await runExplainSession(loaded.loaded, request([]), ui)
      assert.equal(api.countWrites({resource: 'pv'}), 0, 'the access reviews are the only writes')
      assert.ok(
        seen.notices.some((n) =>
          /^pv\/pv-0004 is not reclaimed: missing permissions: update .*persistentvolumes/.test(n),
        ),
        seen.notices.join('\n'),
      )
    } finally {
      await api.stop()
    }
  })
})
