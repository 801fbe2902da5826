// `pvctl explain` (alias `why`) through the built CLI: exit status per verdict, -o json|yaml|table, pv/NAME,
// unknown objects with the names the user probably meant, the non-TTY list of every claim not Bound, and
// the interactive picker driven through a pseudo-terminal (util-linux `script`).
import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, test} from 'node:test'
import {parse as parseYaml, stringify as stringifyYaml} from 'yaml'

import {clusterJson, generateCluster} from '../../bench/generate-cluster.js'
import {MAX_LIST_CANDIDATES} from '../../src/engine/repair/explain-state.js'
import {pvc, sc} from '../engine/builders.js'
import {ago, csiDriver, event, lease} from '../engine/evidence-builders.js'
import {example, IN_SYNC_SNAPSHOT, repoRoot, runCli, withoutVersionNotice} from './run-cli.js'
import {KEYS, noTerminal, Terminal} from './terminal.js'
import {tempDir} from '../temp-dir.js'
import {skipWithout} from '../tools.js'

type Json = Record<string, any>

const ANSI = /\u001b\[[0-9;]*m/

function json(stdout: string): Json {
  return JSON.parse(stdout) as Json
}

describe('pvctl explain through the built CLI', () => {
  test('pvc/NAMESPACE/NAME, as pvctl prints claims: the same explanation as pvc/NAME -n NAMESPACE', async () => {
    const [namespaced, flagged, conflict] = await Promise.all([
      runCli(['explain', 'pvc/shop/orders', '-f', example, '-o', 'json']),
      runCli(['explain', 'pvc/orders', '-n', 'shop', '-f', example, '-o', 'json']),
      runCli(['explain', 'pvc/shop/orders', '-n', 'web', '-f', example]),
    ])
    assert.equal(namespaced.code, flagged.code, namespaced.stderr)
    assert.equal(namespaced.stdout, flagged.stdout)
    assert.equal(conflict.code, 2)
    assert.match(
      conflict.stderr,
      /^error: object "pvc\/shop\/orders": its namespace "shop" is not the -n given \("web"\)/,
    )
  })

  test('pvc/NAME -o json: the ClaimExplanation, exit 1 for a claim that stays Pending', async () => {
    const r = await runCli(['explain', 'pvc/logs', '-n', 'shop', '-f', example, '-o', 'json'])
    assert.equal(r.code, 1, r.stderr)
    assert.equal(withoutVersionNotice(r.stderr), '')
    const e = json(r.stdout)
    assert.deepEqual(
      [e.apiVersion, e.kind, e.claim, e.phase, e.verdict, e.volume],
      ['pvctl/v1alpha1', 'ClaimExplanation', {namespace: 'shop', name: 'logs'}, 'Pending', 'NoMatchingVolume', null],
    )
    assert.equal(e.candidates.length, 7, 'every volume of the snapshot')
    assert.deepEqual(
      e.candidates[0].reasons.map((x: Json) => x.code),
      ['AccessModesMismatch', 'CapacityTooSmall', 'StorageClassMismatch'],
    )
    assert.ok(e.suggestions.length > 0)
  })

  test('-f split across files (volumes in one, the rest from stdin) explains as the whole snapshot does', async () => {
    const docs = parseYaml(readFileSync(example, 'utf8')) as {items: Json[]}
    const list = (items: Json[]) => stringifyYaml({apiVersion: 'v1', kind: 'List', items})
    const volumes = path.join(tempDir('explain-f'), 'pv.yaml')
    writeFileSync(volumes, list(docs.items.filter((o) => o.kind === 'PersistentVolume')))
    const [split, whole] = await Promise.all([
      runCli(['explain', '-f', volumes, '-f', '-', 'pvc/logs', '-n', 'shop', '-o', 'json'], {
        stdin: list(docs.items.filter((o) => o.kind !== 'PersistentVolume')),
      }),
      runCli(['explain', '-f', example, 'pvc/logs', '-n', 'shop', '-o', 'json']),
    ])
    assert.equal(split.code, 1, split.stderr)
    assert.deepEqual(json(split.stdout), json(whole.stdout))
  })

  test('-o yaml prints the same document', async () => {
    const [y, j] = await Promise.all([
      runCli(['explain', 'pvc/logs', '-n', 'shop', '-f', example, '-o', 'yaml']),
      runCli(['explain', 'pvc/logs', '-n', 'shop', '-f', example, '-o', 'json']),
    ])
    assert.equal(y.code, 1)
    assert.deepEqual(parseYaml(y.stdout), json(j.stdout))
  })

  test('the table: verdict and summary first, then candidates, then suggestions; no colour off a terminal', async () => {
    const r = await runCli(['explain', 'pvc/logs', '-n', 'shop', '-f', example])
    assert.equal(r.code, 1)
    const lines = r.stdout.split('\n')
    assert.equal(lines[0], 'pvc/shop/logs (Pending): NoMatchingVolume')
    assert.match(lines[1], /^No volume matches and none will be provisioned/)
    const candidates = lines.findIndex((l) => l.startsWith('Candidates: 7 volumes, none eligible'))
    const suggestions = lines.indexOf('Suggestions:')
    assert.ok(candidates > 1 && suggestions > candidates, r.stdout)
    // A reason every volume shares is said once, above the table.
    assert.equal(lines[candidates + 1], "every volume: class 'standard' ≠ ''")
    assert.match(lines[candidates + 2], /^VOLUME\s+CAPACITY\s+MODES\s+CLASS\s+PHASE\s+WHY \(NOT\)$/)
    assert.match(lines[candidates + 3], /^pv-0002\s+10Gi\s+RWO\s+standard\s+Available\s+offers RWO, claim needs RWX$/)
    assert.doesNotMatch(r.stdout, ANSI)
  })

  test('--color colours the verdict', async () => {
    const r = await runCli(['explain', 'pvc/logs', '-n', 'shop', '-f', example, '--color'])
    assert.match(r.stdout, /\u001b\[31mNoMatchingVolume\u001b\[39m/)
  })

  test('the alias why, and exit 0 for a claim the next sync binds', async () => {
    const r = await runCli(['why', 'pvc/orders', '-n', 'shop', '-f', example, '-o', 'json'])
    assert.equal(r.code, 0, r.stderr)
    assert.deepEqual([json(r.stdout).verdict, json(r.stdout).volume], ['WillBind', 'pv-0002'])
  })

  test('a Bound claim from stdin: exit 0', async () => {
    const r = await runCli(['explain', 'persistentvolumeclaim/data', '-n', 'app', '-f', '-', '-o', 'json'], {
      stdin: IN_SYNC_SNAPSHOT,
    })
    assert.equal(r.code, 0, r.stderr)
    assert.deepEqual([json(r.stdout).verdict, json(r.stdout).volume], ['Bound', 'pv-a'])
  })

  test('--only-relevant leaves out the volumes other claims use', async () => {
    const r = await runCli(['explain', 'pvc/orders', '-n', 'shop', '-f', example, '-o', 'json', '--only-relevant'])
    const names = json(r.stdout).candidates.map((c: Json) => c.volume)
    assert.ok(!names.includes('pv-0003') && !names.includes('pv-0008'), names.join(','))
    assert.ok(names.includes('pv-0004'), 'a stale claimRef stays')
  })

  test('pv/NAME: a Released volume and its reclaim, exit 1; a Bound one, exit 0', async () => {
    const released = await runCli(['explain', 'pv/pv-0006', '-f', example, '-o', 'json'])
    assert.equal(released.code, 1, released.stderr)
    const e = json(released.stdout)
    assert.deepEqual(
      [e.kind, e.state, e.reclaim.action, e.reclaim.by],
      ['VolumeExplanation', 'Released', 'delete', 'kubernetes.io/host-path'],
    )
    const boundVolume = await runCli(['explain', 'pv/pv-0008', '-f', example])
    assert.equal(boundVolume.code, 0)
    assert.match(
      boundVolume.stdout,
      /^pv\/pv-0008 \(Bound\): Bound\nBound to shop\/reports-a, which points back at it\./,
    )
  })

  test('a snapshot with Events, a CSIDriver and a Lease: they are the evidence; a kind it lacks is not available', async () => {
    const now = Date.now()
    const snapshot = stringifyYaml({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        sc('gp3', 'ebs.csi.aws.com'),
        {
          ...pvc('data', 'c1', {namespace: 'app', className: 'gp3'}),
          metadata: {name: 'data', namespace: 'app', uid: 'c1', creationTimestamp: ago(3600, now)},
        },
        event({
          namespace: 'app',
          name: 'data',
          reason: 'ExternalProvisioning',
          component: 'persistentvolume-controller',
          lastSeconds: 30,
          now,
        }),
        csiDriver('ebs.csi.aws.com'),
        lease('kube-system', 'ebs-csi-aws-com', 'ebs-csi-controller-0', 7200, now),
      ],
    })
    const r = await runCli(['explain', 'pvc/data', '-n', 'app', '-f', '-', '-o', 'json'], {stdin: snapshot})
    assert.equal(r.code, 1, r.stderr)
    assert.equal(withoutVersionNotice(r.stderr), '', 'the evidence kinds are read, not skipped')
    const e = json(r.stdout)
    assert.deepEqual(
      e.events.items.map((x: Json) => x.reason),
      ['ExternalProvisioning'],
    )
    assert.deepEqual(
      [e.provisionerLiveness.verdict, e.provisionerLiveness.csiDriver, e.provisionerLiveness.lease.held],
      ['NoSignOfLife', 'Found', false],
    )
    assert.match(
      e.summary,
      /no controller named 'ebs\.csi\.aws\.com' has acted on this claim in the 60m since it was created, and nothing shows it running/,
    )
    const volume = await runCli(['explain', 'pv/none', '-f', '-'], {stdin: snapshot})
    assert.equal(volume.code, 2, 'an unknown volume is still a usage error')
  })

  const notFound: Array<{name: string; args: string[]; error: string}> = [
    {
      name: 'a misspelt claim: the close name',
      args: ['pvc/lgs', '-n', 'shop'],
      error: 'error: persistentvolumeclaim "lgs" not found in namespace "shop"; did you mean pvc/logs?',
    },
    {
      name: 'a claim of another namespace: where it is',
      args: ['pvc/logs'],
      error:
        'error: persistentvolumeclaim "logs" not found in namespace "default"; it exists in namespace shop: add -n shop',
    },
    {
      name: 'a misspelt claim in the wrong namespace',
      args: ['pvc/order'],
      error: 'error: persistentvolumeclaim "order" not found in namespace "default"; did you mean shop/orders?',
    },
    {
      name: 'a claim with no close name',
      args: ['pvc/zzzzzzzz', '-n', 'shop'],
      error: 'error: persistentvolumeclaim "zzzzzzzz" not found in namespace "shop"',
    },
    {
      name: 'a misspelt volume',
      args: ['pv/pv-006'],
      error: 'error: persistentvolume "pv-006" not found; did you mean pv/pv-0006, pv/pv-0001, pv/pv-0002?',
    },
    {
      name: 'two objects',
      args: ['pvc/logs', 'pvc/orders', '-n', 'shop'],
      error: 'error: Unexpected argument: pvc/orders',
    },
    {
      name: 'an object of another type',
      args: ['pod/web'],
      error: 'error: object "pod/web": unknown type "pod" (pvctl works on pvc/NAME and pv/NAME)',
    },
    {
      name: 'a rate limit of 0 requests per second',
      args: ['--qps', '0'],
      error: 'error: Parsing --qps: Expected an integer greater than or equal to 1 but received: 0',
    },
  ]
  for (const row of notFound) {
    test(`exit 2: ${row.name}`, async () => {
      const r = await runCli(['explain', ...row.args, '-f', example])
      assert.equal(r.code, 2, r.stderr)
      assert.equal(r.stdout, '')
      assert.equal(r.stderr.split('\n')[0], row.error)
    })
  }

  test('no claim and no terminal: every claim not healthy in scope, as a List (exit 1: some stay Pending, two are Lost)', async () => {
    const r = await runCli(['explain', '-n', 'shop', '-f', example, '-o', 'json'])
    assert.equal(r.code, 1, r.stderr)
    const list = json(r.stdout)
    assert.equal(list.kind, 'List')
    assert.deepEqual(
      list.items.map((e: Json) => `${e.claim.name} ${e.verdict}`),
      // reports-b and sessions are recorded Bound; their next sync makes them Lost (audit's two errors).
      [
        'carts WillBind',
        'logs NoMatchingVolume',
        'orders WillBind',
        'reports-b Misbound',
        'search WaitForPodScheduled',
        'sessions Lost',
      ],
    )
  })

  // The bundled snapshot has 7 volumes: the List's default bound (5) leaves two out of each item.
  const bounds: Array<{args: string[]; listed: number; total: number | undefined}> = [
    {args: ['-n', 'shop'], listed: 5, total: 7},
    {args: ['-n', 'shop', '--candidates', '2'], listed: 2, total: 7},
    {args: ['-n', 'shop', '--candidates', '0'], listed: 7, total: undefined},
    {args: ['pvc/logs', '-n', 'shop'], listed: 7, total: undefined},
    {args: ['pvc/logs', '-n', 'shop', '--candidates', '3'], listed: 3, total: 7},
  ]
  for (const b of bounds) {
    test(`explain ${b.args.join(' ')} -o json: ${b.listed} candidates${b.total === undefined ? ', no candidatesTotal' : ` of ${b.total}`}`, async () => {
      const r = await runCli(['explain', ...b.args, '-f', example, '-o', 'json'])
      assert.equal(r.code, 1, r.stderr)
      const doc = json(r.stdout)
      const items: Json[] = doc.kind === 'List' ? doc.items : [doc]
      assert.ok(items.length > 0)
      for (const e of items) {
        assert.equal(e.candidates.length, b.listed, e.claim.name)
        assert.equal(e.candidatesTotal, b.total, e.claim.name)
      }
    })
  }

  test('a List of more than MAX_LIST_CANDIDATES candidates in all is refused, exit 2, before any is worked out', async () => {
    // 1,000 volumes and ~500 pending claims: every volume for every claim is ~500k candidates, about 1 GB.
    const cluster = clusterJson(generateCluster(1000))
    const r = await runCli(['explain', '-A', '-f', '-', '--candidates', '0', '-o', 'json'], {stdin: cluster})
    assert.equal(r.code, 2, r.stderr)
    assert.equal(r.stdout, '')
    assert.match(
      r.stderr,
      /^error: --candidates 0: a List of [\d,]+ claims with 1,000 candidates each is [\d,]+ candidates, more than 500,000: name a claim \(pvc\/NAME\), narrow the List \(-n, -l\), or give fewer --candidates\n$/,
    )
    // The same List bounded (the default) is worked out.
    const bounded = await runCli(['explain', '-A', '-f', '-', '-o', 'json'], {stdin: cluster})
    assert.equal(bounded.code, 1, bounded.stderr)
    assert.ok(json(bounded.stdout).items.length * 1000 > MAX_LIST_CANDIDATES)
  })

  test('--candidates takes a count: a negative one is a one-line usage error, exit 2', async () => {
    const r = await runCli(['explain', '-A', '-f', example, '--candidates', '-1'])
    assert.equal(r.code, 2)
    assert.equal(r.stdout, '')
    assert.match(r.stderr, /^error: .*candidates/)
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
  })

  test('a bounded item as text says how many volumes there were and how to see them all', async () => {
    const r = await runCli(['explain', '-n', 'shop', '-f', example, '--candidates', '1'])
    assert.equal(r.code, 1)
    // The hint reads the same snapshot: pasted, it shows what the user was looking at, not a live cluster.
    const escaped = example.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
    assert.match(
      r.stdout,
      new RegExp(
        `^Candidates: 7 volumes, the nearest 1 shown \\(pvctl explain pvc/logs -n shop -f ${escaped} shows all\\), none eligible$`,
        'm',
      ),
    )
  })

  test('no claim and no terminal, as text: an overview, then each explanation', async () => {
    const r = await runCli(['explain', '-A', '-f', example])
    assert.equal(r.code, 1)
    assert.match(
      r.stdout,
      /^NAMESPACE\s+NAME\s+PHASE\s+VERDICT\s+VOLUME\nshop\s+carts\s+Pending\s+WillBind\s+pv-0003\n/,
    )
    for (const claim of ['carts', 'logs', 'orders', 'search'])
      assert.match(r.stdout, new RegExp(`^pvc/shop/${claim} \\(Pending\\): `, 'm'))
  })

  test('no claim in a namespace where every claim is Bound: exit 0', async () => {
    const r = await runCli(['explain', '-n', 'app', '-f', '-'], {stdin: IN_SYNC_SNAPSHOT})
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout, 'Every claim in scope is Bound: nothing to explain.\n')
  })

  test('--help documents the alias and the exit status', async () => {
    const r = await runCli(['explain', '--help'])
    assert.equal(r.code, 0)
    assert.match(r.stdout, /ALIASES\n\s+\$ pvctl why/)
    assert.match(r.stdout, /EXIT STATUS\n\s+0\s+the claim is Bound/)
  })
})

// ---------------------------------------------------------------------------------------------------------
// The interactive picker, through a pseudo-terminal.

describe('pvctl explain on a terminal: the picker', {skip: noTerminal}, () => {
  test('pick a claim, show a near-miss volume, the dry-run sync, pick another, quit', async () => {
    const t = new Terminal(['explain', '-n', 'shop', '-f', path.relative(repoRoot, example)])
    let at = await t.waitFor('Which claim?')
    // The claim that will never bind first, then the wait, then those that bind; the verdicts in one column.
    await t.waitFor('❯ shop/logs       NoMatchingVolume', at)
    await t.waitFor('  shop/sessions   Lost', at)
    await t.waitFor('  shop/search     WaitForPodScheduled', at)
    await t.waitFor('  shop/carts      WillBind', at)
    at = t.type(KEYS.enter)
    at = await t.waitFor('pvc/shop/logs (Pending): NoMatchingVolume', at)
    at = await t.waitFor('Next?', at)
    await t.waitFor('Show pv/pv-0002 (YAML): offers RWO, claim needs RWX (+2)', at)
    // The nearest volume's YAML.
    at = t.type(KEYS.enter)
    at = await t.waitFor('kind: PersistentVolume', at)
    await t.waitFor('name: pv-0002', at)
    at = await t.waitFor('Next?', at)
    // Three near misses, then the dry-run sync of the claim.
    at = t.type(KEYS.down, KEYS.down, KEYS.down)
    await t.waitFor('❯ Show the dry-run sync of pvc/logs', at)
    at = t.type(KEYS.enter)
    at = await t.waitFor('No changes: the cluster is in sync with the controller.', at)
    await t.waitFor('FailedBinding', at)
    at = await t.waitFor('Next?', at)
    at = t.type(KEYS.down, KEYS.down, KEYS.down, KEYS.down)
    await t.waitFor('❯ Pick another claim', at)
    at = t.type(KEYS.enter)
    at = await t.waitFor('Which claim?', at)
    // Typed, the list narrows to what matches (and Quit, always there).
    at = t.type('quit')
    await t.waitFor('❯ Quit', at)
    t.type(KEYS.enter)
    assert.equal((await t.exit()).code, 0, t.screen)
  })

  test('typed to filter, by verdict; then the reclaim the menu offers, a simulation on a snapshot', async () => {
    const t = new Terminal(['explain', '-f', 'examples/reclaim.yaml'])
    let at = await t.waitFor('Which claim?')
    at = t.type('provisioning')
    await t.waitFor('❯ shop/db  ProvisioningNotSupported', at)
    at = t.type(KEYS.enter)
    at = await t.waitFor('pvctl reclaim pv/pv-0004 --for shop/db -f examples/reclaim.yaml', at)
    at = await t.waitFor('Next?', at)
    await t.waitFor('❯ Reclaim pv/pv-0004 for this claim', at)
    at = t.type(KEYS.enter)
    at = await t.waitFor('a simulation on a snapshot, nothing is written', at)
    await t.waitFor('the reclaim is a simulation', at)
    at = await t.waitFor('set-claim-phase    pvc/shop/db   Pending -> Bound: volume pv-0004', at)
    at = await t.waitFor('Next?', at)
    const menuEnd = await t.waitFor('Pick another claim', at)
    assert.doesNotMatch(t.screen.slice(at, menuEnd), /Reclaim pv\/pv-0004/, 'not offered twice')
    t.type(KEYS.ctrlC)
    assert.equal((await t.exit()).code, 130, t.screen)
  })

  test('Ctrl-C at the picker ends it quietly, exit 130 (an interrupt, not a success)', async () => {
    const t = new Terminal(['explain', '-A', '-f', path.relative(repoRoot, example)])
    await t.waitFor('Which claim?')
    t.type(KEYS.ctrlC)
    assert.equal((await t.exit()).code, 130, t.screen)
    assert.doesNotMatch(t.screen, /error:/)
  })

  test('with -o json on a terminal there is no picker: the List is printed', async () => {
    const t = new Terminal(['explain', '-n', 'shop', '-f', path.relative(repoRoot, example), '-o', 'json'])
    assert.equal((await t.exit()).code, 1)
    assert.match(t.screen, /"kind": "List"/)
    assert.doesNotMatch(t.screen, /Which claim\?/)
  })
})
