// YAML as `kubectl get -o yaml` writes it, for the report, the diff and explain alike:
// - strings a YAML 1.1 reader would take for something else are quoted (`"yes"`, `"on"`, `"0755"`,
//   timestamps), as kubectl's go-yaml does: annotations like `bound-by-controller: "yes"` stay strings for
//   PyYAML and other 1.1 parsers, and the output still parses to the same values as YAML 1.2;
// - sequences are not indented under their key, long strings are not folded;
// - an object referenced twice is written out twice, never as an anchor and alias JSON cannot express.
//
// That is the `yaml` library's stringify with KUBECTL_YAML_OPTIONS, byte for byte. The library builds a
// document tree of every value before it writes one character, which made `-o yaml` and `-o diff` of a
// large plan spend most of their time there (docs/performance.md, "What the code is shaped around").
// For plain JSON data, which is all pvctl prints, kubectlYaml lays out the maps and lists itself, as the
// library's block style does (stringifyPair, stringifyBlockCollection), and leaves every string to the
// library's own stringifyString: the quoting rules stay the library's. Anything else (a key over 1024
// characters or over several lines, a value that is not JSON) is handed to the library whole. Long strings
// are never folded (lineWidth 0), so no string depends on the column it starts at. test/render/kubectl-yaml.test.ts holds the two to the same text.
import type {stringifyString} from 'yaml/util'

import {yamlLibrary, yamlUtil} from '../yaml-library.js'

export const KUBECTL_YAML_OPTIONS = {
  version: '1.1',
  lineWidth: 0,
  indentSeq: false,
  aliasDuplicateObjects: false,
} as const

export function kubectlYaml(value: unknown): string {
  if (typeof value === 'object' && value !== null) {
    try {
      return `${collection(value, '')}\n`
    } catch (err) {
      if (!(err instanceof NotPlainJson)) throw err
    }
  } else {
    // A scalar document: rare enough for the library.
  }
  return yamlLibrary().stringify(value, KUBECTL_YAML_OPTIONS)
}

/** What the layout here does not cover: the whole value goes to the library. */
class NotPlainJson extends Error {}

type StringifyContext = Parameters<typeof stringifyString>[1]

/** The context the library's stringify starts from (createStringifyContext), for a YAML 1.1 document. */
function baseContext(): StringifyContext {
  const doc = new (yamlLibrary().Document)(null, KUBECTL_YAML_OPTIONS)
  return {
    anchors: new Set(),
    doc,
    flowCollectionPadding: ' ',
    indent: '',
    indentStep: '  ',
    inFlow: null,
    options: {
      blockQuote: true,
      defaultKeyType: null,
      defaultStringType: 'PLAIN',
      directives: null,
      doubleQuotedAsJSON: false,
      doubleQuotedMinMultiLineLength: 40,
      falseStr: 'false',
      flowCollectionPadding: true,
      minContentWidth: 20,
      nullStr: 'null',
      simpleKeys: false,
      singleQuote: null,
      trailingComma: false,
      trueStr: 'true',
      verifyAliasOrder: true,
      ...doc.schema.toStringOptions,
      // indentSeq and lineWidth among them.
      ...KUBECTL_YAML_OPTIONS,
    },
  } as unknown as StringifyContext
}

const INDENT_STEP = '  '

/** A map or list at `indent` (the indent of its own lines after the first), without a final newline. */
function collection(value: object, indent: string): string {
  if (Array.isArray(value)) return sequence(value, indent)
  // A class instance (a Date, a Map) is the library's to convert.
  const proto: unknown = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) throw new NotPlainJson()
  return map(value as Record<string, unknown>, indent)
}

function map(object: Record<string, unknown>, indent: string): string {
  let out = ''
  let first = true
  for (const key in object) {
    const value = object[key]
    // The library leaves out undefined members, as JSON does.
    if (value === undefined) continue
    out += `${first ? '' : `\n${indent}`}${implicitKey(key, indent + INDENT_STEP)}:${pairValue(value, indent)}`
    first = false
  }
  return first ? '{}' : out
}

function sequence(items: readonly unknown[], indent: string): string {
  if (items.length === 0) return '[]'
  const itemIndent = indent + INDENT_STEP
  let out = ''
  for (let i = 0; i < items.length; i++) {
    const item = items[i]
    if (item === undefined) throw new NotPlainJson()
    out += `${i === 0 ? '' : `\n${indent}`}- ${node(item, itemIndent)}`
  }
  return out
}

/** What follows `key:`, the separator included; the pair's value is laid out one step in. */
function pairValue(value: unknown, indent: string): string {
  const valueIndent = indent + INDENT_STEP
  if (typeof value === 'object' && value !== null) {
    if (Array.isArray(value)) {
      // indentSeq: false: the `- ` of a list under a key counts as its indentation.
      return value.length === 0 ? ' []' : `\n${indent}${sequence(value, indent)}`
    }
    const text = collection(value, valueIndent)
    return text === '{}' ? ' {}' : `\n${valueIndent}${text}`
  }
  const text = scalar(value, valueIndent)
  // A block scalar (`|-` and its lines) follows the colon after a space too; only an empty one would not.
  return text === '' || text[0] === '\n' ? text : ` ${text}`
}

function node(value: unknown, indent: string): string {
  return typeof value === 'object' && value !== null ? collection(value, indent) : scalar(value, indent)
}

function scalar(value: unknown, indent: string): string {
  switch (typeof value) {
    case 'string':
      return stringValue(value, indent)
    case 'number':
      return Number.isFinite(value) ? yamlUtil().stringifyNumber({value} as never) : fail()
    case 'boolean':
      return value ? 'true' : 'false'
    default:
      return value === null ? 'null' : fail()
  }
}

function fail(): never {
  throw new NotPlainJson()
}

// The library's answer for a string depends on its context only through the indent of its later lines
// (and, for a key that starts like a document marker, whether it is a top-level key): ordinary keys, a
// few hundred names written on every object, are worked out once.
const keys = new Map<string, string>()

// The contexts of a key and of a value, made once (when first needed: the library is loaded then) and
// given the indent of each string: stringifyString reads them and changes nothing in them at an indent past
// the top level, which every string here is at.
let contexts: {key: StringifyContext; value: StringifyContext} | undefined

function contextsOf(): {key: StringifyContext; value: StringifyContext} {
  if (contexts === undefined) {
    const base = baseContext()
    contexts = {
      key: {...base, allNullValues: false, implicitKey: true, actualString: true},
      value: {...base, allNullValues: false, implicitKey: false, actualString: true},
    }
  }
  return contexts
}

/**
 * The one string a YAML 1.1 schema does not leave to the string tag: `<<`, the merge key, which the
 * library's merge tag claims, key or value, and writes plain.
 */
const MERGE_KEY = '<<'

function implicitKey(key: string, indent: string): string {
  if (key === MERGE_KEY) return MERGE_KEY
  let text = keys.get(key)
  if (text !== undefined) return text
  if (key.includes('\n')) throw new NotPlainJson()
  const keyContext = contextsOf().key
  keyContext.indent = indent
  text = yamlUtil().stringifyString({value: key}, keyContext)
  // Past 1024 characters the library writes an explicit key (`? key`).
  if (text.length > 1024) throw new NotPlainJson()
  if (!/^(%|---|\.\.\.)/.test(key)) {
    if (keys.size >= KEYS_LIMIT) keys.clear()
    keys.set(key, text)
  }
  return text
}

const KEYS_LIMIT = 10_000

/**
 * Values the library writes the same at every indent, worked out once: it folds lines and breaks them only
 * at whitespace, so a short value of printable ASCII without a space comes out alike at any depth. A
 * plan's names, phases, sizes and timestamps are most of its strings, each written many times (at 10k +
 * 10k, 636k of 653k strings, 92k of them distinct).
 */
const values = new Map<string, string>()
const VALUES_LIMIT = 200_000
const SAME_AT_ANY_INDENT = /^[\x21-\x7e]{1,64}$/

function stringValue(value: string, indent: string): string {
  if (value === MERGE_KEY) return MERGE_KEY
  let text = values.get(value)
  if (text !== undefined) return text
  const valueContext = contextsOf().value
  valueContext.indent = indent
  text = yamlUtil().stringifyString({value}, valueContext)
  if (SAME_AT_ANY_INDENT.test(value)) {
    if (values.size >= VALUES_LIMIT) values.clear()
    values.set(value, text)
  }
  return text
}
