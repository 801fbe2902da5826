// The states people end up in around the binder, each with the state next to it: the rows of
// advice-rows.test.ts (what explain and audit say of them) and of test/app/printed-fixes.test.ts (their fixes run).
import type {FindingCode, Severity} from '../../src/engine/audit/findings.js'
import type {ClusterState} from '../../src/engine/api/model.js'
import type {ObjectRef} from '../../src/engine/simulation/plan.js'
import {bound, pod, pv, pvc, sc, state} from './builders.js'

export interface AdviceRow {
  name: string
  state: ClusterState
  /** The state next to it: the advice is not given there. */
  near: ClusterState
  /** The object explained. */
  object: ObjectRef
  explain: {verdict: string; summary?: RegExp; first: RegExp}
  /** The finding audit gives the object (its fix run as printed). */
  audit?: {code: FindingCode; severity: Severity; fix: RegExp; message?: RegExp}
  /** Codes audit must not raise on the object (their advice would be wrong here). */
  absent?: FindingCode[]
  /** Another finding of the same state, on another object, whose fix is run too. */
  alsoAudit?: {object: string; code: FindingCode; fix: RegExp}
}

const manifest = (o: object) => JSON.stringify(o)

/** A Bound pair whose volume's manifest was applied again (kubectl apply, GitOps): its claimRef lost the uid. */
function reapplied(uid: string | undefined): ClusterState {
  const volume = pv('pv-db', {
    phase: 'Bound',
    className: '',
    capacity: '8Gi',
    claim: {namespace: 'shop', name: 'db', uid},
  })
  volume.metadata.annotations = {
    'kubectl.kubernetes.io/last-applied-configuration': manifest({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      spec: {claimRef: {namespace: 'shop', name: 'db'}},
    }),
  }
  return state({
    volumes: [volume],
    claims: [
      pvc('db', 'u-db', {
        namespace: 'shop',
        phase: 'Bound',
        volumeName: 'pv-db',
        annotations: bound,
        className: '',
        request: '8Gi',
      }),
    ],
  })
}

/** A new claim names (spec.volumeName) a volume Released by a claim that is gone, or (near) still bound to it. */
function namesReleased(oldClaimThere: boolean): ClusterState {
  const volume = pv('pv-old', {
    phase: oldClaimThere ? 'Bound' : 'Released',
    className: '',
    capacity: '8Gi',
    claim: {namespace: 'shop', name: 'old-db', uid: 'u-old'},
  })
  const claims = [pvc('newdb', 'u-new', {namespace: 'shop', volumeName: 'pv-old', className: '', request: '8Gi'})]
  if (oldClaimThere)
    claims.push(
      pvc('old-db', 'u-old', {
        namespace: 'shop',
        phase: 'Bound',
        volumeName: 'pv-old',
        annotations: bound,
        className: '',
        request: '8Gi',
      }),
    )
  return state({volumes: [volume], claims})
}

/** A claim of a WaitForFirstConsumer class, and its pod: placed by the scheduler (near), or naming its node itself. */
export function podNamesNode(nodeName: string | undefined): ClusterState {
  return state({
    classes: [sc('local', 'kubernetes.io/no-provisioner', {mode: 'WaitForFirstConsumer'})],
    volumes: [pv('local-pv-1', {className: 'local', capacity: '10Gi'})],
    claims: [pvc('data', 'u-data', {namespace: 'shop', className: 'local', request: '10Gi'})],
    pods: [pod('db-0', 'data', {namespace: 'shop', nodeName})],
  })
}

/** A claim created without a class (its last applied manifest shows it), given the default one; a static volume without a class (or, near, of another). */
export function defaultClassWritten(volumeClass: string): ClusterState {
  const claim = pvc('data', 'u-data', {namespace: 'shop', className: 'standard', request: '5Gi'})
  claim.metadata.annotations = {
    'kubectl.kubernetes.io/last-applied-configuration': manifest({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {name: 'data', namespace: 'shop'},
      spec: {accessModes: ['ReadWriteOnce'], resources: {requests: {storage: '5Gi'}}},
    }),
  }
  return state({
    classes: [sc('standard', 'rancher.io/local-path', {mode: 'WaitForFirstConsumer', isDefault: true})],
    volumes: [pv('pv-data', {className: volumeClass, capacity: '5Gi', source: {hostPath: {path: '/srv/data'}}})],
    claims: [claim],
    pods: [pod('db-0', 'data', {namespace: 'shop'})],
  })
}

/** A volume the provisioner made for the claim (claimRef with its uid), of `mode` and `modes`. */
function provisionedFor(o: {mode: string; modes: string[]; claimMode: string; claimModes: string[]}): ClusterState {
  return state({
    classes: [sc('ebs', 'ebs.csi.aws.com')],
    volumes: [
      pv('pvc-u-data', {
        phase: 'Bound',
        className: 'ebs',
        volumeMode: o.mode,
        modes: o.modes,
        policy: 'Delete',
        capacity: '10Gi',
        claim: {namespace: 'shop', name: 'data', uid: 'u-data'},
        annotations: {'pv.kubernetes.io/provisioned-by': 'ebs.csi.aws.com'},
        source: {csi: {driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1'}},
      }),
    ],
    claims: [
      pvc('data', 'u-data', {
        namespace: 'shop',
        className: 'ebs',
        request: '10Gi',
        volumeMode: o.claimMode,
        modes: o.claimModes,
      }),
    ],
  })
}

/** Static volumes of class 'x' (a label: no StorageClass of that name); the big one bound to a claim asking for `small`. */
function crossedClaims(small: string): ClusterState {
  return state({
    classes: [sc('gp2', 'ebs.csi.aws.com')],
    volumes: [
      pv('pv-small', {className: 'x', capacity: '5Gi'}),
      pv('pv-big', {
        className: 'x',
        capacity: '20Gi',
        phase: 'Bound',
        claim: {namespace: 'shop', name: 'small', uid: 'u-small'},
        annotations: {'pv.kubernetes.io/bound-by-controller': 'yes'},
      }),
    ],
    claims: [
      pvc('small', 'u-small', {
        namespace: 'shop',
        className: 'x',
        request: small,
        phase: 'Bound',
        volumeName: 'pv-big',
        annotations: bound,
      }),
      pvc('big', 'u-big', {namespace: 'shop', className: 'x', request: '20Gi'}),
    ],
  })
}

/** A provisioned volume being deleted, held by its provisioner's finalizer; its claim gone. */
function terminatingProvisioned(policy: string): ClusterState {
  return state({
    volumes: [
      pv('pvc-123', {
        phase: 'Released',
        policy,
        className: 'ebs',
        deleting: true,
        finalizers: ['external-provisioner.volume.kubernetes.io/finalizer'],
        claim: {namespace: 'shop', name: 'gone', uid: 'u-gone'},
        annotations: {'pv.kubernetes.io/provisioned-by': 'ebs.csi.aws.com'},
        source: {csi: {driver: 'ebs.csi.aws.com', volumeHandle: 'vol-123'}},
      }),
    ],
    classes: [sc('ebs', 'ebs.csi.aws.com')],
  })
}

/** A CSI volume made by hand (or, near, by a provisioner), released with Delete. */
function staticDelete(provisionedBy: string | undefined): ClusterState {
  const v = pv('pv-static', {
    phase: 'Released',
    policy: 'Delete',
    className: '',
    claim: {namespace: 'shop', name: 'gone', uid: 'u-gone'},
    source: {csi: {driver: 'nfs.csi.k8s.io', volumeHandle: 'nfs.example/share#data'}},
  })
  if (provisionedBy !== undefined) v.metadata.annotations = {'pv.kubernetes.io/provisioned-by': provisionedBy}
  return state({volumes: [v]})
}

/** A volume being deleted with only pv-protection left: its claim gone (or, near, still bound to it). */
function protectedVolume(claimThere: boolean): ClusterState {
  const volume = pv('pv-p', {
    phase: claimThere ? 'Bound' : 'Released',
    className: '',
    deleting: true,
    finalizers: ['kubernetes.io/pv-protection'],
    claim: {namespace: 'shop', name: 'db', uid: 'u-db'},
  })
  return state({
    volumes: [volume],
    claims: claimThere
      ? [pvc('db', 'u-db', {namespace: 'shop', phase: 'Bound', volumeName: 'pv-p', annotations: bound, className: ''})]
      : [],
  })
}

export const adviceRows: AdviceRow[] = [
  {
    name: 'a volume being deleted that only kubernetes.io/pv-protection holds, no claim bound to it: its controller removes it, or a person does',
    state: protectedVolume(false),
    near: protectedVolume(true),
    object: {kind: 'PersistentVolume', name: 'pv-p'},
    explain: {
      verdict: 'Released',
      first:
        /^no claim is bound to it, so kube-controller-manager's pv-protection controller removes kubernetes\.io\/pv-protection .* kubectl patch pv pv-p --type json -p '\[\{"op":"test","path":"\/metadata\/finalizers\/0","value":"kubernetes\.io\/pv-protection"\}/,
    },
  },
  {
    name: "a Retain volume Terminating with the external provisioner's finalizer: no storage to delete, removing it by hand is the way out",
    state: terminatingProvisioned('Retain'),
    near: terminatingProvisioned('Delete'),
    object: {kind: 'PersistentVolume', name: 'pvc-123'},
    explain: {
      verdict: 'Released',
      summary:
        /held by external-provisioner\.volume\.kubernetes\.io\/finalizer until its next sync of the volume, which deletes no storage \(reclaim policy Retain\)/,
      first:
        /^no storage is to be deleted \(reclaim policy Retain\): .*kubectl patch pv pvc-123 --type json -p '\[\{"op":"test","path":"\/metadata\/finalizers\/0"/,
    },
    audit: {
      code: 'VolumeTerminating',
      severity: 'warning',
      fix: /^kubectl patch pv pvc-123 --type json -p '\[\{"op":"test"/,
    },
    // Being deleted, it is not to be reclaimed: reclaim refuses it.
    absent: ['VolumeReleasedRetained'],
  },
  {
    name: 'a static CSI volume with Delete and no provisioned-by: nothing may delete it, delete it by hand',
    state: staticDelete(undefined),
    near: staticDelete('nfs.csi.k8s.io'),
    object: {kind: 'PersistentVolume', name: 'pv-static'},
    explain: {
      verdict: 'Released',
      summary: /though none provisioned it \(no pv\.kubernetes\.io\/provisioned-by\)/,
      first:
        /^if 'nfs\.csi\.k8s\.io' does not delete it .*: kubectl delete pv pv-static, then the storage it names \(volumeHandle nfs\.example\/share#data\) .* the old data goes with them$/,
    },
    audit: {code: 'VolumeDeleteUnowned', severity: 'warning', fix: /^kubectl delete pv pv-static$/},
  },
  {
    name: 'a smaller claim took the volume the bigger claim needed (a label used as a class): say so, not "create StorageClass"',
    state: crossedClaims('1Gi'),
    near: crossedClaims('20Gi'),
    object: {kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'big'},
    explain: {
      verdict: 'StorageClassNotFound',
      summary: /pv-big \(20Gi\), which would fit it, is bound to shop\/small, a claim asking for only 1Gi\.$/,
      first: /^pv-big went to shop\/small, which asks for only 1Gi: .* pre-binding them/,
    },
    audit: {
      code: 'ClaimStorageClassNotFound',
      severity: 'error',
      fix: /^pvctl explain pvc\/big -n shop$/,
      message: /is bound to shop\/small, a claim asking for only 1Gi/,
    },
  },
  {
    name: 'WaitForFirstConsumer, and the pod that uses the claim sets spec.nodeName: it bypasses the scheduler, the claim never binds',
    state: podNamesNode('node-1'),
    near: podNamesNode(undefined),
    object: {kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'data'},
    explain: {
      verdict: 'WaitForFirstConsumer',
      summary:
        /^Pod db-0 \(spec\.nodeName node-1\) names its node itself, so the scheduler never places it .* this claim never binds/,
      first: /^let the scheduler place the pod: replace spec\.nodeName in pod db-0's manifest with a nodeSelector/,
    },
    audit: {code: 'ClaimConsumerBypassesScheduler', severity: 'error', fix: /^pvctl explain pvc\/data -n shop$/},
  },
  {
    name: 'a static volume without a class, and a claim given the default class by admission: set storageClassName: ""',
    state: defaultClassWritten(''),
    near: defaultClassWritten('manual'),
    object: {kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'data'},
    explain: {
      verdict: 'WaitForPodScheduled',
      summary:
        /The claim's manifest \(kubectl's last-applied-configuration\) names no class: the DefaultStorageClass admission plugin wrote 'standard', .* gets a new, empty volume from 'rancher\.io\/local-path' instead/,
      first: /^to bind pv-data and its data, create the claim again with storageClassName: ""/,
    },
    audit: {code: 'ClaimDefaultClassSkipsVolume', severity: 'warning', fix: /^pvctl explain pvc\/data -n shop$/},
  },
  {
    name: 'a volume provisioned for the claim, Filesystem for a Block claim: the provisioner acted, an error naming the field',
    state: provisionedFor({
      mode: 'Filesystem',
      modes: ['ReadWriteOnce'],
      claimMode: 'Block',
      claimModes: ['ReadWriteOnce'],
    }),
    near: provisionedFor({mode: 'Block', modes: ['ReadWriteOnce'], claimMode: 'Block', claimModes: ['ReadWriteOnce']}),
    object: {kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'data'},
    explain: {
      verdict: 'ExternalProvisioning',
      summary:
        /^The provisioner 'ebs\.csi\.aws\.com' made pvc-u-data for this claim .*: volumeMode Filesystem ≠ Block; the controller never binds them/,
      first: /^pvc-u-data holds no data \(it never bound\)/,
    },
    audit: {code: 'ClaimProvisionedVolumeUnfit', severity: 'error', fix: /^pvctl explain pvc\/data -n shop$/},
  },
  {
    name: 'a volume provisioned for the claim, RWO for an RWX claim',
    state: provisionedFor({
      mode: 'Filesystem',
      modes: ['ReadWriteOnce'],
      claimMode: 'Filesystem',
      claimModes: ['ReadWriteMany'],
    }),
    near: provisionedFor({
      mode: 'Filesystem',
      modes: ['ReadWriteMany'],
      claimMode: 'Filesystem',
      claimModes: ['ReadWriteMany'],
    }),
    object: {kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'data'},
    explain: {
      verdict: 'ExternalProvisioning',
      summary: /made pvc-u-data for this claim .*: offers RWO, claim needs RWX/,
      first: /^pvc-u-data holds no data/,
    },
    audit: {code: 'ClaimProvisionedVolumeUnfit', severity: 'error', fix: /^pvctl explain pvc\/data -n shop$/},
  },
  {
    name: 'a Bound pair whose volume lost claimRef.uid (a manifest re-applied): relink puts the uid back',
    state: reapplied(undefined),
    near: reapplied('u-db'),
    object: {kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'db'},
    explain: {
      verdict: 'Misbound',
      summary: /^pv-db's claimRef names this claim but has lost its uid \(last written by kubectl apply/,
      first: /^pv-db names this claim but its claimRef lost the uid: relink them .*: pvctl relink pvc\/db -n shop$/,
    },
    audit: {code: 'ClaimMisbound', severity: 'error', fix: /^pvctl relink pvc\/db -n shop$/, message: /lost its uid/},
  },
  {
    name: 'a new claim names a Released Retain volume whose claim is gone: reclaim it for that claim',
    state: namesReleased(false),
    near: namesReleased(true),
    object: {kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'newdb'},
    explain: {
      verdict: 'RequestedVolumeBoundElsewhere',
      summary: /which is Released and still names shop\/old-db, its old claim/,
      first: /pvctl reclaim pv\/pv-old --for shop\/newdb$/,
    },
    audit: {
      code: 'ClaimRequestedVolumeBoundElsewhere',
      severity: 'error',
      fix: /^pvctl reclaim pv\/pv-old --for shop\/newdb$/,
    },
    alsoAudit: {
      object: 'pv/pv-old',
      code: 'VolumeReleasedRetained',
      fix: /^pvctl reclaim pv\/pv-old --for shop\/newdb$/,
    },
  },
]
