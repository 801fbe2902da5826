// `pvctl sync -o json|yaml`: the SyncReport document of docs/output-contract.md. PURE.
//
// The document is produced as a sequence of chunks, never as one string: at 160k volumes + 160k claims the
// JSON is over 512 MiB, more than V8 allows a string to hold, and as one string plus its UTF-8 buffer it
// was most of the CLI's peak memory at 100k (docs/performance.md, "What the code is shaped around"). Joined, the chunks are byte for byte what
// `JSON.stringify(document, null, 2)` and `kubectlYaml(document)` print.
import type {SyncReport} from '../engine/simulation/sync-report.js'
import {kubectlYaml} from './kubectl-yaml.js'

/** Elements of a list rendered per chunk: large enough that the per-chunk work is noise, small enough
 * that a chunk of full PersistentVolume objects stays around a megabyte. */
export const ITEMS_PER_CHUNK = 500

/**
 * The document as printed: keys in a fixed order (scripts diff these outputs) and without `before`, which
 * only the diff renderer needs.
 */
function reportDocument(report: SyncReport): Omit<SyncReport, 'before'> {
  return {
    apiVersion: report.apiVersion,
    kind: report.kind,
    kubernetesVersion: report.kubernetesVersion,
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

/** `-o json`: two-space indented JSON and a final newline, in chunks (see reportJsonChunks). */
export function renderReportJson(report: SyncReport): string {
  return [...reportJsonChunks(report)].join('')
}

/** `-o yaml`: the same document, laid out as by kubectlYaml, in chunks (see reportYamlChunks). */
export function renderReportYaml(report: SyncReport): string {
  return [...reportYamlChunks(report)].join('')
}

/** `-o json` as chunks: what renderReportJson prints, at most ITEMS_PER_CHUNK list elements at a time. */
export function reportJsonChunks(report: SyncReport, itemsPerChunk = ITEMS_PER_CHUNK): Generator<string> {
  return jsonObjectChunks(reportDocument(report), itemsPerChunk)
}

/** `-o yaml` as chunks: what renderReportYaml prints, at most ITEMS_PER_CHUNK list elements at a time. */
export function reportYamlChunks(report: SyncReport, itemsPerChunk = ITEMS_PER_CHUNK): Generator<string> {
  return yamlMapChunks(reportDocument(report), itemsPerChunk)
}

/**
 * `JSON.stringify(doc, null, 2) + '\n'` of a plain object, one top-level member or a slice of a top-level
 * list at a time. Each piece is stringified as `{"key": slice}` with the same indentation, which puts it at
 * exactly the depth it has in the whole document; only the `{\n  "key": [\n` and `\n  ]\n}` around it are
 * cut off. Nothing is re-indented or re-escaped, so the output cannot drift from JSON.stringify's.
 */
export function* jsonObjectChunks(doc: object, itemsPerChunk = ITEMS_PER_CHUNK): Generator<string> {
  let first = true
  for (const [key, value] of Object.entries(doc) as Array<[string, unknown]>) {
    // JSON.stringify leaves out members it cannot represent; so must we.
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue
    const separator = first ? '{\n' : ',\n'
    first = false
    if (!Array.isArray(value) || value.length === 0) {
      yield separator + JSON.stringify({[key]: value}, null, 2).slice('{\n'.length, -'\n}'.length)
      continue
    }
    const head = `{\n  ${JSON.stringify(key)}: [\n`
    for (let start = 0; start < value.length; start += itemsPerChunk) {
      const text = JSON.stringify({[key]: value.slice(start, start + itemsPerChunk)}, null, 2)
      // The body on its own, never joined to what goes around it: a slice of the text is written
      // without a copy, a joined string is copied whole first (docs/performance.md).
      yield start === 0 ? `${separator}  ${JSON.stringify(key)}: [\n` : ',\n'
      yield text.slice(head.length, -'\n  ]\n}'.length)
      if (start + itemsPerChunk >= value.length) yield '\n  ]'
    }
  }
  yield first ? '{}\n' : '\n}\n'
}

/**
 * kubectlYaml(doc) of a plain object, one top-level member or a slice of a top-level list at a time. With
 * sequences not indented under their key, a list's elements start in column 0 whether they are the
 * document or a key's value, so `key:\n` followed by each slice rendered as a document is the whole.
 */
export function* yamlMapChunks(doc: object, itemsPerChunk = ITEMS_PER_CHUNK): Generator<string> {
  let empty = true
  for (const [key, value] of Object.entries(doc) as Array<[string, unknown]>) {
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue
    empty = false
    if (!Array.isArray(value) || value.length === 0) {
      yield kubectlYaml({[key]: value})
      continue
    }
    // The key line exactly as the library writes it (quoted if it must be), from a one-element list.
    const keyText = kubectlYaml({[key]: [null]})
    yield keyText.slice(0, keyText.indexOf('\n') + 1)
    for (let start = 0; start < value.length; start += itemsPerChunk) {
      yield kubectlYaml(value.slice(start, start + itemsPerChunk))
    }
  }
  if (empty) yield kubectlYaml({})
}
