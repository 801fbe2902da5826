// The string forms of label and field selectors as they arrive in `?labelSelector=` and `?fieldSelector=`,
// parsed and matched the way k8s.io/apimachinery/pkg/labels and pkg/fields do. A parse error is a 400
// BadRequest, as the apiserver answers it.
import {badRequest} from './status-errors.js'

type LabelOp = 'exists' | '!' | '=' | '!=' | 'in' | 'notin' | 'gt' | 'lt'

interface LabelRequirement {
  key: string
  op: LabelOp
  values: string[]
}

export type Labels = Record<string, string> | undefined

export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[]
  matches(labels: Labels): boolean
}

// A qualified name with an optional DNS-subdomain prefix (validation.IsQualifiedName).
const KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/

function checkKey(key: string): void {
  if (!KEY.test(key)) throw badRequest(`unable to parse requirement: invalid label key "${key}"`)
}

function checkValue(value: string): void {
  if (!VALUE.test(value) || value.length > 63)
    throw badRequest(`unable to parse requirement: invalid label value: "${value}"`)
}

/** Splits on commas that are not inside the parentheses of an `in (...)` set. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = []
  let depth = 0
  let current = ''
  for (const ch of text) {
    if (ch === '(') depth++
    if (ch === ')') depth--
    if (ch === ',' && depth === 0) {
      parts.push(current)
      current = ''
    } else current += ch
  }
  parts.push(current)
  return parts
}

function parseRequirement(raw: string): LabelRequirement {
  const text = raw.trim()
  if (text === '') throw badRequest("found '', expected: !, identifier, or 'end of string'")
  let m = /^!\s*([^\s=!<>(),]+)$/.exec(text)
  if (m) {
    checkKey(m[1])
    return {key: m[1], op: '!', values: []}
  }
  m = /^([^\s=!<>(),]+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(text)
  if (m) {
    checkKey(m[1])
    const values = m[3].split(',').map((v) => v.trim())
    values.forEach(checkValue)
    return {key: m[1], op: m[2] as 'in' | 'notin', values}
  }
  m = /^([^\s=!<>(),]+)\s*(==|=|!=|>|<)\s*([^\s=!<>(),]*)$/.exec(text)
  if (m) {
    checkKey(m[1])
    checkValue(m[3])
    const op = ({'=': '=', '==': '=', '!=': '!=', '>': 'gt', '<': 'lt'} as const)[m[2] as '=' | '==' | '!=' | '>' | '<']
    if ((op === 'gt' || op === 'lt') && !/^-?\d+$/.test(m[3])) {
      throw badRequest(`unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer`)
    }
    return {key: m[1], op, values: [m[3]]}
  }
  m = /^([^\s=!<>(),]+)$/.exec(text)
  if (m) {
    checkKey(m[1])
    return {key: m[1], op: 'exists', values: []}
  }
  throw badRequest(
    `unable to parse requirement: found '${text}', expected: key, !key, key=value, key!=value, key in (...), key notin (...)`,
  )
}

function matchRequirement(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key)
  const value = labels[r.key]
  switch (r.op) {
    case 'exists':
      return has
    case '!':
      return !has
    case '=':
      return has && value === r.values[0]
    case '!=':
      // Like labels.Requirement.Matches: a missing key satisfies != and notin.
      return !has || value !== r.values[0]
    case 'in':
      return has && r.values.includes(value)
    case 'notin':
      return !has || !r.values.includes(value)
    case 'gt':
    case 'lt': {
      if (!has || !/^-?\d+$/.test(value)) return false
      const n = Number(value)
      const bound = Number(r.values[0])
      return r.op === 'gt' ? n > bound : n < bound
    }
  }
}

/** labels.Parse: an empty string selects everything. */
export function parseLabelSelector(text: string | null | undefined): LabelSelector {
  const requirements = text && text.trim() !== '' ? splitTopLevel(text).map(parseRequirement) : []
  return {
    requirements,
    matches: (labels) => requirements.every((r) => matchRequirement(r, labels ?? {})),
  }
}

interface FieldRequirement {
  field: string
  op: '=' | '!='
  value: string
}

export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[]
  /** `fields` maps every selectable field of the object to its string value (fields.Set). */
  matches(fields: Record<string, string>): boolean
}

/** Splits on an unescaped separator; field selector values escape `\`, `,` and `=` with a backslash. */
function splitUnescaped(text: string, sep: string): string[] {
  const parts: string[] = []
  let current = ''
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\' && i + 1 < text.length) {
      current += text[i] + text[i + 1]
      i++
    } else if (text[i] === sep) {
      parts.push(current)
      current = ''
    } else current += text[i]
  }
  parts.push(current)
  return parts
}

const unescapeValue = (v: string) => v.replace(/\\(.)/g, '$1')

/**
 * fields.ParseSelector plus the per-kind check the apiserver's field label conversion does: a field the
 * kind does not index is a 400 `field label not supported: <field>`.
 */
export function parseFieldSelector(text: string | null | undefined, supported: readonly string[]): FieldSelector {
  const requirements: FieldRequirement[] = []
  if (text && text.trim() !== '') {
    for (const term of splitUnescaped(text, ',')) {
      const m = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/s.exec(term.trim())
      if (!m) throw badRequest(`invalid selector: '${text}'; can't understand '${term}'`)
      const field = m[1].trim()
      if (!supported.includes(field)) throw badRequest(`field label not supported: ${field}`)
      requirements.push({field, op: m[2] === '!=' ? '!=' : '=', value: unescapeValue(m[3])})
    }
  }
  return {
    requirements,
    matches: (fields) => requirements.every((r) => ((fields[r.field] ?? '') === r.value) === (r.op === '=')),
  }
}
