// Golden tests of the sync renderers. Regenerate after a deliberate change with
//   UPDATE_GOLDEN=1 node --import tsx --test test/render/render.test.ts
// and read every changed file in test/render/golden/ before committing it.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {planSync} from '../../src/engine/simulation/plan-sync.js'
import {API_VERSION, type SyncReport} from '../../src/engine/simulation/sync-report.js'
import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {PersistentVolume, PersistentVolumeClaim} from '../../src/engine/api/model.js'
import {refOfClaim, refOfVolume} from '../../src/engine/simulation/plan.js'
import {ansi, plain, shouldColor} from '../../src/render/color.js'
import {renderReportJson, renderReportYaml} from '../../src/render/report-doc.js'
import {renderSyncDiff} from '../../src/render/sync-diff.js'
import {renderSyncTable} from '../../src/render/sync-table.js'
import {golden} from './golden.js'

// ---------------------------------------------------------------------------------------------------------
// Fixtures

const BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller'
const BIND_COMPLETED = 'pv.kubernetes.io/bind-completed'

function volume(name: string, rv: string, extra: Partial<PersistentVolume> = {}): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {name, uid: `uid-${name}`, resourceVersion: rv, creationTimestamp: '2024-05-01T10:00:00Z'},
    spec: {
      capacity: {storage: '10Gi'},
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: '',
      volumeMode: 'Filesystem',
      hostPath: {path: `/mnt/data/${name}`, type: ''},
    },
    status: {phase: 'Available'},
    ...extra,
  }
}

function claim(
  namespace: string,
  name: string,
  rv: string,
  extra: Partial<PersistentVolumeClaim> = {},
): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {name, namespace, uid: `uid-${name}`, resourceVersion: rv, creationTimestamp: '2024-05-01T10:05:00Z'},
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: {requests: {storage: '8Gi'}},
      storageClassName: '',
      volumeMode: 'Filesystem',
    },
    status: {phase: 'Pending'},
    ...extra,
  }
}

const claimRef = {
  kind: 'PersistentVolumeClaim',
  namespace: 'default',
  name: 'data',
  uid: 'uid-data',
  apiVersion: 'v1',
  resourceVersion: '2001',
}

const pv1Before = volume('pv1', '1001')
const pv1After: PersistentVolume = {
  ...pv1Before,
  metadata: {...pv1Before.metadata, resourceVersion: '1003', annotations: {[BOUND_BY_CONTROLLER]: 'yes'}},
  spec: {...pv1Before.spec, claimRef},
  status: {phase: 'Bound'},
}

const oldRef = {kind: 'PersistentVolumeClaim', namespace: 'default', name: 'old-claim', uid: 'uid-old-claim'}
const pvOldBefore = volume('pv-old', '1010', {
  spec: {...volume('pv-old', '').spec, persistentVolumeReclaimPolicy: 'Recycle', claimRef: oldRef},
  status: {phase: 'Bound'},
})
const pvOldAfter: PersistentVolume = {
  ...pvOldBefore,
  metadata: {...pvOldBefore.metadata, resourceVersion: '1011'},
  status: {phase: 'Released'},
}

// Only its resourceVersion and managedFields move: the diff must not show it.
const pvBrokenBefore = volume('pv-broken', '1020', {
  spec: {...volume('pv-broken', '').spec, persistentVolumeReclaimPolicy: 'Delete', claimRef: {...oldRef, name: 'gone'}},
  status: {phase: 'Released'},
})
const pvBrokenAfter: PersistentVolume = {
  ...pvBrokenBefore,
  metadata: {
    ...pvBrokenBefore.metadata,
    resourceVersion: '1021',
    managedFields: [{manager: 'pvctl', operation: 'Update', apiVersion: 'v1'}],
  },
}

const dataBefore = claim('default', 'data', '2001')
const dataAfter: PersistentVolumeClaim = {
  ...dataBefore,
  metadata: {
    ...dataBefore.metadata,
    resourceVersion: '2003',
    annotations: {[BIND_COMPLETED]: 'yes', [BOUND_BY_CONTROLLER]: 'yes'},
  },
  spec: {...dataBefore.spec, volumeName: 'pv1'},
  status: {phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: {storage: '10Gi'}},
}

const pending = claim('default', 'pending-claim', '2010', {
  spec: {accessModes: ['ReadWriteMany'], resources: {requests: {storage: '100Gi'}}, storageClassName: ''},
})

const full: SyncReport = {
  apiVersion: API_VERSION,
  kind: 'SyncReport',
  kubernetesVersion: {version: 'v1.31', source: 'default'},
  dryRun: true,
  rounds: 2,
  converged: true,
  actions: [
    {
      action: 'bind-volume',
      object: refOfVolume('pv1'),
      reason: 'claim default/data matched: the smallest Available volume with at least 8Gi and ReadWriteOnce',
      patch: [
        {op: 'add', path: '/spec/claimRef', value: claimRef},
        {op: 'add', path: '/metadata/annotations', value: {[BOUND_BY_CONTROLLER]: 'yes'}},
      ],
      resourceVersion: '1001',
      round: 1,
      sync: 'pv/pv1',
    },
    {
      action: 'set-volume-phase',
      object: refOfVolume('pv1'),
      reason: 'bound to claim default/data',
      patch: [{op: 'replace', path: '/status/phase', value: 'Bound'}],
      subresource: 'status',
      resourceVersion: '1002',
      round: 1,
      sync: 'pv/pv1',
    },
    {
      action: 'bind-claim',
      object: refOfClaim('default', 'data'),
      reason: 'volume pv1 is bound to it',
      patch: [
        {op: 'add', path: '/spec/volumeName', value: 'pv1'},
        {op: 'add', path: '/metadata/annotations', value: {[BIND_COMPLETED]: 'yes', [BOUND_BY_CONTROLLER]: 'yes'}},
      ],
      resourceVersion: '2001',
      round: 1,
      sync: 'pvc/default/data',
    },
    {
      action: 'set-volume-phase',
      object: refOfVolume('pv-old'),
      reason: 'claim default/old-claim no longer exists: the volume is Released',
      patch: [{op: 'replace', path: '/status/phase', value: 'Released'}],
      subresource: 'status',
      resourceVersion: '1010',
      round: 1,
      sync: 'pv/pv-old',
    },
    {
      action: 'recycle',
      object: refOfVolume('pv-old'),
      reason: 'reclaim policy is Recycle: a recycler pod scrubs the volume, which then becomes Available again',
      patch: [],
      resourceVersion: '1011',
      round: 2,
      sync: 'pv/pv-old',
    },
  ],
  events: [
    {
      object: refOfClaim('default', 'pending-claim'),
      type: 'Warning',
      reason: 'FailedBinding',
      message: 'no persistent volumes available for this claim and no storage class is set',
      count: 3,
      sync: 'pvc/default/pending-claim',
    },
    {
      object: refOfVolume('pv-old'),
      type: 'Normal',
      reason: 'VolumeRecycled',
      message: 'Volume recycled',
      count: 1,
      sync: 'pv/pv-old',
    },
  ],
  errors: [
    {
      object: refOfVolume('pv-broken'),
      message: 'error getting deleter volume plugin for volume "pv-broken": no deletable volume plugin matched',
    },
  ],
  summary: {
    binds: 2,
    releases: 1,
    recycles: 1,
    deletions: 0,
    provisions: 0,
    lostClaims: 0,
    phaseChanges: 2,
    writes: 4,
  },
  objects: [pvBrokenAfter, pvOldAfter, pv1After, dataAfter, pending],
  before: [pvBrokenBefore, pvOldBefore, pv1Before, dataBefore, pending],
}

const empty: SyncReport = {
  apiVersion: API_VERSION,
  kind: 'SyncReport',
  kubernetesVersion: {version: 'v1.34', source: 'flag'},
  dryRun: true,
  rounds: 1,
  converged: true,
  actions: [],
  events: [],
  errors: [],
  summary: {binds: 0, releases: 0, recycles: 0, deletions: 0, provisions: 0, lostClaims: 0, phaseChanges: 0, writes: 0},
  objects: [],
  before: [],
}

// In sync, but the controller still has something to say.
const quiet: SyncReport = {
  ...empty,
  events: [full.events[0]],
  objects: [pending],
  before: [pending],
}

// A provisioner that keeps changing its mind: the summary must say so.
const unstable: SyncReport = {
  ...empty,
  dryRun: true,
  rounds: 10,
  converged: false,
  actions: [
    {
      action: 'provision',
      object: refOfClaim('team-a', 'scratch'),
      reason: 'no volume matches and class fast is provisioned by kubernetes.io/host-path, which pvctl runs',
      patch: [],
      round: 10,
      sync: 'pvc/team-a/scratch',
    },
  ],
  summary: {...empty.summary, provisions: 1, writes: 1},
}

// ---------------------------------------------------------------------------------------------------------

describe('renderSyncTable', () => {
  it('full plan, narrow', () =>
    golden('table-full-narrow', renderSyncTable(full, {wide: false, palette: plain, width: 80})))
  it('full plan, wide', () => golden('table-full-wide', renderSyncTable(full, {wide: true, palette: plain})))
  it('full plan, narrow, colour', () =>
    golden('table-full-narrow-ansi', renderSyncTable(full, {wide: false, palette: ansi, width: 80})))
  it('empty report', () => golden('table-empty', renderSyncTable(empty, {wide: false, palette: plain})))
  it('no changes but events', () => golden('table-quiet', renderSyncTable(quiet, {wide: false, palette: plain})))
  it('not converged, narrow', () =>
    golden('table-unstable-narrow', renderSyncTable(unstable, {wide: false, palette: plain, width: 80})))
  it('not converged, wide', () =>
    golden('table-unstable-wide', renderSyncTable(unstable, {wide: true, palette: plain})))

  it('after a run that wrote: each action\'s OUTCOME, never cut, and a "Done" line', () => {
    const outcomes = ['written', 'executed', 'conflict-replanned', 'failed: persistentvolumes "pv-1" is forbidden']
    const ran: SyncReport = {
      ...full,
      dryRun: false,
      actions: full.actions.map((a, i) => ({...a, outcome: outcomes[i % outcomes.length]})),
    }
    for (const wide of [false, true]) {
      const [actionTable, ...rest] = renderSyncTable(ran, {wide, palette: plain, width: 80}).split('\n\n')
      const lines = actionTable.split('\n')
      assert.match(lines[0], /^ACTION +OBJECT +OUTCOME +REASON/)
      // Whole, however narrow the table: the reason is what gets cut.
      ran.actions.forEach((_a, i) =>
        assert.ok(
          lines.some((l) => l.includes(`   ${outcomes[i % outcomes.length]}   `)),
          outcomes[i % outcomes.length],
        ),
      )
      assert.match(rest.at(-1)!, /^Done: /)
    }
    assert.match(renderSyncTable(full, {wide: false, palette: plain}), /\nPlan: /)
  })

  it('fits the narrow action table to a terminal of 80 columns by wrapping reasons, never cutting them', () => {
    const actionTable = renderSyncTable(full, {wide: false, palette: plain, width: 80}).split('\n\n')[0]
    for (const line of actionTable.split('\n')) assert.ok(line.length <= 80, `too long (${line.length}): ${line}`)
    assert.ok(!actionTable.includes('…'))
    const words = (t: string) => t.split(/\s+/).filter((w) => w !== '')
    for (const a of full.actions) {
      const reasonWords = words(a.reason)
      assert.ok(words(actionTable).join(' ').includes(reasonWords.join(' ')), a.reason)
    }
  })

  it('cuts and wraps nothing when stdout is not a terminal (no width)', () => {
    const out = renderSyncTable(full, {wide: false, palette: plain})
    assert.ok(!out.includes('…'))
    for (const a of full.actions) assert.ok(out.includes(a.reason), a.reason)
  })

  it('never truncates in wide mode', () => {
    const out = renderSyncTable(full, {wide: true, palette: plain})
    assert.ok(!out.includes('…'))
    for (const a of full.actions) assert.ok(out.includes(a.reason), a.reason)
  })

  it('writes no escape codes with the plain palette, and colours with ansi', () => {
    for (const r of [full, empty, quiet, unstable]) {
      assert.ok(!renderSyncTable(r, {wide: false, palette: plain}).includes('\u001b'))
      assert.ok(!renderSyncTable(r, {wide: true, palette: plain}).includes('\u001b'))
    }
    assert.ok(
      renderSyncTable(unstable, {wide: false, palette: ansi}).includes('\u001b[33mnot converged after 10 rounds'),
    )
  })
})

describe('renderSyncDiff', () => {
  it('plain', () => golden('diff-full-plain', renderSyncDiff(full, plain)))
  it('ansi', () => golden('diff-full-ansi', renderSyncDiff(full, ansi)))

  it('skips objects whose resourceVersion or managedFields alone changed', () => {
    const out = renderSyncDiff(full, plain)
    assert.ok(!out.includes('pv-broken'))
    assert.ok(!out.includes('pending-claim'))
    assert.ok(!out.includes('resourceVersion: "10'))
    assert.ok(!out.includes('managedFields'))
    assert.ok(!out.includes('\u001b'))
  })

  it('returns the empty string when nothing changes', () => {
    assert.equal(renderSyncDiff(empty, ansi), '')
    assert.equal(renderSyncDiff(quiet, ansi), '')
  })

  it('diffs a new object against nothing', () => {
    const out = renderSyncDiff({...empty, objects: [pending], before: []}, plain)
    assert.match(out, /^diff -u -N live\/pvc\/default\/pending-claim planned\/pvc\/default\/pending-claim\n/)
    assert.match(out, /\n@@ -0,0 \+1,\d+ @@\n\+apiVersion: v1\n/)
  })

  it('the bundled example: a deletion is the whole object removed, and each operation heads its section', async () => {
    const {state} = await loadSnapshot('examples/cluster.yaml')
    const out = renderSyncDiff(planSync(state, {gates: defaultFeatureGates, dryRun: true}), plain)
    const sections = out.split(/(?=^(?:# |diff -u -N ))/m)
    const deleted = sections.findIndex((s) => s.startsWith('# delete pv/pv-0006: '))
    assert.ok(deleted >= 0, out)
    assert.match(sections[deleted], /the data is gone\)\n$/)
    assert.match(
      sections[deleted + 1],
      /^diff -u -N live\/pv\/pv-0006 planned\/pv\/pv-0006\n--- live\/pv\/pv-0006\n\+\+\+ planned\/pv\/pv-0006\n@@ -1,\d+ \+0,0 @@\n-apiVersion: v1\n/,
    )
    assert.ok(!/^\+/m.test(sections[deleted + 1].split('\n').slice(3).join('\n')), 'nothing added to a deleted volume')
    assert.ok(
      sections.some((s) => s.startsWith('# recycle pv/pv-0005: ')),
      'the recycle is named',
    )
  })

  it('refuses a report without `before`', () => {
    assert.throws(() => renderSyncDiff({...full, before: undefined}, plain), /before/)
  })
})

describe('renderReportJson / renderReportYaml', () => {
  it('json', () => golden('report-full-json', renderReportJson(full)))
  it('yaml', () => golden('report-full-yaml', renderReportYaml(full)))
  it('empty json', () => golden('report-empty-json', renderReportJson(empty)))
  it('empty yaml', () => golden('report-empty-yaml', renderReportYaml(empty)))

  it('prints the contract document: fixed key order, no `before`', () => {
    const doc = JSON.parse(renderReportJson(full)) as Record<string, unknown>
    assert.deepEqual(Object.keys(doc), [
      'apiVersion',
      'kind',
      'kubernetesVersion',
      'dryRun',
      'rounds',
      'converged',
      'summary',
      'actions',
      'events',
      'errors',
      'objects',
    ])
    assert.ok(!('before' in doc))
    assert.deepEqual(doc.objects, JSON.parse(JSON.stringify(full.objects)))
    assert.ok(renderReportJson(full).endsWith('}\n'))
  })

  it('yaml is the same document, without anchors', async () => {
    const {parse} = await import('yaml')
    const yaml = renderReportYaml(full)
    assert.deepEqual(parse(yaml), JSON.parse(renderReportJson(full)))
    // A YAML 1.1 reader (PyYAML, go-yaml v2) must see the same strings: "yes" is not a boolean there.
    assert.deepEqual(parse(yaml, {version: '1.1'}), JSON.parse(renderReportJson(full)))
    assert.ok(yaml.includes('pv.kubernetes.io/bound-by-controller: "yes"'))
    assert.ok(!/[&*]a\d/.test(yaml))
    assert.ok(!yaml.includes('before:'))
  })
})

describe('shouldColor', () => {
  const cases: Array<[string, Record<string, string | undefined>, boolean, boolean | undefined, boolean]> = [
    ['TTY colours', {}, true, undefined, true],
    ['pipe does not', {}, false, undefined, false],
    ['--color wins over a pipe and NO_COLOR', {NO_COLOR: '1'}, false, true, true],
    ['--no-color wins over a TTY and FORCE_COLOR', {FORCE_COLOR: '1'}, true, false, false],
    ['NO_COLOR disables on a TTY', {NO_COLOR: '1'}, true, undefined, false],
    ['empty NO_COLOR is ignored', {NO_COLOR: ''}, true, undefined, true],
    ['NO_COLOR beats FORCE_COLOR', {NO_COLOR: 'yes', FORCE_COLOR: '1'}, true, undefined, false],
    ['TERM=dumb disables', {TERM: 'dumb'}, true, undefined, false],
    ['FORCE_COLOR=1 on a pipe', {FORCE_COLOR: '1'}, false, undefined, true],
    ['FORCE_COLOR=true beats TERM=dumb', {FORCE_COLOR: 'true', TERM: 'dumb'}, false, undefined, true],
    ['FORCE_COLOR=0 disables on a TTY', {FORCE_COLOR: '0'}, true, undefined, false],
    ['FORCE_COLOR=false disables', {FORCE_COLOR: 'false'}, true, undefined, false],
    ['empty FORCE_COLOR is ignored', {FORCE_COLOR: ''}, false, undefined, false],
  ]
  for (const [name, env, tty, flag, want] of cases) {
    it(name, () => assert.equal(shouldColor(env, tty, flag), want))
  }

  it('palettes', () => {
    assert.equal(plain.red('x'), 'x')
    assert.equal(ansi.red('x'), '\u001b[31mx\u001b[39m')
    assert.equal(ansi.bold(''), '')
    assert.equal(ansi.red(`a${ansi.green('b')}c`), '\u001b[31ma\u001b[32mb\u001b[39m\u001b[31mc\u001b[39m')
  })
})
