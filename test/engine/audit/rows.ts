// The rows of the finding codes about deletion, resizes, liveness, unusable volumes, classes and restores:
// each a state that raises the code and the state next to it that does not (judge.test.ts runs them).
import type {FindingCode} from '../../../src/engine/audit/findings.js'
import type {ExplainEvidence, LeaseObject} from '../../../src/engine/explain/evidence.js'
import type {ClusterState, Node, PersistentVolume, PersistentVolumeClaim, Pod} from '../../../src/engine/api/model.js'
import {bound, pod, pv, pvc, sc, state} from '../builders.js'

export interface Row {
  code: FindingCode
  raises: ClusterState
  near: ClusterState
  /** The evidence the audit reads (liveness); none: not read. */
  evidence?: ExplainEvidence
  nearEvidence?: ExplainEvidence
}

export const NOW = Date.parse('2026-03-01T12:00:00Z')

/** Every kind read and empty: nothing shows any external controller running (NoSignOfLife). */
export const silence: ExplainEvidence = {
  now: NOW,
  events: {observed: true, items: []},
  csiDrivers: {observed: true, items: []},
  leases: {observed: true, items: []},
  volumeAttachments: {observed: true, items: []},
}

/** The same, with the Lease `name` held and just renewed: the controller runs (Active). */
export function leaseHeld(name: string): ExplainEvidence {
  const lease: LeaseObject = {
    metadata: {name, namespace: 'kube-system'},
    spec: {holderIdentity: 'csi-controller-0', leaseDurationSeconds: 15, renewTime: new Date(NOW - 2000).toISOString()},
  }
  return {...silence, leases: {observed: true, items: [lease]}}
}

const DELETED = '2026-03-01T11:00:00Z'

const boundClaim = (
  o: {
    request?: string
    capacity?: string
    status?: Record<string, unknown>
    deleting?: boolean
    finalizers?: string[]
  } = {},
): PersistentVolumeClaim => {
  const c = pvc('data', 'u1', {
    phase: 'Bound',
    volumeName: 'pv-1',
    annotations: bound,
    className: '',
    request: o.request,
    statusCapacity: o.capacity ?? '1Gi',
  })
  c.status = {...c.status, ...o.status}
  if (o.deleting) c.metadata.deletionTimestamp = DELETED
  if (o.finalizers !== undefined) c.metadata.finalizers = o.finalizers
  return c
}
const boundVolume = (o: {deleting?: boolean; finalizers?: string[]} = {}): PersistentVolume =>
  pv('pv-1', {
    phase: 'Bound',
    className: '',
    claim: {name: 'data', uid: 'u1'},
    annotations: {'pv.kubernetes.io/bound-by-controller': 'yes'},
    deleting: o.deleting,
    finalizers: o.finalizers,
  })

const running = (name: string, nodeName: string, o: {terminating?: boolean} = {}): Pod => {
  const p = pod(name, 'data', {phase: 'Running', nodeName})
  if (o.terminating) p.metadata.deletionTimestamp = DELETED
  return p
}

const external = sc('ext', 'example.com/x')
/** A volume of the external provisioner example.com/x, released by its claim (gone) with Delete. */
const releasedExternal = pv('pv-1', {
  phase: 'Released',
  policy: 'Delete',
  className: 'ext',
  claim: {name: 'gone', uid: 'u0'},
  annotations: {'pv.kubernetes.io/provisioned-by': 'example.com/x'},
  source: {csi: {driver: 'example.com/x', volumeHandle: 'h-1'}},
})

const node = (name: string): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {name, labels: {'kubernetes.io/hostname': name}},
})
const local = (): PersistentVolume => {
  const v = pv('pv-1', {className: ''})
  v.spec.nodeAffinity = {
    required: {
      nodeSelectorTerms: [{matchExpressions: [{key: 'kubernetes.io/hostname', operator: 'In', values: ['n9']}]}],
    },
  }
  return v
}

/** releasedExternal, its storage local to node `host`. */
const releasedOn = (host: string): PersistentVolume => ({
  ...releasedExternal,
  spec: {
    ...releasedExternal.spec,
    nodeAffinity: {
      required: {
        nodeSelectorTerms: [{matchExpressions: [{key: 'kubernetes.io/hostname', operator: 'In', values: [host]}]}],
      },
    },
  },
})

/** A node with the hostname label and `labels`. */
const labelled = (name: string, labels: Record<string, string>): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {name, labels: {'kubernetes.io/hostname': name, ...labels}},
})
/** The volume, mountable on node `host` alone. */
const onNode = (v: PersistentVolume, host: string): PersistentVolume => ({
  ...v,
  spec: {
    ...v.spec,
    nodeAffinity: {
      required: {
        nodeSelectorTerms: [{matchExpressions: [{key: 'kubernetes.io/hostname', operator: 'In', values: [host]}]}],
      },
    },
  },
})
/** A pod of claim data, not on a node yet, whose nodeSelector is key=value. */
const selecting = (key: string, value: string): Pod => {
  const p = pod('app-0', 'data')
  p.spec = {...p.spec, nodeSelector: {[key]: value}}
  return p
}

const restored = {'velero.io/restore-name': 'r-1'}

const wffcLocal = sc('local', 'example.com/local', {mode: 'WaitForFirstConsumer'})
const wffcExternal = sc('wfc', 'example.com/x', {mode: 'WaitForFirstConsumer'})
const unschedulable = (): Pod => {
  const p = pod('app-0', 'data')
  p.status = {
    phase: 'Pending',
    conditions: [
      {
        type: 'PodScheduled',
        status: 'False',
        reason: 'Unschedulable',
        message: '0/3 nodes are available: 3 Insufficient cpu.',
      },
    ],
  }
  return p
}
const selectedOn = (node: string) =>
  pvc('data', 'u1', {className: 'wfc', annotations: {'volume.kubernetes.io/selected-node': node}})
/** A volume the provisioner example.com/x made for claim default/data (uid u1), of `mode`. */
const provisionedFor = (mode: string) =>
  pv('pvc-u1', {
    phase: 'Bound',
    className: 'ext',
    volumeMode: mode,
    policy: 'Delete',
    claim: {name: 'data', uid: 'u1'},
    annotations: {'pv.kubernetes.io/provisioned-by': 'example.com/x'},
    source: {csi: {driver: 'example.com/x', volumeHandle: 'h-1'}},
  })
const defaultClass = sc('standard', 'example.com/x', {isDefault: true})

export const rows: Row[] = [
  {
    code: 'ClaimConsumerBypassesScheduler',
    raises: state({
      claims: [pvc('data', 'u1', {className: 'local'})],
      classes: [wffcLocal],
      pods: [pod('app-0', 'data', {nodeName: 'n1'})],
    }),
    near: state({
      claims: [pvc('data', 'u1', {className: 'local'})],
      classes: [wffcLocal],
      pods: [pod('app-0', 'data')],
    }),
  },
  {
    code: 'ClaimConsumerUnschedulable',
    raises: state({claims: [pvc('data', 'u1', {className: 'local'})], classes: [wffcLocal], pods: [unschedulable()]}),
    near: state({
      claims: [pvc('data', 'u1', {className: 'local'})],
      classes: [wffcLocal],
      pods: [pod('app-0', 'data')],
    }),
  },
  // The pod selects env=a; the volume may be mounted on n9 alone, which lacks it (near: n9 carries it).
  {
    code: 'ClaimConsumerVolumeNodeConflict',
    raises: state({
      claims: [boundClaim()],
      volumes: [onNode(boundVolume(), 'n9')],
      pods: [selecting('env', 'a')],
      nodes: [labelled('n1', {env: 'a'}), labelled('n9', {})],
    }),
    near: state({
      claims: [boundClaim()],
      volumes: [onNode(boundVolume(), 'n9')],
      pods: [selecting('env', 'a')],
      nodes: [labelled('n1', {env: 'a'}), labelled('n9', {env: 'a'})],
    }),
  },
  {
    code: 'ClaimSelectedNodeGone',
    raises: state({claims: [selectedOn('n9')], classes: [wffcExternal], nodes: [node('n1')]}),
    near: state({claims: [selectedOn('n9')], classes: [wffcExternal], nodes: [node('n1'), node('n9')]}),
  },
  {
    code: 'ClaimDefaultClassSkipsVolume',
    raises: state({
      claims: [pvc('data', 'u1', {className: 'standard'})],
      classes: [defaultClass],
      volumes: [pv('pv-1', {className: ''})],
    }),
    near: state({
      claims: [pvc('data', 'u1', {className: 'standard'})],
      classes: [defaultClass],
      volumes: [pv('pv-1', {className: 'manual'})],
    }),
  },
  {
    code: 'ClaimProvisionedVolumeUnfit',
    raises: state({
      claims: [pvc('data', 'u1', {className: 'ext', volumeMode: 'Block'})],
      classes: [external],
      volumes: [provisionedFor('Filesystem')],
    }),
    near: state({
      claims: [pvc('data', 'u1', {className: 'ext', volumeMode: 'Block'})],
      classes: [external],
      volumes: [provisionedFor('Block')],
    }),
  },
  {
    code: 'ClaimProvisionerNotRunning',
    raises: state({claims: [pvc('data', 'u1', {className: 'ext'})], classes: [external]}),
    near: state({claims: [pvc('data', 'u1', {className: 'ext'})], classes: [external]}),
    evidence: silence,
    nearEvidence: leaseHeld('example-com-x'),
  },
  {
    code: 'ClaimTerminating',
    raises: state({
      claims: [boundClaim({deleting: true, finalizers: ['kubernetes.io/pvc-protection']})],
      volumes: [boundVolume()],
      pods: [running('app-0', 'n1', {terminating: true})],
    }),
    near: state({
      claims: [boundClaim({finalizers: ['kubernetes.io/pvc-protection']})],
      volumes: [boundVolume()],
      pods: [running('app-0', 'n1', {terminating: true})],
    }),
  },
  {
    code: 'ClaimResizeFailed',
    raises: state({
      claims: [
        boundClaim({
          request: '2Gi',
          status: {conditions: [{type: 'ControllerResizeError', status: 'True', message: 'quota exceeded'}]},
        }),
      ],
      volumes: [boundVolume()],
    }),
    near: state({
      claims: [boundClaim({request: '2Gi', status: {conditions: [{type: 'Resizing', status: 'True'}]}})],
      volumes: [boundVolume()],
    }),
  },
  {
    code: 'ClaimResizePending',
    raises: state({claims: [boundClaim({request: '2Gi'})], volumes: [boundVolume()]}),
    near: state({claims: [boundClaim({request: '1Gi'})], volumes: [boundVolume()]}),
  },
  {
    code: 'VolumeTerminating',
    raises: state({
      claims: [boundClaim()],
      volumes: [boundVolume({deleting: true, finalizers: ['kubernetes.io/pv-protection']})],
    }),
    // Its claim gone, Released and kept: pv-protection no longer holds it.
    near: state({
      volumes: [
        {...boundVolume({deleting: true, finalizers: ['kubernetes.io/pv-protection']}), status: {phase: 'Released'}},
      ],
    }),
  },
  {
    code: 'VolumeReleasedProvisionerNotRunning',
    raises: state({volumes: [releasedExternal], classes: [external]}),
    near: state({volumes: [releasedExternal], classes: [external]}),
    evidence: silence,
    nearEvidence: leaseHeld('example-com-x'),
  },
  {
    code: 'VolumeDeleteUnowned',
    raises: state({
      volumes: [
        pv('pv-1', {
          phase: 'Released',
          policy: 'Delete',
          className: '',
          claim: {name: 'gone', uid: 'u0'},
          source: {csi: {driver: 'example.com/x', volumeHandle: 'h-1'}},
        }),
      ],
    }),
    near: state({volumes: [releasedExternal], classes: [external]}),
  },
  // Its node (n9) gone, the provisioner can never delete its storage; with n9 there, it is the provisioner's to delete.
  {
    code: 'VolumeDeleteNodeGone',
    raises: state({volumes: [releasedOn('n9')], classes: [external], nodes: [node('n1')]}),
    near: state({volumes: [releasedOn('n9')], classes: [external], nodes: [node('n1'), node('n9')]}),
  },
  {
    code: 'VolumeNodeAffinityMatchesNoNode',
    raises: state({volumes: [local()], nodes: [node('n1')]}),
    near: state({volumes: [local()], nodes: [node('n1'), node('n9')]}),
  },
  {
    code: 'VolumeStorageClassNotFound',
    raises: state({volumes: [pv('pv-1', {className: 'gold'})], classes: [sc('silver', 'example.com/x')]}),
    near: state({volumes: [pv('pv-1', {className: 'gold'})], classes: [sc('gold', 'example.com/x')]}),
  },
  {
    code: 'VolumeDeletionUnprotected',
    raises: state({volumes: [pv('pv-1', {policy: 'Delete', deleting: true})]}),
    near: state({
      volumes: [
        pv('pv-1', {
          policy: 'Delete',
          deleting: true,
          finalizers: ['external-provisioner.volume.kubernetes.io/finalizer'],
        }),
      ],
    }),
  },
  {
    code: 'NoDefaultStorageClass',
    raises: state({claims: [pvc('data', 'u1', {className: null})], classes: [sc('fast', 'example.com/x')]}),
    near: state({
      claims: [pvc('data', 'u1', {className: null})],
      classes: [sc('fast', 'example.com/x', {isDefault: true})],
    }),
  },
  {
    code: 'StorageClassBindingModeUnset',
    raises: state({classes: [sc('odd', 'example.com/x', {mode: null})]}),
    near: state({classes: [sc('odd', 'example.com/x')]}),
  },
  {
    code: 'RestoredVolumeClaimMissing',
    raises: state({volumes: [pv('pv-1', {className: '', claim: {name: 'data'}, labels: restored})]}),
    near: state({volumes: [pv('pv-1', {className: '', claim: {name: 'data'}})]}),
  },
  {
    code: 'RestoredUidMismatch',
    raises: state({
      claims: [pvc('data', 'u-new', {className: 'gold', labels: restored})],
      volumes: [pv('pv-1', {className: '', phase: 'Released', claim: {name: 'data', uid: 'u-old'}})],
    }),
    near: state({
      claims: [pvc('data', 'u-new', {className: 'gold'})],
      volumes: [pv('pv-1', {className: '', phase: 'Released', claim: {name: 'data', uid: 'u-old'}})],
    }),
  },
  {
    code: 'RestoredCloneBesideUnboundOriginal',
    raises: state({
      claims: [cloneClaim()],
      volumes: [pv('pv-1', {className: '', phase: 'Released', claim: {name: 'old', uid: 'u0'}}), clone()],
    }),
    near: state({
      claims: [cloneClaim(), pvc('old', 'u0', {phase: 'Bound', volumeName: 'pv-1', annotations: bound, className: ''})],
      volumes: [pv('pv-1', {className: '', phase: 'Bound', claim: {name: 'old', uid: 'u0'}}), clone()],
    }),
  },
]

function clone(): PersistentVolume {
  return pv('velero-clone-5f0c', {
    className: '',
    phase: 'Bound',
    claim: {namespace: 'copy', name: 'data', uid: 'u1'},
    labels: restored,
    annotations: {'velero.io/original-pv-name': 'pv-1', 'pv.kubernetes.io/bound-by-controller': 'yes'},
  })
}

function cloneClaim(): PersistentVolumeClaim {
  return pvc('data', 'u1', {
    namespace: 'copy',
    phase: 'Bound',
    volumeName: 'velero-clone-5f0c',
    annotations: bound,
    className: '',
    labels: restored,
  })
}
