// `pvctl explain -o json|yaml|table`: the document as JSON or YAML (keys in the order the engine builds
// them: the contract's first), or as text for people. A List is an overview of the claims, then each
// explanation in full. PURE.
import type {ExplainDocument, ExplanationList} from '../engine/explain-model.js'
import type {Palette} from './color.js'
import {colorVerdict, renderClaimExplanation} from './explain-claim.js'
import {kubectlTable, NONE} from './explain-layout.js'
import {renderVolumeExplanation} from './explain-volume.js'
import {kubectlYaml} from './report-doc.js'

export function renderExplainJson(doc: ExplainDocument): string {
  return JSON.stringify(doc, null, 2) + '\n'
}

export function renderExplainYaml(doc: ExplainDocument): string {
  return kubectlYaml(doc)
}

export function renderExplainText(doc: ExplainDocument, p: Palette): string {
  switch (doc.kind) {
    case 'ClaimExplanation':
      return renderClaimExplanation(doc, p)
    case 'VolumeExplanation':
      return renderVolumeExplanation(doc, p)
    case 'List':
      return renderExplanationList(doc, p)
  }
}

function renderExplanationList(list: ExplanationList, p: Palette): string {
  if (list.items.length === 0) return 'Every claim in scope is Bound: nothing to explain.\n'
  const overview = kubectlTable(
    ['NAMESPACE', 'NAME', 'PHASE', 'VERDICT', 'VOLUME'],
    list.items.map((e) => [e.claim.namespace, e.claim.name, e.phase, colorVerdict(e.verdict, p), e.volume ?? NONE]),
  )
  return [overview + '\n', ...list.items.map((e) => renderClaimExplanation(e, p))].join('\n')
}
