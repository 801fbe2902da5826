// kubectl's template printers, `-o jsonpath=TEMPLATE` and `-o custom-columns=SPEC`, over the document
// `-o json` prints. PURE. The paths are JSONPath (RFC 9535, through jsonpath-rfc9535) written as kubectl
// writes them: `{.actions[*].object.name}`, `{range .findings[*]}{.code}{"\t"}{.object.name}{"\n"}{end}`,
// member names with dashes or escaped dots (`.metadata.labels.app\.kubernetes\.io/name`), filters
// (`[?(@.severity=="error")]`). As kubectl: the values of one path are printed a space apart, strings bare
// and objects as JSON, a path that matches nothing prints nothing, and jsonpath ends with no newline.
import {query, type JsonValue} from 'jsonpath-rfc9535'

import {kubectlTable, NONE} from './kubectl-table.js'

/** A template that does not parse: a usage error where the flag is read. */
export class TemplateError extends Error {}

type Node = {text: string} | {path: string} | {range: string; body: Node[]}

export type TemplateOutput =
  {kind: 'jsonpath'; nodes: Node[]} | {kind: 'custom-columns'; columns: Array<{header: string; path: string}>}

/** `jsonpath=…` or `custom-columns=…` parsed; undefined for any other value of -o. Throws TemplateError. */
export function parseTemplateOutput(output: string): TemplateOutput | undefined {
  const at = output.indexOf('=')
  const [kind, spec] = at === -1 ? [output, undefined] : [output.slice(0, at), output.slice(at + 1)]
  if (kind !== 'jsonpath' && kind !== 'custom-columns') return undefined
  if (spec === undefined || spec === '')
    throw new TemplateError(
      `give it a ${kind === 'jsonpath' ? 'template: -o jsonpath={.kind}' : 'spec: -o custom-columns=KIND:.kind'}`,
    )
  return kind === 'jsonpath' ? {kind, nodes: parseJsonPathTemplate(spec)} : {kind, columns: parseCustomColumns(spec)}
}

/** What the template prints of the document (a parsed `-o json`); custom-columns honours --no-headers. */
export function renderTemplate(output: TemplateOutput, doc: JsonValue, noHeaders = false): string {
  if (output.kind === 'jsonpath') return execute(output.nodes, doc)
  // As kubectl: a row per item of a List, else one for the document.
  const items =
    isObject(doc) && Array.isArray(doc.items) && typeof doc.kind === 'string' && doc.kind.endsWith('List')
      ? doc.items
      : [doc]
  const rows = items.map((item) =>
    output.columns.map(
      (c) =>
        query(item, c.path)
          .filter((v) => v !== null)
          .map(format)
          .join(',') || NONE,
    ),
  )
  return `${kubectlTable(
    output.columns.map((c) => c.header),
    rows,
    {noHeaders},
  )}\n`
}

/** renderTemplate over a document given as the chunks of its `-o json`: what the template reads is what -o json prints. */
export function templateChunks(output: TemplateOutput, json: Iterable<string>, noHeaders = false): string[] {
  return [renderTemplate(output, JSON.parse([...json].join('')) as JsonValue, noHeaders)]
}

function isObject(v: JsonValue): v is {[key: string]: JsonValue} {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function format(v: JsonValue): string {
  return typeof v === 'string' ? v : JSON.stringify(v)
}

function execute(nodes: readonly Node[], data: JsonValue): string {
  let out = ''
  for (const node of nodes) {
    if ('text' in node) out += node.text
    else if ('range' in node) for (const item of query(data, node.range)) out += execute(node.body, item)
    else
      out += query(data, node.path)
        .filter((v) => v !== null)
        .map(format)
        .join(' ')
  }
  return out
}

/** kubectl's jsonpath template: text, and {actions}: a path, a "quoted string", `range PATH` … `end`. */
function parseJsonPathTemplate(template: string): Node[] {
  const root: Node[] = []
  const open: Array<{range: string; body: Node[]}> = []
  const into = () => open.at(-1)?.body ?? root
  let i = 0
  while (i < template.length) {
    const start = template.indexOf('{', i)
    if (start === -1) {
      into().push({text: template.slice(i)})
      break
    }
    if (start > i) into().push({text: template.slice(i, start)})
    const end = closingBrace(template, start)
    const action = template.slice(start + 1, end).trim()
    i = end + 1
    if (action === 'end') {
      const range = open.pop()
      if (range === undefined) throw new TemplateError('{end} without a {range}')
      into().push(range)
    } else if (action.startsWith('range ') || action === 'range') {
      open.push({range: rfcPath(action.slice('range'.length).trim()), body: []})
    } else if (action.startsWith('"')) {
      into().push({text: stringLiteral(action)})
    } else {
      into().push({path: rfcPath(action)})
    }
  }
  if (open.length > 0) throw new TemplateError('{range} without an {end}')
  return root
}

/** The index of the `}` that closes the action opened at `start`, past quoted strings and brackets. */
function closingBrace(template: string, start: number): number {
  let quote: string | undefined
  let depth = 0
  for (let i = start + 1; i < template.length; i++) {
    const c = template[i]
    if (quote !== undefined) {
      if (c === '\\') i++
      else if (c === quote) quote = undefined
    } else if (c === '"' || c === "'") quote = c
    else if (c === '[' || c === '(') depth++
    else if (c === ']' || c === ')') depth--
    else if (c === '}' && depth === 0) return i
  }
  throw new TemplateError(`unclosed action: ${template.slice(start)}`)
}

function stringLiteral(action: string): string {
  try {
    const text: unknown = JSON.parse(action)
    if (typeof text === 'string') return text
  } catch {
    // Below.
  }
  throw new TemplateError(`not a string: ${action}`)
}

/**
 * A kubectl path as RFC 9535 writes it: rooted at `$` (`.kind`, `@.kind` and `kind` alike), each dotted
 * member name in brackets (kubectl's names may hold dashes, and dots escaped with a backslash). What is in
 * brackets already (indexes, slices, filters) is kept as written. Checked here, so that a bad path is a
 * usage error before anything is read.
 */
function rfcPath(expression: string): string {
  if (expression === '') throw new TemplateError('an empty path')
  let rest = expression.startsWith('$') || expression.startsWith('@') ? expression.slice(1) : expression
  if (!rest.startsWith('.') && !rest.startsWith('[') && rest !== '') rest = `.${rest}`
  let path = '$'
  let i = 0
  while (i < rest.length) {
    if (rest[i] === '[') {
      const end = closingBracket(rest, i)
      path += rest.slice(i, end + 1)
      i = end + 1
      continue
    }
    if (rest[i] !== '.') throw new TemplateError(`unexpected ${JSON.stringify(rest[i])} in ${expression}`)
    const descendants = rest[i + 1] === '.'
    i += descendants ? 2 : 1
    if (descendants) path += '..'
    if (rest[i] === '[') continue
    let name = ''
    while (i < rest.length && rest[i] !== '.' && rest[i] !== '[') {
      if (rest[i] === '\\' && i + 1 < rest.length) i++
      name += rest[i]
      i++
    }
    if (name === '') throw new TemplateError(`a member name is missing in ${expression}`)
    path += name === '*' ? '[*]' : `[${JSON.stringify(name)}]`
  }
  try {
    query({}, path)
  } catch (err) {
    throw new TemplateError(`${expression}: ${err instanceof Error ? err.message : String(err)}`)
  }
  return path
}

function closingBracket(path: string, start: number): number {
  let quote: string | undefined
  let depth = 0
  for (let i = start; i < path.length; i++) {
    const c = path[i]
    if (quote !== undefined) {
      if (c === '\\') i++
      else if (c === quote) quote = undefined
    } else if (c === '"' || c === "'") quote = c
    else if (c === '[') depth++
    else if (c === ']' && --depth === 0) return i
  }
  throw new TemplateError(`unclosed [ in ${path}`)
}

/** kubectl's custom-columns spec: HEADER:PATH,… with the path bare or in braces (`NAME:.metadata.name`, `NAME:{.metadata.name}`). */
function parseCustomColumns(spec: string): Array<{header: string; path: string}> {
  return spec.split(',').map((column) => {
    const at = column.indexOf(':')
    if (at <= 0 || at === column.length - 1)
      throw new TemplateError(`${JSON.stringify(column)} is not HEADER:PATH (e.g. NAME:.metadata.name)`)
    const expression = column.slice(at + 1).trim()
    const bare = expression.startsWith('{') && expression.endsWith('}') ? expression.slice(1, -1) : expression
    return {header: column.slice(0, at), path: rfcPath(bare)}
  })
}
