// explain's evidence in the engine: what the cluster shows beyond the controller's objects (Events,
// CSIDrivers, Leases, VolumeAttachments) turns "waiting for provisioner X" into what X did or did not do,
// and names what holds a volume being deleted. Tables: the sidecars' Lease naming, kubectl's ages, one
// row per situation of a claim handed to an external provisioner, one per attacher situation of a volume.
// Every row also checks that evidence never changes the verdict: it explains the controller, it does not
// second-guess it.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import {explainClaim, explainVolume} from '../../src/engine/explain/explainer.js'
import {humanDuration, type ExplainEvidence} from '../../src/engine/explain/evidence.js'
import {attacherLeaseName, provisionerLeaseName} from '../../src/engine/explain/liveness.js'
import type {ClaimExplanation, LivenessVerdict, VolumeExplanation} from '../../src/engine/explain/model.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import type {ClusterState} from '../../src/engine/api/model.js'
import {bound, pod, pv, pvc, sc, state} from './builders.js'
import {ago, csiDriver, event, evidence, lease, NOW, volumeAttachment} from './evidence-builders.js'

const opts = {gates: defaultFeatureGates}
const PROVISIONER = 'ebs.csi.aws.com'
const LEASE = 'ebs-csi-aws-com'
const KCM = 'persistentvolume-controller'
/** external-provisioner's event source: "<provisioner>_<host>_<uuid>". */
const SIDECAR = `${PROVISIONER}_ip-10-0-0-1_4f1c`

function claimed(o: {createdSeconds?: number; selectedNode?: string; mode?: string} = {}): ClusterState {
  const claim = pvc('data', 'c1', {
    className: 'gp3',
    annotations: o.selectedNode !== undefined ? {'volume.kubernetes.io/selected-node': o.selectedNode} : undefined,
  })
  if (o.createdSeconds !== undefined) claim.metadata.creationTimestamp = ago(o.createdSeconds)
  return state({claims: [claim], classes: [sc('gp3', PROVISIONER, {mode: o.mode})], nodes: [{metadata: {name: 'n1'}}]})
}

const waitingEvent = (seconds: number) =>
  event({
    name: 'data',
    uid: 'c1',
    reason: 'ExternalProvisioning',
    component: KCM,
    lastSeconds: seconds,
    count: 9,
    message: `Waiting for a volume to be created either by the external provisioner '${PROVISIONER}' or manually by the system administrator.`,
  })

describe('the sidecars name their Leases after the driver (csi-lib-utils sanitizeName)', () => {
  const rows: Array<[string, (n: string) => string, string, string]> = [
    ['provisioner: dots become dashes', provisionerLeaseName, 'ebs.csi.aws.com', 'ebs-csi-aws-com'],
    [
      'provisioner: a slash too (the lock name), then the rest',
      provisionerLeaseName,
      'example.com/nfs',
      'example-com-nfs',
    ],
    [
      'provisioner: a trailing invalid character gets an X',
      provisionerLeaseName,
      'vendor.io/disk_',
      'vendor-io-disk-X',
    ],
    ['provisioner: upper case is kept', provisionerLeaseName, 'Vendor.IO', 'Vendor-IO'],
    [
      'attacher: external-attacher-leader- and the driver',
      attacherLeaseName,
      'hostpath.csi.k8s.io',
      'external-attacher-leader-hostpath-csi-k8s-io',
    ],
  ]
  for (const [id, name, input, want] of rows) test(id, () => assert.equal(name(input), want))
})

describe('ages as kubectl prints them (duration.HumanDuration)', () => {
  const rows: Array<[number | null, string]> = [
    [null, '<unknown>'],
    [0, '0s'],
    [119, '119s'],
    [120, '2m'],
    [150, '2m30s'],
    [600, '10m'],
    [10799, '179m'],
    [3 * 3600, '3h'],
    [7 * 3600 + 300, '7h5m'],
    [47 * 3600, '47h'],
    [3 * 86400 + 3600, '3d1h'],
    [400 * 86400, '400d'],
    [3 * 365 * 86400, '3y'],
  ]
  for (const [seconds, want] of rows) test(`${seconds} s → ${want}`, () => assert.equal(humanDuration(seconds), want))
})

interface ClaimRow {
  id: string
  state: ClusterState
  evidence: ExplainEvidence
  verdict?: string
  liveness: LivenessVerdict | null
  summary: RegExp
  suggestion?: RegExp
  check?: (e: ClaimExplanation) => void
}

const claimRows: ClaimRow[] = [
  {
    id: 'the provisioner failed on the claim: its Warning is the summary, and the suggestion',
    state: claimed({createdSeconds: 1800}),
    evidence: evidence({
      events: [
        waitingEvent(5),
        event({
          name: 'data',
          uid: 'c1',
          reason: 'ProvisioningFailed',
          type: 'Warning',
          component: SIDECAR,
          lastSeconds: 40,
          message: 'rpc error: code = ResourceExhausted desc = volume limit exceeded.',
        }),
      ],
      csiDrivers: [csiDriver(PROVISIONER)],
      leases: [lease('kube-system', LEASE, 'ebs-csi-controller-7d9-x2x', 3)],
    }),
    liveness: 'Active',
    summary:
      /^No volume matches, and the external provisioner 'ebs\.csi\.aws\.com' failed to create one \(ProvisioningFailed, 40s ago\): rpc error: code = ResourceExhausted desc = volume limit exceeded\.$/,
    suggestion:
      /^fix what 'ebs\.csi\.aws\.com' reports on this claim, and it retries by itself: ProvisioningFailed: rpc error/,
    check: (e) => {
      // The claim's events, newest first, whoever recorded them.
      assert.deepEqual(
        e.events.items.map((x) => [x.reason, x.source, x.ageSeconds, x.count]),
        [
          ['ExternalProvisioning', KCM, 5, 9],
          ['ProvisioningFailed', SIDECAR, 40, 1],
        ],
      )
      assert.deepEqual(e.provisionerLiveness?.lease, {
        namespace: 'kube-system',
        holder: 'ebs-csi-controller-7d9-x2x',
        held: true,
        renewedSecondsAgo: 3,
      })
      assert.equal(e.provisionerLiveness?.csiDriver, 'Found')
    },
  },
  {
    id: 'node selected, provisioner working: its Normal event on the claim says so',
    state: claimed({createdSeconds: 1800, selectedNode: 'n1', mode: 'WaitForFirstConsumer'}),
    evidence: evidence({
      events: [
        event({
          name: 'data',
          reason: 'Provisioning',
          component: SIDECAR,
          lastSeconds: 12,
          message: 'External provisioner is provisioning volume for claim "default/data"',
        }),
      ],
    }),
    liveness: 'Active',
    summary: /is working on it on node n1, which the scheduler selected \(Provisioning, 12s ago\)\.$/,
    check: (e) => assert.equal(e.selectedNode, 'n1'),
  },
  {
    id: 'silence: nothing named so has acted on the claim in 30 minutes, and nothing shows it running',
    state: claimed({createdSeconds: 1800}),
    evidence: evidence({events: [waitingEvent(10)]}),
    liveness: 'NoSignOfLife',
    summary:
      /no controller named 'ebs\.csi\.aws\.com' has acted on this claim in the 30m since it was created, and nothing shows it running \(no CSIDriver ebs\.csi\.aws\.com; no Lease ebs-csi-aws-com; no event from it\)\.$/,
    suggestion:
      /^nothing shows 'ebs\.csi\.aws\.com' running .*: deploy or restart the CSI driver's controller with its csi-provisioner sidecar$/,
    // kube-controller-manager's own ExternalProvisioning event is not the provisioner's.
    check: (e) => assert.equal(e.provisionerLiveness?.lastEvent, null),
  },
  {
    id: 'silence, though it runs: a held Lease; its log is where to look',
    state: claimed({createdSeconds: 1800}),
    evidence: evidence({
      events: [
        waitingEvent(10),
        event({name: 'other', reason: 'ProvisioningSucceeded', component: SIDECAR, lastSeconds: 7200}),
      ],
      leases: [lease('storage', LEASE, 'ebs-csi-controller-0', 2)],
    }),
    liveness: 'Active',
    summary:
      /has acted on this claim in the 30m since it was created, yet it runs \(no CSIDriver .*; Lease storage\/ebs-csi-aws-com held by ebs-csi-controller-0 \(renewed 2s ago\); its last event: ProvisioningSucceeded on pvc\/default\/other 120m ago\)\.$/,
    suggestion:
      /^'ebs\.csi\.aws\.com' runs but has not acted on this claim: read its log, e\.g\. kubectl logs -n storage ebs-csi-controller-0 -c csi-provisioner$/,
  },
  {
    id: 'an expired Lease is no sign of life; an event from it in the last 10 minutes is',
    state: claimed({createdSeconds: 1800}),
    evidence: evidence({
      events: [event({name: 'other', reason: 'ProvisioningSucceeded', component: PROVISIONER, lastSeconds: 300})],
      leases: [lease('kube-system', LEASE, 'gone-0', 3600)],
    }),
    liveness: 'Active',
    summary:
      /yet it runs \(no CSIDriver .*; Lease kube-system\/ebs-csi-aws-com not held \(last renewed 60m ago\); its last event: ProvisioningSucceeded on pvc\/default\/other 5m ago\)/,
  },
  {
    id: 'an expired Lease and an old event: no sign of life',
    state: claimed({createdSeconds: 1800}),
    evidence: evidence({
      events: [event({name: 'other', reason: 'ProvisioningSucceeded', component: SIDECAR, lastSeconds: 3600})],
      leases: [lease('kube-system', LEASE, 'gone-0', 3600)],
    }),
    liveness: 'NoSignOfLife',
    summary: /and nothing shows it running/,
  },
  {
    id: 'a young claim: still just waiting',
    state: claimed({createdSeconds: 180}),
    evidence: evidence({events: [waitingEvent(10)]}),
    liveness: 'NoSignOfLife',
    summary:
      /waiting for the external provisioner 'ebs\.csi\.aws\.com' \(class 'gp3'\) to create one; if none appears, check that it is running\.$/,
  },
  {
    id: 'events forbidden: explain still answers, says what it could not see, and claims no silence',
    state: claimed({createdSeconds: 1800}),
    evidence: evidence({
      events: 'forbidden: list events in namespace "default": events is forbidden',
      csiDrivers: [csiDriver(PROVISIONER)],
    }),
    liveness: 'Unknown',
    summary: /waiting for the external provisioner .* check that it is running\.$/,
    check: (e) => {
      assert.deepEqual(e.events, {
        available: false,
        unavailableReason: 'forbidden: list events in namespace "default": events is forbidden',
        items: [],
      })
      assert.deepEqual(e.provisionerLiveness?.unavailable, [
        'events: forbidden: list events in namespace "default": events is forbidden',
      ])
    },
  },
  {
    id: "the events of an earlier claim of the same name (another uid) are not this claim's",
    state: claimed({createdSeconds: 1800}),
    evidence: evidence({
      events: [
        event({
          name: 'data',
          uid: 'old',
          reason: 'ProvisioningFailed',
          type: 'Warning',
          component: SIDECAR,
          lastSeconds: 3000,
        }),
      ],
    }),
    liveness: 'NoSignOfLife',
    summary: /has acted on this claim in the 30m/,
    check: (e) => assert.deepEqual(e.events.items, []),
  },
  {
    id: "no consumer yet (WaitForFirstConsumer): no provisioner to judge, the claim's events still shown",
    state: claimed({createdSeconds: 1800, mode: 'WaitForFirstConsumer'}),
    evidence: evidence({
      events: [event({name: 'data', reason: 'WaitForFirstConsumer', component: KCM, lastSeconds: 20})],
    }),
    verdict: 'WaitForFirstConsumer',
    liveness: null,
    summary: /an expected wait, not a fault/,
    check: (e) =>
      assert.deepEqual(
        e.events.items.map((x) => x.reason),
        ['WaitForFirstConsumer'],
      ),
  },
  {
    id: 'consumer pod not scheduled (WaitForPodScheduled): the pod is named',
    state: {...claimed({createdSeconds: 1800, mode: 'WaitForFirstConsumer'}), pods: [pod('web-0', 'data')]},
    evidence: evidence({}),
    verdict: 'WaitForPodScheduled',
    liveness: null,
    summary: /waiting for pod web-0 to be scheduled\.$/,
  },
]

describe('a claim handed to an external provisioner, with the evidence around it', () => {
  for (const row of claimRows) {
    test(row.id, () => {
      const s = deepFreeze(structuredClone(row.state))
      const ev = deepFreeze(structuredClone(row.evidence))
      const e = explainClaim(s, 'default', 'data', {...opts, evidence: ev})!
      const without = explainClaim(s, 'default', 'data', opts)!
      assert.equal(e.verdict, row.verdict ?? 'ExternalProvisioning', e.summary)
      assert.equal(e.verdict, without.verdict, 'evidence never changes the verdict')
      assert.equal(e.provisionerLiveness?.verdict ?? null, row.liveness, e.provisionerLiveness?.summary)
      assert.match(e.summary, row.summary)
      if (row.suggestion !== undefined)
        assert.ok(
          e.suggestions.some((l) => row.suggestion!.test(l)),
          e.suggestions.join('\n'),
        )
      row.check?.(e)
      assert.deepEqual(JSON.parse(JSON.stringify(e)), e)
    })
  }

  test('without evidence, the events are "not read" and nothing is claimed about the provisioner', () => {
    const e = explainClaim(claimed({createdSeconds: 1800}), 'default', 'data', opts)!
    assert.deepEqual(e.events, {available: false, unavailableReason: 'not read', items: []})
    assert.equal(e.provisionerLiveness?.verdict, 'Unknown')
    assert.match(e.summary, /waiting for the external provisioner/)
  })
})

const DRIVER = 'ebs.csi.aws.com'
const ATTACHER_LEASE = 'external-attacher-leader-ebs-csi-aws-com'

function terminating(): ClusterState {
  return state({
    volumes: [
      pv('pv-data', {
        claim: {namespace: 'app', name: 'data', uid: 'c1'},
        phase: 'Released',
        policy: 'Delete',
        deleting: true,
        annotations: {'pv.kubernetes.io/provisioned-by': DRIVER},
        source: {csi: {driver: DRIVER, volumeHandle: 'vol-1'}},
        finalizers: [`external-attacher/${DRIVER}`, 'external-provisioner.volume.kubernetes.io/finalizer'],
      }),
    ],
  })
}

interface VolumeRow {
  id: string
  evidence: ExplainEvidence
  attacher: LivenessVerdict
  waitsFor: RegExp
  suggestion?: RegExp
  check?: (e: VolumeExplanation) => void
}

const volumeRows: VolumeRow[] = [
  {
    id: 'still attached: the VolumeAttachment is named, with its node, and what makes it go',
    evidence: evidence({
      volumeAttachments: [
        volumeAttachment('csi-3f2a', {attacher: DRIVER, volume: 'pv-data', node: 'n1'}),
        volumeAttachment('csi-other', {attacher: DRIVER, volume: 'pv-other', node: 'n2'}),
      ],
      leases: [
        lease('kube-system', ATTACHER_LEASE, 'ebs-csi-controller-0', 4),
        lease('kube-system', 'ebs-csi-aws-com', 'ebs-csi-controller-0', 4),
      ],
    }),
    attacher: 'Active',
    waitsFor: /^VolumeAttachment csi-3f2a \(node n1, attached\) is detached and deleted$/,
    suggestion: /^stop the pods that use it on node n1 .*VolumeAttachment csi-3f2a$/,
    check: (e) => {
      assert.deepEqual(
        e.attachments.items.map((a) => a.name),
        ['csi-3f2a'],
        "only this volume's attachments",
      )
      assert.deepEqual(
        e.controllers.map((c) => [c.role, c.name, c.leaseName, c.verdict]),
        [
          ['attacher', DRIVER, ATTACHER_LEASE, 'Active'],
          ['provisioner', DRIVER, 'ebs-csi-aws-com', 'Active'],
        ],
      )
    },
  },
  {
    id: "detaching fails: the detach error is shown, and the attacher's Warning on the attachment counts as acting",
    evidence: evidence({
      volumeAttachments: [
        volumeAttachment('csi-3f2a', {
          attacher: DRIVER,
          volume: 'pv-data',
          node: 'n1',
          deleting: true,
          detachError: 'rpc error: volume is busy',
        }),
      ],
      events: [
        event({
          kind: 'VolumeAttachment',
          name: 'csi-3f2a',
          reason: 'FailedDetach',
          type: 'Warning',
          component: `csi-attacher ${DRIVER}`,
          lastSeconds: 30,
          message: 'rpc error: volume is busy',
        }),
      ],
    }),
    attacher: 'Active',
    waitsFor:
      /^VolumeAttachment csi-3f2a \(node n1, attached, being detached, error: rpc error: volume is busy\) is detached and deleted$/,
    suggestion:
      /^fix what 'ebs\.csi\.aws\.com' reports on pv\/pv-data, and it retries by itself: FailedDetach: rpc error: volume is busy$/,
  },
  {
    id: 'no attachment left and no attacher running: the finalizer stays for good',
    evidence: evidence({volumeAttachments: [], csiDrivers: [csiDriver(DRIVER)]}),
    attacher: 'NoSignOfLife',
    waitsFor:
      /no VolumeAttachment of the volume is left and removes it; if it stays, the attacher of ebs\.csi\.aws\.com is not running$/,
    suggestion:
      /^nothing shows 'ebs\.csi\.aws\.com' running \(CSIDriver ebs\.csi\.aws\.com is installed; no Lease external-attacher-leader-ebs-csi-aws-com; no event from it\): deploy or restart .* csi-attacher sidecar$/,
  },
  {
    id: 'VolumeAttachments forbidden: said, and the generic advice kept',
    evidence: evidence({
      volumeAttachments: 'forbidden: list volumeattachments: forbidden',
      leases: 'forbidden: list leases: forbidden',
    }),
    attacher: 'Unknown',
    waitsFor: /VolumeAttachments not seen: forbidden: list volumeattachments: forbidden\)$/,
    suggestion: /^see what still attaches it: kubectl get volumeattachments \| grep pv-data$/,
  },
]

describe('a volume being deleted, held by the attacher', () => {
  for (const row of volumeRows) {
    test(row.id, () => {
      const s = deepFreeze(terminating())
      const e = explainVolume(s, 'pv-data', {...opts, evidence: deepFreeze(structuredClone(row.evidence))})!
      assert.equal(e.state, explainVolume(s, 'pv-data', opts)!.state, 'evidence never changes the state')
      const attacher = e.terminating?.finalizers.find((f) => f.name === `external-attacher/${DRIVER}`)
      assert.ok(attacher?.blocking)
      assert.match(attacher!.waitsFor, row.waitsFor)
      assert.equal(e.controllers.find((c) => c.role === 'attacher')?.verdict, row.attacher)
      if (row.suggestion !== undefined)
        assert.ok(
          e.suggestions.some((l) => row.suggestion!.test(l)),
          e.suggestions.join('\n'),
        )
      row.check?.(e)
      assert.deepEqual(JSON.parse(JSON.stringify(e)), e)
    })
  }

  test("the volume's own events, newest first", () => {
    const e = explainVolume(terminating(), 'pv-data', {
      ...opts,
      evidence: evidence({
        events: [
          event({
            kind: 'PersistentVolume',
            name: 'pv-data',
            reason: 'VolumeFailedDelete',
            type: 'Warning',
            component: SIDECAR,
            lastSeconds: 90,
          }),
          event({
            kind: 'PersistentVolume',
            name: 'pv-data',
            reason: 'VolumeDelete',
            component: SIDECAR,
            lastSeconds: 20,
          }),
        ],
      }),
    })!
    assert.deepEqual(
      e.events.items.map((x) => [x.reason, x.ageSeconds]),
      [
        ['VolumeDelete', 20],
        ['VolumeFailedDelete', 90],
      ],
    )
  })

  test('a bound volume with no finalizer of an external controller names none', () => {
    const s = state({
      volumes: [pv('v', {claim: {name: 'c', uid: 'u'}, phase: 'Bound'})],
      claims: [pvc('c', 'u', {volumeName: 'v', phase: 'Bound', annotations: bound})],
    })
    assert.deepEqual(explainVolume(s, 'v', {...opts, evidence: evidence({})})!.controllers, [])
  })
})

test('the clock is an input: the same evidence at a later now ages by exactly that much', () => {
  const s = claimed({createdSeconds: 1800})
  const ev = evidence({events: [waitingEvent(10)]})
  const later = explainClaim(s, 'default', 'data', {...opts, evidence: {...ev, now: NOW + 60_000}})!
  assert.equal(later.events.items[0].ageSeconds, 70)
  assert.match(later.summary, /in the 31m since it was created/)
})

function deepFreeze<T>(o: T): T {
  if (o !== null && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o)
    for (const v of Object.values(o)) deepFreeze(v)
  }
  return o
}
