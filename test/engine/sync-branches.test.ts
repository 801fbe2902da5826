// One row per branch of syncClaim / syncUnboundClaim / syncBoundClaim / syncVolume / reclaimVolume,
// named after the seed's test-set tags ("[Unit test set 1]" … "[Unit test set 4]") and the Go test ids
// where a Go case exists. Each row runs one sync of one object (--rounds 1) through reconcile() and
// asserts the ordered writes, the events and the state that matter for that branch.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {defaultFeatureGates, type FeatureGates} from '../../src/engine/api/feature-gates.js'
import type {ClusterState, PersistentVolume, PersistentVolumeClaim, Pod} from '../../src/engine/api/model.js'
import type {ObjectRef} from '../../src/engine/simulation/plan.js'
import {reconcile, type ReconcileResult} from '../../src/engine/simulation/reconcile.js'
import {defaultVolumePluginMgr, type VolumePluginOptions} from '../../src/engine/controller/volume-plugins.js'
import {bound, byController, pod, pv, pvc, sc, state} from './builders.js'

interface Row {
  id: string
  target: ObjectRef
  state: ClusterState
  gates?: Partial<FeatureGates>
  /** How the controller's plugins are configured (kube-controller-manager's defaults unless said). */
  plugins?: VolumePluginOptions
  actions: string[]
  events?: string[]
  error?: RegExp
  check?: (
    r: ReconcileResult,
    vol: (n: string) => PersistentVolume | undefined,
    claim: (n: string) => PersistentVolumeClaim | undefined,
  ) => void
}

const claimRef = (name: string): ObjectRef => ({kind: 'PersistentVolumeClaim', namespace: 'default', name})
const volRef = (name: string): ObjectRef => ({kind: 'PersistentVolume', name})
const BIND = ['bind-volume', 'set-volume-phase', 'bind-claim', 'set-claim-phase']

const rows: Row[] = [
  // [Unit test set 1] syncUnboundClaim, claim.Spec.VolumeName == ""
  {
    id: '1-1 unbound claim: the smallest matching volume is bound, volume first',
    target: claimRef('c'),
    state: state({
      volumes: [pv('big', {capacity: '10Gi'}), pv('small', {capacity: '2Gi'}), pv('tiny', {capacity: '500Mi'})],
      claims: [pvc('c', 'u1', {request: '1Gi'})],
    }),
    actions: BIND,
    check: (_r, vol, claim) => {
      assert.equal(vol('small')?.spec.claimRef?.uid, 'u1')
      assert.equal(vol('small')?.metadata.annotations?.['pv.kubernetes.io/bound-by-controller'], 'yes')
      assert.equal(claim('c')?.spec.volumeName, 'small')
      assert.equal(claim('c')?.status?.phase, 'Bound')
      assert.deepEqual(claim('c')?.status?.capacity, {storage: '2Gi'})
    },
  },
  {
    id: '1-1 equal candidates: the name that sorts first wins',
    target: claimRef('c'),
    state: state({volumes: [pv('b', {capacity: '1Gi'}), pv('a', {capacity: '1024Mi'})], claims: [pvc('c', 'u1')]}),
    actions: BIND,
    check: (_r, _v, claim) => assert.equal(claim('c')?.spec.volumeName, 'a'),
  },
  {
    id: '1-6 a volume pre-bound to the claim wins over a smaller one',
    target: claimRef('c'),
    state: state({
      volumes: [
        pv('small', {capacity: '1Gi'}),
        pv('mine', {capacity: '5Gi', claim: {name: 'c', uid: 'u1'}, phase: 'Bound'}),
      ],
      claims: [pvc('c', 'u1')],
    }),
    actions: ['bind-claim', 'set-claim-phase'],
    check: (_r, vol, claim) => {
      assert.equal(claim('c')?.spec.volumeName, 'mine')
      assert.equal(vol('mine')?.metadata.annotations, undefined, 'a pre-bound volume gets no bound-by-controller')
    },
  },
  {
    id: '1-11 selector: only volumes whose labels match',
    target: claimRef('c'),
    state: state({
      volumes: [pv('plain', {capacity: '1Gi'}), pv('gold', {capacity: '9Gi', labels: {tier: 'gold'}})],
      claims: [pvc('c', 'u1', {selector: {matchExpressions: [{key: 'tier', operator: 'In', values: ['gold']}]}})],
    }),
    actions: BIND,
    check: (_r, _v, claim) => assert.equal(claim('c')?.spec.volumeName, 'gold'),
  },
  {
    id: '1-17 a volume that is not Available is skipped',
    target: claimRef('c'),
    state: state({volumes: [pv('released', {phase: 'Released'})], claims: [pvc('c', 'u1', {className: ''})]}),
    actions: [],
    events: ['Normal FailedBinding no persistent volumes available for this claim and no storage class is set'],
  },
  {
    id: '1-3 no match and no class: FailedBinding, status reset to Pending',
    target: claimRef('c'),
    state: state({claims: [pvc('c', 'u1', {phase: 'Bound', statusCapacity: '1Gi'})]}),
    actions: ['set-claim-phase'],
    events: ['Normal FailedBinding'],
    check: (_r, _v, claim) => {
      assert.equal(claim('c')?.status?.phase, 'Pending')
      assert.equal(claim('c')?.status?.capacity, undefined)
    },
  },
  {
    id: '14-3 volumeMode: a Block claim never matches a Filesystem volume',
    target: claimRef('c'),
    state: state({volumes: [pv('fs')], claims: [pvc('c', 'u1', {volumeMode: 'Block', className: ''})]}),
    actions: [],
    events: ['Normal FailedBinding'],
  },
  {
    id: 'volume being deleted is never matched',
    target: claimRef('c'),
    state: state({volumes: [pv('going', {deleting: true})], claims: [pvc('c', 'u1', {className: ''})]}),
    actions: [],
    events: ['Normal FailedBinding'],
  },
  {
    id: '15-5 no match, no class, one default class: assigned retroactively, nothing else',
    target: claimRef('c'),
    state: state({claims: [pvc('c', 'u1')], classes: [sc('gold', 'kubernetes.io/no-provisioner', {isDefault: true})]}),
    actions: ['assign-storage-class'],
    events: [],
    check: (_r, _v, claim) => assert.equal(claim('c')?.spec.storageClassName, 'gold'),
  },
  {
    id: '15-2 several default classes: the newest wins',
    target: claimRef('c'),
    state: state({
      claims: [pvc('c', 'u1')],
      classes: [
        sc('old', 'x.example.com/p', {isDefault: true, created: '2025-01-01T00:00:00Z'}),
        sc('new', 'x.example.com/p', {isDefault: true, created: '2026-01-01T00:00:00Z'}),
      ],
    }),
    actions: ['assign-storage-class'],
    check: (_r, _v, claim) => assert.equal(claim('c')?.spec.storageClassName, 'new'),
  },
  {
    id: '15-4 class "" is never given the default class',
    target: claimRef('c'),
    state: state({
      claims: [pvc('c', 'u1', {className: ''})],
      classes: [sc('gold', 'kubernetes.io/no-provisioner', {isDefault: true})],
    }),
    actions: [],
    events: ['Normal FailedBinding'],
  },
  {
    id: 'WaitForFirstConsumer: no pod uses the claim',
    target: claimRef('c'),
    state: state({
      claims: [pvc('c', 'u1', {className: 'wait'})],
      classes: [sc('wait', 'x.example.com/p', {mode: 'WaitForFirstConsumer'})],
    }),
    actions: [],
    events: ['Normal WaitForFirstConsumer waiting for first consumer to be created before binding'],
  },
  {
    id: 'WaitForPodScheduled: one unscheduled pod, terminated and scheduled pods ignored',
    target: claimRef('c'),
    state: state({
      claims: [pvc('c', 'u1', {className: 'wait'})],
      classes: [sc('wait', 'x.example.com/p', {mode: 'WaitForFirstConsumer'})],
      pods: [
        pod('web-0', 'c'),
        pod('done', 'c', {phase: 'Succeeded'}),
        pod('placed', 'c', {nodeName: 'n1', phase: 'Running'}),
      ],
    }),
    actions: [],
    events: ['Normal WaitForPodScheduled waiting for pod web-0 to be scheduled'],
  },
  {
    id: 'WaitForPodScheduled: a pod that mounts the claim twice is named once',
    target: claimRef('c'),
    state: state({
      claims: [pvc('c', 'u1', {className: 'wait'})],
      classes: [sc('wait', 'x.example.com/p', {mode: 'WaitForFirstConsumer'})],
      pods: [
        {
          ...pod('web-0', 'c'),
          spec: {
            volumes: [
              {name: 'd', persistentVolumeClaim: {claimName: 'c'}},
              {name: 'd-ro', persistentVolumeClaim: {claimName: 'c', readOnly: true}},
            ],
          },
        },
      ],
    }),
    actions: [],
    events: ['Normal WaitForPodScheduled waiting for pod web-0 to be scheduled'],
  },
  {
    id: 'WaitForPodScheduled: several pods are all named',
    target: claimRef('c'),
    state: state({
      claims: [pvc('c', 'u1', {className: 'wait'})],
      classes: [sc('wait', 'x.example.com/p', {mode: 'WaitForFirstConsumer'})],
      pods: [pod('a', 'c'), pod('b', 'c')],
    }),
    actions: [],
    events: ['Normal WaitForPodScheduled waiting for pods a,b to be scheduled'],
  },
  {
    id: '1-14 delay binding still binds a pre-bound volume',
    target: claimRef('c'),
    state: state({
      volumes: [pv('mine', {claim: {name: 'c'}, className: 'wait'})],
      claims: [pvc('c', 'u1', {className: 'wait'})],
      classes: [sc('wait', 'x.example.com/p', {mode: 'WaitForFirstConsumer'})],
    }),
    actions: BIND,
  },
  {
    id: '11-24 delay binding with a selected node: handed to the external provisioner',
    target: claimRef('c'),
    state: state({
      volumes: [pv('v', {className: 'wait'})],
      claims: [pvc('c', 'u1', {className: 'wait', annotations: {'volume.kubernetes.io/selected-node': 'n1'}})],
      classes: [sc('wait', 'example.com/csi', {mode: 'WaitForFirstConsumer'})],
    }),
    actions: ['set-provisioner'],
    events: [
      "Normal ExternalProvisioning Waiting for a volume to be created either by the external provisioner 'example.com/csi'",
    ],
    check: (_r, _v, claim) => {
      assert.equal(claim('c')?.metadata.annotations?.['volume.kubernetes.io/storage-provisioner'], 'example.com/csi')
      assert.equal(
        claim('c')?.metadata.annotations?.['volume.beta.kubernetes.io/storage-provisioner'],
        'example.com/csi',
      )
    },
  },
  {
    id: '11-17 external provisioner: annotations (GA and beta) and ExternalProvisioning',
    target: claimRef('c'),
    state: state({claims: [pvc('c', 'u1', {className: 'ext'})], classes: [sc('ext', 'vendor.com/my-volume')]}),
    actions: ['set-provisioner'],
    events: ['Normal ExternalProvisioning'],
  },
  {
    id: '11-21 migrated in-tree provisioner: handed to its CSI driver',
    target: claimRef('c'),
    state: state({claims: [pvc('c', 'u1', {className: 'gce'})], classes: [sc('gce', 'kubernetes.io/gce-pd')]}),
    actions: ['set-provisioner'],
    events: [
      "Normal ExternalProvisioning Waiting for a volume to be created either by the external provisioner 'pd.csi.storage.gke.io'",
    ],
    check: (_r, _v, claim) => {
      assert.equal(
        claim('c')?.metadata.annotations?.['volume.kubernetes.io/storage-provisioner'],
        'pd.csi.storage.gke.io',
      )
      // The provisioner is now the CSI driver, which is not an in-tree plugin: no migrated-to on the claim.
      assert.equal(claim('c')?.metadata.annotations?.['pv.kubernetes.io/migrated-to'], undefined)
    },
  },
  {
    id: '11-14 class does not exist: ProvisioningFailed',
    target: claimRef('c'),
    state: state({claims: [pvc('c', 'u1', {className: 'nope'})]}),
    actions: [],
    events: ['Warning ProvisioningFailed storageclass.storage.k8s.io "nope" not found'],
  },
  {
    id: '11-18 unknown in-tree provisioner: ProvisioningFailed',
    target: claimRef('c'),
    state: state({claims: [pvc('c', 'u1', {className: 'x'})], classes: [sc('x', 'kubernetes.io/unknown')]}),
    actions: [],
    events: ['Warning ProvisioningFailed no volume plugin matched name: kubernetes.io/unknown'],
  },
  {
    id: 'in-tree host-path provisioner (--enable-hostpath-provisioner): the claim is annotated and a provision is planned',
    target: claimRef('c'),
    plugins: {hostPathProvisioning: true},
    state: state({claims: [pvc('c', 'u1', {className: 'hp'})], classes: [sc('hp', 'kubernetes.io/host-path')]}),
    actions: ['set-provisioner', 'provision'],
    events: [],
    check: (r) => assert.match(r.actions[1].reason, /pvc-u1/),
  },
  {
    // kube-controller-manager's default: the host-path plugin's NewProvisioner refuses.
    id: 'in-tree host-path provisioner, not enabled: annotated, then ProvisioningFailed from NewProvisioner',
    target: claimRef('c'),
    state: state({claims: [pvc('c', 'u1', {className: 'hp'})], classes: [sc('hp', 'kubernetes.io/host-path')]}),
    actions: ['set-provisioner'],
    events: [
      'Warning ProvisioningFailed Failed to create provisioner: provisioning in volume plugin "kubernetes.io/host-path" is disabled',
    ],
  },
  {
    id: '11-20 mount options the plugin does not support: ProvisioningFailed',
    target: claimRef('c'),
    state: state({
      claims: [pvc('c', 'u1', {className: 'hp'})],
      classes: [sc('hp', 'kubernetes.io/host-path', {mountOptions: ['foo']})],
    }),
    actions: ['set-provisioner'],
    events: [
      'Warning ProvisioningFailed Mount options are not supported by the provisioner but StorageClass "hp" has mount options [foo]',
    ],
  },
  {
    id: 'a data source with a non-CSI plugin: ProvisioningFailed',
    target: claimRef('c'),
    state: state({
      claims: [pvc('c', 'u1', {className: 'hp', dataSource: {kind: 'VolumeSnapshot', name: 's'}})],
      classes: [sc('hp', 'kubernetes.io/host-path')],
    }),
    actions: [],
    events: ['Warning ProvisioningFailed plugin "kubernetes.io/host-path" is not a CSI plugin'],
  },
  {
    id: 'provisioned volume already exists: nothing more to do',
    target: claimRef('c'),
    state: state({
      volumes: [pv('pvc-u1', {className: 'other'})],
      claims: [pvc('c', 'u1', {className: 'hp'})],
      classes: [sc('hp', 'kubernetes.io/host-path')],
    }),
    actions: ['set-provisioner'],
  },
  {
    id: 'a class without volumeBindingMode is a sync error',
    target: claimRef('c'),
    state: state({claims: [pvc('c', 'u1', {className: 'odd'})], classes: [sc('odd', 'x.example.com/p', {mode: null})]}),
    actions: [],
    error: /VolumeBindingMode not set for StorageClass "odd"/,
  },
  // [Unit test set 2] syncUnboundClaim, claim.Spec.VolumeName != ""
  {
    id: '2-1 requested volume does not exist: Pending',
    target: claimRef('c'),
    state: state({claims: [pvc('c', 'u1', {volumeName: 'ghost', phase: 'Bound'})]}),
    actions: ['set-claim-phase'],
    check: (_r, _v, claim) => assert.equal(claim('c')?.status?.phase, 'Pending'),
  },
  {
    id: '2-3 requested volume is free and fits: bound, the volume is marked bound-by-controller',
    target: claimRef('c'),
    state: state({volumes: [pv('v')], claims: [pvc('c', 'u1', {volumeName: 'v'})]}),
    actions: BIND,
    check: (_r, vol, claim) => {
      assert.equal(vol('v')?.metadata.annotations?.['pv.kubernetes.io/bound-by-controller'], 'yes')
      assert.equal(
        claim('c')?.metadata.annotations?.['pv.kubernetes.io/bound-by-controller'],
        undefined,
        'the claim was pre-bound by its user',
      )
    },
  },
  {
    id: '2-8 a requested volume is bound even when the selector does not match',
    target: claimRef('c'),
    state: state({
      volumes: [pv('v')],
      claims: [pvc('c', 'u1', {volumeName: 'v', selector: {matchLabels: {tier: 'gold'}}})],
    }),
    actions: BIND,
  },
  {
    id: '1-16 requested volume does not satisfy the claim: VolumeMismatch',
    target: claimRef('c'),
    state: state({volumes: [pv('v', {capacity: '1Gi'})], claims: [pvc('c', 'u1', {volumeName: 'v', request: '2Gi'})]}),
    actions: [],
    events: ['Warning VolumeMismatch Cannot bind to requested volume "v": requested PV is too small'],
  },
  {
    id: '2-4 requested volume already points at the claim: binding finished',
    target: claimRef('c'),
    state: state({
      volumes: [pv('v', {claim: {name: 'c', uid: 'u1'}, phase: 'Bound'})],
      claims: [pvc('c', 'u1', {volumeName: 'v'})],
    }),
    actions: ['bind-claim', 'set-claim-phase'],
  },
  {
    id: '2-6 requested volume bound to another claim (user pre-bound): FailedBinding, Pending',
    target: claimRef('c'),
    state: state({
      volumes: [pv('v', {claim: {name: 'other', uid: 'u2'}, phase: 'Bound'})],
      claims: [pvc('c', 'u1', {volumeName: 'v'})],
    }),
    actions: [],
    events: ['Warning FailedBinding volume "v" already bound to a different claim.'],
  },
  {
    id: '2-7 requested volume bound elsewhere but the claim says bound-by-controller: an error',
    target: claimRef('c'),
    state: state({
      volumes: [pv('v', {claim: {name: 'other', uid: 'u2'}, phase: 'Bound'})],
      claims: [pvc('c', 'u1', {volumeName: 'v', annotations: byController})],
    }),
    actions: [],
    events: ['Warning FailedBinding'],
    error: /invalid binding of claim "default\/c" to volume "v": volume already claimed by "default\/other"/,
  },
  // [Unit test set 3] syncBoundClaim
  {
    id: '3-1 bound claim lost its volumeName: Lost with ClaimLost',
    target: claimRef('c'),
    state: state({claims: [pvc('c', 'u1', {annotations: bound, phase: 'Bound'})]}),
    actions: ['set-claim-phase'],
    events: ['Warning ClaimLost Bound claim has lost reference to PersistentVolume. Data on the volume is lost!'],
  },
  {
    id: '3-2 bound claim whose volume is gone: Lost',
    target: claimRef('c'),
    state: state({claims: [pvc('c', 'u1', {annotations: bound, volumeName: 'gone', phase: 'Bound'})]}),
    actions: ['set-claim-phase'],
    events: ['Warning ClaimLost Bound claim has lost its PersistentVolume. Data on the volume is lost!'],
  },
  {
    id: '3-2 already Lost: no write, no event (the WithEvent variants act only on a change)',
    target: claimRef('c'),
    state: state({claims: [pvc('c', 'u1', {annotations: bound, volumeName: 'gone', phase: 'Lost'})]}),
    actions: [],
    events: [],
  },
  {
    id: '3-3 bound claim whose volume came unbound: bound again',
    target: claimRef('c'),
    state: state({
      volumes: [pv('v', {phase: 'Available'})],
      claims: [pvc('c', 'u1', {annotations: bound, volumeName: 'v', phase: 'Pending'})],
    }),
    actions: ['bind-volume', 'set-volume-phase', 'set-claim-phase'],
  },
  {
    id: '3-4 bound claim and volume agree: nothing to write',
    target: claimRef('c'),
    state: state({
      volumes: [pv('v', {claim: {name: 'c', uid: 'u1'}, phase: 'Bound', annotations: byController})],
      claims: [
        {
          ...pvc('c', 'u1', {annotations: bound, volumeName: 'v', phase: 'Bound', statusCapacity: '1Gi'}),
          status: {phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: {storage: '1Gi'}},
        },
      ],
    }),
    actions: [],
    events: [],
  },
  {
    id: '3-6 bound claim whose volume points at another claim: Lost with ClaimMisbound',
    target: claimRef('c'),
    state: state({
      volumes: [pv('v', {claim: {name: 'x', uid: 'ux'}, phase: 'Bound'})],
      claims: [pvc('c', 'u1', {annotations: bound, volumeName: 'v', phase: 'Bound'})],
    }),
    actions: ['set-claim-phase'],
    events: ['Warning ClaimMisbound Two claims are bound to the same volume, this one is bound incorrectly'],
  },
  // Crash and resume: bind() interrupted after each of its writes
  {
    id: '1-8 complete bind after crash: only the volume was saved',
    target: claimRef('c'),
    state: state({
      volumes: [pv('v', {claim: {name: 'c', uid: 'u1'}, annotations: byController, phase: 'Available'})],
      claims: [pvc('c', 'u1')],
    }),
    actions: ['set-volume-phase', 'bind-claim', 'set-claim-phase'],
  },
  {
    id: '1-10 complete bind after crash: the claim was saved, not its status',
    target: claimRef('c'),
    state: state({
      volumes: [pv('v', {claim: {name: 'c', uid: 'u1'}, annotations: byController, phase: 'Bound'})],
      claims: [pvc('c', 'u1', {annotations: bound, volumeName: 'v'})],
    }),
    actions: ['set-claim-phase'],
  },
  {
    id: 'pre-resize-capacity: the claim reports the annotation, not the volume size',
    target: claimRef('c'),
    state: state({
      volumes: [
        pv('v', {
          capacity: '10Gi',
          claim: {name: 'c', uid: 'u1'},
          phase: 'Bound',
          annotations: {...byController, 'volume.alpha.kubernetes.io/pre-resize-capacity': '5Gi'},
        }),
      ],
      claims: [pvc('c', 'u1', {annotations: bound, volumeName: 'v'})],
    }),
    actions: ['set-claim-phase'],
    check: (_r, _v, claim) => assert.deepEqual(claim('c')?.status?.capacity, {storage: '5Gi'}),
  },
  // [Unit test set 4] syncVolume
  {
    id: '4-1 volume without claimRef: Available',
    target: volRef('v'),
    state: state({volumes: [pv('v', {phase: 'Pending'})]}),
    actions: ['set-volume-phase'],
  },
  {
    id: '4-2 volume pre-bound to a claim without uid: Available',
    target: volRef('v'),
    state: state({volumes: [pv('v', {claim: {name: 'c'}, phase: 'Pending'})]}),
    actions: ['set-volume-phase'],
    check: (_r, vol) => assert.equal(vol('v')?.status?.phase, 'Available'),
  },
  {
    id: '4-3 claim gone, Retain: Released and kept',
    target: volRef('v'),
    state: state({volumes: [pv('v', {claim: {name: 'gone', uid: 'ug'}, phase: 'Bound'})]}),
    actions: ['set-volume-phase'],
    check: (_r, vol) => assert.equal(vol('v')?.status?.phase, 'Released'),
  },
  {
    id: '4-4 claim re-created with another uid: the volume is released',
    target: volRef('v'),
    state: state({volumes: [pv('v', {claim: {name: 'c', uid: 'old'}, phase: 'Bound'})], claims: [pvc('c', 'new')]}),
    actions: ['set-volume-phase'],
    check: (_r, vol) => assert.equal(vol('v')?.status?.phase, 'Released'),
  },
  {
    id: '6-1 claim gone, Recycle, NFS: recycle planned with its data source',
    target: volRef('v'),
    state: state({
      volumes: [
        pv('v', {
          claim: {name: 'gone', uid: 'ug'},
          phase: 'Bound',
          policy: 'Recycle',
          source: {nfs: {server: 'srv', path: '/x'}},
        }),
      ],
    }),
    actions: ['set-volume-phase', 'recycle'],
    check: (r) => assert.match(r.actions[1].reason, /NFS srv:\/x.*kubernetes\.io\/nfs/),
  },
  {
    id: '6-3 claim gone, Recycle, no recycler for the source: Failed',
    target: volRef('v'),
    state: state({volumes: [pv('v', {claim: {name: 'gone', uid: 'ug'}, phase: 'Bound', policy: 'Recycle'})]}),
    actions: ['set-volume-phase', 'set-volume-phase'],
    events: ['Warning VolumeFailedRecycle No recycler plugin found for the volume!'],
    check: (_r, vol) =>
      assert.deepEqual(vol('v')?.status, {phase: 'Failed', message: 'No recycler plugin found for the volume!'}),
  },
  {
    id: '6-11 Recycle while a running pod uses the claim: not recycled, Normal event',
    target: volRef('v'),
    state: state({
      volumes: [
        pv('v', {
          claim: {name: 'gone', uid: 'ug'},
          phase: 'Bound',
          policy: 'Recycle',
          source: {nfs: {server: 's', path: '/p'}},
        }),
      ],
      pods: [pod('runner', 'gone', {phase: 'Running', nodeName: 'n'})],
    }),
    actions: ['set-volume-phase'],
    events: ['Normal VolumeFailedRecycle Volume is used by pods: default/runner'],
  },
  ...(
    [
      [
        'its init container runs',
        {
          initContainerStatuses: [{name: 'init', state: {running: {}}}],
          containerStatuses: [{name: 'app', state: {waiting: {reason: 'PodInitializing'}}}],
        },
        true,
      ],
      [
        'an ephemeral container runs',
        {
          containerStatuses: [{name: 'app', state: {terminated: {exitCode: 0}}}],
          ephemeralContainerStatuses: [{name: 'debug', state: {running: {}}}],
        },
        true,
      ],
      [
        'every container is waiting or terminated',
        {
          initContainerStatuses: [{name: 'init', state: {terminated: {exitCode: 0}}}],
          containerStatuses: [{name: 'app', state: {waiting: {}}}],
        },
        false,
      ],
    ] satisfies Array<[string, NonNullable<Pod['status']>, boolean]>
  ).map(([what, status, used]): Row => ({
    // util.IsPodTerminated: a deleted pod is terminated only when none of its containers, of any of the
    // three lists, is running.
    id: `6-11 Recycle while a deleted pod uses the claim and ${what}: ${used ? 'not recycled' : 'recycled'}`,
    target: volRef('v'),
    state: state({
      volumes: [
        pv('v', {
          claim: {name: 'gone', uid: 'ug'},
          phase: 'Bound',
          policy: 'Recycle',
          source: {nfs: {server: 's', path: '/p'}},
        }),
      ],
      pods: [
        {
          ...pod('web-0', 'gone', {phase: 'Running', nodeName: 'n'}),
          metadata: {name: 'web-0', namespace: 'default', deletionTimestamp: '2026-01-01T00:00:00Z'},
          status: {phase: 'Running', ...status},
        },
      ],
    }),
    actions: used ? ['set-volume-phase'] : ['set-volume-phase', 'recycle'],
    events: used ? ['Normal VolumeFailedRecycle Volume is used by pods: default/web-0'] : [],
  })),
  {
    id: '8-1 claim gone, Delete, host-path: delete planned',
    target: volRef('v'),
    state: state({
      volumes: [
        pv('v', {
          claim: {name: 'gone', uid: 'ug'},
          phase: 'Bound',
          policy: 'Delete',
          source: {hostPath: {path: '/tmp/v'}},
        }),
      ],
    }),
    actions: ['set-volume-phase', 'delete'],
  },
  {
    // The real controller (test/real-cluster/differential.ts found it): its goroutine's Delete() fails at
    // once, so the volume ends Failed with Delete's own error, no "failed to create deleter" before it.
    id: "8-1 claim gone, Delete, host-path outside /tmp/: Failed with the deleter's refusal, nothing left to run",
    target: volRef('v'),
    state: state({
      volumes: [
        pv('v', {
          claim: {name: 'gone', uid: 'ug'},
          phase: 'Bound',
          policy: 'Delete',
          source: {hostPath: {path: '/data/v'}},
        }),
      ],
    }),
    actions: ['set-volume-phase', 'set-volume-phase'],
    events: ['Warning VolumeFailedDelete host_path deleter only supports /tmp/.+ but received provided /data/v'],
    check: (_r, vol) => assert.equal(vol('v')?.status?.phase, 'Failed'),
  },
  {
    id: '8-3 claim gone, Delete, no deleter: Failed with the plugin error',
    target: volRef('v'),
    state: state({volumes: [pv('v', {claim: {name: 'gone', uid: 'ug'}, phase: 'Bound', policy: 'Delete'})]}),
    actions: ['set-volume-phase', 'set-volume-phase'],
    events: ['Warning VolumeFailedDelete error getting deleter volume plugin for volume "v": no volume plugin matched'],
  },
  {
    id: '8-10 claim gone, Delete, provisioned by an external provisioner: left Released for it',
    target: volRef('v'),
    state: state({
      volumes: [
        pv('v', {
          claim: {name: 'gone', uid: 'ug'},
          phase: 'Bound',
          policy: 'Delete',
          annotations: {'pv.kubernetes.io/provisioned-by': 'ebs.csi.aws.com'},
        }),
      ],
    }),
    actions: ['set-volume-phase'],
    events: [],
  },
  {
    id: '8-10-2 claim gone, Delete, CSI source: left Released for the external deleter',
    target: volRef('v'),
    state: state({
      volumes: [
        pv('v', {
          claim: {name: 'gone', uid: 'ug'},
          phase: 'Bound',
          policy: 'Delete',
          source: {csi: {driver: 'd', volumeHandle: 'h'}},
        }),
      ],
    }),
    actions: ['set-volume-phase'],
    events: [],
  },
  {
    id: '8-10-3 claim gone, migrated volume: the controller stands down',
    target: volRef('v'),
    state: state({
      volumes: [
        pv('v', {
          claim: {name: 'gone', uid: 'ug'},
          phase: 'Bound',
          policy: 'Delete',
          annotations: {
            'pv.kubernetes.io/provisioned-by': 'kubernetes.io/gce-pd',
            'pv.kubernetes.io/migrated-to': 'pd.csi.storage.gke.io',
          },
        }),
      ],
    }),
    actions: ['set-volume-phase'],
    events: [],
  },
  {
    id: '6-10 unknown reclaim policy: Failed with VolumeUnknownReclaimPolicy',
    target: volRef('v'),
    state: state({volumes: [pv('v', {claim: {name: 'gone', uid: 'ug'}, phase: 'Bound', policy: 'Shred'})]}),
    actions: ['set-volume-phase', 'set-volume-phase'],
    events: ['Warning VolumeUnknownReclaimPolicy Volume has unrecognized PersistentVolumeReclaimPolicy'],
  },
  {
    id: '7-1 an already Failed volume keeps Failed and is reclaimed again',
    target: volRef('v'),
    state: state({volumes: [pv('v', {claim: {name: 'gone', uid: 'ug'}, phase: 'Failed', policy: 'Recycle'})]}),
    actions: [],
    events: [],
  },
  {
    id: '4-5 claim has no volumeName yet: the claim is requeued, nothing written',
    target: volRef('v'),
    state: state({
      volumes: [pv('v', {claim: {name: 'c', uid: 'u1'}, phase: 'Bound', annotations: byController})],
      claims: [pvc('c', 'u1')],
    }),
    actions: [],
  },
  {
    id: '14-13 claim has no volumeName and the modes differ: VolumeMismatch on both',
    target: volRef('v'),
    state: state({
      volumes: [pv('v', {claim: {name: 'c', uid: 'u1'}, phase: 'Bound', volumeMode: 'Block'})],
      claims: [pvc('c', 'u1')],
    }),
    actions: [],
    events: [
      'Warning VolumeMismatch Cannot bind PersistentVolume to requested PersistentVolumeClaim "c"',
      'Warning VolumeMismatch Cannot bind PersistentVolume "v"',
    ],
  },
  {
    id: '4-6 volume and claim point at each other: Bound',
    target: volRef('v'),
    state: state({
      volumes: [pv('v', {claim: {name: 'c', uid: 'u1'}, phase: 'Available'})],
      claims: [pvc('c', 'u1', {volumeName: 'v', annotations: bound, phase: 'Bound'})],
    }),
    actions: ['set-volume-phase'],
  },
  {
    id: '4-7 bound by the controller to a claim bound elsewhere: rolled back',
    target: volRef('v'),
    state: state({
      volumes: [pv('v', {claim: {name: 'c', uid: 'u1'}, phase: 'Bound', annotations: byController})],
      claims: [pvc('c', 'u1', {volumeName: 'other', annotations: bound, phase: 'Bound'})],
    }),
    actions: ['unbind-volume', 'set-volume-phase'],
    check: (_r, vol) => {
      assert.equal(vol('v')?.spec.claimRef, undefined)
      assert.equal(vol('v')?.metadata.annotations, undefined)
      assert.equal(vol('v')?.status?.phase, 'Available')
    },
  },
  {
    id: '4-8 pre-bound by a user to a claim bound elsewhere: only the uid is cleared',
    target: volRef('v'),
    state: state({
      volumes: [pv('v', {claim: {name: 'c', uid: 'u1'}, phase: 'Bound'})],
      claims: [pvc('c', 'u1', {volumeName: 'other', annotations: bound, phase: 'Bound'})],
    }),
    actions: ['unbind-volume', 'set-volume-phase'],
    check: (_r, vol) => {
      assert.equal(vol('v')?.spec.claimRef?.name, 'c')
      assert.equal(vol('v')?.spec.claimRef?.uid, undefined)
    },
  },
  {
    id: '8-11 provisioned for a claim that got bound elsewhere, Delete: Released and deleted',
    target: volRef('v'),
    state: state({
      volumes: [
        pv('v', {
          claim: {name: 'c', uid: 'u1'},
          phase: 'Bound',
          policy: 'Delete',
          annotations: {'pv.kubernetes.io/provisioned-by': 'kubernetes.io/host-path'},
          finalizers: ['kubernetes.io/pv-controller'],
          source: {hostPath: {path: '/tmp/v'}},
        }),
      ],
      claims: [pvc('c', 'u1', {volumeName: 'other', annotations: bound, phase: 'Bound'})],
    }),
    actions: ['set-volume-phase', 'delete'],
  },
  // Annealing in syncVolume (pv_controller_base.go)
  {
    id: 'HonorPVReclaimPolicy: an in-tree provisioned Delete volume gets the pv-controller finalizer',
    target: volRef('v'),
    state: state({
      volumes: [
        pv('v', {
          annotations: {'pv.kubernetes.io/provisioned-by': 'kubernetes.io/host-path'},
          policy: 'Delete',
          source: {hostPath: {path: '/tmp/v'}},
        }),
      ],
    }),
    actions: ['add-finalizer'],
    check: (_r, vol) => assert.deepEqual(vol('v')?.metadata.finalizers, ['kubernetes.io/pv-controller']),
  },
  {
    // ValidateObjectMetaUpdate refuses a new finalizer on an object being deleted: Go returns the error
    // from syncVolume before anything else, so the volume is neither released nor reclaimed.
    id: 'HonorPVReclaimPolicy: a volume already being deleted cannot get the finalizer: a sync error, no write',
    target: volRef('v'),
    state: state({
      volumes: [
        pv('v', {
          annotations: {'pv.kubernetes.io/provisioned-by': 'kubernetes.io/host-path'},
          policy: 'Delete',
          source: {hostPath: {path: '/tmp/v'}},
          claim: {name: 'gone', uid: 'ug'},
          phase: 'Bound',
          deleting: true,
          finalizers: ['kubernetes.io/pv-protection'],
        }),
      ],
    }),
    actions: [],
    events: [],
    error:
      /^persistent Volume Controller can't anneal migration annotations or finalizer: PersistentVolume "v" is invalid: metadata\.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers \[\]string\{"kubernetes\.io\/pv-controller"\}$/,
  },
  {
    id: 'HonorPVReclaimPolicy off: finalizers are left alone',
    target: volRef('v'),
    gates: {HonorPVReclaimPolicy: false},
    state: state({
      volumes: [
        pv('v', {
          annotations: {'pv.kubernetes.io/provisioned-by': 'kubernetes.io/host-path'},
          policy: 'Delete',
          source: {hostPath: {path: '/tmp/v'}},
        }),
      ],
    }),
    actions: [],
  },
  {
    id: 'migration: a gce-pd provisioned volume gets migrated-to',
    target: volRef('v'),
    state: state({
      volumes: [pv('v', {annotations: {'pv.kubernetes.io/provisioned-by': 'kubernetes.io/gce-pd'}, policy: 'Retain'})],
    }),
    actions: ['set-migration-annotation'],
    check: (_r, vol) =>
      assert.equal(vol('v')?.metadata.annotations?.['pv.kubernetes.io/migrated-to'], 'pd.csi.storage.gke.io'),
  },
]

for (const row of rows) {
  test(row.id, () => {
    const frozen = deepFreeze(structuredClone(row.state))
    const r = reconcile(frozen, {
      targets: [row.target],
      maxRounds: 1,
      gates: {...defaultFeatureGates, ...row.gates},
      plugins: defaultVolumePluginMgr(row.plugins),
    })
    assert.deepEqual(
      r.actions.map((a) => a.action),
      row.actions,
      `actions: ${JSON.stringify(r.actions.map((a) => [a.action, a.reason]))}`,
    )
    if (row.events !== undefined) {
      const got = r.events.map((e) => `${e.type} ${e.reason} ${e.message}`)
      assert.equal(got.length, row.events.length, `events: ${JSON.stringify(got)}`)
      row.events.forEach((want, i) =>
        assert.ok(got[i].startsWith(want), `event ${i}: ${got[i]} does not start with ${want}`),
      )
    }
    if (row.error !== undefined) {
      assert.equal(r.errors.length, 1, JSON.stringify(r.errors))
      assert.match(r.errors[0].message, row.error)
    } else {
      assert.deepEqual(r.errors, [])
    }
    row.check?.(
      r,
      (n) => r.volumes.find((v) => v.metadata.name === n),
      (n) => r.claims.find((c) => c.metadata.name === n),
    )
    // The plan is data: it survives a JSON round trip unchanged.
    assert.deepEqual(JSON.parse(JSON.stringify(r.actions)), r.actions)
  })
}

function deepFreeze<T>(obj: T): T {
  if (obj !== null && typeof obj === 'object') {
    for (const v of Object.values(obj)) deepFreeze(v)
    Object.freeze(obj)
  }
  return obj
}
