// `pvctl explain` against a live API over real HTTPS: the built CLI, @kubernetes/client-node and the
// API-server emulator (test/emulator). What only a live cluster shows: the claim's events, whether the
// external provisioner it waits for runs (CSIDriver, held Lease, its events), the VolumeAttachments behind
// a Terminating volume's attacher finalizer — and that a forbidden list degrades the answer instead of
// failing it. Each row starts a fresh emulator; timestamps are relative to the real clock, which the CLI
// reads.
import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, test} from 'node:test'

import type {K8sObject} from '../emulator/types.js'
import {type DenyRule, type Emulator, startEmulator} from '../emulator/emulator.js'
import {runCli} from '../cli/run-cli.js'
import {pv, pvc, sc} from '../engine/builders.js'
import {ago, csiDriver, event, lease, volumeAttachment} from '../engine/evidence-builders.js'
import {tempDir} from '../temp-dir.js'

type Json = Record<string, any>

const TOKEN = 'e2e-explain-token-9a41'
const dir = tempDir('e2e-explain')
const PROVISIONER = 'ebs.csi.aws.com'
/** external-provisioner's event source: "<provisioner>_<host>_<uuid>". */
const SIDECAR = `${PROVISIONER}_ip-10-0-0-1_77d1`

async function cluster(objects: object[], deny: DenyRule[] = []): Promise<{api: Emulator; kubeconfig: string}> {
  const api = await startEmulator({
    tls: true,
    listItemTypeMeta: false,
    objects: structuredClone(objects) as K8sObject[],
    tokens: {[TOKEN]: {user: 'alice', deny}},
  })
  const kubeconfig = path.join(dir, `kubeconfig-${api.port}.yaml`)
  writeFileSync(kubeconfig, api.kubeconfig({token: TOKEN}))
  return {api, kubeconfig}
}

const explain = (kubeconfig: string, ...args: string[]) =>
  runCli(['explain', '--kubeconfig', kubeconfig, ...args], {env: {HOME: dir}})

/** A claim of class gp3 (provisioner ebs.csi.aws.com) created half an hour ago, and kube-controller-manager's event on it. */
function pendingClaim(now: number): object[] {
  const claim = pvc('data', 'c1', {namespace: 'app', className: 'gp3', request: '20Gi'})
  claim.metadata.creationTimestamp = ago(1800, now)
  return [
    sc('gp3', PROVISIONER),
    claim,
    event({
      namespace: 'app',
      name: 'data',
      reason: 'ExternalProvisioning',
      component: 'persistentvolume-controller',
      lastSeconds: 15,
      count: 120,
      now,
    }),
  ]
}

describe('pvctl explain on a live cluster (API-server emulator)', () => {
  test("pvc/NAME without -n is the current context's namespace, as kubectl reads it", async () => {
    const {api} = await cluster(pendingClaim(Date.now()))
    try {
      const kubeconfig = path.join(dir, `kubeconfig-ns-${api.port}.yaml`)
      writeFileSync(kubeconfig, api.kubeconfig({token: TOKEN, namespace: 'app'}))
      const r = await explain(kubeconfig, 'pvc/data', '-o', 'json')
      assert.equal(r.code, 1, r.stderr)
      assert.deepEqual(
        [JSON.parse(r.stdout).claim.namespace, JSON.parse(r.stdout).verdict],
        ['app', 'ExternalProvisioning'],
      )
    } finally {
      await api.stop()
    }
  })

  test("a Pending claim whose provisioner nothing shows running: silence for 30 minutes, the claim's events shown", async () => {
    const {api, kubeconfig} = await cluster(pendingClaim(Date.now()))
    try {
      const r = await explain(kubeconfig, 'pvc/data', '-n', 'app', '-o', 'json')
      assert.equal(r.code, 1, r.stderr)
      assert.equal(r.stderr, '')
      const e = JSON.parse(r.stdout) as Json
      assert.equal(e.verdict, 'ExternalProvisioning')
      assert.match(
        e.summary,
        /no controller named 'ebs\.csi\.aws\.com' has acted on this claim in the 30m since it was created, and nothing shows it running/,
      )
      assert.deepEqual(
        [e.provisionerLiveness.verdict, e.provisionerLiveness.csiDriver, e.provisionerLiveness.lease],
        ['NoSignOfLife', 'NotFound', null],
      )
      assert.deepEqual(
        e.events.items.map((x: Json) => [x.reason, x.source, x.count]),
        [['ExternalProvisioning', 'persistentvolume-controller', 120]],
      )
      // Leases are looked up by name, in every namespace: the Leases of every node never cross the wire.
      const leaseLists = api.requests.filter((q) => q.resource === 'leases' && q.verb === 'list')
      const params = (query: string) => Object.fromEntries(new URLSearchParams(query))
      assert.deepEqual(
        leaseLists.map((q) => [q.namespace, params(q.query)]),
        [['', {fieldSelector: 'metadata.name=ebs-csi-aws-com', limit: '500'}]],
      )
      assert.equal(api.countWrites(), 0, 'explain only reads')
      // With no claim named (not a terminal): the List, each claim with its events.
      const list = await explain(kubeconfig, '-n', 'app', '-o', 'json')
      assert.equal(list.code, 1, list.stderr)
      assert.deepEqual(
        JSON.parse(list.stdout).items.map((x: Json) => [
          x.claim.name,
          x.events.items.length,
          x.provisionerLiveness.verdict,
        ]),
        [['data', 1, 'NoSignOfLife']],
      )
    } finally {
      await api.stop()
    }
  })

  test('the same claim with the provisioner installed, its Lease held and its event on the claim: working on it', async () => {
    const now = Date.now()
    const {api, kubeconfig} = await cluster([
      ...pendingClaim(now),
      csiDriver(PROVISIONER),
      lease('kube-system', 'ebs-csi-aws-com', 'ebs-csi-controller-0', 2, now),
      event({
        namespace: 'app',
        name: 'data',
        reason: 'Provisioning',
        component: SIDECAR,
        lastSeconds: 5,
        now,
        message: 'External provisioner is provisioning volume for claim "app/data"',
      }),
    ])
    try {
      const [j, t] = await Promise.all([
        explain(kubeconfig, 'pvc/data', '-n', 'app', '-o', 'json'),
        explain(kubeconfig, 'pvc/data', '-n', 'app'),
      ])
      assert.equal(j.code, 1, j.stderr)
      const e = JSON.parse(j.stdout) as Json
      assert.match(
        e.summary,
        /the external provisioner 'ebs\.csi\.aws\.com' \(class 'gp3'\) is working on it \(Provisioning, \d+s ago\)\.$/,
      )
      assert.deepEqual(
        [e.provisionerLiveness.verdict, e.provisionerLiveness.csiDriver, e.provisionerLiveness.lease.holder],
        ['Active', 'Found', 'ebs-csi-controller-0'],
      )
      assert.deepEqual(
        e.events.items.map((x: Json) => x.reason),
        ['Provisioning', 'ExternalProvisioning'],
        'newest first',
      )
      // The human form: the provisioner's evidence, and the events last, as kubectl describe has them.
      assert.match(
        t.stdout,
        /^Provisioner:\s+ebs\.csi\.aws\.com \(running\)\n\s+CSIDriver ebs\.csi\.aws\.com is installed\n\s+Lease kube-system\/ebs-csi-aws-com held by ebs-csi-controller-0/m,
      )
      assert.match(
        t.stdout,
        /\nEvents:\nTYPE\s+REASON\s+AGE\s+FROM\s+MESSAGE\nNormal\s+Provisioning\s+\d+s\s+ebs\.csi\.aws\.com_ip-10-0-0-1_77d1\s+External provisioner is provisioning/,
      )
    } finally {
      await api.stop()
    }
  })

  test('a Terminating volume held by the attacher: its VolumeAttachment named, with the node, the attacher judged', async () => {
    const now = Date.now()
    const volume = pv('pv-data', {
      claim: {namespace: 'app', name: 'gone', uid: 'c0'},
      phase: 'Released',
      policy: 'Retain',
      source: {csi: {driver: PROVISIONER, volumeHandle: 'vol-1'}},
      finalizers: [`external-attacher/${PROVISIONER}`],
    })
    volume.metadata.deletionTimestamp = ago(600, now)
    const {api, kubeconfig} = await cluster([
      volume,
      volumeAttachment('csi-5d0c7e', {attacher: PROVISIONER, volume: 'pv-data', node: 'ip-10-0-1-7'}),
      volumeAttachment('csi-other', {attacher: PROVISIONER, volume: 'pv-other', node: 'ip-10-0-1-8'}),
      csiDriver(PROVISIONER),
    ])
    try {
      const r = await explain(kubeconfig, 'pv/pv-data', '-o', 'json')
      assert.equal(r.code, 1, r.stderr)
      const e = JSON.parse(r.stdout) as Json
      assert.deepEqual(
        e.attachments.items.map((a: Json) => [a.name, a.node, a.attached]),
        [['csi-5d0c7e', 'ip-10-0-1-7', true]],
      )
      const finalizer = e.terminating.finalizers.find((f: Json) => f.name === `external-attacher/${PROVISIONER}`)
      assert.equal(
        finalizer.waitsFor,
        'VolumeAttachment csi-5d0c7e (node ip-10-0-1-7, attached) is detached and deleted',
      )
      assert.deepEqual(
        e.controllers.map((c: Json) => [c.role, c.verdict, c.leaseName]),
        [['attacher', 'NoSignOfLife', 'external-attacher-leader-ebs-csi-aws-com']],
      )
      assert.ok(
        e.suggestions.some((s: string) => /deletes VolumeAttachment csi-5d0c7e$/.test(s)),
        e.suggestions.join('\n'),
      )
    } finally {
      await api.stop()
    }
  })

  test('Events and Leases forbidden: explain still answers, says what it could not see, and claims no silence', async () => {
    const {api, kubeconfig} = await cluster(pendingClaim(Date.now()), [
      {verb: 'list', resource: 'events'},
      {verb: 'list', resource: 'leases'},
    ])
    try {
      const [j, t] = await Promise.all([
        explain(kubeconfig, 'pvc/data', '-n', 'app', '-o', 'json'),
        explain(kubeconfig, 'pvc/data', '-n', 'app'),
      ])
      assert.equal(j.code, 1, j.stderr)
      assert.equal(j.stderr, '')
      const e = JSON.parse(j.stdout) as Json
      assert.equal(e.verdict, 'ExternalProvisioning')
      assert.equal(e.events.available, false)
      assert.match(e.events.unavailableReason, /^forbidden: .*User "alice" cannot list resource "events"/)
      assert.equal(e.provisionerLiveness.verdict, 'Unknown')
      assert.match(e.summary, /waiting for the external provisioner 'ebs\.csi\.aws\.com'/)
      assert.equal(t.code, 1)
      assert.match(t.stdout, /\nEvents: not available \(forbidden: [^\n]*cannot list resource "events"[^\n]*\)\n$/)
      assert.match(t.stdout, /cannot see leases, events: forbidden|cannot see (leases|events): forbidden/)
    } finally {
      await api.stop()
    }
  })
})
