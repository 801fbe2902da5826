// The pure part of a fleet audit (src/engine/audit/fleet.ts): the finding that stands for a cluster not
// read, per cause; the kubectl fixes aimed at their cluster; the fleet's outcome (exit status).
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import {auditState} from '../../../src/engine/audit/audit-state.js'
import {aimFixes, fleetOutcome, unreadClusterReport, type UnreadCluster} from '../../../src/engine/audit/fleet.js'
import type {FailOn} from '../../../src/engine/audit/report.js'
import {defaultFeatureGates} from '../../../src/engine/api/feature-gates.js'
import {bound, pv, pvc, state} from '../builders.js'

const base: UnreadCluster = {
  context: 'prod',
  server: 'https://10.0.0.1:6443',
  cause: 'unreachable',
  status: 0,
  error: 'cannot reach the API server at https://10.0.0.1:6443: ECONNREFUSED',
  kubeconfigArgs: [],
}

describe('a cluster not read is one error finding, its fix the kubectl command that checks it', () => {
  const rows: Array<{name: string; cluster: Partial<UnreadCluster>; code: string; fix: string}> = [
    {name: 'no answer', cluster: {}, code: 'ClusterUnreachable', fix: 'kubectl cluster-info --context prod'},
    {
      name: 'the kubeconfig given',
      cluster: {kubeconfigArgs: ['--kubeconfig', '/k']},
      code: 'ClusterUnreachable',
      fix: 'kubectl cluster-info --kubeconfig /k --context prod',
    },
    {
      name: 'a context the kubeconfig cannot resolve',
      cluster: {cause: 'kubeconfig', server: ''},
      code: 'ClusterUnreachable',
      fix: 'kubectl config view --minify --context prod',
    },
    {
      name: 'credentials refused (401)',
      cluster: {cause: 'unauthorized', status: 401},
      code: 'ClusterForbidden',
      fix: 'kubectl auth whoami --context prod',
    },
    {
      name: 'a namespaced list refused',
      cluster: {cause: 'forbidden', status: 403, request: {verb: 'list', resource: 'pods'}},
      code: 'ClusterForbidden',
      fix: 'kubectl auth can-i list pods --all-namespaces --context prod',
    },
    {
      name: 'a list in one namespace refused',
      cluster: {
        cause: 'forbidden',
        status: 403,
        request: {verb: 'list', resource: 'persistentvolumeclaims', namespace: 'shop'},
      },
      code: 'ClusterForbidden',
      fix: 'kubectl auth can-i list persistentvolumeclaims -n shop --context prod',
    },
    {
      name: 'a cluster-scoped list refused',
      cluster: {cause: 'forbidden', status: 403, request: {verb: 'list', resource: 'persistentvolumes'}},
      code: 'ClusterForbidden',
      fix: 'kubectl auth can-i list persistentvolumes --context prod',
    },
  ]
  for (const row of rows) {
    test(row.name, () => {
      const r = unreadClusterReport({...base, ...row.cluster}, new Set())
      assert.equal(r.context, 'prod')
      assert.deepEqual(
        r.findings.map((f) => [f.code, f.severity, f.object, f.fix]),
        [[row.code, 'error', {kind: 'Cluster', name: 'prod'}, row.fix]],
      )
      assert.deepEqual(
        [r.summary.claims, r.summary.volumes, r.summary.findings.error, r.summary.plannedWrites],
        [0, 0, 1, 0],
      )
    })
  }
  test('the evidence: context, server (null when none resolved), cause, status, error', () => {
    assert.deepEqual(unreadClusterReport({...base, cause: 'kubeconfig', server: ''}, new Set()).findings[0].evidence, {
      context: 'prod',
      server: null,
      cause: 'kubeconfig',
      status: 0,
      error: base.error,
    })
  })
  test('--ignore silences it, and the summary counts it', () => {
    const r = unreadClusterReport(base, new Set(['ClusterUnreachable']))
    assert.deepEqual([r.findings, r.summary.ignored], [[], {ClusterUnreachable: 1}])
  })
})

describe('aimFixes: every kubectl command of a fix names the cluster it is for', () => {
  const flags = ['--kubeconfig', '/k', '--context', 'prod']
  const rows: Array<{fix: string; aimed: string}> = [
    {fix: 'kubectl delete pvc data -n shop', aimed: 'kubectl delete pvc data -n shop --kubeconfig /k --context prod'},
    {
      fix: 'kubectl annotate storageclass a x=false --overwrite && kubectl annotate storageclass b x=false --overwrite',
      aimed:
        'kubectl annotate storageclass a x=false --overwrite --kubeconfig /k --context prod && kubectl annotate storageclass b x=false --overwrite --kubeconfig /k --context prod',
    },
    {
      fix: 'pvctl explain pvc/data -n shop --kubeconfig /k --context prod',
      aimed: 'pvctl explain pvc/data -n shop --kubeconfig /k --context prod',
    },
    {fix: 'kubectl cluster-info --context prod', aimed: 'kubectl cluster-info --context prod'},
  ]
  for (const row of rows) {
    test(row.fix, () => {
      const report = auditState(
        state({claims: [pvc('data', 'u1', {phase: 'Bound', volumeName: 'pv-1', annotations: bound, className: ''})]}),
        {gates: defaultFeatureGates, failOn: 'warning', ignore: new Set()},
      )
      const aimed = aimFixes({...report, findings: [{...report.findings[0], fix: row.fix}]}, flags)
      assert.equal(aimed.findings[0].fix, row.aimed)
    })
  }
})

describe('fleetOutcome: the exit status of a fleet', () => {
  const healthy = auditState(state({volumes: [pv('pv-1', {className: ''})]}), {
    gates: defaultFeatureGates,
    failOn: 'warning',
    ignore: new Set(),
  })
  const lost = auditState(
    state({claims: [pvc('data', 'u1', {phase: 'Bound', volumeName: 'pv-1', annotations: bound, className: ''})]}),
    {gates: defaultFeatureGates, failOn: 'warning', ignore: new Set()},
  )
  const down = unreadClusterReport(base, new Set())
  const silenced = unreadClusterReport(base, new Set(['ClusterUnreachable']))
  const rows: Array<{
    name: string
    reports: (typeof healthy)[]
    failOn: FailOn
    outcome: ReturnType<typeof fleetOutcome>
  }> = [
    {name: 'every cluster healthy', reports: [healthy, healthy], failOn: 'warning', outcome: 'passes'},
    {name: 'a finding in one cluster', reports: [healthy, lost], failOn: 'warning', outcome: 'fails'},
    {name: 'a cluster not read fails the bar', reports: [healthy, down], failOn: 'warning', outcome: 'fails'},
    {name: 'a cluster not read, silenced', reports: [healthy, silenced], failOn: 'warning', outcome: 'passes'},
    {name: 'a cluster not read, --fail-on none', reports: [healthy, down], failOn: 'none', outcome: 'passes'},
    {name: 'no cluster read: nothing audited', reports: [down, down], failOn: 'warning', outcome: 'unread'},
    {name: 'no cluster read, silenced: still nothing audited', reports: [silenced], failOn: 'none', outcome: 'unread'},
  ]
  for (const row of rows) test(row.name, () => assert.equal(fleetOutcome(row.reports, row.failOn), row.outcome))
})
