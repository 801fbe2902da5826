// metav1.LabelSelector, as metav1.LabelSelectorAsSelector compiles it and labels.Selector.Matches
// evaluates it.
//
// The PV controller filters candidate volumes with a claim's spec.selector (findMatchingVolume in
// k8s.io/component-helpers/storage/volume). Two Kubernetes rules are easy to get backwards and decide
// whether a claim binds at all, so they are kept exactly:
//   - a nil selector compiles to labels.Nothing() (matches no volume), while an empty one ({}, or both
//     lists empty) compiles to labels.Everything(). The controller itself never compiles a nil claim
//     selector: it skips the filter instead, so callers porting that code must test for null first.
//   - NotIn matches a volume that lacks the key entirely; only DoesNotExist and NotIn do.
// An invalid selector is refused with Kubernetes' own validation text (labels.NewRequirement), prefixed
// with where in the selector it is, so a snapshot error reads like the API server's.

import type {LabelSelector} from './model.js'

/** A requirement's operator: 'Equals' is what a matchLabels entry becomes; the rest are matchExpressions'. */
export type RequirementOperator = 'Equals' | 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'

export interface Requirement {
  readonly key: string
  readonly operator: RequirementOperator
  /** One value for Equals, at least one for In/NotIn, none for Exists/DoesNotExist. */
  readonly values: readonly string[]
}

export type Labels = Readonly<Record<string, string>> | null | undefined

export interface CompiledSelector {
  /** 'nothing' for a null selector, 'everything' for an empty one, else 'requirements'. */
  readonly kind: 'nothing' | 'everything' | 'requirements'
  /** The ANDed requirements, sorted by key as labels.Selector keeps them. Empty unless kind is 'requirements'. */
  readonly requirements: readonly Requirement[]
  matches(labels: Labels): boolean
  /** labels.Selector.String(), e.g. "!legacy,tier in (gold,silver),zone=a"; "" for nothing and everything alike. */
  toString(): string
}

export class SelectorError extends Error {
  constructor(
    /** Where in the selector: "matchLabels", "matchExpressions[2]" or the list itself. */
    readonly field: string,
    /** The offending label key, when there is one. */
    readonly key: string | undefined,
    /** What is wrong, in Kubernetes' words where it has them. */
    readonly detail: string,
  ) {
    super(`${field}${key === undefined ? '' : ` (key ${JSON.stringify(key)})`}: ${detail}`)
    this.name = 'SelectorError'
  }
}

// ---------------------------------------------------------------------------------------------------------
// Validation: k8s.io/apimachinery/pkg/util/validation, message for message.

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'
const QUALIFIED_NAME_ERR_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
const QUALIFIED_NAME_MAX_LENGTH = 63
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`)

const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`
const LABEL_VALUE_ERR_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
const LABEL_VALUE_MAX_LENGTH = 63
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`)

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?'
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`
const DNS1123_SUBDOMAIN_ERR_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
const DNS1123_SUBDOMAIN_MAX_LENGTH = 253
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`)

// Go's len() counts UTF-8 bytes, not UTF-16 units; the length limits are in bytes.
function utf8Length(s: string): number {
  let n = 0
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0
    n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4
  }
  return n
}

const emptyError = (): string => 'must be non-empty'
const maxLenError = (length: number): string => `must be no more than ${length} characters`

// validation.RegexError, including its double space before each " or " (", " then " or ").
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`
}

function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = []
  if (utf8Length(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH))
  if (!DNS1123_SUBDOMAIN_RE.test(value)) {
    errs.push(regexError(DNS1123_SUBDOMAIN_ERR_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'))
  }
  return errs
}

function isQualifiedName(value: string): string[] {
  const errs: string[] = []
  const parts = value.split('/')
  let name: string
  if (parts.length === 1) {
    name = parts[0]
  } else if (parts.length === 2) {
    const prefix = parts[0]
    name = parts[1]
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`)
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`))
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_ERR_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`)
  else if (utf8Length(name) > QUALIFIED_NAME_MAX_LENGTH)
    errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`)
  if (!QUALIFIED_NAME_RE.test(name)) {
    errs.push(`name part ${regexError(QUALIFIED_NAME_ERR_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`)
  }
  return errs
}

function isValidLabelValue(value: string): string[] {
  const errs: string[] = []
  if (utf8Length(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH))
  if (!LABEL_VALUE_RE.test(value))
    errs.push(regexError(LABEL_VALUE_ERR_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'))
  return errs
}

// The keys and values of a cluster's selectors repeat (a few keys, a few values each; 20k claims with
// selectors at 100k): each is checked once. Only valid ones are remembered (an invalid one is checked
// again, for its message), at most VALIDATED_MAX of each: a bound for a snapshot of unique labels.
const VALIDATED_MAX = 4096
const validKeys = new Set<string>()
const validValues = new Set<string>()
const NO_ERRORS: readonly string[] = []

function remembered(valid: Set<string>, text: string, errs: readonly string[]): readonly string[] {
  if (errs.length === 0) {
    if (valid.size >= VALIDATED_MAX) valid.clear()
    valid.add(text)
  } else {
    // Not valid: not remembered.
  }
  return errs
}

// field.Invalid(...).Error() renders a bad value with %q for a string and %#v for a []string.
const goQuote = (s: string): string => JSON.stringify(s)
const goStringSlice = (vals: readonly string[]): string =>
  vals.length === 0 ? '[]string(nil)' : `[]string{${vals.map(goQuote).join(', ')}}`

// labels.NewRequirement's checks, returning its aggregated error text (utilerrors.NewAggregate: one
// message alone, several deduplicated inside brackets), or undefined when the requirement is valid.
function requirementError(key: string, op: RequirementOperator, vals: readonly string[]): string | undefined {
  const errs: string[] = []
  const keyErrs = validKeys.has(key) ? NO_ERRORS : remembered(validKeys, key, isQualifiedName(key))
  if (keyErrs.length > 0) errs.push(`key: Invalid value: ${goQuote(key)}: ${keyErrs.join('; ')}`)

  switch (op) {
    case 'In':
    case 'NotIn':
      if (vals.length === 0) {
        errs.push(
          `values: Invalid value: ${goStringSlice(vals)}: for 'in', 'notin' operators, values set can't be empty`,
        )
      }
      break
    case 'Equals':
      if (vals.length !== 1) {
        errs.push(`values: Invalid value: ${goStringSlice(vals)}: exact-match compatibility requires one single value`)
      }
      break
    case 'Exists':
    case 'DoesNotExist':
      if (vals.length !== 0) {
        errs.push(
          `values: Invalid value: ${goStringSlice(vals)}: values set must be empty for exists and does not exist`,
        )
      }
      break
  }

  vals.forEach((v, i) => {
    const valueErrs = validValues.has(v) ? NO_ERRORS : remembered(validValues, v, isValidLabelValue(v))
    if (valueErrs.length > 0) errs.push(`values[${i}][${key}]: Invalid value: ${goQuote(v)}: ${valueErrs.join('; ')}`)
  })

  const unique = [...new Set(errs)]
  if (unique.length === 0) return undefined
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`
}

// ---------------------------------------------------------------------------------------------------------
// Compilation and matching

const OPERATORS: ReadonlyMap<string, RequirementOperator> = new Map([
  ['In', 'In'],
  ['NotIn', 'NotIn'],
  ['Exists', 'Exists'],
  ['DoesNotExist', 'DoesNotExist'],
])

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function describeType(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v
}

// The value of a label, or undefined when absent. Own properties only: a label called "constructor"
// must not be found on Object.prototype.
function labelValue(labels: Labels, key: string): string | undefined {
  return labels !== null && labels !== undefined && Object.hasOwn(labels, key) ? labels[key] : undefined
}

export function requirementMatches(r: Requirement, labels: Labels): boolean {
  const value = labelValue(labels, r.key)
  switch (r.operator) {
    case 'Equals':
    case 'In':
      return value !== undefined && r.values.includes(value)
    case 'NotIn':
      return value === undefined || !r.values.includes(value)
    case 'Exists':
      return value !== undefined
    case 'DoesNotExist':
      return value === undefined
  }
}

// Requirement.String() sorts the values of a set without changing the requirement.
function valueList(values: readonly string[]): string {
  return [...values].sort().join(',')
}

function requirementString(r: Requirement): string {
  switch (r.operator) {
    case 'Equals':
      return `${r.key}=${r.values[0]}`
    case 'In':
      return `${r.key} in (${valueList(r.values)})`
    case 'NotIn':
      return `${r.key} notin (${valueList(r.values)})`
    case 'Exists':
      return r.key
    case 'DoesNotExist':
      return `!${r.key}`
  }
}

function makeSelector(kind: CompiledSelector['kind'], requirements: readonly Requirement[]): CompiledSelector {
  return {
    kind,
    requirements,
    matches(labels: Labels): boolean {
      if (kind === 'nothing') return false
      return requirements.every((r) => requirementMatches(r, labels))
    },
    toString(): string {
      return requirements.map(requirementString).join(',')
    },
  }
}

const NOTHING = makeSelector('nothing', [])
const EVERYTHING = makeSelector('everything', [])

/**
 * metav1.LabelSelectorAsSelector: null/undefined matches nothing, an empty selector matches everything,
 * otherwise every matchLabels entry and matchExpressions requirement must hold. Throws SelectorError
 * for an invalid selector (unknown operator, wrong number of values, bad label key or value), and for
 * a malformed one (wrong JSON shape) that Kubernetes would have refused while decoding.
 */
export function compileLabelSelector(sel: LabelSelector | null | undefined): CompiledSelector {
  if (sel === null || sel === undefined) return NOTHING
  if (!isPlainObject(sel)) throw new SelectorError('selector', undefined, `must be an object, got ${describeType(sel)}`)

  const {matchLabels, matchExpressions} = sel as {matchLabels?: unknown; matchExpressions?: unknown}
  if (matchLabels !== null && matchLabels !== undefined && !isPlainObject(matchLabels)) {
    throw new SelectorError('matchLabels', undefined, `must be a map of strings, got ${describeType(matchLabels)}`)
  }
  if (matchExpressions !== null && matchExpressions !== undefined && !Array.isArray(matchExpressions)) {
    throw new SelectorError('matchExpressions', undefined, `must be a list, got ${describeType(matchExpressions)}`)
  }
  const labelEntries = Object.entries(matchLabels ?? {})
  const expressions: unknown[] = matchExpressions ?? []
  if (labelEntries.length + expressions.length === 0) return EVERYTHING

  const requirements: Requirement[] = []

  // Go ranges over the map in random order; sorting makes the first error reported deterministic.
  labelEntries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  for (const [key, value] of labelEntries) {
    if (typeof value !== 'string') {
      throw new SelectorError('matchLabels', key, `value must be a string, got ${describeType(value)}`)
    }
    const err = requirementError(key, 'Equals', [value])
    if (err !== undefined) throw new SelectorError('matchLabels', key, err)
    requirements.push({key, operator: 'Equals', values: [value]})
  }

  expressions.forEach((expr, i) => {
    const field = `matchExpressions[${i}]`
    if (!isPlainObject(expr)) throw new SelectorError(field, undefined, `must be an object, got ${describeType(expr)}`)
    const {key = '', operator = '', values} = expr as {key?: unknown; operator?: unknown; values?: unknown}
    if (typeof key !== 'string')
      throw new SelectorError(field, undefined, `key must be a string, got ${describeType(key)}`)
    if (typeof operator !== 'string') {
      throw new SelectorError(field, key, `operator must be a string, got ${describeType(operator)}`)
    }
    if (
      values !== null &&
      values !== undefined &&
      !(Array.isArray(values) && values.every((v) => typeof v === 'string'))
    ) {
      // JSON.stringify gives undefined for what JSON cannot hold, whatever its declared type says.
      const shown = JSON.stringify(values) as string | undefined
      throw new SelectorError(field, key, `values must be a list of strings, got ${shown ?? describeType(values)}`)
    }
    const op = OPERATORS.get(operator)
    if (op === undefined)
      throw new SelectorError(field, key, `${goQuote(operator)} is not a valid label selector operator`)
    const vals: string[] = [...(values ?? [])]
    const err = requirementError(key, op, vals)
    if (err !== undefined) throw new SelectorError(field, key, err)
    requirements.push({key, operator: op, values: vals})
  })

  // labels.Selector.Add sorts by key; Array.prototype.sort is stable, so matchLabels stay first on a tie.
  requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  return makeSelector('requirements', requirements)
}

/**
 * Why the labels fail the selector: one short line per unmet requirement, in the selector's key order;
 * empty when it matches. Throws SelectorError for an invalid selector, as compileLabelSelector does.
 */
export function describeSelectorMismatch(sel: LabelSelector | null | undefined, labels: Labels): string[] {
  const compiled = compileLabelSelector(sel)
  if (compiled.kind === 'nothing') return ['selector is null, which matches nothing']
  const out: string[] = []
  for (const r of compiled.requirements) {
    if (requirementMatches(r, labels)) continue
    const value = labelValue(labels, r.key)
    const present = value !== undefined
    const actual = `${r.key}=${value ?? ''}`
    switch (r.operator) {
      case 'Equals':
        out.push(present ? `label ${actual}, want ${r.key}=${r.values[0]}` : `labels lack ${r.key}=${r.values[0]}`)
        break
      case 'In':
        out.push(
          present
            ? `label ${actual} not in (${valueList(r.values)})`
            : `labels lack ${r.key}, want ${r.key} in (${valueList(r.values)})`,
        )
        break
      case 'NotIn':
        out.push(`label ${actual} in (${valueList(r.values)}), must not be`)
        break
      case 'Exists':
        out.push(`labels lack ${r.key}, must exist`)
        break
      case 'DoesNotExist':
        out.push(`label ${r.key} present, must not exist`)
        break
    }
  }
  return out
}
