// Every check of `pvctl relink`, blocked by one state and holding in the state next to it, then the edits
// (the volume's claimRef uid, a bind-completed claim's spec.volumeName), the proof, and the candidates of --all.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import {defaultFeatureGates} from '../../../src/engine/api/feature-gates.js'
import type {ClusterState} from '../../../src/engine/api/model.js'
import {
  decideRelink,
  editedState,
  RELINK_CHECKS,
  relinkCandidates,
  type RelinkCheckName,
  type RelinkDecision,
  type RelinkTarget,
} from '../../../src/engine/repair/relink.js'
import {reconcile} from '../../../src/engine/simulation/reconcile.js'
import {bound, byController, pv, pvc, state} from '../builders.js'
import {type CheckRow, checkRowTests} from './check-rows.js'

const byVolume: RelinkTarget = {kind: 'PersistentVolume', name: 'pv-1'}
const byClaim: RelinkTarget = {kind: 'PersistentVolumeClaim', namespace: 'default', name: 'db'}

function decide(s: ClusterState, target: RelinkTarget = byVolume): RelinkDecision {
  return decideRelink({state: s, target, gates: defaultFeatureGates})!
}

const checkOf = (d: RelinkDecision, name: RelinkCheckName) => d.checks.find((c) => c.name === name)

/** pv-1, Bound by controller to default/db with the uid of the claim before it was re-created. */
const stale = (o: Parameters<typeof pv>[1] = {}) =>
  pv('pv-1', {phase: 'Bound', className: '', claim: {name: 'db', uid: 'u-old'}, annotations: byController, ...o})
/** default/db as Velero restores it: a new uid, spec.volumeName pv-1, no bind-completed annotation. */
const restored = (o: Parameters<typeof pvc>[2] = {}) => pvc('db', 'u-new', {className: '', volumeName: 'pv-1', ...o})

const rows: Array<CheckRow<RelinkCheckName, [ClusterState, RelinkTarget?]>> = [
  {
    check: 'PairNamed',
    blocked: [
      state({
        volumes: [stale()],
        claims: [restored({volumeName: 'pv-9'}), pvc('x', 'u-x', {className: '', volumeName: 'pv-9'})],
      }),
    ],
    near: [state({volumes: [stale()], claims: [restored()]})],
    message: /pvc\/default\/db names volume pv-9, not pv-1 \(spec.volumeName cannot be changed once set\)/,
  },
  {
    check: 'VolumeExists',
    blocked: [state({claims: [restored({phase: 'Lost', annotations: bound})]}), byClaim],
    near: [state({volumes: [stale()], claims: [restored({phase: 'Lost', annotations: bound})]}), byClaim],
    message:
      /volume pv-1, which pvc\/default\/db names, does not exist .*restore the PV object \(kubectl apply -f pv-1.yaml, or velero restore create .*\), then run pvctl relink pvc\/db -n default; or recreate the claim without spec.volumeName \(kubectl delete pvc db -n default/,
  },
  {
    check: 'ClaimExists',
    blocked: [state({volumes: [stale()]})],
    near: [state({volumes: [stale()], claims: [restored()]})],
    message:
      /claim default\/db, which pv\/pv-1 names, does not exist: recreate it with spec.volumeName: pv-1 .*pvctl reclaim pv\/pv-1 --for NS\/CLAIM/,
  },
  {
    check: 'NoOtherClaim',
    blocked: [
      state({
        volumes: [stale()],
        claims: [
          restored(),
          pvc('other', 'u-o', {className: '', volumeName: 'pv-1', phase: 'Lost', annotations: bound}),
        ],
      }),
    ],
    near: [state({volumes: [stale()], claims: [restored(), pvc('other', 'u-o', {className: ''})]})],
    message:
      /pvc\/default\/other \(Lost\) names pv-1 too: one claim keeps the volume; deleting pvc\/default\/other loses that claim object and its pods' access to pv-1, not pv-1's data \(its claimRef names pvc\/default\/db: the volume stays, and is relinked to it\)$/,
  },

  {
    check: 'VolumeNotDeleting',
    blocked: [state({volumes: [stale({deleting: true})], claims: [restored()]})],
    near: [state({volumes: [stale()], claims: [restored()]})],
    message: /pv-1 is being deleted/,
  },
  {
    check: 'ClaimNotDeleting',
    blocked: [
      state({
        volumes: [stale()],
        claims: [{...restored(), metadata: {...restored().metadata, deletionTimestamp: '2026-01-01T00:00:00Z'}}],
      }),
    ],
    near: [state({volumes: [stale()], claims: [restored()]})],
    message: /pvc\/default\/db is being deleted/,
  },
  {
    check: 'VolumeKept',
    blocked: [
      state({
        volumes: [stale({phase: 'Released', policy: 'Recycle', source: {nfs: {server: 'nfs', path: '/x'}}})],
        claims: [restored()],
      }),
    ],
    near: [
      state({
        volumes: [stale({phase: 'Released', policy: 'Retain', source: {nfs: {server: 'nfs', path: '/x'}}})],
        claims: [restored()],
      }),
    ],
    message:
      /reclaimPolicy Recycle: the next sync will recycle it .*set persistentVolumeReclaimPolicy: Retain first \(kubectl patch pv pv-1/,
  },
]

describe('relink: each check blocks one state and holds in the next', () => {
  // PointersBroken says what the writes mend and never blocks: a pair whose pointers close is relinked already (below).
  const blocking = (Object.keys(RELINK_CHECKS) as RelinkCheckName[]).filter((c) => c !== 'PointersBroken')
  checkRowTests(rows, decide, blocking, (blocked) =>
    assert.deepEqual(blocked.writes, [], 'a refused relink writes nothing'),
  )
  test('no check is overridable', () => {
    assert.deepEqual(
      Object.values(RELINK_CHECKS).filter((c) => c.overridable !== false),
      [],
    )
  })
  test('a claim that names no volume, and no volume names it; several volumes naming it', () => {
    const none = decide(state({claims: [restored({volumeName: undefined})]}), byClaim)
    assert.match(checkOf(none, 'PairNamed')!.message, /pvc\/default\/db names no volume and no volume names it/)
    const two = decide(
      state({
        volumes: [stale(), stale().metadata && pv('pv-2', {className: '', claim: {name: 'db', uid: 'u-old'}})],
        claims: [pvc('db', 'u-new', {className: ''})],
      }),
      byClaim,
    )
    assert.match(
      checkOf(two, 'PairNamed')!.message,
      /several volumes name it \(pv-1, pv-2\): relink one of them by pv\/NAME/,
    )
    assert.equal(two.allowed, false)
  })
  test("a Misbound claim whose volume names another claim: not this claim's to relink", () => {
    const s = state({
      volumes: [stale({claim: {name: 'other', uid: 'u-o'}})],
      claims: [
        restored({phase: 'Lost', annotations: bound}),
        pvc('other', 'u-o', {className: '', phase: 'Bound', volumeName: 'pv-1', annotations: bound}),
      ],
    })
    const d = decide(s, byClaim)
    assert.match(
      checkOf(d, 'PairNamed')!.message,
      /pvc\/default\/db names volume pv-1, whose claimRef names default\/other: the volume is not this claim's to relink/,
    )
    assert.equal(d.allowed, false)
  })
  test('a volume with no claimRef has no pair', () => {
    const d = decide(state({volumes: [pv('pv-1', {className: ''})]}))
    assert.match(checkOf(d, 'PairNamed')!.message, /pv\/pv-1 has no claimRef/)
  })
})

describe('relink: a pair whose pointers close is relinked already, nothing judged or written', () => {
  const rows: Array<{name: string; s: ClusterState; target?: RelinkTarget; already: RegExp | null}> = [
    {
      name: "the claimRef holds the claim's uid, the claim names the volume",
      s: state({volumes: [stale({claim: {name: 'db', uid: 'u-new'}})], claims: [restored()]}),
      already:
        /^already relinked: pv\/pv-1 and pvc\/default\/db name each other \(uid u-new\): the next sync binds pvc\/default\/db to pv-1$/,
    },
    {
      name: 'a claim that completed binding, its spec.volumeName set again, by the claim',
      s: state({
        volumes: [stale({phase: 'Released', claim: {name: 'db', uid: 'u-new'}})],
        claims: [restored({phase: 'Lost', annotations: bound})],
      }),
      target: byClaim,
      already: /^already relinked: pv\/pv-1 and pvc\/default\/db name each other \(uid u-new\): /,
    },
    {
      name: 'bound both ways',
      s: state({
        volumes: [stale({claim: {name: 'db', uid: 'u-new'}})],
        claims: [restored({phase: 'Bound', annotations: bound, statusCapacity: '1Gi'})],
      }),
      already: /^already relinked: pv\/pv-1 and pvc\/default\/db name each other \(uid u-new\): /,
    },
    {
      name: 'the claimRef of the old uid: not relinked yet',
      s: state({volumes: [stale()], claims: [restored()]}),
      already: null,
    },
  ]
  for (const row of rows) {
    test(row.name, () => {
      const d = decide(row.s, row.target)
      if (row.already === null) {
        assert.equal(d.already, null)
        assert.equal(d.allowed, true, JSON.stringify(d.checks))
      } else {
        assert.match(d.already ?? '', row.already)
        assert.deepEqual([d.checks, d.writes, d.allowed], [[], [], false], 'nothing judged, nothing to write')
      }
    })
  }
})

describe('relink: the edits, and the plan on the edited state', () => {
  test('a restored claim naming the volume: the claimRef gets its uid, no resourceVersion; the next sync binds them', () => {
    const volume = stale()
    volume.spec.claimRef!.resourceVersion = '180'
    const d = decide(state({volumes: [volume], claims: [restored()]}))
    assert.equal(d.allowed, true, JSON.stringify(d.checks))
    assert.deepEqual(
      d.writes.map((w) => w.object),
      [{kind: 'PersistentVolume', name: 'pv-1'}],
    )
    assert.deepEqual((d.writes[0].after as typeof volume).spec.claimRef, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      name: 'db',
      namespace: 'default',
      uid: 'u-new',
    })
    assert.equal(d.next, 'the next sync binds pvc/default/db to pv-1')
    assert.ok(d.nextActions!.every((a) => a.object.name === 'pv-1' || a.object.name === 'db'))
  })
  test('a Misbound claim (completed binding, the volume names it with an old uid): the volume alone; syncBoundClaim binds', () => {
    const d = decide(
      state({volumes: [stale({phase: 'Released'})], claims: [restored({phase: 'Lost', annotations: bound})]}),
      byClaim,
    )
    assert.equal(d.allowed, true, JSON.stringify(d.checks))
    assert.deepEqual(
      d.writes.map((w) => w.object.kind),
      ['PersistentVolume'],
    )
    assert.equal(d.next, 'the next sync binds pvc/default/db to pv-1')
  })
  test('a Lost claim that lost its spec.volumeName: the volume first, then the claim; clearing the uid would not do', () => {
    const s = state({
      volumes: [stale()],
      claims: [restored({volumeName: undefined, phase: 'Lost', annotations: bound})],
    })
    const d = decide(s, byClaim)
    assert.equal(d.allowed, true, JSON.stringify(d.checks))
    assert.deepEqual(
      d.writes.map((w) => [w.object.kind, w.patch.map((p) => `${p.op} ${p.path}`).join(', ')]),
      [
        ['PersistentVolume', 'replace /spec/claimRef/uid'],
        ['PersistentVolumeClaim', 'add /spec/volumeName'],
      ],
    )
    // Velero's way (the uid cleared, the claim left alone) leaves a claim that completed binding Lost.
    const cleared = stale()
    delete cleared.spec.claimRef!.uid
    const plan = reconcile(
      state({volumes: [cleared], claims: [restored({volumeName: undefined, phase: 'Lost', annotations: bound})]}),
      {gates: defaultFeatureGates},
    )
    assert.equal(plan.claims.find((c) => c.metadata.name === 'db')?.status?.phase, 'Lost')
  })
  test('interrupted after the volume write: the state left is one the next relink completes with the claim alone', () => {
    const s = state({
      volumes: [stale()],
      claims: [restored({volumeName: undefined, phase: 'Lost', annotations: bound})],
    })
    const first = decide(s, byClaim)
    const halfway = editedState(s, first.writes.slice(0, 1))
    const again = decide(halfway, byClaim)
    assert.equal(again.allowed, true, JSON.stringify(again.checks))
    assert.deepEqual(
      again.writes.map((w) => w.object.kind),
      ['PersistentVolumeClaim'],
    )
    assert.equal(again.next, first.next)
  })
  test('a re-created claim that names no volume yet: the volume alone, and the claim sync binds it', () => {
    const d = decide(
      state({volumes: [stale({phase: 'Released'})], claims: [pvc('db', 'u-new', {className: ''})]}),
      byClaim,
    )
    assert.equal(d.allowed, true, JSON.stringify(d.checks))
    assert.equal(d.next, 'the next sync binds pvc/default/db to pv-1')
  })
  test('the proof refuses a pair the controller will not bind: a re-created claim of another volumeMode', () => {
    const d = decide(
      state({
        volumes: [stale({phase: 'Released'})],
        claims: [pvc('db', 'u-new', {className: '', volumeMode: 'Block'})],
      }),
      byClaim,
    )
    assert.equal(d.allowed, false)
    assert.match(checkOf(d, 'Proof')!.message, /does not bind pvc\/default\/db to pv-1 .*nothing is written/)
  })
  test('a Released volume with reclaimPolicy Delete is not relinked while its reclaim may run', () => {
    const d = decide(
      state({
        volumes: [
          stale({
            phase: 'Released',
            policy: 'Delete',
            source: {csi: {driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1'}},
          }),
        ],
        claims: [restored()],
      }),
    )
    assert.match(checkOf(d, 'VolumeKept')!.message, /pv-1 is Released with reclaimPolicy Delete/)
    assert.equal(d.allowed, false)
  })
  test('a Bound volume of reclaimPolicy Delete that the next sync would release is not relinked until it is Retain', () => {
    const csi = {csi: {driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1'}}
    const d = decide(state({volumes: [stale({policy: 'Delete', source: csi})], claims: [restored()]}))
    assert.match(
      checkOf(d, 'VolumeKept')!.message,
      /the next sync releases pv-1 .*reclaimPolicy Delete then reclaims it; set persistentVolumeReclaimPolicy: Retain first/,
    )
    assert.equal(decide(state({volumes: [stale({policy: 'Retain', source: csi})], claims: [restored()]})).allowed, true)
  })
  test('nothing is written into the state: the input is not modified', () => {
    const s = state({
      volumes: [stale()],
      claims: [restored({volumeName: undefined, phase: 'Lost', annotations: bound})],
    })
    const before = structuredClone(s)
    decide(s, byClaim)
    assert.deepEqual(s, before)
  })
})

describe('relink: NoOtherClaim says what deleting the other claim loses', () => {
  test('a claim that never bound holds no data: deleting it loses the object alone', () => {
    const d = decide(
      state({volumes: [stale()], claims: [restored(), pvc('other', 'u-o', {className: '', volumeName: 'pv-1'})]}),
    )
    assert.match(
      d.checks.find((c) => c.name === 'NoOtherClaim')!.message,
      /^pvc\/default\/other \(Pending\) names pv-1 too: one claim keeps the volume; deleting pvc\/default\/other loses only that claim object: it never bound, so it holds no data \(pv-1 keeps its data for pvc\/default\/db\)$/,
    )
  })
})

describe('relink --all: the candidates', () => {
  test('a volume naming an existing claim of another uid; a Lost claim without spec.volumeName that one volume names with its uid', () => {
    const s = state({
      volumes: [
        stale(),
        pv('pv-2', {phase: 'Bound', className: '', claim: {name: 'logs', uid: 'u-logs'}}),
        pv('pv-3', {className: '', claim: {name: 'gone', uid: 'u-gone'}}),
        pv('pv-4', {className: '', claim: {name: 'pre'}}),
      ],
      claims: [
        restored(),
        pvc('logs', 'u-logs', {className: '', phase: 'Lost', annotations: bound}),
        pvc('pre', 'u-pre', {className: ''}),
      ],
    })
    assert.deepEqual(relinkCandidates(s), {
      targets: [
        {kind: 'PersistentVolume', name: 'pv-1'},
        {kind: 'PersistentVolumeClaim', namespace: 'default', name: 'logs'},
      ],
      held: [],
    })
  })
  test('a claim re-created under the old name (another uid, no spec.volumeName, not restored) is left to the operator: named by --owner, or relinked by name', () => {
    const again = pvc('db', 'u-again', {className: ''})
    const s = state({volumes: [stale()], claims: [again]})
    const all = relinkCandidates(s)
    assert.deepEqual(all.targets, [])
    assert.deepEqual(
      all.held.map((h) => h.target),
      [{kind: 'PersistentVolume', name: 'pv-1'}],
    )
    assert.match(
      all.held[0].reason,
      /^pvc\/default\/db was re-created .*: it may be a new claim, not the owner of the data; if it is the owner, relink it by name \(pvctl relink pv\/pv-1\) or add --owner default\/db$/,
    )
    assert.deepEqual(relinkCandidates(s, [{namespace: 'default', name: 'db'}]), {
      targets: [{kind: 'PersistentVolume', name: 'pv-1'}],
      held: [],
    })
    // By name, the pair is the operator's choice: relink's checks alone decide it.
    assert.equal(
      decide(s, {kind: 'PersistentVolume', name: 'pv-1'}).checks.find((c) => c.name === 'PairNamed')?.ok,
      true,
    )
    // Restored (its label) or naming the volume: tied to it, relinked by --all.
    const labelled = pvc('db', 'u-again', {className: ''})
    labelled.metadata.labels = {'velero.io/restore-name': 'nightly-1'}
    assert.deepEqual(relinkCandidates(state({volumes: [stale()], claims: [labelled]})).targets, [
      {kind: 'PersistentVolume', name: 'pv-1'},
    ])
    assert.deepEqual(relinkCandidates(state({volumes: [stale()], claims: [restored()]})).targets, [
      {kind: 'PersistentVolume', name: 'pv-1'},
    ])
  })
})
