// What the findings say and rest on, beyond their code: the Lost claim's cause and what still points at it,
// the pods a Terminating claim waits for, the stage of a resize, each finalizer of a Terminating volume, and
// that a kind the state holds none of (a partial snapshot) or evidence not read raises nothing.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import {auditState} from '../../../src/engine/audit/audit-state.js'
import type {Finding, FindingCode} from '../../../src/engine/audit/findings.js'
import {NodeIndex} from '../../../src/engine/audit/judge-volumes.js'
import type {ExplainEvidence, VolumeAttachmentObject} from '../../../src/engine/explain/evidence.js'
import {defaultFeatureGates, defaultGatesAt} from '../../../src/engine/api/feature-gates.js'
import type {ClusterState, Node, PersistentVolume} from '../../../src/engine/api/model.js'
import {checkNodeAffinity} from '../../../src/engine/api/node-affinity.js'
import {bound, pod, pv, pvc, sc, state} from '../builders.js'
import {rows, silence} from './rows.js'

const audit = (s: ClusterState, evidence?: ExplainEvidence) =>
  auditState(s, {gates: defaultFeatureGates, failOn: 'warning', ignore: new Set(), evidence}).findings
const only = (s: ClusterState, code: FindingCode, evidence?: ExplainEvidence): Finding[] =>
  audit(s, evidence).filter((f) => f.code === code)
const row = (code: FindingCode) => rows.find((r) => r.code === code)!

const lostClaim = (volumeName?: string) =>
  pvc('data', 'u1', {phase: 'Bound', volumeName, annotations: bound, className: ''})
const pointing = (name: string, uid: string, policy = 'Delete') =>
  pv(name, {
    phase: 'Bound',
    className: '',
    policy,
    claim: {name: 'data', uid},
    annotations: {'pv.kubernetes.io/bound-by-controller': 'yes'},
  })

describe("a Lost claim names which of the controller's three causes holds, and what still points at it", () => {
  const cases: Array<{
    name: string
    s: ClusterState
    code: FindingCode
    cause: string
    pointingHere: string[]
    fix: RegExp
    message: RegExp
  }> = [
    {
      name: 'volumeName cleared, a volume still points at it with its uid: relink them (spec.volumeName set again)',
      s: state({claims: [lostClaim()], volumes: [pointing('pv-1', 'u1')]}),
      code: 'ClaimLost',
      cause: 'VolumeNameCleared',
      pointingHere: ['pv-1'],
      fix: /^pvctl relink pvc\/data -n default$/,
      message:
        /spec\.volumeName was cleared; volume pv-1 still names default\/data: relink them and the controller binds them again/,
    },
    {
      name: "volume gone, a volume pre-bound to the name (its uid cleared by the plan): not this claim's",
      s: state({
        claims: [lostClaim('pv-gone')],
        volumes: [pv('pv-1', {phase: 'Bound', className: '', policy: 'Retain', claim: {name: 'data', uid: 'u1'}})],
      }),
      code: 'ClaimLost',
      cause: 'VolumeGone',
      pointingHere: ['pv-1'],
      fix: /^kubectl delete pvc data -n default$/,
      message: /volume pv-gone is gone; volume pv-1 points at default\/data but not at this claim's uid/,
    },
    {
      name: "volume gone, a volume points at the name with another uid: not this claim's",
      s: state({claims: [lostClaim('pv-gone')], volumes: [pointing('pv-1', 'u0', 'Retain')]}),
      code: 'ClaimLost',
      cause: 'VolumeGone',
      pointingHere: ['pv-1'],
      fix: /^kubectl delete pvc data -n default$/,
      message: /pv-1 points at default\/data but not at this claim's uid/,
    },
    {
      name: 'volume gone, nothing points at it',
      s: state({claims: [lostClaim('pv-gone')]}),
      code: 'ClaimLost',
      cause: 'VolumeGone',
      pointingHere: [],
      fix: /^kubectl delete pvc data -n default$/,
      message: /no volume points at default\/data/,
    },
    {
      name: 'claimRef uid mismatch (Misbound)',
      s: state({claims: [lostClaim('pv-1')], volumes: [pointing('pv-1', 'u9')]}),
      code: 'ClaimMisbound',
      cause: 'ClaimRefUidMismatch',
      pointingHere: [],
      fix: /^kubectl delete pvc data -n default$/,
      message: /pv-1 is bound to another claim uid/,
    },
  ]
  for (const c of cases) {
    test(c.name, () => {
      const [f] = only(c.s, c.code)
      assert.ok(
        f !== undefined,
        `no ${c.code}: ${audit(c.s)
          .map((x) => x.code)
          .join(', ')}`,
      )
      assert.equal(f.evidence.cause, c.cause)
      assert.deepEqual(f.evidence.volumesPointingHere, c.pointingHere)
      assert.match(f.fix, c.fix)
      assert.match(f.message, c.message)
    })
  }
})

describe('a Terminating claim names the pods that hold it, as the pvc-protection controller counts them', () => {
  const deleting = () => {
    const c = pvc('data', 'u1', {phase: 'Bound', volumeName: 'pv-1', annotations: bound, className: ''})
    c.metadata.deletionTimestamp = '2026-03-01T11:00:00Z'
    c.metadata.finalizers = ['kubernetes.io/pvc-protection']
    return c
  }
  const volume = pointing('pv-1', 'u1', 'Retain')
  const cases: Array<{name: string; pods: ReturnType<typeof pod>[]; pods_: string[]; fix: RegExp}> = [
    {
      name: 'a running pod: stop it',
      pods: [pod('app-0', 'data', {phase: 'Running', nodeName: 'n1'})],
      pods_: ['app-0 (Running on node n1)'],
      fix: /^kubectl delete pod -n default app-0$/,
    },
    {
      name: 'an unscheduled pod and a finished one do not hold it',
      pods: [
        pod('app-0', 'data', {phase: 'Pending'}),
        pod('job-0', 'data', {phase: 'Succeeded', nodeName: 'n1'}),
        pod('other', 'elsewhere', {phase: 'Running', nodeName: 'n1'}),
      ],
      pods_: [],
      fix: /^kubectl get pods -n default -o wide$/,
    },
  ]
  for (const c of cases) {
    test(c.name, () => {
      const [f] = only(state({claims: [deleting()], volumes: [volume], pods: c.pods}), 'ClaimTerminating')
      assert.deepEqual(f.evidence.pods, c.pods_)
      assert.match(f.fix, c.fix)
    })
  }
  test('no Pods read: the pods cannot be named, and the message says so', () => {
    const [f] = only(state({claims: [deleting()], volumes: [volume]}), 'ClaimTerminating')
    assert.match(f.message, /no Pods were read/)
  })
})

describe('a resize is read off status as the snapshot shows it', () => {
  const claim = (status: Record<string, unknown>, request = '2Gi') => {
    const c = pvc('data', 'u1', {
      phase: 'Bound',
      volumeName: 'pv-1',
      annotations: bound,
      className: '',
      request,
      statusCapacity: '1Gi',
    })
    c.status = {...c.status, ...status}
    return c
  }
  const cases: Array<{
    name: string
    status: Record<string, unknown>
    request?: string
    code: FindingCode | null
    message?: RegExp
    minor?: number
  }> = [
    {
      name: 'allocatedResourceStatuses ControllerResizeInProgress',
      status: {allocatedResourceStatuses: {storage: 'ControllerResizeInProgress'}},
      code: 'ClaimResizePending',
      message: /resizer is expanding/,
    },
    {
      name: 'allocatedResourceStatuses NodeResizeFailed',
      status: {allocatedResourceStatuses: {storage: 'NodeResizeFailed'}},
      code: 'ClaimResizeFailed',
    },
    {
      name: 'condition NodeResizeError',
      status: {conditions: [{type: 'NodeResizeError', status: 'True', message: 'resize2fs failed'}]},
      code: 'ClaimResizeFailed',
      message: /resize2fs failed/,
    },
    {
      name: 'condition FileSystemResizePending',
      status: {conditions: [{type: 'FileSystemResizePending', status: 'True'}]},
      code: 'ClaimResizePending',
      message: /file system grows when a pod mounts it/,
    },
    {
      name: 'a condition no longer True is not read',
      status: {conditions: [{type: 'ControllerResizeError', status: 'False'}]},
      request: '1Gi',
      code: null,
    },
    {name: 'request met', status: {}, request: '1Gi', code: null},
    // RecoverVolumeExpansionFailure (beta and on from v1.32, GA from v1.34): a request lowered after a failed expansion.
    {
      name: 'a request lowered below the capacity, nothing in progress: not an anomaly',
      status: {},
      request: '500Mi',
      code: null,
      minor: 32,
    },
    {
      name: 'a request lowered below the capacity, the resizer settling it',
      status: {allocatedResourceStatuses: {storage: 'ControllerResizeInProgress'}},
      request: '500Mi',
      code: 'ClaimResizePending',
      message: /request was lowered after a failed expansion.*ControllerResizeInProgress/,
      minor: 34,
    },
    {
      name: 'ControllerResizeInfeasible at v1.34: lowering the request back is the way out',
      status: {allocatedResourceStatuses: {storage: 'ControllerResizeInfeasible'}},
      code: 'ClaimResizeFailed',
      message: /until the cause is fixed, or the request is lowered back to no less than 1Gi\.$/,
      minor: 34,
    },
    {
      name: 'ControllerResizeError at v1.31: no lowering to offer (the gate is off)',
      status: {conditions: [{type: 'ControllerResizeError', status: 'True'}]},
      code: 'ClaimResizeFailed',
      message: /until the cause is fixed\.$/,
      minor: 31,
    },
  ]
  for (const c of cases) {
    test(c.name, () => {
      const gates = defaultGatesAt(c.minor ?? 31)
      const got = auditState(state({claims: [claim(c.status, c.request)], volumes: [pointing('pv-1', 'u1')]}), {
        gates,
        failOn: 'warning',
        ignore: new Set(),
      }).findings.filter((f) => f.code === 'ClaimResizeFailed' || f.code === 'ClaimResizePending')
      assert.deepEqual(
        got.map((f) => f.code),
        c.code === null ? [] : [c.code],
      )
      if (c.message !== undefined) assert.match(got[0].message, c.message)
    })
  }
})

describe('a claim finding says who owns the claim and since when no pod uses it, where the claim says so', () => {
  test('a StatefulSet owner (retention policy, GA from v1.32) and the Unused condition (v1.36+)', () => {
    const c = pvc('data-web-0', 'u1', {
      phase: 'Bound',
      volumeName: 'pv-1',
      annotations: bound,
      className: '',
      request: '2Gi',
      statusCapacity: '1Gi',
    })
    c.metadata.ownerReferences = [
      {apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 's1', controller: true},
    ]
    c.status = {...c.status, conditions: [{type: 'Unused', status: 'True', lastTransitionTime: '2026-11-30T08:00:00Z'}]}
    const [f] = auditState(state({claims: [c], volumes: [pointing('pv-1', 'u1')]}), {
      gates: defaultGatesAt(37),
      failOn: 'warning',
      ignore: new Set(),
    }).findings.filter((x) => x.object.name === 'data-web-0')
    assert.equal(f.code, 'ClaimResizePending')
    assert.deepEqual(f.evidence.ownedBy, ['StatefulSet/web'])
    assert.equal(f.evidence.unusedSince, '2026-11-30T08:00:00Z')
  })
  test('neither: no such evidence', () => {
    const c = pvc('data', 'u1', {
      phase: 'Bound',
      volumeName: 'pv-1',
      annotations: bound,
      className: '',
      request: '2Gi',
      statusCapacity: '1Gi',
    })
    const [f] = only(state({claims: [c], volumes: [pointing('pv-1', 'u1')]}), 'ClaimResizePending')
    assert.equal('ownedBy' in f.evidence, false)
    assert.equal('unusedSince' in f.evidence, false)
  })
})

describe('a Terminating volume: one finding per finalizer that holds it, with its owner', () => {
  const attachment: VolumeAttachmentObject = {
    metadata: {name: 'csi-abc'},
    spec: {attacher: 'example.com/x', nodeName: 'n1', source: {persistentVolumeName: 'pv-1'}},
    status: {attached: true},
  }
  const volume = (): PersistentVolume => ({
    ...pv('pv-1', {
      phase: 'Released',
      policy: 'Delete',
      className: '',
      claim: {name: 'gone', uid: 'u0'},
      deleting: true,
      finalizers: ['external-attacher/example.com/x', 'external-provisioner.volume.kubernetes.io/finalizer'],
      annotations: {'pv.kubernetes.io/provisioned-by': 'example.com/x'},
      source: {csi: {driver: 'example.com/x', volumeHandle: 'h'}},
    }),
  })
  test('the attacher (with the VolumeAttachment it waits for) and the provisioner, each with whether it runs', () => {
    const found = only(state({volumes: [volume()]}), 'VolumeTerminating', {
      ...silence,
      volumeAttachments: {observed: true, items: [attachment]},
    })
    assert.deepEqual(
      found.map((f) => [f.evidence.finalizer, f.evidence.liveness]),
      [
        ['external-attacher/example.com/x', 'NoSignOfLife'],
        ['external-provisioner.volume.kubernetes.io/finalizer', 'NoSignOfLife'],
      ],
    )
    assert.deepEqual(found[0].evidence.volumeAttachments, ['csi-abc (node n1, attached)'])
    assert.match(found[0].message, /CSI external-attacher of example\.com\/x removes it once VolumeAttachment csi-abc/)
  })
  test('without evidence the owners are named all the same, liveness left out', () => {
    const found = only(state({volumes: [volume()]}), 'VolumeTerminating')
    assert.equal(found.length, 2)
    assert.equal(found[1].evidence.liveness, 'Unknown')
  })
})

describe('nothing is judged by a kind the state holds none of, or by evidence not read', () => {
  const cases: Array<{name: string; code: FindingCode; s: ClusterState; evidence?: ExplainEvidence}> = [
    {
      name: 'node affinity, no Nodes read',
      code: 'VolumeNodeAffinityMatchesNoNode',
      s: {...row('VolumeNodeAffinityMatchesNoNode').raises, nodes: []},
    },
    {
      name: 'a volume class, no StorageClass read',
      code: 'VolumeStorageClassNotFound',
      s: {...row('VolumeStorageClassNotFound').raises, classes: []},
    },
    {
      name: 'no default class, no StorageClass read',
      code: 'NoDefaultStorageClass',
      s: {...row('NoDefaultStorageClass').raises, classes: []},
    },
    {
      name: "a provisioner's liveness, evidence not read",
      code: 'ClaimProvisionerNotRunning',
      s: row('ClaimProvisionerNotRunning').raises,
    },
    {
      name: "a deleter's liveness, evidence not read",
      code: 'VolumeReleasedProvisionerNotRunning',
      s: row('VolumeReleasedProvisionerNotRunning').raises,
    },
    {
      name: 'a provisioner whose Leases could not be read (Unknown)',
      code: 'ClaimProvisionerNotRunning',
      s: row('ClaimProvisionerNotRunning').raises,
      evidence: {...silence, leases: {observed: false, reason: 'forbidden'}},
    },
  ]
  for (const c of cases) test(c.name, () => assert.deepEqual(only(c.s, c.code, c.evidence), []))
  test('a claim without a class that a volume without a class matches waits for no default', () => {
    assert.deepEqual(
      only(
        state({
          claims: [pvc('data', 'u1', {className: null})],
          volumes: [pv('pv-1', {className: ''})],
          classes: [sc('fast', 'example.com/x')],
        }),
        'NoDefaultStorageClass',
      ),
      [],
    )
  })
})

describe('NodeIndex.admitsAny is CheckNodeAffinity against every node, looked up by label', () => {
  const nodes: Node[] = [
    {metadata: {name: 'n1', labels: {'kubernetes.io/hostname': 'n1', zone: 'a', rack: '3'}}},
    {metadata: {name: 'n2', labels: {'kubernetes.io/hostname': 'n2', zone: 'b'}}},
    {metadata: {name: 'n3'}},
  ]
  const index = new NodeIndex(nodes)
  const term = (...matchExpressions: Array<{key: string; operator: string; values?: string[]}>) => ({matchExpressions})
  const cases = [
    [term({key: 'kubernetes.io/hostname', operator: 'In', values: ['n2']})],
    [term({key: 'kubernetes.io/hostname', operator: 'In', values: ['n9']})],
    [term({key: 'zone', operator: 'In', values: ['a', 'b']}, {key: 'rack', operator: 'Exists'})],
    [term({key: 'zone', operator: 'In', values: ['b']}, {key: 'rack', operator: 'Exists'})],
    [term({key: 'zone', operator: 'NotIn', values: ['a', 'b']})],
    [term({key: 'zone', operator: 'DoesNotExist'}, {key: 'kubernetes.io/hostname', operator: 'In', values: ['n1']})],
    [term({key: 'rack', operator: 'Gt', values: ['2']})],
    [term(), term({key: 'zone', operator: 'In', values: ['c']})],
    [],
  ]
  for (const terms of cases) {
    test(JSON.stringify(terms), () => {
      const expected = nodes.some(
        (n) => checkNodeAffinity({required: {nodeSelectorTerms: terms}}, {labels: n.metadata.labels}) === undefined,
      )
      assert.equal(index.admitsAny(terms), expected)
    })
  }
})
