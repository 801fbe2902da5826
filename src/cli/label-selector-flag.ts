// `-l` as kubectl parses it (labels.Parse): "k=v", "k==v", "k!=v", "k in (a,b)", "k notin (a,b)",
// "k", "!k", comma-separated and ANDed. Turned into a metav1.LabelSelector so that one matcher
// (engine/api/selector.ts) serves both flags and claims.
import type {LabelSelector, LabelSelectorRequirement} from '../engine/api/model.js'
import {compileLabelSelector, SelectorError} from '../engine/api/selector.js'
import {UsageError} from '../errors.js'

/** Splits on commas that are not inside parentheses. */
function splitTerms(s: string): string[] {
  const terms: string[] = []
  let depth = 0
  let current = ''
  for (const ch of s) {
    if (ch === '(') depth++
    if (ch === ')') depth--
    if (ch === ',' && depth === 0) {
      terms.push(current)
      current = ''
    } else {
      current += ch
    }
  }
  terms.push(current)
  return terms.map((t) => t.trim())
}

export function parseLabelSelectorFlag(input: string): LabelSelector {
  const matchExpressions: LabelSelectorRequirement[] = []
  const matchLabels: Record<string, string> = {}
  const fail = (why: string) => new UsageError(`invalid selector "${input}" (-l): ${why}`)
  // labels.Parse(""): the selector that matches everything, as `kubectl get -l ''` reads it.
  if (input.trim() === '') return {}
  for (const term of splitTerms(input)) {
    if (term === '') throw fail('empty requirement')
    let m: RegExpExecArray | null
    if ((m = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term)) !== null) {
      const values = m[3]
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '')
      matchExpressions.push({key: m[1], operator: m[2] === 'in' ? 'In' : 'NotIn', values})
    } else if ((m = /^([^=!\s]+)\s*!=\s*(\S*)$/.exec(term)) !== null) {
      matchExpressions.push({key: m[1], operator: 'NotIn', values: [m[2]]})
    } else if ((m = /^([^=!\s]+)\s*==?\s*(\S*)$/.exec(term)) !== null) {
      if (Object.hasOwn(matchLabels, m[1]) && matchLabels[m[1]] !== m[2]) {
        matchExpressions.push({key: m[1], operator: 'In', values: [m[2]]})
      } else {
        matchLabels[m[1]] = m[2]
      }
    } else if ((m = /^!\s*([^=!\s()]+)$/.exec(term)) !== null) {
      matchExpressions.push({key: m[1], operator: 'DoesNotExist'})
    } else if ((m = /^([^=!\s()]+)$/.exec(term)) !== null) {
      matchExpressions.push({key: m[1], operator: 'Exists'})
    } else {
      throw fail(`cannot parse requirement "${term}"`)
    }
  }
  const selector: LabelSelector = {}
  if (Object.keys(matchLabels).length > 0) selector.matchLabels = matchLabels
  if (matchExpressions.length > 0) selector.matchExpressions = matchExpressions
  try {
    compileLabelSelector(selector)
  } catch (err) {
    if (err instanceof SelectorError) throw fail(err.message)
    throw err
  }
  return selector
}
