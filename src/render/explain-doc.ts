// `pvctl explain -o json|yaml|table`: the document as JSON or YAML (keys in the order the engine builds
// them: the contract's first), or as text for people. A List is an overview of the claims, then each
// explanation in full. PURE. The *Chunks forms are what the command prints: a List of thousands of claims
// goes out a slice of items at a time, never as one string (report-doc.ts does the same for sync).
import type {ExplainDocument, ExplanationList} from '../engine/explain/model.js'
import type {Palette} from './color.js'
import {colorVerdict, type ExplainSource, renderClaimExplanation} from './explain-claim.js'
import {kubectlTable, NONE, type TableLayout} from './explain-layout.js'
import {renderVolumeExplanation} from './explain-volume.js'
import {kubectlYaml} from './kubectl-yaml.js'
import {jsonObjectChunks, yamlMapChunks} from './report-doc.js'

export function renderExplainJson(doc: ExplainDocument): string {
  return JSON.stringify(doc, null, 2) + '\n'
}

export function renderExplainYaml(doc: ExplainDocument): string {
  return kubectlYaml(doc)
}

/**
 * Explanations of a List per chunk: an explanation with every candidate is about 1.4 kB per volume (14 MB
 * at 10k volumes), far more than a PersistentVolume of sync's report.
 */
export const EXPLANATIONS_PER_CHUNK = 16

/** renderExplainJson's text, a slice of a List's items at a time. */
export function explainJsonChunks(doc: ExplainDocument, itemsPerChunk = EXPLANATIONS_PER_CHUNK): Iterable<string> {
  return doc.kind === 'List' ? jsonObjectChunks(doc, itemsPerChunk) : [renderExplainJson(doc)]
}

/** renderExplainYaml's text, a slice of a List's items at a time. */
export function explainYamlChunks(doc: ExplainDocument, itemsPerChunk = EXPLANATIONS_PER_CHUNK): Iterable<string> {
  return doc.kind === 'List' ? yamlMapChunks(doc, itemsPerChunk) : [renderExplainYaml(doc)]
}

/** renderExplainText's text, one claim of a List at a time. */
export function explainTextChunks(
  doc: ExplainDocument,
  p: Palette,
  source?: ExplainSource,
  layout: TableLayout = {},
): Iterable<string> {
  return doc.kind === 'List'
    ? explanationListChunks(doc, p, source, layout)
    : [renderExplainText(doc, p, source, layout)]
}

export function renderExplainText(
  doc: ExplainDocument,
  p: Palette,
  source?: ExplainSource,
  layout: TableLayout = {},
): string {
  switch (doc.kind) {
    case 'ClaimExplanation':
      return renderClaimExplanation(doc, p, source, layout)
    case 'VolumeExplanation':
      return renderVolumeExplanation(doc, p, layout)
    case 'List':
      return renderExplanationList(doc, p, source, layout)
  }
}

function renderExplanationList(
  list: ExplanationList,
  p: Palette,
  source: ExplainSource | undefined,
  layout: TableLayout,
): string {
  return [...explanationListChunks(list, p, source, layout)].join('')
}

function* explanationListChunks(
  list: ExplanationList,
  p: Palette,
  source: ExplainSource | undefined,
  layout: TableLayout,
): Generator<string> {
  if (list.items.length === 0) {
    yield 'Every claim in scope is Bound: nothing to explain.\n'
    return
  }
  yield (
    kubectlTable(
      ['NAMESPACE', 'NAME', 'PHASE', 'VERDICT', 'VOLUME'],
      list.items.map((e) => [e.claim.namespace, e.claim.name, e.phase, colorVerdict(e.verdict, p), e.volume ?? NONE]),
      {noHeaders: layout.noHeaders},
    ) + '\n'
  )
  // Each explanation follows a blank line, as the joined form has them.
  for (const e of list.items) yield '\n' + renderClaimExplanation(e, p, source, layout)
}
