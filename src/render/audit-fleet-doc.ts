// `pvctl audit --context a,b -o json|yaml` (or --all-contexts): an AuditReportList whose items are the
// clusters' AuditReports, each with its `context` (docs/output-contract.md). PURE. In chunks, one report
// at a time: the list of a fleet is as large as its clusters' reports together.
import {auditReportList} from '../engine/audit/fleet.js'
import type {AuditReport} from '../engine/audit/report.js'
import {auditDocument} from './audit-doc.js'
import {jsonObjectChunks, yamlMapChunks} from './report-doc.js'

function listDocument(reports: readonly AuditReport[]) {
  return auditReportList(reports.map(auditDocument))
}

export function auditFleetJsonChunks(reports: readonly AuditReport[]): Generator<string> {
  return jsonObjectChunks(listDocument(reports), 1)
}

export function auditFleetYamlChunks(reports: readonly AuditReport[]): Generator<string> {
  return yamlMapChunks(listDocument(reports), 1)
}
