// `pvctl audit -o json|yaml`: the AuditReport document of docs/output-contract.md. PURE. In chunks, as the
// SyncReport is (report-doc.ts): a large cluster's findings do not fit in one string either.
import type {AuditReport} from '../engine/audit/report.js'
import {jsonObjectChunks, yamlMapChunks} from './report-doc.js'

/** Keys in the contract's order, whatever order the report was built in (`context` only in a fleet's). */
export function auditDocument(r: AuditReport): AuditReport {
  return {
    apiVersion: r.apiVersion,
    kind: r.kind,
    ...(r.context !== undefined ? {context: r.context} : {}),
    ...(r.kubernetesVersion !== undefined ? {kubernetesVersion: r.kubernetesVersion} : {}),
    summary: r.summary,
    plannedChanges: r.plannedChanges,
    findings: r.findings,
  }
}

export function auditJsonChunks(report: AuditReport): Generator<string> {
  return jsonObjectChunks(auditDocument(report))
}

export function auditYamlChunks(report: AuditReport): Generator<string> {
  return yamlMapChunks(auditDocument(report))
}
