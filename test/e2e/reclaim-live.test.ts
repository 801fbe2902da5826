// `pvctl reclaim` against a live API over real HTTPS: the built CLI, @kubernetes/client-node and the
// API-server emulator. Each test starts a fresh emulator holding examples/reclaim.yaml: pv-0004 Released
// (Retain) by the deleted shop/old-db, and shop/db Pending.
import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {type ReclaimOptions, runReclaim} from '../../src/app/reclaim.js'
import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {runCli} from '../cli/run-cli.js'
import {type Emulator, startEmulator} from '../emulator/emulator.js'
import {tempDir} from '../temp-dir.js'

const dir = tempDir('reclaim')
const {state: snapshot} = await loadSnapshot('examples/reclaim.yaml')

async function cluster(extra: object[] = []): Promise<{api: Emulator; kubeconfig: string}> {
  const api = await startEmulator({
    tls: true,
    listItemTypeMeta: false,
    objects: structuredClone([...snapshot.classes, ...snapshot.volumes, ...snapshot.claims, ...extra]) as never,
  })
  const kubeconfig = path.join(dir, `kubeconfig-${api.port}.yaml`)
  writeFileSync(kubeconfig, api.kubeconfig())
  return {api, kubeconfig}
}

const pvctl = (kubeconfig: string, ...args: string[]) =>
  runCli([...args, '--kubeconfig', kubeconfig], {env: {HOME: dir}})

/** shop/old-db back under a new uid: restored by Velero (its labels, spec.volumeName pv-0004), or re-created by hand (neither). */
function oldDbAgain(how: 'restored' | 're-created') {
  const restored = how === 'restored'
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: 'old-db',
      namespace: 'shop',
      uid: '7c2d4e00-3333-4e3c-9d00-0000000000b1',
      ...(restored ? {labels: {'velero.io/backup-name': 'nightly', 'velero.io/restore-name': 'nightly-20260301'}} : {}),
    },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: {requests: {storage: '8Gi'}},
      storageClassName: 'standard',
      ...(restored ? {volumeName: 'pv-0004'} : {}),
    },
  }
}

/** Creates `claim` just before pvctl's guard reads the volume again: between its read and its write. */
function createBeforeTheWrite(api: Emulator, claim: object): void {
  api.faults.add({
    verb: 'get',
    resource: 'pv',
    name: 'pv-0004',
    count: 1,
    effect: {type: 'hook', run: () => void api.create(claim as never)},
  })
}

type Claim = {metadata: {uid: string}; spec: {volumeName?: string}; status: {phase: string}}
const volumeWrites = (api: Emulator) => api.countWrites({resource: 'pv'})
const pv = (api: Emulator) =>
  api.get('pv', null, 'pv-0004') as unknown as {
    metadata: {resourceVersion: string}
    spec: {claimRef?: Record<string, string>}
    status: {phase: string}
  }

test('a Released Retain volume reclaimed for a new claim; pvctl sync --yes then binds them', async () => {
  const {api, kubeconfig} = await cluster()
  try {
    const run = await pvctl(kubeconfig, 'reclaim', 'pv/pv-0004', '--for', 'shop/db', '--yes', '-o', 'json')
    assert.equal(run.code, 0, run.stderr)
    const report = JSON.parse(run.stdout)
    assert.equal(report.write.outcome, 'written')
    assert.equal(report.next, 'the next sync binds pvc/shop/db to pv-0004')
    assert.deepEqual(pv(api).spec.claimRef, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      name: 'db',
      namespace: 'shop',
    })
    assert.equal(api.countWrites({resource: 'pv'}), 1, 'one PUT of the volume')
    assert.equal(api.countWrites({resource: 'pvc'}), 0, 'the claim is not written')
    const put = api.requests.find((r) => r.verb === 'update' && r.resource === 'persistentvolumes')
    assert.equal(put?.subresource ?? '', '', 'the spec, not the status')

    const sync = await pvctl(kubeconfig, 'sync', '--yes', '-o', 'json')
    assert.equal(sync.code, 0, sync.stderr)
    const claim = api.get('pvc', 'shop', 'db') as unknown as {
      metadata: {uid: string}
      spec: {volumeName?: string}
      status: {phase: string}
    }
    assert.equal(claim.spec.volumeName, 'pv-0004')
    assert.equal(claim.status.phase, 'Bound')
    assert.equal(pv(api).spec.claimRef?.uid, claim.metadata.uid)
    assert.equal(pv(api).status.phase, 'Bound')
  } finally {
    await api.stop()
  }
})

test('a Bound volume whose claim is gone: the refusal prints the sync, then the reclaim, and the steps run as printed are accepted', async () => {
  // pv-0004 as it is before the controller's release: still Bound, its claim gone.
  const bound = structuredClone(snapshot.volumes.find((v) => v.metadata.name === 'pv-0004')!)
  bound.status = {phase: 'Bound'}
  const api = await startEmulator({
    tls: true,
    listItemTypeMeta: false,
    objects: structuredClone([
      ...snapshot.classes,
      ...snapshot.volumes.filter((v) => v.metadata.name !== 'pv-0004'),
      bound,
      ...snapshot.claims,
    ]) as never,
  })
  const kubeconfig = path.join(dir, `kubeconfig-${api.port}.yaml`)
  writeFileSync(kubeconfig, api.kubeconfig())
  try {
    const refused = await pvctl(kubeconfig, 'reclaim', 'pv/pv-0004', '--for', 'shop/db')
    assert.equal(refused.code, 2, refused.stderr)
    const printed = /sync it first, then reclaim it: (pvctl sync .*? && pvctl reclaim [^;\n]*)/.exec(
      refused.stderr,
    )?.[1]
    assert.equal(
      printed,
      `pvctl sync pv/pv-0004 --kubeconfig ${kubeconfig} && pvctl reclaim pv/pv-0004 --for shop/db --kubeconfig ${kubeconfig}`,
      refused.stderr,
    )
    const [sync, reclaim] = printed.split(' && ').map((step) => step.split(' ').slice(1))
    // The operator's consent to the sync's write; the reclaim tried first, as a dry run.
    const synced = await runCli([...sync, '--yes'], {env: {HOME: dir}})
    assert.equal(synced.code, 0, synced.stderr)
    assert.equal(pv(api).status.phase, 'Released')
    const reclaimed = await runCli([...reclaim, '--dry-run'], {env: {HOME: dir}})
    assert.equal(reclaimed.code, 1, reclaimed.stderr)
    assert.match(reclaimed.stdout, /^Next: the next sync binds pvc\/shop\/db to pv-0004$/m)
  } finally {
    await api.stop()
  }
})

test('a volume still mounted by a pod of the old claim is refused, exit 2, nothing written', async () => {
  const mounted = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {name: 'old-db-0', namespace: 'shop', uid: 'p-1'},
    spec: {
      nodeName: 'node-1',
      containers: [{name: 'db', image: 'postgres'}],
      volumes: [{name: 'data', persistentVolumeClaim: {claimName: 'old-db'}}],
    },
    status: {phase: 'Running'},
  }
  const {api, kubeconfig} = await cluster([{apiVersion: 'v1', kind: 'Namespace', metadata: {name: 'shop'}}, mounted])
  try {
    for (const force of [[], ['--force']]) {
      const run = await pvctl(kubeconfig, 'reclaim', 'pv/pv-0004', '--for', 'shop/db', '--yes', ...force)
      assert.equal(run.code, 2, run.stderr)
      assert.match(
        run.stderr,
        /^error: pv\/pv-0004 is not reclaimed: OldClaimUnused: pod shop\/old-db-0 \(on node-1\) still uses shop\/old-db$/m,
      )
      assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace')
    }
    assert.equal(volumeWrites(api), 0)
  } finally {
    await api.stop()
  }
})

// The issue's table, row by row: a claim that may own the data stops the hand-over, on the load (exit 2)
// and in the guard's re-read (exit 3), naming the way out; the way out printed works as printed.
test('the old claim restored (new uid, restore label, spec.volumeName) before the run: refused, exit 2, and the relink it names reunites them', async () => {
  const {api, kubeconfig} = await cluster([oldDbAgain('restored')])
  try {
    const run = await pvctl(kubeconfig, 'reclaim', 'pv/pv-0004', '--for', 'shop/db', '--yes')
    assert.equal(run.code, 2, run.stderr)
    assert.match(
      run.stderr,
      /^error: pv\/pv-0004 is not reclaimed: .*NoRestoredOwner: pvc\/shop\/old-db, restored by nightly-20260301 \(uid 7c2d4e00-3333-4e3c-9d00-0000000000b1\), names pv-0004: it is the data's owner; pvctl relink pvc\/old-db -n shop --kubeconfig \S+ reunites them$/m,
    )
    assert.match(run.stderr, /OldNameFree: pvc\/shop\/old-db is back .*restored by nightly-20260301, names pv-0004/)
    assert.match(run.stderr, /NoOtherClaim: pvc\/shop\/old-db \(Pending\) names pv-0004 in spec.volumeName/)
    assert.doesNotMatch(run.stderr, /--not-owner/, 'a restored owner is not to be disowned')
    assert.equal(volumeWrites(api), 0)
    // The repair named, run as printed.
    const repair = /pvctl (relink pvc\/old-db -n shop)/.exec(run.stderr)![1].split(' ')
    const relinked = await pvctl(kubeconfig, ...repair, '--yes', '--sync')
    assert.equal(relinked.code, 0, relinked.stderr)
    const owner = api.get('pvc', 'shop', 'old-db') as unknown as Claim
    assert.deepEqual(
      [owner.status.phase, owner.spec.volumeName, pv(api).spec.claimRef?.uid],
      ['Bound', 'pv-0004', owner.metadata.uid],
    )
    assert.equal(
      (api.get('pvc', 'shop', 'db') as unknown as Claim).status.phase,
      'Pending',
      'shop/db was not given the data',
    )
  } finally {
    await api.stop()
  }
})

test('the old claim restored between the read and the write: the guard reads it and writes nothing, exit 3', async () => {
  const {api, kubeconfig} = await cluster()
  try {
    createBeforeTheWrite(api, oldDbAgain('restored'))
    const run = await pvctl(kubeconfig, 'reclaim', 'pv/pv-0004', '--for', 'shop/db', '--yes', '-o', 'json')
    assert.equal(run.code, 3, run.stderr)
    assert.match(
      JSON.parse(run.stdout).write.outcome,
      /^not-written: double-check: the reclaim of pv-0004 no longer holds on the objects read again: .*NoRestoredOwner: .*pvctl relink pvc\/old-db -n shop --kubeconfig \S+ reunites them/,
    )
    assert.equal(volumeWrites(api), 0)
    assert.equal(pv(api).spec.claimRef?.name, 'old-db', 'the claimRef is untouched')
  } finally {
    await api.stop()
  }
})

test('the old claim re-created under its name (new uid, no spec.volumeName): refused, exit 2, naming both ways out; each works as printed', async () => {
  const {api, kubeconfig} = await cluster([oldDbAgain('re-created')])
  try {
    const run = await pvctl(kubeconfig, 'reclaim', 'pv/pv-0004', '--for', 'shop/db', '--yes')
    assert.equal(run.code, 2, run.stderr)
    assert.match(
      run.stderr,
      /^error: pv\/pv-0004 is not reclaimed: OldNameFree: pvc\/shop\/old-db was re-created \(uid 7c2d4e00-3333-4e3c-9d00-0000000000b1; the volume held 7c2d4e00-3333-4e3c-9d00-0000000000a1\) and names no volume: it may be the data's owner come back; if it is, pvctl relink pv\/pv-0004 --kubeconfig \S+ gives the volume back to it; if it is not, add --not-owner shop\/old-db$/m,
    )
    assert.equal(volumeWrites(api), 0)
    // Not the owner: said explicitly, the hand-over goes ahead.
    const disowned = await pvctl(
      kubeconfig,
      'reclaim',
      'pv/pv-0004',
      '--for',
      'shop/db',
      '--yes',
      '--not-owner',
      'shop/old-db',
      '-o',
      'json',
    )
    assert.equal(disowned.code, 0, disowned.stderr)
    const report = JSON.parse(disowned.stdout)
    assert.deepEqual(
      report.checks.find((c: {name: string}) => c.name === 'OldNameFree'),
      {
        name: 'OldNameFree',
        result: 'forced',
        ok: false,
        overridable: true,
        forced: true,
        message:
          'pvc/shop/old-db was re-created (uid 7c2d4e00-3333-4e3c-9d00-0000000000b1; the volume held 7c2d4e00-3333-4e3c-9d00-0000000000a1) and names no volume: --not-owner says it is not the owner of the data',
      },
    )
    assert.deepEqual(pv(api).spec.claimRef, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      name: 'db',
      namespace: 'shop',
    })
  } finally {
    await api.stop()
  }
  // The owner come back: the relink named gives it the volume.
  const other = await cluster([oldDbAgain('re-created')])
  try {
    const relinked = await pvctl(other.kubeconfig, 'relink', 'pv/pv-0004', '--yes', '--sync')
    assert.equal(relinked.code, 0, relinked.stderr)
    const owner = other.api.get('pvc', 'shop', 'old-db') as unknown as Claim
    assert.deepEqual([owner.status.phase, owner.spec.volumeName], ['Bound', 'pv-0004'])
  } finally {
    await other.api.stop()
  }
})

test('the old claim re-created between the read and the write: the guard reads it and writes nothing, exit 3', async () => {
  const {api, kubeconfig} = await cluster()
  try {
    createBeforeTheWrite(api, oldDbAgain('re-created'))
    const run = await pvctl(kubeconfig, 'reclaim', 'pv/pv-0004', '--yes')
    assert.equal(run.code, 3, run.stderr)
    assert.match(
      run.stderr,
      /not written: the reclaim of pv-0004 no longer holds on the objects read again: OldNameFree: pvc\/shop\/old-db was re-created .*add --not-owner shop\/old-db/,
    )
    assert.equal(volumeWrites(api), 0)
  } finally {
    await api.stop()
  }
})

test('a Released volume with no claimRef, nothing racing: decided on what was read, never "changed since it was read"', async () => {
  const {api, kubeconfig} = await cluster()
  try {
    const free = structuredClone(api.get('pv', null, 'pv-0004')) as unknown as {spec: {claimRef?: object}}
    delete free.spec.claimRef
    api.update(free as never)
    // Without --for it is reclaimed already: nothing to write.
    const plain = await pvctl(kubeconfig, 'reclaim', 'pv/pv-0004', '--yes')
    assert.equal(plain.code, 0, plain.stderr)
    assert.match(
      plain.stdout,
      /^Already reclaimed: pv-0004 has no claimRef \(Released\): the next sync binds pvc\/shop\/db to pv-0004$/m,
    )
    assert.equal(volumeWrites(api), 0, 'nothing written')
    // With --for, the pre-binding is written: the re-read is the read.
    const given = await pvctl(kubeconfig, 'reclaim', 'pv/pv-0004', '--for', 'shop/db', '--yes')
    assert.equal(given.code, 0, given.stderr)
    for (const run of [plain, given])
      assert.doesNotMatch(run.stdout + run.stderr, /changed since it was read|claimRef was removed/)
    assert.deepEqual(pv(api).spec.claimRef, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      name: 'db',
      namespace: 'shop',
    })
  } finally {
    await api.stop()
  }
})

test('--dry-run makes no write request, and says what the next sync does', async () => {
  const {api, kubeconfig} = await cluster()
  try {
    api.clearRequests()
    const run = await pvctl(kubeconfig, 'reclaim', 'pv/pv-0004', '--dry-run')
    assert.equal(run.code, 1, run.stderr)
    assert.match(
      run.stdout,
      /^Next: the next sync binds pvc\/shop\/db to pv-0004$/m,
      'without --for, the Pending claim that fits',
    )
    assert.equal(
      api.requests.filter((r) => !['get', 'list', 'watch'].includes(r.verb)).length,
      0,
      'no write of any kind',
    )
  } finally {
    await api.stop()
  }
})

test('without --yes and without a terminal it refuses before writing', async () => {
  const {api, kubeconfig} = await cluster()
  try {
    const run = await pvctl(kubeconfig, 'reclaim', 'pv/pv-0004')
    assert.equal(run.code, 2)
    assert.match(run.stderr, /^error: refusing to write without confirmation: no terminal to ask on; pass --yes/m)
    assert.equal(volumeWrites(api), 0)
  } finally {
    await api.stop()
  }
})

test('the guard reads again before it writes: a claim re-created meanwhile under the old uid stops it (exit 3)', async () => {
  const {api, kubeconfig} = await cluster()
  try {
    // Another writer acts between pvctl's list and its write: the old claim is back (a restore).
    api.faults.add({
      verb: 'get',
      resource: 'pv',
      name: 'pv-0004',
      count: 1,
      effect: {
        type: 'hook',
        run: () =>
          void api.create({
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            metadata: {name: 'old-db', namespace: 'shop', uid: '7c2d4e00-3333-4e3c-9d00-0000000000a1'},
            spec: {
              accessModes: ['ReadWriteOnce'],
              resources: {requests: {storage: '8Gi'}},
              storageClassName: 'standard',
            },
          } as never),
      },
    })
    const run = await pvctl(kubeconfig, 'reclaim', 'pv/pv-0004', '--yes', '-o', 'json')
    assert.equal(run.code, 3, run.stderr)
    assert.match(
      JSON.parse(run.stdout).write.outcome,
      /^not-written: double-check: the reclaim of pv-0004 no longer holds .*OldClaimGone: claim shop\/old-db still exists/,
    )
    assert.equal(volumeWrites(api), 0, 'the volume is not written (the claim was created server-side)')
    assert.ok(pv(api).spec.claimRef?.uid, 'the claimRef is untouched')
  } finally {
    await api.stop()
  }
})

test('a conflict on the PUT reads and decides again, then writes on the fresh resourceVersion', async () => {
  const {api, kubeconfig} = await cluster()
  try {
    api.faults.add({verb: 'update', resource: 'pv', name: 'pv-0004', count: 1, effect: {type: 'conflict'}})
    const run = await pvctl(kubeconfig, 'reclaim', 'pv/pv-0004', '--yes')
    assert.equal(run.code, 0, run.stderr)
    assert.equal(pv(api).spec.claimRef, undefined)
    assert.equal(api.countRequests({verb: 'get', resource: 'pv', name: 'pv-0004'}), 2, 'read again after the conflict')
  } finally {
    await api.stop()
  }
})

/** runReclaim in-process, as the command calls it, with a fake terminal that answers `answer`. */
async function reclaimInProcess(kubeconfig: string, answer: boolean, extra: Partial<ReclaimOptions> = {}) {
  const asked: Array<{question: string; warning: string}> = []
  const quiet = {notice: () => {}, spinner: async () => ({text: () => {}, stop: () => {}})}
  const result = await runReclaim(
    {
      volumeName: 'pv-0004',
      target: {namespace: 'shop', name: 'db'},
      force: false,
      dryRun: false,
      yes: false,
      sync: false,
      kubeconfig,
      stdin: process.stdin,
      qps: 100,
      burst: 100,
      concurrency: 1,
      events: false,
      ...extra,
    },
    {
      ...quiet,
      confirm: async (question, warning) => (asked.push({question, warning}), answer),
      showPlan: () => {},
      syncUi: {...quiet, showPlan: () => {}},
    },
  )
  return {result, asked}
}

test('the typed consent: the question names the volume, the claim and the context, the warning says where the data goes', async () => {
  const {api, kubeconfig} = await cluster()
  try {
    const declined = await reclaimInProcess(kubeconfig, false)
    assert.equal(declined.result.exitCode, 1)
    assert.equal(declined.result.declined, true)
    assert.equal(volumeWrites(api), 0, 'declined: nothing written')
    assert.match(declined.asked[0].question, /^Reclaim pv\/pv-0004 for pvc\/shop\/db on context \S+\?$/)
    assert.equal(
      declined.asked[0].warning,
      'Its data stays on the volume and becomes visible to the pods of pvc/shop/db.',
    )

    const synced = await reclaimInProcess(kubeconfig, true, {sync: true, yes: true})
    assert.equal(synced.asked.length, 0, '--yes asks nothing')
    assert.equal(synced.result.exitCode, 0)
    assert.equal(synced.result.report.sync?.converged, true)
    const claim = api.get('pvc', 'shop', 'db') as unknown as {spec: {volumeName?: string}; status: {phase: string}}
    assert.equal(claim.spec.volumeName, 'pv-0004', '--sync bound them')
    assert.equal(claim.status.phase, 'Bound')
  } finally {
    await api.stop()
  }
})

test('--not-owner in the typed consent: the question says which claim is taken as not the owner', async () => {
  const {api, kubeconfig} = await cluster([oldDbAgain('re-created')])
  try {
    const {result, asked} = await reclaimInProcess(kubeconfig, false, {notOwner: {namespace: 'shop', name: 'old-db'}})
    assert.equal(result.exitCode, 1)
    assert.match(
      asked[0].question,
      /^Reclaim pv\/pv-0004 for pvc\/shop\/db on context \S+, --not-owner: pvc\/shop\/old-db was re-created \(uid 7c2d4e00-3333-4e3c-9d00-0000000000b1; the volume held 7c2d4e00-3333-4e3c-9d00-0000000000a1\) and names no volume: --not-owner says it is not the owner of the data\?$/,
    )
    assert.equal(volumeWrites(api), 0)
  } finally {
    await api.stop()
  }
})
