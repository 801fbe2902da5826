// `pvctl explain` in the engine: one row per verdict and per candidate reason code (and per volume state),
// each a small snapshot built like the Go tests' fixtures, asserting the verdict, the volume, the exact
// reasons, and — for every claim row — that one sync of the claim does what the verdict said
// (explain-agreement.ts). Then the same agreement over every claim of the conformance cases, and the
// `eligible` flag against the controller's own matcher, volume by volume.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import {snapshotTextState} from '../fixtures/states.js'
import {explainClaim, explainVolume} from '../../src/engine/explain/explainer.js'
import {reasonsFor} from '../../src/engine/explain/candidates.js'
import {clusterLookup} from '../../src/engine/explain/lookup.js'
import {
  REASON_CODES,
  VERDICTS,
  VOLUME_STATES,
  type ClaimExplanation,
  type ReasonCode,
  type Verdict,
  type VolumeExplanation,
  type VolumeState,
} from '../../src/engine/explain/model.js'
import {
  defaultFeatureGates,
  type FeatureGates,
  type GateName,
  knownFeatureGates,
} from '../../src/engine/api/feature-gates.js'
import type {ClusterState, PersistentVolume, PersistentVolumeClaim} from '../../src/engine/api/model.js'
import {checkVolumeSatisfyClaim} from '../../src/engine/controller/pv-controller.js'
import {reconcile} from '../../src/engine/simulation/reconcile.js'
import {getPersistentVolumeClaimClass, isVolumeBoundToClaim} from '../../src/engine/api/storage-helpers.js'
import {MatchError, PersistentVolumeOrderedIndex} from '../../src/engine/matching/volume-index.js'
import {defaultVolumePluginMgr, type VolumePluginOptions} from '../../src/engine/controller/volume-plugins.js'
import {loadCases} from '../conformance/cases.js'
import {bound, byController, pod, pv, pvc, sc, state} from './builders.js'
import {disagreements} from './explain-agreement.js'

const WFFC = {mode: 'WaitForFirstConsumer'}

interface ClaimRow {
  id: string
  state: ClusterState
  gates?: Partial<FeatureGates>
  /** How the controller's plugins are configured (kube-controller-manager's defaults unless said). */
  plugins?: VolumePluginOptions
  /** The claim explained: default/c unless said. */
  claim?: {namespace?: string; name: string}
  verdict: Verdict
  volume?: string | null
  /** Exact reasons of the volumes listed ("Code: message"); [] means eligible. */
  candidates?: Record<string, string[]>
  /** The candidates' order, when it matters. */
  order?: string[]
  summary?: RegExp
  suggestion?: RegExp
  check?: (e: ClaimExplanation) => void
}

function withAffinity(volume: PersistentVolume, zone: string): PersistentVolume {
  volume.spec.nodeAffinity = {
    required: {nodeSelectorTerms: [{matchExpressions: [{key: 'zone', operator: 'In', values: [zone]}]}]},
  }
  return volume
}

function withVAC(obj: PersistentVolume | PersistentVolumeClaim, name: string): typeof obj {
  obj.spec.volumeAttributesClassName = name
  return obj
}

const claimRows: ClaimRow[] = [
  // ---- WillBind, by each route of syncClaim
  {
    id: 'WillBind: the smallest match, then the other match, then the one too small',
    state: state({
      volumes: [pv('big', {capacity: '10Gi'}), pv('small', {capacity: '2Gi'}), pv('tiny', {capacity: '500Mi'})],
      claims: [pvc('c', 'u1', {className: ''})],
    }),
    verdict: 'WillBind',
    volume: 'small',
    candidates: {small: [], big: [], tiny: ['CapacityTooSmall: 500Mi < requested 1Gi']},
    order: ['small', 'big', 'tiny'],
    summary: /binds it to small \(2Gi, class ''\), the best of 2 matching volumes/,
  },
  {
    id: 'WillBind: a volume pre-bound to the claim (1-6)',
    state: state({
      volumes: [pv('small'), pv('mine', {capacity: '5Gi', claim: {name: 'c'}})],
      claims: [pvc('c', 'u1', {className: ''})],
    }),
    verdict: 'WillBind',
    volume: 'mine',
    summary: /pre-bound to it/,
  },
  {
    id: 'WillBind: the volume the claim asks for, free and fitting (2-3); other volumes are not considered',
    state: state({
      volumes: [pv('v', {capacity: '5Gi'}), pv('w')],
      claims: [pvc('c', 'u1', {className: '', volumeName: 'v'})],
    }),
    verdict: 'WillBind',
    volume: 'v',
    candidates: {v: [], w: ['NotConsidered: the claim asks for v (spec.volumeName)']},
    summary: /the volume it asks for/,
  },
  {
    id: 'WillBind: a bound claim whose volume lost its claimRef is bound again (3-4)',
    state: state({
      volumes: [pv('v')],
      claims: [pvc('c', 'u1', {className: '', volumeName: 'v', phase: 'Bound', annotations: bound})],
    }),
    verdict: 'WillBind',
    volume: 'v',
    check: (e) => assert.equal(e.pointers?.authoritative, 'PersistentVolumeClaim'),
  },
  {
    id: 'WillBind: no class, no match without one: the default class is assigned and its volume matches',
    state: state({
      volumes: [pv('g', {className: 'gold'})],
      claims: [pvc('c', 'u1')],
      classes: [sc('gold', 'x.example.com/p', {isDefault: true})],
    }),
    verdict: 'WillBind',
    volume: 'g',
    summary: /^The next sync gives the claim the default class 'gold'; then the sync after that binds it to g/,
    check: (e) =>
      assert.deepEqual(
        [e.storageClass.name, e.storageClass.selection, e.storageClass.assignedByNextSync],
        ['gold', 'Default', true],
      ),
  },
  {
    id: 'Bound: claim and volume point at each other',
    state: state({
      volumes: [pv('v', {claim: {name: 'c', uid: 'u1'}, phase: 'Bound', annotations: byController})],
      claims: [pvc('c', 'u1', {className: '', volumeName: 'v', phase: 'Bound', annotations: bound})],
    }),
    verdict: 'Bound',
    volume: 'v',
    candidates: {v: []},
    check: (e) =>
      assert.deepEqual([e.pointers?.authoritative, e.pointers?.volume?.pointsBack], ['PersistentVolume', true]),
  },
  // ---- no volume and no provisioning
  {
    id: 'NoMatchingVolume: class "" and the only volume too small',
    state: state({
      volumes: [pv('small', {capacity: '1Gi'})],
      claims: [pvc('c', 'u1', {className: '', request: '5Gi'})],
    }),
    verdict: 'NoMatchingVolume',
    candidates: {small: ['CapacityTooSmall: 1Gi < requested 5Gi']},
    summary: /asks for no class/,
    suggestion:
      /the nearest volume, small, is kept out only by: 1Gi < requested 5Gi — a claim requesting at most 1Gi fits small/,
  },
  {
    id: 'NoMatchingVolume: no class set and no default class: the command that makes one default',
    state: state({
      volumes: [pv('v', {capacity: '10Gi', className: 'slow'})],
      claims: [pvc('c', 'u1')],
      classes: [sc('slow', 'kubernetes.io/no-provisioner')],
    }),
    verdict: 'NoMatchingVolume',
    candidates: {v: ["StorageClassMismatch: class 'slow' ≠ ''"]},
    suggestion: /kubectl annotate storageclass slow storageclass\.kubernetes\.io\/is-default-class=true/,
    check: (e) => assert.equal(e.storageClass.selection, 'Unset'),
  },
  {
    id: 'ProvisioningNotSupported: the class uses kubernetes.io/no-provisioner',
    state: state({
      claims: [pvc('c', 'u1', {className: 'local'})],
      classes: [sc('local', 'kubernetes.io/no-provisioner')],
    }),
    verdict: 'ProvisioningNotSupported',
    summary: /nothing will be provisioned/,
    suggestion: /create a PersistentVolume of class 'local' with at least 1Gi, RWO, Filesystem/,
    check: (e) => assert.equal(e.error, 'no volume plugin matched name: kubernetes.io/no-provisioner'),
  },
  {
    id: 'WillProvision: an in-tree plugin pvctl runs (host-path, --enable-hostpath-provisioner)',
    plugins: {hostPathProvisioning: true},
    state: state({claims: [pvc('c', 'u1', {className: 'hp'})], classes: [sc('hp', 'kubernetes.io/host-path')]}),
    verdict: 'WillProvision',
    summary: /provisions one with kubernetes\.io\/host-path/,
  },
  {
    id: "ProvisioningNotSupported: host-path provisioning is off, as kube-controller-manager's default",
    state: state({claims: [pvc('c', 'u1', {className: 'hp'})], classes: [sc('hp', 'kubernetes.io/host-path')]}),
    verdict: 'ProvisioningNotSupported',
    check: (e) =>
      assert.equal(
        e.error,
        'Failed to create provisioner: provisioning in volume plugin "kubernetes.io/host-path" is disabled',
      ),
  },
  {
    id: 'WillProvision after WaitForFirstConsumer: node selected (volume.kubernetes.io/selected-node), provisioning there',
    plugins: {hostPathProvisioning: true},
    state: state({
      claims: [pvc('c', 'u1', {className: 'hp', annotations: {'volume.kubernetes.io/selected-node': 'n1'}})],
      classes: [sc('hp', 'kubernetes.io/host-path', WFFC)],
      pods: [pod('web-0', 'c', {nodeName: 'n1'})],
    }),
    verdict: 'WillProvision',
    summary: /provisions one with kubernetes\.io\/host-path \(class 'hp'\) on node n1, which the scheduler selected\.$/,
    check: (e) => assert.equal(e.selectedNode, 'n1'),
  },
  {
    id: 'ExternalProvisioning: a provisioner pvctl does not run',
    state: state({claims: [pvc('c', 'u1', {className: 'ext'})], classes: [sc('ext', 'vendor.com/ext')]}),
    verdict: 'ExternalProvisioning',
    suggestion: /kubectl get csidriver vendor\.com\/ext/,
    check: (e) => assert.equal(e.provisioner, 'vendor.com/ext'),
  },
  {
    id: 'ExternalProvisioning: a migrated in-tree provisioner is waited for under its CSI driver',
    state: state({claims: [pvc('c', 'u1', {className: 'gce'})], classes: [sc('gce', 'kubernetes.io/gce-pd')]}),
    verdict: 'ExternalProvisioning',
    check: (e) => assert.equal(e.provisioner, 'pd.csi.storage.gke.io'),
  },
  {
    id: 'StorageClassNotFound: a misspelt class, and the close name',
    state: state({claims: [pvc('c', 'u1', {className: 'fsat'})], classes: [sc('fast', 'vendor.com/ext')]}),
    verdict: 'StorageClassNotFound',
    suggestion: /did you mean 'fast'\?/,
    check: (e) => assert.equal(e.storageClass.selection, 'Missing'),
  },
  {
    id: 'WaitForFirstConsumer: no pod uses the claim (an expected wait)',
    state: state({
      volumes: [pv('v', {className: 'wait', capacity: '5Gi'})],
      claims: [pvc('c', 'u1', {className: 'wait'})],
      classes: [sc('wait', 'vendor.com/ext', WFFC)],
    }),
    verdict: 'WaitForFirstConsumer',
    candidates: {v: ["DelayBinding: class 'wait' binds on first consumer: the scheduler picks the volume"]},
    summary: /an expected wait, not a fault/,
  },
  {
    id: 'WaitForPodScheduled: the unscheduled pod is named, the terminated one ignored',
    state: state({
      claims: [pvc('c', 'u1', {className: 'wait'})],
      classes: [sc('wait', 'vendor.com/ext', WFFC)],
      pods: [pod('web-0', 'c'), pod('done', 'c', {phase: 'Succeeded'})],
    }),
    verdict: 'WaitForPodScheduled',
    summary: /waiting for pod web-0 to be scheduled/,
    suggestion: /kubectl describe pod web-0 -n default/,
    check: (e) =>
      assert.deepEqual(
        e.pods.map((p) => [p.name, p.scheduled, p.terminated]),
        [
          ['done', false, true],
          ['web-0', false, false],
        ],
      ),
  },
  // ---- the claim asks for a volume by name
  {
    id: 'RequestedVolumeNotFound: and the volume it probably means',
    state: state({volumes: [pv('pv-0010')], claims: [pvc('c', 'u1', {className: '', volumeName: 'pv-0001'})]}),
    verdict: 'RequestedVolumeNotFound',
    suggestion: /did you mean pv-0010\?/,
  },
  {
    id: 'RequestedVolumeBoundElsewhere: the requested volume belongs to another claim',
    state: state({
      volumes: [
        pv('v', {claim: {namespace: 'team-b', name: 'cache', uid: 'x'}, phase: 'Bound'}),
        pv('free', {capacity: '2Gi'}),
      ],
      claims: [
        pvc('c', 'u1', {className: '', volumeName: 'v'}),
        pvc('cache', 'x', {namespace: 'team-b', className: '', volumeName: 'v', phase: 'Bound', annotations: bound}),
      ],
    }),
    verdict: 'RequestedVolumeBoundElsewhere',
    candidates: {v: ['BoundToOtherClaim: bound to team-b/cache']},
    suggestion: /recreate the claim without spec\.volumeName \(then free would match\)/,
  },
  {
    id: 'RequestedVolumeMismatch: every way the requested volume does not fit',
    state: state({
      volumes: [pv('v', {capacity: '1Gi'})],
      claims: [pvc('c', 'u1', {className: '', volumeName: 'v', request: '5Gi', modes: ['ReadWriteMany']})],
    }),
    verdict: 'RequestedVolumeMismatch',
    candidates: {v: ['CapacityTooSmall: 1Gi < requested 5Gi', 'AccessModesMismatch: offers RWO, claim needs RWX']},
    check: (e) => assert.equal(e.error, 'Cannot bind to requested volume "v": requested PV is too small'),
  },
  // ---- bound once
  {
    id: "Lost: the bound claim's volume is gone (3-2)",
    state: state({claims: [pvc('c', 'u1', {className: '', volumeName: 'gone', phase: 'Bound', annotations: bound})]}),
    verdict: 'Lost',
    summary: /no longer exists/,
    check: (e) =>
      assert.deepEqual(e.pointers?.volume, {name: 'gone', exists: false, claimRef: null, pointsBack: false}),
  },
  {
    id: 'Lost: the bound claim lost spec.volumeName although a volume still points at it (3-1)',
    state: state({
      volumes: [pv('v', {claim: {name: 'c', uid: 'u1'}, phase: 'Bound'})],
      claims: [pvc('c', 'u1', {className: '', phase: 'Bound', annotations: bound})],
    }),
    verdict: 'Lost',
    candidates: {v: ['NotConsidered: the claim completed binding once: the controller never matches it again']},
    check: (e) => {
      assert.deepEqual(e.pointers?.volumesPointingHere, [{name: 'v', uidMatches: true}])
      assert.match(e.pointers?.explanation ?? '', /even though v still points at it/)
    },
  },
  {
    id: "Misbound: the volume's claimRef names another claim (3-5)",
    state: state({
      volumes: [pv('v', {claim: {name: 'd', uid: 'u2'}, phase: 'Bound'})],
      claims: [
        pvc('c', 'u1', {className: '', volumeName: 'v', phase: 'Bound', annotations: bound}),
        pvc('d', 'u2', {className: '', volumeName: 'v', phase: 'Bound', annotations: bound}),
      ],
    }),
    verdict: 'Misbound',
    candidates: {v: ['BoundToOtherClaim: bound to default/d']},
    check: (e) => {
      assert.deepEqual(e.pointers?.volume?.claimRef, {namespace: 'default', name: 'd', uid: 'u2'})
      assert.equal(e.pointers?.authoritative, 'PersistentVolume')
    },
  },
  // ---- the controller's sync itself fails
  {
    id: 'SyncError: a class without volumeBindingMode',
    state: state({
      claims: [pvc('c', 'u1', {className: 'nomode'})],
      classes: [sc('nomode', 'vendor.com/ext', {mode: null})],
    }),
    verdict: 'SyncError',
    check: (e) => assert.equal(e.error, 'VolumeBindingMode not set for StorageClass "nomode"'),
  },
  {
    id: 'SyncError: a volumeAttributesClassName while the gate is off refuses every volume',
    state: state({
      volumes: [pv('v')],
      claims: [withVAC(pvc('c', 'u1', {className: ''}), 'gold') as PersistentVolumeClaim],
    }),
    verdict: 'SyncError',
    candidates: {
      v: [
        "VolumeAttributesClassUnsupported: the claim names VolumeAttributesClass 'gold', refused while the VolumeAttributesClass gate is off",
      ],
    },
  },
  // ---- every reason code, with concrete values
  {
    id: 'reasons: every refusal of a volume, all of them, with their values',
    state: state({
      volumes: [
        pv('small', {capacity: '5Gi', className: 'fast', labels: {tier: 'gold'}}),
        pv('slow', {capacity: '20Gi', className: 'slow', labels: {tier: 'gold'}}),
        pv('rwx', {capacity: '20Gi', className: 'fast', labels: {tier: 'gold'}, modes: ['ReadWriteMany']}),
        pv('block', {capacity: '20Gi', className: 'fast', labels: {tier: 'gold'}, volumeMode: 'Block'}),
        pv('plain', {capacity: '20Gi', className: 'fast'}),
        pv('taken', {
          capacity: '20Gi',
          className: 'fast',
          labels: {tier: 'gold'},
          claim: {namespace: 'team-b', name: 'cache', uid: 'x'},
          phase: 'Bound',
        }),
        pv('reserved', {
          capacity: '20Gi',
          className: 'fast',
          labels: {tier: 'gold'},
          claim: {namespace: 'team-b', name: 'other'},
        }),
        pv('going', {capacity: '20Gi', className: 'fast', labels: {tier: 'gold'}, deleting: true}),
        pv('released', {
          capacity: '20Gi',
          className: 'fast',
          labels: {tier: 'gold'},
          claim: {name: 'old', uid: 'z'},
          phase: 'Released',
        }),
      ],
      claims: [
        pvc('c', 'u1', {className: 'fast', request: '10Gi', selector: {matchLabels: {tier: 'gold'}}}),
        pvc('cache', 'x', {
          namespace: 'team-b',
          className: 'fast',
          volumeName: 'taken',
          phase: 'Bound',
          annotations: bound,
        }),
      ],
      classes: [sc('fast', 'vendor.com/ext')],
    }),
    verdict: 'ExternalProvisioning',
    candidates: {
      small: ['CapacityTooSmall: 5Gi < requested 10Gi'],
      slow: ["StorageClassMismatch: class 'slow' ≠ 'fast'"],
      rwx: ['AccessModesMismatch: offers RWX, claim needs RWO'],
      block: ['VolumeModeMismatch: volumeMode Block ≠ Filesystem'],
      plain: ['SelectorMismatch: labels lack tier=gold'],
      taken: ['BoundToOtherClaim: bound to team-b/cache', 'VolumeNotAvailable: phase Bound, not Available'],
      reserved: ['PreBoundToOtherClaim: pre-bound to team-b/other'],
      going: ['VolumeBeingDeleted: being deleted since 2026-01-01T00:00:00Z'],
      released: [
        'BoundToOtherClaim: bound to default/old, which no longer exists (stale claimRef)',
        'VolumeNotAvailable: phase Released, not Available',
      ],
    },
    // One reason each first, closest capacity first (5Gi is 5Gi away, the 20Gi ones 10Gi), then by name.
    order: ['small', 'block', 'going', 'plain', 'reserved', 'rwx', 'slow', 'released', 'taken'],
    suggestion: /kubectl patch pv released --type json -p '\[\{"op":"remove","path":"\/spec\/claimRef"\}\]'/,
  },
  {
    id: 'reasons: delayed binding, and node affinity against the node the scheduler selected',
    state: state({
      volumes: [withAffinity(pv('near', {className: 'wait'}), 'a'), withAffinity(pv('far', {className: 'wait'}), 'b')],
      claims: [pvc('c', 'u1', {className: 'wait', annotations: {'volume.kubernetes.io/selected-node': 'n1'}})],
      classes: [sc('wait', 'vendor.com/ext', WFFC)],
      nodes: [{metadata: {name: 'n1', labels: {zone: 'a'}}}],
    }),
    verdict: 'ExternalProvisioning',
    candidates: {
      near: ["DelayBinding: class 'wait' binds on first consumer: the scheduler picks the volume"],
      far: [
        "DelayBinding: class 'wait' binds on first consumer: the scheduler picks the volume",
        'NodeAffinityMismatch: its node affinity excludes node n1',
      ],
    },
    summary: /on node n1, which the scheduler selected/,
  },
  {
    id: 'reasons: VolumeAttributesClass differs (gate on)',
    gates: {VolumeAttributesClass: true},
    state: state({
      volumes: [pv('v')],
      claims: [withVAC(pvc('c', 'u1', {className: ''}), 'gold') as PersistentVolumeClaim],
    }),
    verdict: 'NoMatchingVolume',
    candidates: {v: ["VolumeAttributesClassMismatch: VolumeAttributesClass '' ≠ 'gold'"]},
  },
  {
    id: 'reasons: a volume that has a VolumeAttributesClass is never bound while the gate is off, however small',
    state: state({
      volumes: [withVAC(pv('gold'), 'gold') as PersistentVolume, pv('plain', {capacity: '5Gi'})],
      claims: [pvc('c', 'u1', {className: ''})],
    }),
    verdict: 'WillBind',
    volume: 'plain',
    candidates: {
      plain: [],
      gold: [
        "VolumeAttributesClassMismatch: has VolumeAttributesClass 'gold': never bound while the VolumeAttributesClass gate is off",
      ],
    },
  },
  {
    id: 'reasons: a volume pre-bound to the claim with another VolumeAttributesClass is not the answer (gate on)',
    gates: {VolumeAttributesClass: true},
    state: state({
      volumes: [
        withVAC(pv('mine', {claim: {name: 'c'}}), 'gold') as PersistentVolume,
        withVAC(pv('other', {capacity: '5Gi'}), 'silver') as PersistentVolume,
      ],
      claims: [withVAC(pvc('c', 'u1', {className: ''}), 'silver') as PersistentVolumeClaim],
    }),
    verdict: 'WillBind',
    volume: 'other',
    candidates: {other: [], mine: ["VolumeAttributesClassMismatch: VolumeAttributesClass 'gold' ≠ 'silver'"]},
  },
  {
    id: 'RequestedVolumeMismatch: the volume asked for by name has another VolumeAttributesClass (gate on, 2-11)',
    gates: {VolumeAttributesClass: true},
    state: state({
      volumes: [withVAC(pv('v'), 'gold') as PersistentVolume],
      claims: [pvc('c', 'u1', {className: '', volumeName: 'v'})],
    }),
    verdict: 'RequestedVolumeMismatch',
    candidates: {v: ["VolumeAttributesClassMismatch: VolumeAttributesClass 'gold' ≠ ''"]},
    check: (e) =>
      assert.equal(e.error, 'Cannot bind to requested volume "v": volumeAttributesClassName does not match'),
  },
]

function reasonLines(e: ClaimExplanation, volume: string): string[] | undefined {
  return e.candidates.find((c) => c.volume === volume)?.reasons.map((r) => `${r.code}: ${r.message}`)
}

describe('explainClaim: one row per verdict and reason code', () => {
  for (const row of claimRows) {
    test(row.id, () => {
      const gates = {...defaultFeatureGates, ...row.gates}
      const frozen = deepFreeze(structuredClone(row.state))
      const target = {namespace: row.claim?.namespace ?? 'default', name: row.claim?.name ?? 'c'}
      const plugins = defaultVolumePluginMgr(row.plugins)
      const e = explainClaim(frozen, target.namespace, target.name, {gates, plugins})
      assert.ok(e !== undefined)
      assert.equal(e.verdict, row.verdict, e.summary)
      assert.equal(e.volume, row.volume ?? null)
      assert.equal(e.candidates.length, frozen.volumes.length, 'every volume is a candidate')
      for (const [volume, reasons] of Object.entries(row.candidates ?? {})) {
        assert.deepEqual(reasonLines(e, volume), reasons, `reasons of ${volume}`)
        assert.equal(e.candidates.find((c) => c.volume === volume)?.eligible, reasons.length === 0)
      }
      if (row.order !== undefined)
        assert.deepEqual(
          e.candidates.map((c) => c.volume),
          row.order,
        )
      if (row.summary !== undefined) assert.match(e.summary, row.summary)
      if (row.suggestion !== undefined)
        assert.ok(
          e.suggestions.some((s) => row.suggestion!.test(s)),
          `no suggestion matches ${row.suggestion}:\n${e.suggestions.join('\n')}`,
        )
      row.check?.(e)
      assert.match(e.summary, /\.$/, 'the summary is one sentence')
      // A document: it survives a JSON round trip unchanged.
      assert.deepEqual(JSON.parse(JSON.stringify(e)), e)
      assert.deepEqual(disagreements(frozen, e, gates, plugins), [])
    })
  }

  test('the rows cover every verdict and every reason code', () => {
    const verdicts = new Set(claimRows.map((r) => r.verdict))
    assert.deepEqual(
      VERDICTS.filter((v) => !verdicts.has(v)),
      [],
    )
    const codes = new Set<ReasonCode>()
    for (const row of claimRows) {
      const e = explainClaim(row.state, row.claim?.namespace ?? 'default', row.claim?.name ?? 'c', {
        gates: {...defaultFeatureGates, ...row.gates},
        plugins: defaultVolumePluginMgr(row.plugins),
      })!
      for (const c of e.candidates) for (const r of c.reasons) codes.add(r.code)
    }
    assert.deepEqual(
      REASON_CODES.filter((c) => !codes.has(c)),
      [],
    )
  })

  test("--only-relevant leaves out volumes of live claims and volumes not considered, never the claim's own", () => {
    const s = claimRows.find((r) => r.id.startsWith('reasons: every refusal'))!.state
    const e = explainClaim(s, 'default', 'c', {gates: defaultFeatureGates, onlyRelevant: true})!
    assert.ok(!e.candidates.some((c) => c.volume === 'taken'))
    assert.ok(
      e.candidates.some((c) => c.volume === 'released'),
      'a stale claimRef is relevant',
    )
    const misbound = claimRows.find((r) => r.verdict === 'Misbound')!.state
    assert.deepEqual(
      explainClaim(misbound, 'default', 'c', {gates: defaultFeatureGates, onlyRelevant: true})!.candidates.map(
        (c) => c.volume,
      ),
      ['v'],
    )
  })

  test('several default classes: the newest is named, and the others are to be unmarked', () => {
    const s = state({
      claims: [pvc('c', 'u1')],
      classes: [
        sc('old', 'vendor.com/ext', {isDefault: true, created: '2025-01-01T00:00:00Z'}),
        sc('new', 'vendor.com/ext', {isDefault: true, created: '2026-01-01T00:00:00Z'}),
      ],
    })
    const e = explainClaim(s, 'default', 'c', {gates: defaultFeatureGates})!
    assert.equal(e.verdict, 'ExternalProvisioning')
    assert.deepEqual(
      [e.storageClass.name, e.storageClass.selection, e.storageClass.defaultClasses],
      ['new', 'NewestDefault', ['new', 'old']],
    )
    assert.ok(e.suggestions.some((l) => /2 classes are marked default \(new, old\): 'new', the newest, wins/.test(l)))
    assert.deepEqual(disagreements(s, e, defaultFeatureGates), [])
  })

  test('the agreement check catches an explanation that disagrees with the sync', () => {
    const gates = defaultFeatureGates
    const binds = claimRows[0].state
    const e = explainClaim(binds, 'default', 'c', {gates})!
    assert.notDeepEqual(disagreements(binds, {...e, volume: 'big'}, gates), [], 'another volume')
    assert.notDeepEqual(
      disagreements(binds, {...e, verdict: 'NoMatchingVolume', volume: null}, gates),
      [],
      'no binding announced',
    )
    const waits = claimRows.find((r) => r.verdict === 'WaitForFirstConsumer')!.state
    const w = explainClaim(waits, 'default', 'c', {gates})!
    assert.notDeepEqual(disagreements(waits, {...w, verdict: 'ExternalProvisioning'}, gates), [], 'another wait')
    assert.notDeepEqual(
      disagreements(waits, {...w, verdict: 'WillBind', volume: 'v'}, gates),
      [],
      'a binding that does not happen',
    )
  })

  test('an unknown claim is undefined, not an error', () => {
    assert.equal(explainClaim(state({}), 'default', 'nope', {gates: defaultFeatureGates}), undefined)
  })
})

// ---------------------------------------------------------------------------------------------------------
// Volumes

interface VolumeRow {
  id: string
  state: ClusterState
  volume?: string
  gates?: Partial<FeatureGates>
  expect: VolumeState
  reclaim?: string
  summary?: RegExp
  suggestion?: RegExp
  check?: (e: VolumeExplanation) => void
}

const hostPath = {hostPath: {path: '/tmp/v'}}
const nfs = {nfs: {server: 'nfs.example', path: '/x'}}

const volumeRows: VolumeRow[] = [
  {
    id: 'Available, and the claim whose next sync takes it',
    state: state({volumes: [pv('v', {capacity: '5Gi'})], claims: [pvc('c', 'u1', {className: ''})]}),
    expect: 'Available',
    check: (e) => assert.deepEqual(e.wantedBy, ['default/c']),
  },
  {
    id: 'PreBound to a claim that does not exist',
    state: state({volumes: [pv('v', {claim: {name: 'x'}})]}),
    expect: 'PreBound',
    suggestion: /create claim default\/x, or drop the pre-binding/,
  },
  {
    id: 'PreBound, and the claim binds it',
    state: state({volumes: [pv('v', {claim: {name: 'c'}})], claims: [pvc('c', 'u1', {className: ''})]}),
    expect: 'PreBound',
    summary: /the claim's next sync binds them/,
  },
  {
    id: 'Binding: the volume points at a claim that does not know it yet',
    state: state({
      volumes: [pv('v', {claim: {name: 'c', uid: 'u1'}, phase: 'Bound', annotations: byController})],
      claims: [pvc('c', 'u1', {className: ''})],
    }),
    expect: 'Binding',
  },
  {
    id: 'Bound',
    state: state({
      volumes: [pv('v', {claim: {name: 'c', uid: 'u1'}, phase: 'Bound'})],
      claims: [pvc('c', 'u1', {className: '', volumeName: 'v', phase: 'Bound', annotations: bound})],
    }),
    expect: 'Bound',
  },
  {
    id: 'Unbinding: the controller rolls back a binding its claim did not take',
    state: state({
      volumes: [
        pv('v', {claim: {name: 'c', uid: 'u1'}, phase: 'Bound', annotations: byController}),
        pv('w', {claim: {name: 'c', uid: 'u1'}, phase: 'Bound'}),
      ],
      claims: [pvc('c', 'u1', {className: '', volumeName: 'w', phase: 'Bound', annotations: bound})],
    }),
    expect: 'Unbinding',
  },
  {
    id: 'Released, Retain: kept with its data, and how to reuse it',
    state: state({volumes: [pv('v', {claim: {name: 'gone', uid: 'g'}, phase: 'Bound'})]}),
    expect: 'Released',
    reclaim: 'retain',
    suggestion: /kubectl patch pv v --type json/,
  },
  {
    id: 'Released, Recycle by the nfs plugin',
    state: state({
      volumes: [pv('v', {claim: {name: 'gone', uid: 'g'}, phase: 'Released', policy: 'Recycle', source: nfs})],
    }),
    expect: 'Released',
    reclaim: 'recycle',
  },
  {
    id: 'Released, Recycle blocked by a running pod',
    state: state({
      volumes: [pv('v', {claim: {name: 'gone', uid: 'g'}, phase: 'Released', policy: 'Recycle', source: nfs})],
      pods: [pod('p', 'gone', {phase: 'Running', nodeName: 'n1'})],
    }),
    expect: 'Released',
    reclaim: 'blocked',
    summary: /used by pods default\/p/,
  },
  {
    id: 'Released, Delete by the host-path plugin',
    state: state({
      volumes: [pv('v', {claim: {name: 'gone', uid: 'g'}, phase: 'Released', policy: 'Delete', source: hostPath})],
    }),
    expect: 'Released',
    reclaim: 'delete',
  },
  {
    id: 'Released, Delete left to an external provisioner: why it does not go away',
    state: state({
      volumes: [
        pv('v', {
          claim: {name: 'gone', uid: 'g'},
          phase: 'Released',
          policy: 'Delete',
          annotations: {'pv.kubernetes.io/provisioned-by': 'vendor.com/ext'},
        }),
      ],
    }),
    expect: 'Released',
    reclaim: 'external',
    summary: /left to 'vendor\.com\/ext': the controller does nothing.*not running/,
    suggestion: /kubectl get csidriver vendor\.com\/ext/,
  },
  {
    id: 'Released, Delete of a CSI volume: its driver deletes it',
    state: state({
      volumes: [
        pv('v', {
          claim: {name: 'gone', uid: 'g'},
          phase: 'Released',
          policy: 'Delete',
          source: {csi: {driver: 'ebs.csi.aws.com', volumeHandle: 'h'}},
        }),
      ],
    }),
    expect: 'Released',
    reclaim: 'external',
    check: (e) => assert.equal(e.reclaim?.by, 'ebs.csi.aws.com'),
  },
  {
    id: "Failed: no deleter for the volume's source",
    state: state({volumes: [pv('v', {claim: {name: 'gone', uid: 'g'}, phase: 'Released', policy: 'Delete'})]}),
    expect: 'Failed',
    reclaim: 'fail',
    check: (e) =>
      assert.equal(e.failure, 'error getting deleter volume plugin for volume "v": no volume plugin matched'),
  },
  {
    id: 'Failed: an unknown reclaim policy',
    state: state({volumes: [pv('v', {claim: {name: 'gone', uid: 'g'}, phase: 'Bound', policy: 'Shred'})]}),
    expect: 'Failed',
    reclaim: 'fail',
    suggestion: /set a known policy/,
  },
  {
    id: 'Failed already: the controller keeps retrying the recycle that failed',
    state: state({
      volumes: [
        {
          ...pv('v', {claim: {name: 'gone', uid: 'g'}, policy: 'Recycle'}),
          status: {phase: 'Failed', message: 'No recycler plugin found for the volume!'},
        },
      ],
    }),
    expect: 'Failed',
    check: (e) => assert.equal(e.failure, 'No recycler plugin found for the volume!'),
  },
  {
    id: 'Terminating: each finalizer, who owns it, what it waits for',
    state: state({
      volumes: [
        pv('v', {
          claim: {name: 'c', uid: 'u1'},
          phase: 'Bound',
          deleting: true,
          source: {csi: {driver: 'ebs.csi.aws.com', volumeHandle: 'h'}},
          finalizers: [
            'kubernetes.io/pv-protection',
            'external-provisioner.volume.kubernetes.io/finalizer',
            'external-attacher/ebs.csi.aws.com',
            'example.com/mine',
          ],
        }),
      ],
      claims: [pvc('c', 'u1', {className: '', volumeName: 'v', phase: 'Bound', annotations: bound})],
    }),
    expect: 'Bound',
    suggestion:
      /nothing is lost while claim default\/c exists .*its storage is kept .*\(reclaim policy Retain\).*delete the claim once no pod needs it.*kubectl delete pvc c -n default$/,
    check: (e) => {
      assert.deepEqual(
        e.terminating?.finalizers.map((f) => [f.name, f.blocking, f.owner]),
        [
          ['kubernetes.io/pv-protection', true, 'the pv-protection controller (kube-controller-manager)'],
          ['external-provisioner.volume.kubernetes.io/finalizer', true, "the external provisioner 'ebs.csi.aws.com'"],
          ['external-attacher/ebs.csi.aws.com', true, 'the CSI external-attacher of ebs.csi.aws.com'],
          ['example.com/mine', true, 'not a Kubernetes storage finalizer: whoever added it'],
        ],
      )
      assert.match(
        e.summary,
        /being deleted \(since 2026-01-01T00:00:00Z\); held by kubernetes\.io\/pv-protection until claim default\/c, which is bound to it, is deleted/,
      )
    },
  },
]

/** One sync of the volume does what the explanation said. */
function volumeDisagreements(s: ClusterState, e: VolumeExplanation, gates: FeatureGates): string[] {
  const r = reconcile(s, {targets: [{kind: 'PersistentVolume', name: e.volume.name}], maxRounds: 1, gates})
  const after = r.volumes.find((v) => v.metadata.name === e.volume.name)
  const did = (action: string) => r.actions.some((a) => a.action === action && a.object.name === e.volume.name)
  const phase = after?.status?.phase
  const expectations: Record<VolumeState, boolean> = {
    Available: phase === 'Available',
    PreBound: phase === 'Available',
    Binding: after?.spec.claimRef != null && !did('unbind-volume'),
    Bound: phase === 'Bound',
    Unbinding: did('unbind-volume'),
    Released: phase === 'Released' && !did('unbind-volume'),
    Failed: phase === 'Failed',
  }
  const problems = expectations[e.state]
    ? []
    : [`${e.state}: the sync left it ${phase ?? 'without a phase'} (${r.actions.map((a) => a.action).join(', ')})`]
  const reclaimAction = {recycle: 'recycle', delete: 'delete'}[e.reclaim?.action as string]
  if (reclaimAction !== undefined && !did(reclaimAction))
    problems.push(`reclaim ${e.reclaim?.action}: no ${reclaimAction} action`)
  if (e.reclaim !== null && reclaimAction === undefined && (did('recycle') || did('delete')))
    problems.push(`reclaim ${e.reclaim.action}: the sync planned a recycle or delete`)
  return problems
}

describe('explainVolume: one row per state', () => {
  for (const row of volumeRows) {
    test(row.id, () => {
      const gates = {...defaultFeatureGates, ...row.gates}
      const frozen = deepFreeze(structuredClone(row.state))
      const e = explainVolume(frozen, row.volume ?? 'v', {gates})!
      assert.equal(e.state, row.expect, e.summary)
      if (row.reclaim !== undefined) assert.equal(e.reclaim?.action, row.reclaim)
      if (row.summary !== undefined) assert.match(e.summary, row.summary)
      if (row.suggestion !== undefined)
        assert.ok(
          e.suggestions.some((s) => row.suggestion!.test(s)),
          `no suggestion matches ${row.suggestion}:\n${e.suggestions.join('\n')}`,
        )
      row.check?.(e)
      assert.deepEqual(JSON.parse(JSON.stringify(e)), e)
      assert.deepEqual(volumeDisagreements(frozen, e, gates), [])
    })
  }

  test('the rows cover every volume state', () => {
    const states = new Set(volumeRows.map((r) => r.expect))
    assert.deepEqual(
      VOLUME_STATES.filter((s) => !states.has(s)),
      [],
    )
  })
})

// ---------------------------------------------------------------------------------------------------------
// Agreement with the engine over the conformance cases

/** The engine's gates of a case variant (unknown and locked-on gates play no part in matching). */
function gatesOf(spec: Record<string, unknown>): FeatureGates {
  const gates: FeatureGates = {...defaultFeatureGates}
  for (const [name, value] of Object.entries(spec)) {
    if ((knownFeatureGates as string[]).includes(name)) gates[name as GateName] = value === true
  }
  return gates
}

describe('explain agrees with the engine on every conformance case', () => {
  for (const {file, cases} of loadCases('cases')) {
    test(file, async (t) => {
      for (const c of cases) {
        if (c.dependsOnPluginMock) {
          await t.test(c.name, {skip: 'needs the mock volume plugin'}, () => {})
          continue
        }
        const s = snapshotTextState(JSON.stringify(c.initial), c.name)
        const variants: Array<Record<string, unknown>> =
          c.featureGateVariants?.length > 0 ? c.featureGateVariants : [c.featureGates ?? {}]
        await t.test(c.name, () => {
          for (const variant of variants) {
            const gates = gatesOf({...(c.featureGates ?? {}), ...variant})
            const problems: string[] = []
            for (const claim of s.claims) {
              const e = explainClaim(s, claim.metadata.namespace ?? '', claim.metadata.name ?? '', {gates})!
              problems.push(...disagreements(s, e, gates).map((p) => `pvc ${claim.metadata.name}: ${p}`))
              problems.push(
                ...eligibilityDisagreements(s, claim, e, gates).map((p) => `pvc ${claim.metadata.name}: ${p}`),
              )
            }
            for (const volume of s.volumes) {
              const e = explainVolume(s, volume.metadata.name ?? '', {gates})!
              problems.push(...volumeDisagreements(s, e, gates).map((p) => `pv ${volume.metadata.name}: ${p}`))
            }
            assert.deepEqual(problems, [])
          }
        })
      }
    })
  }
})

/**
 * `eligible` is exactly what the controller's matcher accepts: for a claim matched by the index, the
 * index of that one volume picks it; for a claim that names its volume, checkVolumeSatisfyClaim passes
 * (or the volume already points at it). A claim that completed binding is never matched.
 */
function eligibilityDisagreements(
  s: ClusterState,
  claim: PersistentVolumeClaim,
  e: ClaimExplanation,
  gates: FeatureGates,
): string[] {
  if (claim.metadata.annotations?.['pv.kubernetes.io/bind-completed'] !== undefined) return []
  // The claim as the deciding sync sees it: with the default class the next sync gives it.
  const decided: PersistentVolumeClaim = e.storageClass.assignedByNextSync
    ? {...claim, spec: {...claim.spec, storageClassName: e.storageClass.name}}
    : claim
  const delayBinding = e.storageClass.name !== '' && e.storageClass.volumeBindingMode === 'WaitForFirstConsumer'
  const problems: string[] = []
  for (const c of e.candidates) {
    const volume = s.volumes.find((v) => v.metadata.name === c.volume)!
    let accepted: boolean
    if ((claim.spec.volumeName ?? '') !== '') {
      if (c.volume !== claim.spec.volumeName) continue
      accepted =
        volume.spec.claimRef == null
          ? checkVolumeSatisfyClaim(volume, claim, gates) === undefined
          : isVolumeBoundToClaim(volume, claim)
    } else {
      try {
        accepted =
          new PersistentVolumeOrderedIndex([volume]).findBestMatchForClaim(decided, delayBinding, gates) === volume
      } catch (err) {
        if (!(err instanceof MatchError)) throw err
        accepted = false
      }
    }
    if (accepted !== c.eligible)
      problems.push(
        `${c.volume}: eligible ${c.eligible}, the controller's matcher ${accepted ? 'accepts' : 'refuses'} it (${c.reasons.map((r) => r.code).join(', ')})`,
      )
  }
  return problems
}

describe('eligible agrees with findBestMatchForClaim on the index cases', () => {
  const index = loadCases('engine').find((f) => f.file === 'index.json')!
  for (const c of index.cases.filter((x: any) => x.test === 'findBestMatchForClaim')) {
    test(c.name, () => {
      const gates = gatesOf(c.featureGates ?? {})
      const s = clusterLookup(state({volumes: c.volumes, claims: [c.claim]}))
      const path = {
        kind: 'index' as const,
        claimClass: getPersistentVolumeClaimClass(c.claim),
        delayBinding: Boolean(c.delayBinding),
      }
      for (const volume of c.volumes as PersistentVolume[]) {
        const reasons = reasonsFor(s, volume, c.claim, path, gates)
        let accepted: boolean
        try {
          accepted =
            new PersistentVolumeOrderedIndex([volume]).findBestMatchForClaim(c.claim, path.delayBinding, gates) ===
            volume
        } catch (err) {
          if (!(err instanceof MatchError)) throw err
          accepted = false
        }
        assert.equal(
          reasons.length === 0,
          accepted,
          `${volume.metadata.name}: ${reasons.map((r) => `${r.code}: ${r.message}`).join('; ') || 'no reasons'}`,
        )
      }
    })
  }
})

function deepFreeze<T>(obj: T): T {
  if (obj !== null && typeof obj === 'object') {
    for (const v of Object.values(obj)) deepFreeze(v)
    Object.freeze(obj)
  }
  return obj
}
