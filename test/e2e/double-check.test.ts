// The double-checks against the API-server emulator over real HTTP: a second writer races pvctl's
// `sync --yes` on the bundled example and no volume whose claim exists is released, scrubbed or deleted;
// a plan that would release most of the cluster is refused before anything is written.
import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {openLiveSession} from '../../src/app/live-session.js'
import {executeSync} from '../../src/executor/executor.js'
import {LiveVolumePlugins} from '../../src/volume-plugins/live-plugins.js'
import {loadLiveState} from '../../src/cluster/live-loader.js'
import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {PersistentVolume} from '../../src/engine/api/model.js'
import {runCli} from '../cli/run-cli.js'
import {type Emulator, type K8sObject, startEmulator} from '../emulator/emulator.js'
import type {FaultSpec} from '../emulator/faults.js'
import {kubelet} from './kubelet.js'
import {tempDir} from '../temp-dir.js'

const dir = tempDir('double-check')
const {state: example} = await loadSnapshot('examples/cluster.yaml')

async function cluster(
  change: (objects: K8sObject[]) => K8sObject[] = (o) => o,
  tls = true,
): Promise<{api: Emulator; kubeconfig: string; stop: () => Promise<void>}> {
  const objects = change(
    structuredClone([
      ...example.classes,
      ...example.volumes,
      ...example.claims,
      ...example.pods,
      ...example.nodes,
    ]) as never,
  )
  const api = await startEmulator({tls, listItemTypeMeta: false, objects})
  const kubeconfig = path.join(dir, `kubeconfig-${api.port}.yaml`)
  writeFileSync(kubeconfig, api.kubeconfig())
  const stopKubelet = kubelet(api, 'Succeeded')
  return {api, kubeconfig, stop: async () => (stopKubelet(), await api.stop())}
}

const withPolicy = (name: string, policy: string) => (objects: K8sObject[]) =>
  objects.map((o) =>
    o.kind === 'PersistentVolume' && o.metadata.name === name
      ? {...o, spec: {...(o.spec as object), persistentVolumeReclaimPolicy: policy}}
      : o,
  )

/** An admin's hand, server-side: a new claim, and the volume bound to it by uid (as a binder writes it). False when the volume is gone. */
function bindToNewClaim(api: Emulator, volume: string, claim: string): boolean {
  const pv = api.get('pv', null, volume) as unknown as PersistentVolume | undefined
  if (pv === undefined) return false
  const uid = `uid-${claim}`
  api.create({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {name: claim, namespace: 'shop', uid},
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: {requests: {storage: '1Gi'}},
      storageClassName: 'standard',
      volumeMode: 'Filesystem',
    },
    status: {phase: 'Pending'},
  })
  api.update({
    ...pv,
    spec: {
      ...pv.spec,
      claimRef: {apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'shop', name: claim, uid},
    },
    status: {phase: 'Bound'},
  } as never)
  return true
}

const volume = (api: Emulator, name: string) => api.get('pv', null, name) as unknown as PersistentVolume | undefined
const podsFor = (api: Emulator, name: string) =>
  api.requests.filter((r) => r.verb === 'create' && r.resource === 'pods' && (r.name ?? '').endsWith(`-for-${name}`))

interface RaceRow {
  name: string
  change?: (objects: K8sObject[]) => K8sObject[]
  /** The second writer: acts just before the request this fault matches is served. */
  fault: (api: Emulator) => FaultSpec
  exitCode: number
  check: (api: Emulator, stderr: string) => void
}

const ORDERS_UID = '7c2d4e00-3333-4e3c-9d00-000000000001'

const races: RaceRow[] = [
  {
    name: 'an admin pre-binds pv-0002 (Delete) to a claim created after the list: neither released nor deleted',
    change: withPolicy('pv-0002', 'Delete'),
    // Just before pvctl's first write of pv-0002 (it binds pv-0002 to shop/orders).
    fault: (api) => ({
      verb: 'update',
      resource: 'pv',
      name: 'pv-0002',
      count: 1,
      effect: {type: 'hook', run: () => void bindToNewClaim(api, 'pv-0002', 'late')},
    }),
    exitCode: 0,
    check: (api) => {
      assert.equal(volume(api, 'pv-0002')?.spec.claimRef?.name, 'late')
      assert.equal(volume(api, 'pv-0002')?.status?.phase, 'Bound')
      assert.deepEqual(podsFor(api, 'pv-0002'), [], 'no cleanup pod for pv-0002')
      assert.equal(
        (api.get('pvc', 'shop', 'late') as unknown as {spec: {volumeName?: string}}).spec.volumeName,
        'pv-0002',
        'the next sync completed the binding',
      )
    },
  },
  {
    name: 'the same with Retain: pv-0002 is not written Released',
    fault: (api) => ({
      verb: 'update',
      resource: 'pv',
      name: 'pv-0002',
      count: 1,
      effect: {type: 'hook', run: () => void bindToNewClaim(api, 'pv-0002', 'late')},
    }),
    exitCode: 0,
    check: (api) => assert.equal(volume(api, 'pv-0002')?.status?.phase, 'Bound'),
  },
  {
    name: 'pv-0006 released by pvctl, then bound to a new claim before its cleanup pod: not deleted, and the run says why',
    // pvctl writes pv-0006 Released; right after, before the guard reads it again, an admin rescues it.
    fault: (api) => ({
      verb: 'get',
      resource: 'pv',
      name: 'pv-0006',
      count: 1,
      effect: {type: 'hook', run: () => void bindToNewClaim(api, 'pv-0006', 'rescue')},
    }),
    exitCode: 3,
    check: (api, stderr) => {
      assert.match(stderr, /the double-check stopped 1 destructive step\(s\)/)
      assert.equal(volume(api, 'pv-0006')?.spec.claimRef?.name, 'rescue')
      assert.deepEqual(podsFor(api, 'pv-0006'), [], 'no cleanup pod')
      assert.equal(
        volume(api, 'pv-0005')?.status?.phase,
        'Available',
        'the recycle of pv-0005, another sync, went ahead',
      )
    },
  },
  {
    name: "pv-0006's policy flipped Delete -> Retain after its release, before its cleanup pod: not deleted",
    fault: (api) => ({
      verb: 'get',
      resource: 'pv',
      name: 'pv-0006',
      count: 1,
      effect: {
        type: 'hook',
        run: () =>
          void api.update({
            ...api.get('pv', null, 'pv-0006')!,
            spec: {...(api.get('pv', null, 'pv-0006')!.spec as object), persistentVolumeReclaimPolicy: 'Retain'},
          }),
      },
    }),
    exitCode: 3,
    check: (api, stderr) => {
      assert.match(stderr, /double-check/)
      assert.equal(volume(api, 'pv-0006')?.status?.phase, 'Released')
      assert.deepEqual(podsFor(api, 'pv-0006'), [], 'no cleanup pod')
    },
  },
  {
    name: 'pv-0005 (Recycle) rescued by an admin before the recycler pod: not scrubbed',
    fault: (api) => ({
      verb: 'get',
      resource: 'pv',
      name: 'pv-0005',
      count: 1,
      effect: {type: 'hook', run: () => void bindToNewClaim(api, 'pv-0005', 'rescue')},
    }),
    exitCode: 3,
    check: (api) => {
      assert.deepEqual(podsFor(api, 'pv-0005'), [], 'no recycler pod')
      assert.equal(volume(api, 'pv-0005')?.spec.claimRef?.name, 'rescue')
    },
  },
  {
    name: 'another binder binds shop/orders to pv-admin (new since the list) just before pvctl writes the claim: not Lost',
    fault: (api) => ({
      verb: 'update',
      resource: 'pvc',
      name: 'orders',
      subresource: '',
      count: 1,
      effect: {
        type: 'hook',
        run: () => {
          // The volume first, then the claim, as a binder writes them.
          api.create({
            apiVersion: 'v1',
            kind: 'PersistentVolume',
            metadata: {
              name: 'pv-admin',
              uid: 'uid-pv-admin',
              annotations: {'pv.kubernetes.io/bound-by-controller': 'yes'},
            },
            spec: {
              capacity: {storage: '50Gi'},
              accessModes: ['ReadWriteOnce'],
              persistentVolumeReclaimPolicy: 'Retain',
              storageClassName: 'standard',
              hostPath: {path: '/tmp/pv-admin'},
              claimRef: {
                apiVersion: 'v1',
                kind: 'PersistentVolumeClaim',
                namespace: 'shop',
                name: 'orders',
                uid: ORDERS_UID,
              },
            },
            status: {phase: 'Bound'},
          })
          const orders = api.get('pvc', 'shop', 'orders')! as unknown as {metadata: object; spec: object}
          api.update({
            ...orders,
            metadata: {
              ...orders.metadata,
              annotations: {'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes'},
            },
            spec: {...orders.spec, volumeName: 'pv-admin'},
            status: {phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: {storage: '50Gi'}},
          } as never)
        },
      },
    }),
    exitCode: 0,
    check: (api) => {
      const orders = api.get('pvc', 'shop', 'orders') as unknown as {
        spec: {volumeName?: string}
        status: {phase?: string}
      }
      assert.equal(orders.status.phase, 'Bound', 'not Lost')
      assert.equal(orders.spec.volumeName, 'pv-admin')
      assert.equal(volume(api, 'pv-0002')?.spec.claimRef, undefined, 'the volume pvctl bound first is rolled back')
    },
  },
]

for (const row of races) {
  test(`sync --yes against a second writer: ${row.name}`, async () => {
    const {api, kubeconfig, stop} = await cluster(row.change)
    try {
      api.faults.add(row.fault(api))
      const run = await runCli(['sync', '--kubeconfig', kubeconfig, '--yes'], {env: {HOME: dir}})
      assert.equal(run.code, row.exitCode, run.stdout + run.stderr)
      assert.doesNotMatch(run.stderr, /internal error|at .*\.js:\d+/, 'no stack trace')
      row.check(api, run.stderr)
    } finally {
      await stop()
    }
  })
}

test('sync --yes: the claim list answers a well-formed but empty PersistentVolumeClaimList; each claim is asked for, found, and no bound volume is released', async () => {
  const {api, kubeconfig, stop} = await cluster()
  try {
    api.faults.add({
      verb: 'list',
      resource: 'pvc',
      effect: {
        type: 'body',
        code: 200,
        body: JSON.stringify({
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaimList',
          metadata: {resourceVersion: '1'},
          items: [],
        }),
      },
    })
    const run = await runCli(['sync', '--kubeconfig', kubeconfig, '--yes', '-o', 'json'], {env: {HOME: dir}})
    // pv-0003 and pv-0008 are bound to claims that exist: asked of the API server, found, not released.
    for (const name of ['pv-0003', 'pv-0008'])
      assert.equal(volume(api, name)?.status?.phase, 'Bound', `${name}: ${run.stderr}`)
    assert.ok(api.countRequests({verb: 'get', resource: 'pvc', name: 'carts'}) > 0, 'the claim was asked for')
    assert.deepEqual(podsFor(api, 'pv-0003'), [])
  } finally {
    await stop()
  }
})

test('sync --yes: a change between the last check and the PV DELETE: its preconditions (uid, resourceVersion) make the server refuse it', async () => {
  const {api, kubeconfig, stop} = await cluster()
  try {
    api.faults.add({
      verb: 'delete',
      resource: 'pv',
      name: 'pv-0006',
      count: 1,
      effect: {type: 'hook', run: () => void bindToNewClaim(api, 'pv-0006', 'just-in-time')},
    })
    const run = await runCli(['sync', '--kubeconfig', kubeconfig, '--yes'], {env: {HOME: dir}})
    assert.equal(run.code, 0, run.stderr)
    const deletes = api.requests.filter(
      (r) => r.verb === 'delete' && r.resource === 'persistentvolumes' && r.name === 'pv-0006',
    )
    assert.deepEqual(
      deletes.map((r) => r.status),
      [409],
      'the one DELETE was refused by its preconditions',
    )
    assert.equal(volume(api, 'pv-0006')?.spec.claimRef?.name, 'just-in-time', 'the PV object is kept for its new claim')
  } finally {
    await stop()
  }
})

/** 30 bound Retain volumes whose claims are gone: a claim list that lost them looks just like this. */
const orphans = Array.from({length: 30}, (_, i) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: {name: `orphan-${String(i).padStart(2, '0')}`, uid: `uid-orphan-${i}`},
  spec: {
    capacity: {storage: '1Gi'},
    accessModes: ['ReadWriteOnce'],
    persistentVolumeReclaimPolicy: 'Retain',
    hostPath: {path: `/tmp/orphan-${i}`},
    claimRef: {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      namespace: 'gone',
      name: `claim-${i}`,
      uid: `uid-claim-${i}`,
    },
  },
  status: {phase: 'Bound'},
}))

test('sync --dry-run says when writing its plan would be refused by the mass-release guard', async () => {
  const file = path.join(dir, 'orphans.json')
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: [...structuredClone([...example.classes, ...example.volumes, ...example.claims]), ...orphans],
    }),
  )
  const run = await runCli(['sync', '--dry-run', '-f', file], {env: {HOME: dir}})
  assert.equal(run.code, 1)
  assert.match(
    run.stderr,
    /writing this plan would be refused without --allow-mass-release: mass release guard: 33 volumes/,
  )
  const allowed = await runCli(['sync', '--dry-run', '-f', file, '--allow-mass-release'], {env: {HOME: dir}})
  assert.doesNotMatch(allowed.stderr, /mass release/)
})

test('sync --yes: a plan that releases more than the guard allows is refused before anything is written (exit 2); --allow-mass-release lets it through', async () => {
  const {api, kubeconfig, stop} = await cluster((o) => [...o, ...orphans])
  try {
    api.clearRequests()
    const refused = await runCli(['sync', '--kubeconfig', kubeconfig, '--yes'], {env: {HOME: dir}})
    assert.equal(refused.code, 2, refused.stderr)
    assert.match(
      refused.stderr,
      /^error: refusing to write: mass release guard: 33 volumes would be released, recycled or deleted at once, more than 20 /m,
    )
    assert.equal(api.countWrites({resource: 'pv'}) + api.countWrites({resource: 'pvc'}), 0, 'nothing written')

    const allowed = await runCli(['sync', '--kubeconfig', kubeconfig, '--yes', '--allow-mass-release'], {
      env: {HOME: dir},
    })
    assert.equal(allowed.code, 0, allowed.stderr)
    assert.equal(volume(api, 'orphan-29')?.status?.phase, 'Released')
  } finally {
    await stop()
  }
})

test('the race of the first row, 50 times at moments spread over the run: no volume is deleted or scrubbed on a read older than its rescue', async () => {
  // In-process (the executor over real HTTP to the emulator), so that 50 trials stay quick. Each trial
  // binds pv-0006 (Delete, about to be released and deleted) to a new claim at another moment of the run.
  // Whenever the bind lands, nothing destructive may follow from a read made before it: no cleanup pod
  // decided on an older read (the guard reads pv-0006 again just before), and no PV DELETE after it.
  let rescued = 0
  for (let trial = 0; trial < 50; trial++) {
    const {api, kubeconfig, stop} = await cluster((o) => o, false)
    try {
      const session = openLiveSession({kubeconfig, qps: 1000, burst: 1000})
      const state = await loadLiveState(session.api, {})
      api.clearRequests()
      let boundAt = -1
      let tooLate = false
      // The admin's bind at this trial's moment of the run; waited for after the run, which may end first.
      const admin = new Promise<void>((resolve) =>
        setTimeout(
          () => {
            const at = api.requests.length
            if (bindToNewClaim(api, 'pv-0006', `late-${trial}`)) boundAt = at
            else tooLate = true
            resolve()
          },
          (trial * 7919) % 200,
        ),
      )
      const plugins = new LiveVolumePlugins(session.workload, {pollMs: 5})
      await executeSync(session.api, state, {
        gates: defaultFeatureGates,
        maxRounds: 100,
        concurrency: 4,
        events: false,
        destructive: true,
        plugins,
        workload: session.workload,
      })
      await admin
      const requests = api.requests
      const isPv6 = (r: (typeof requests)[number]) => r.resource === 'persistentvolumes' && r.name === 'pv-0006'
      const podAt = requests.findIndex(
        (r) => r.verb === 'create' && r.resource === 'pods' && r.name === 'deleter-for-pv-0006',
      )
      const deletedAt = requests.findIndex((r) => r.verb === 'delete' && isPv6(r) && r.status === 200)
      if (tooLate) continue // pv-0006 was deleted before the admin came: nothing to rescue
      assert.ok(boundAt !== -1, `trial ${trial}: the admin never acted`)
      assert.ok(
        deletedAt === -1 || deletedAt < boundAt,
        `trial ${trial}: pv-0006 deleted after it was bound to a claim`,
      )
      if (podAt > boundAt) {
        const lastRead =
          podAt - 1 - [...requests.slice(0, podAt)].reverse().findIndex((r) => r.verb === 'get' && isPv6(r))
        assert.ok(
          lastRead > boundAt,
          `trial ${trial}: the cleanup pod was decided on a read of pv-0006 older than its rescue`,
        )
      }
      if (podAt === -1 || podAt > boundAt) {
        rescued++
        assert.equal(
          volume(api, 'pv-0006')?.spec.claimRef?.name,
          `late-${trial}`,
          `trial ${trial}: pv-0006 is kept for its new claim`,
        )
      }
    } finally {
      await stop()
    }
  }
  // The spread of moments exercised both sides of the race: rescues before the cleanup, and after it began.
  assert.ok(rescued >= 5 && rescued <= 45, `pv-0006 rescued in ${rescued} of 50 trials`)
})
