// AuditReports for the renderers' tests: one of each severity, passing and silenced objects, and text
// that would break XML or a Markdown table if it were not escaped.
import type {Finding} from '../../src/engine/audit/findings.js'
import {buildAuditReport, type AuditReport} from '../../src/engine/audit/report.js'

export const HOSTILE = 'a | pipe, a `tick`, <b>tags</b> & "quotes"\nand a second line\u0007'

const findings: Finding[] = [
  {
    code: 'ClaimLost',
    severity: 'error',
    object: {kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'sessions'},
    message: 'The claim is Lost (volume pv-0007 is gone); its pods cannot mount it.',
    evidence: {verdict: 'Lost', 'spec.volumeName': 'pv-0007', volumesPointingHere: [], storageClass: ''},
    fix: 'kubectl delete pvc sessions -n shop',
  },
  {
    code: 'ClaimNoMatchingVolume',
    severity: 'warning',
    object: {kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'logs'},
    message: HOSTILE,
    evidence: {verdict: 'NoMatchingVolume', note: HOSTILE, 'spec.volumeName': null},
    fix: "pvctl explain pvc/logs -n shop -f 'a|b.yaml'",
  },
  {
    code: 'VolumeReleasedRetained',
    severity: 'warning',
    object: {kind: 'PersistentVolume', name: 'pv-0004'},
    message: 'Released by shop/old-db and kept (Retain), its data on it: nothing will happen to it.',
    evidence: {phase: 'Released'},
    fix: `kubectl patch pv pv-0004 --type json -p '[{"op":"remove","path":"/spec/claimRef"}]'`,
  },
  {
    code: 'ClaimWaitingForConsumer',
    severity: 'info',
    object: {kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'search'},
    message: 'The claim waits for a pod that uses it.',
    evidence: {verdict: 'WaitForFirstConsumer'},
    fix: 'pvctl explain pvc/search -n shop',
  },
  {
    code: 'VolumeReleasedRetained',
    severity: 'warning',
    object: {kind: 'PersistentVolume', name: 'pv-kept'},
    message: 'Released by shop/archive and kept (Retain).',
    evidence: {phase: 'Released'},
    fix: 'kubectl delete pv pv-kept',
  },
  {
    code: 'MultipleDefaultStorageClasses',
    severity: 'warning',
    object: {kind: 'StorageClass', name: 'fast'},
    message: '2 StorageClasses are marked default (fast, standard).',
    evidence: {defaultClasses: ['fast', 'standard'], picked: 'fast'},
    fix: 'kubectl annotate storageclass standard storageclass.kubernetes.io/is-default-class=false --overwrite',
  },
]

const audited = [
  ...['carts', 'logs', 'search', 'sessions'].map((name) => ({
    kind: 'PersistentVolumeClaim' as const,
    namespace: 'shop',
    name,
  })),
  ...['pv-0001', 'pv-0004', 'pv-kept'].map((name) => ({kind: 'PersistentVolume' as const, name})),
]

/** Findings of every severity, pv-kept silenced by its annotation, search's info below the bar, 2 writes planned. */
export function fullReport(context?: string): AuditReport {
  const report = buildAuditReport(
    findings,
    {
      claims: 4,
      volumes: 3,
      plannedChanges: {
        binds: 1,
        releases: 0,
        recycles: 0,
        deletions: 0,
        provisions: 0,
        lostClaims: 0,
        phaseChanges: 1,
        writes: 2,
      },
      audited,
    },
    new Set(['MultipleDefaultStorageClasses']),
    new Map([['PersistentVolume//pv-kept', new Set(['VolumeReleasedRetained'])]]),
  )
  return context === undefined ? report : {...report, context}
}

/** A healthy cluster in sync: every case passes. */
export function cleanReport(context?: string): AuditReport {
  const report = buildAuditReport(
    [],
    {claims: 1, volumes: 1, plannedChanges: {writes: 0}, audited: [audited[0], audited[4]]},
    new Set(),
  )
  return context === undefined ? report : {...report, context}
}
