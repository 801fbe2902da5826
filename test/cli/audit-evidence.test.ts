// The evidence `pvctl audit` judges liveness by: a snapshot's Events and Leases reach the findings through
// the CLI (a provisioner with no sign of life is a finding, one that holds its Lease is not), and what a live
// audit reads (auditEvidenceQuery) names the Leases of every provisioner and attacher the state may wait for.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {auditEvidenceQuery} from '../../src/engine/audit/evidence-query.js'
import {pv, pvc, sc, state} from '../engine/builders.js'
import {runCli} from './run-cli.js'

/** A claim of an external provisioner's class, with an Event and a Lease of someone else: both kinds read. */
function snapshot(leaseName: string, renewTime: string): string {
  const items = [
    sc('ext', 'ebs.csi.aws.com'),
    pvc('data', 'u1', {className: 'ext'}),
    {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {name: 'e1', namespace: 'default'},
      involvedObject: {kind: 'Pod', namespace: 'default', name: 'other'},
      reason: 'Pulled',
      message: 'pulled',
      type: 'Normal',
      lastTimestamp: '2026-01-01T00:00:00Z',
      source: {component: 'kubelet'},
    },
    {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {name: leaseName, namespace: 'kube-system'},
      spec: {holderIdentity: 'ebs-csi-controller-0', leaseDurationSeconds: 3600, renewTime},
    },
  ]
  return JSON.stringify({apiVersion: 'v1', kind: 'List', items})
}

const rows: Array<{name: string; stdin: string; raised: boolean}> = [
  {
    name: 'no Lease of the provisioner, no event from it: ClaimProvisionerNotRunning',
    stdin: snapshot('someone-else', '2026-01-01T00:00:00.000000Z'),
    raised: true,
  },
  {
    name: 'its Lease held (renewed just now): no finding',
    stdin: snapshot('ebs-csi-aws-com', new Date().toISOString()),
    raised: false,
  },
]

for (const row of rows) {
  test(`audit evidence: ${row.name}`, async () => {
    const r = await runCli(['audit', '-f', '-', '-o', 'json'], {stdin: row.stdin})
    const codes = (JSON.parse(r.stdout).findings as Array<{code: string}>).map((f) => f.code)
    assert.equal(codes.includes('ClaimProvisionerNotRunning'), row.raised, `${codes.join(', ')}\n${r.stderr}`)
  })
}

test('a live audit reads the Leases of class provisioners, external deleters and the attachers of volumes being deleted', () => {
  const deleting = pv('pv-2', {deleting: true, finalizers: ['external-attacher/pd.csi.storage.gke.io']})
  const released = pv('pv-1', {policy: 'Delete', annotations: {'pv.kubernetes.io/provisioned-by': 'example.com/nfs'}})
  const q = auditEvidenceQuery(
    state({
      classes: [sc('ext', 'ebs.csi.aws.com')],
      volumes: [released, deleting, pv('pv-3', {finalizers: ['external-attacher/x.example.com']})],
    }),
  )
  assert.deepEqual(q.leaseNames, [
    'ebs-csi-aws-com',
    'example-com-nfs',
    'external-attacher-leader-pd-csi-storage-gke-io',
  ])
  assert.equal(q.volumeAttachments, true)
  // Every namespace's, under -n too: a provisioner's last event may be on a claim of any namespace.
  assert.deepEqual(q.events[0], {namespace: undefined, fieldSelector: 'involvedObject.kind=PersistentVolumeClaim'})
})
