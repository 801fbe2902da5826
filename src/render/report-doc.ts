// `pvctl sync -o json|yaml`: the SyncReport document of ../shared/CONTRACT.md. PURE.
import {stringify} from 'yaml'

import type {SyncReport} from '../app/sync-report.js'

/**
 * The document as printed: keys in a fixed order (scripts diff these outputs) and without `before`, which
 * only the diff renderer needs.
 */
function reportDocument(report: SyncReport): Omit<SyncReport, 'before'> {
  return {
    apiVersion: report.apiVersion,
    kind: report.kind,
    dryRun: report.dryRun,
    rounds: report.rounds,
    converged: report.converged,
    summary: report.summary,
    actions: report.actions,
    events: report.events,
    errors: report.errors,
    objects: report.objects,
  }
}

/** `-o json`: two-space indented JSON and a final newline. */
export function renderReportJson(report: SyncReport): string {
  return JSON.stringify(reportDocument(report), null, 2) + '\n'
}

/** `-o yaml`: the same document, laid out as by kubectlYaml. */
export function renderReportYaml(report: SyncReport): string {
  return kubectlYaml(reportDocument(report))
}

/**
 * YAML as `kubectl get -o yaml` writes it, for the report and the diff alike:
 * - strings a YAML 1.1 reader would take for something else are quoted (`"yes"`, `"on"`, `"0755"`,
 *   timestamps), as kubectl's go-yaml does: annotations like `bound-by-controller: "yes"` stay strings for
 *   PyYAML and other 1.1 parsers, and the output still parses to the same values as YAML 1.2;
 * - sequences are not indented under their key, long strings are not folded;
 * - an object referenced twice is written out twice, never as an anchor and alias JSON cannot express.
 */
export function kubectlYaml(value: unknown): string {
  return stringify(value, {version: '1.1', lineWidth: 0, indentSeq: false, aliasDuplicateObjects: false})
}
