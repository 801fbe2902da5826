// Snapshot source of cluster state (`-f, --filename PATH`, docs/output-contract.md, "Sources of cluster state"):
// a file, a directory of *.yaml/*.yml/*.json files, or `-` for stdin; YAML (one or many documents) or JSON;
// each document a single object or a `List` / `*List` — what `kubectl get pv,pvc,storageclasses,pods,nodes
// -A -o yaml` prints. Objects are kept as parsed: no defaulting, quantities and timestamps untouched. The only
// changes: a PVC/Pod without a namespace gets "default"; a PV/PVC without spec gets `spec: {}`; an item of a typed
// list gets its kind and apiVersion; a YAML number or boolean in a string field (metadata name/namespace/uid/
// resourceVersion, label and annotation values, quantities, PVC selector values) becomes its source text.

import {isAscii} from 'node:buffer'
import {readFileSync} from 'node:fs'
import {readdir, stat} from 'node:fs/promises'
import {join, resolve} from 'node:path'
import {InputError} from '../errors.js'
import {present} from '../engine/api/invariant.js'
import type {ClusterState} from '../engine/api/model.js'
import {parseQuantity, QuantityError} from '../engine/api/quantity.js'
import {bundledExampleHint} from './bundled-examples.js'
import {MAX_ANSWER_DEPTH, valueNestsDeeper} from './json-depth.js'
import {compileLabelSelector, SelectorError} from '../engine/api/selector.js'
import {childOf, compileFieldPaths, type FieldPath, type FieldPathNode} from './field-paths.js'
import {yamlLibrary} from '../yaml-library.js'

export interface LoadedSnapshot {
  state: ClusterState
  /** The kinds `explain` reads as evidence, kept beside the state (the controller never reads them). */
  evidence: SnapshotEvidence
  /** kind -> how many objects of it were ignored; a kept kind under another apiVersion is "Kind (apiVersion)". */
  skipped: Record<string, number>
  /** The files read, in order ("<stdin>" for `-`). */
  sources: string[]
}

export const STDIN_SOURCE = '<stdin>'
const SNAPSHOT_EXTENSIONS = ['.yaml', '.yml', '.json']

type Obj = Record<string, unknown>
type Pattern = FieldPath

/** Events, CSIDrivers, Leases and VolumeAttachments, as parsed. */
export interface SnapshotEvidence {
  events: Obj[]
  csiDrivers: Obj[]
  leases: Obj[]
  volumeAttachments: Obj[]
}

type Field = keyof ClusterState | keyof SnapshotEvidence

interface KindInfo {
  field: Field
  apiVersions: readonly string[]
  namespaced: boolean
  /** Fields that are strings in the API but that YAML may have read as numbers or booleans ('*': any key). */
  stringFields: readonly Pattern[]
}

/**
 * Of the string fields, those validate() does not read. It turns a number or boolean into its text where
 * it reads one (metadata, labels, annotations, quantities); for JSON only these others need a walk.
 */
const NOT_READ_BY_VALIDATE: ReadonlyMap<string, readonly Pattern[]> = new Map([
  [
    'PersistentVolumeClaim',
    [
      ['spec', 'selector', 'matchLabels', '*'],
      ['spec', 'selector', 'matchExpressions', '*', 'values', '*'],
    ],
  ],
])

const METADATA_STRINGS: Pattern[] = [
  ['metadata', 'name'],
  ['metadata', 'namespace'],
  ['metadata', 'uid'],
  ['metadata', 'resourceVersion'],
  ['metadata', 'labels', '*'],
  ['metadata', 'annotations', '*'],
]

/** The kinds kept; the first apiVersion is the one given to items of a typed list that has none. */
const KINDS = new Map<string, KindInfo>([
  [
    'PersistentVolume',
    {
      field: 'volumes',
      apiVersions: ['v1'],
      namespaced: false,
      stringFields: [...METADATA_STRINGS, ['spec', 'capacity', '*']],
    },
  ],
  [
    'PersistentVolumeClaim',
    {
      field: 'claims',
      apiVersions: ['v1'],
      namespaced: true,
      stringFields: [
        ...METADATA_STRINGS,
        ['spec', 'resources', 'requests', '*'],
        ['spec', 'resources', 'limits', '*'],
        ['status', 'capacity', '*'],
        ...present(
          NOT_READ_BY_VALIDATE.get('PersistentVolumeClaim'),
          "the claim's fields validate() does not read are listed",
        ),
      ],
    },
  ],
  [
    'StorageClass',
    {
      field: 'classes',
      apiVersions: ['storage.k8s.io/v1', 'storage.k8s.io/v1beta1'],
      namespaced: false,
      stringFields: METADATA_STRINGS,
    },
  ],
  ['Pod', {field: 'pods', apiVersions: ['v1'], namespaced: true, stringFields: METADATA_STRINGS}],
  ['Node', {field: 'nodes', apiVersions: ['v1'], namespaced: false, stringFields: METADATA_STRINGS}],
  // Evidence for `explain`: what the claim's and the volume's controllers did, and whether they run.
  ['Event', {field: 'events', apiVersions: ['v1'], namespaced: true, stringFields: METADATA_STRINGS}],
  [
    'CSIDriver',
    {field: 'csiDrivers', apiVersions: ['storage.k8s.io/v1'], namespaced: false, stringFields: METADATA_STRINGS},
  ],
  [
    'Lease',
    {field: 'leases', apiVersions: ['coordination.k8s.io/v1'], namespaced: true, stringFields: METADATA_STRINGS},
  ],
  [
    'VolumeAttachment',
    {field: 'volumeAttachments', apiVersions: ['storage.k8s.io/v1'], namespaced: false, stringFields: METADATA_STRINGS},
  ],
])

/** Each kind's string fields as a tree, compiled once: walking it costs a map lookup per key. */
const STRING_FIELDS = new Map([...KINDS].map(([kind, info]) => [kind, compileFieldPaths(info.stringFields)]))
const JSON_STRING_FIELDS = new Map([...NOT_READ_BY_VALIDATE].map(([kind, paths]) => [kind, compileFieldPaths(paths)]))

/** Under a field no path goes through: YamlScalars are unwrapped to their values, nothing becomes text. */
const NO_STRING_FIELDS = compileFieldPaths([])

/** A YAML number or boolean, kept with its source text until we know whether its field is a string. */
class YamlScalar {
  constructor(
    readonly value: unknown,
    readonly source: string,
  ) {}
}

interface Entry {
  field: Field
  object: Obj
  source: string
  /** Where in the source: "document 2", "items[3]", "document 2 items[3]" (built when a message needs it). */
  where: Where
  /** Identity for duplicates: kind, namespace ('' for cluster-scoped kinds), name. */
  kind: string
  namespace: string
  name: string
}

/** "PersistentVolumeClaim default/data", "PersistentVolume pv1": how messages name an object. */
function objectLabel(kind: string, namespace: string, name: string): string {
  return `${kind} ${namespace === '' ? '' : `${clip(namespace)}/`}${clip(name)}`
}

/** A name as a message quotes it: whole, unless it is longer than any valid name. */
function clip(name: string): string {
  return name.length <= MAX_NAME_LENGTH ? name : `${name.slice(0, 40)}…`
}

/**
 * The longest name the API server accepts (a DNS subdomain, RFC 1123), and namespace (a DNS label): a
 * snapshot's name past them is no object of a cluster, and would be copied into every line of output.
 */
const MAX_NAME_LENGTH = 253
const MAX_NAMESPACE_LENGTH = 63

interface ParsedText {
  entries: Entry[]
  skipped: Map<string, number> // a Map: a kind may be "constructor" or "__proto__"
  /** Parsed by JSON.parse: fresh plain values, no YamlScalars, no shared sub-objects. */
  json: boolean
}

/**
 * Reads a snapshot from one or more paths (-f, repeated or comma-separated, as kubectl's): each a file, a
 * directory (its *.yaml, *.yml, *.json files, not recursive, sorted by name) or `-` (stdin, or
 * `opts.stdin`), read in the order given and taken as one state. An object in two of them is a duplicate.
 * Throws InputError, with a one-line message, for anything unreadable.
 */
export async function loadSnapshot(
  paths: string | readonly string[],
  opts: {stdin?: NodeJS.ReadableStream} = {},
): Promise<LoadedSnapshot> {
  const given = typeof paths === 'string' ? [paths] : paths
  if (given.length === 0) throw new InputError('no snapshot file given')
  if (given.filter((p) => p === '-').length > 1) throw new InputError('-f -: standard input can be read only once')
  const twice = given.find((p, i) => p !== '-' && given.findIndex((q) => resolve(q) === resolve(p)) !== i)
  if (twice !== undefined)
    throw new InputError(`-f "${twice}": given twice (each object would be a duplicate of itself)`)
  const parts: ParsedText[] = []
  const sources: string[] = []
  for (const path of given) {
    if (path === '-') {
      parts.push(parseText(await readStream(opts.stdin ?? process.stdin), STDIN_SOURCE))
      sources.push(STDIN_SOURCE)
      continue
    }
    let isDirectory: boolean
    try {
      isDirectory = (await stat(path)).isDirectory()
    } catch (err) {
      throw fsError(path, err)
    }
    for (const file of isDirectory ? await listSnapshotFiles(path) : [path]) {
      let text: string
      try {
        // In one read: the promise API reads a file in 512 KiB pieces, one round trip to the thread pool
        // each (docs/performance.md), and the command has nothing else to do meanwhile.
        text = decodeText(readFileSync(file))
      } catch (err) {
        throw fsError(file, err)
      }
      parts.push(parseText(text, file))
      sources.push(file)
    }
  }
  return assemble(parts, sources)
}

/** Parses one file's text; `source` names it in error messages. Throws InputError. */
export function parseSnapshotText(text: string, source: string): LoadedSnapshot {
  return assemble([parseText(text, source)], [source])
}

async function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = []
  try {
    for await (const chunk of stream) chunks.push(Buffer.from(chunk as string | Uint8Array))
  } catch (err) {
    throw new InputError(`cannot read standard input: ${(err as Error).message}`)
  }
  return decodeText(Buffer.concat(chunks))
}

/**
 * The text of a whole input, decoded in one go. Not readFile(file, 'utf8'): it decodes piece by piece into
 * a rope that the first look at the text (and JSON.parse) copies into a flat string again. ASCII, which
 * `kubectl get -o json` output nearly always is, decodes as Latin-1 to the same string at about twice the
 * speed of the UTF-8 decoder.
 */
function decodeText(bytes: Buffer): string {
  return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8')
}

async function listSnapshotFiles(dir: string): Promise<string[]> {
  let names: string[]
  try {
    names = await readdir(dir)
  } catch (err) {
    throw fsError(dir, err)
  }
  const files: string[] = []
  for (const name of names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!SNAPSHOT_EXTENSIONS.some((ext) => name.endsWith(ext))) continue
    const file = join(dir, name)
    // stat (not lstat): a symlink to a file counts; a sub-directory named x.yaml does not.
    if ((await stat(file).catch(() => undefined))?.isFile()) files.push(file)
  }
  if (files.length === 0) throw new InputError(`no .yaml, .yml or .json files in directory "${dir}"`)
  return files
}

function fsError(path: string, err: unknown): InputError {
  const code = (err as NodeJS.ErrnoException).code
  if (code === 'ENOENT' || code === 'ENOTDIR')
    return new InputError(`no such file or directory "${path}"${bundledExampleHint(path)}`)
  if (code === 'EACCES' || code === 'EPERM') return new InputError(`cannot read "${path}": permission denied`)
  return new InputError(`cannot read "${path}": ${(err as Error).message}`)
}

function assemble(parts: ParsedText[], sources: string[]): LoadedSnapshot {
  const state: {[F in keyof ClusterState]: Obj[]} = {volumes: [], claims: [], classes: [], pods: [], nodes: []}
  const evidence: SnapshotEvidence = {events: [], csiDrivers: [], leases: [], volumeAttachments: []}
  const skipped = new Map<string, number>()
  // kind → namespace → names: lookups of the strings the objects hold, no key string built per object;
  // one probe per object (a Set grows or does not), the first of a duplicate found only when there is one.
  const seen = new Map<string, Map<string, Set<string>>>()
  for (const part of parts) {
    for (const [kind, n] of part.skipped) skipped.set(kind, (skipped.get(kind) ?? 0) + n)
    // Indexed loops here and in validate: see docs/design.md, "Loops that run once".
    const entries = part.entries
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]
      let ofKind = seen.get(e.kind)
      if (ofKind === undefined) seen.set(e.kind, (ofKind = new Map<string, Set<string>>()))
      let inNamespace = ofKind.get(e.namespace)
      if (inNamespace === undefined) ofKind.set(e.namespace, (inNamespace = new Set()))
      const count = inNamespace.size
      if (inNamespace.add(e.name).size === count) {
        const firstFound = parts
          .flatMap((p) => p.entries)
          .find((f) => f.kind === e.kind && f.namespace === e.namespace && f.name === e.name)
        const first = present(firstFound, 'a duplicate was defined before')
        throw new InputError(
          `${e.source}: ${objectLabel(e.kind, e.namespace, e.name)}: duplicate object (${String(e.where)}); first defined in ${first.source} (${String(first.where)})`,
        )
      }
      if (e.field in state) state[e.field as keyof ClusterState].push(e.object)
      else evidence[e.field as keyof SnapshotEvidence].push(e.object)
    }
  }
  if (parts.every((part) => part.entries.length === 0)) {
    // Even a cluster with no volumes has nodes: nothing at all is a failed `kubectl get ... |`, an empty
    // file or the wrong one, and auditing it would report an empty cluster as in sync.
    const others = [...skipped].map(([kind, n]) => `${kind} ×${n}`).join(', ')
    throw new InputError(
      `${sources.length === 1 ? sources[0] : sources.join(', ')}: no objects pvctl reads (PersistentVolume, PersistentVolumeClaim, StorageClass, Pod, Node)${others === '' ? '' : `; only ${others}`}`,
    )
  }
  // The objects were checked above for the fields the engine relies on; the rest is carried as parsed.
  return {state: state as unknown as ClusterState, evidence, skipped: Object.fromEntries(skipped), sources}
}

function parseText(text: string, source: string): ParsedText {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  // A test, not text.trim(): trimming would copy the whole input.
  const {docs, json} = !/\S/.test(text) ? {docs: [], json: false} : parseDocuments(text, source)
  const out: ParsedText = {entries: [], skipped: new Map(), json}
  docs.forEach((doc, i) => {
    if (doc === null || doc === undefined) return // an empty document, or `null`
    collect(doc, `document ${i + 1}`, docs.length > 1 ? `document ${i + 1} ` : '', undefined, source, out)
  })
  return out
}

/**
 * JSON via JSON.parse (fast, for large `-o json` dumps): a *.json file always, other text when it starts like
 * JSON. Other text, or non-JSON text that only starts like JSON (a YAML flow mapping), via YAML.
 */
function parseDocuments(text: string, source: string): {docs: unknown[]; json: boolean} {
  if (source.endsWith('.json') || /^\s*[[{]/.test(text)) {
    let docs: unknown[]
    try {
      docs = [JSON.parse(text)]
    } catch (jsonErr) {
      const yaml = source.endsWith('.json') ? undefined : parseYaml(text)
      if (yaml && !('error' in yaml)) return notTooDeep({docs: yaml.docs, json: false}, source)
      throw new InputError(`${source}: invalid JSON${jsonErrorDetail(text, (jsonErr as Error).message)}`)
    }
    return notTooDeep({docs, json: true}, source)
  }
  const yaml = parseYaml(text)
  // The YAML parser recurses: a flow collection nested some hundreds deep exhausts the stack in it.
  if ('error' in yaml && /Maximum call stack size exceeded/.test(yaml.error)) throw tooDeep(source)
  if ('error' in yaml) throw new InputError(`${source}: invalid YAML${yaml.error}`)
  return notTooDeep({docs: yaml.docs, json: false}, source)
}

function notTooDeep<T extends {docs: unknown[]}>(parsed: T, source: string): T {
  if (parsed.docs.some((doc) => valueNestsDeeper(doc))) throw tooDeep(source)
  return parsed
}

/** A snapshot nested deeper than any object of a cluster: refused as the wire refuses such an answer. */
function tooDeep(source: string): InputError {
  return new InputError(
    `${source}: nests deeper than any object of a cluster (pvctl reads at most ${MAX_ANSWER_DEPTH} levels)`,
  )
}

function jsonErrorDetail(text: string, message: string): string {
  // V8: `Unexpected token '}', "{"a": }" is not valid JSON` or `Expected ',' ... in JSON at position 42`.
  const msg = message.replace(/, .*is not valid JSON$/s, '')
  const m = / in JSON at position (\d+)/.exec(msg)
  if (!m) return `: ${msg}`
  const before = text.slice(0, Number(m[1])).split('\n')
  const detail = msg.replace(m[0], '').replace(/ \(line \d+ column \d+\)$/, '')
  return ` at line ${before.length}, column ${before[before.length - 1].length + 1}: ${detail}`
}

function parseYaml(text: string): {docs: unknown[]} | {error: string} {
  // YAML 1.2 core schema whatever the %YAML directive says: timestamps stay strings, `yes`/`no` stay strings.
  const {parseAllDocuments, visit} = yamlLibrary()
  const docs = parseAllDocuments(text, {version: '1.2', schema: 'core', merge: true})
  const values: unknown[] = []
  for (const doc of docs) {
    if (doc.errors.length > 0) {
      const err = doc.errors[0]
      const pos = err.linePos?.[0]
      const msg = err.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')
      return {error: `${pos ? ` at line ${pos.line}, column ${pos.col}` : ''}: ${msg}`}
    }
    visit(doc, {
      Scalar(key, node) {
        if (key === 'key') return
        const v = node.value
        if (typeof v === 'number' || typeof v === 'boolean') {
          node.value = new YamlScalar(v, node.source ?? String(v))
        } else if (v instanceof Date || v instanceof Uint8Array) {
          node.value = node.source ?? String(v) // an explicit !!timestamp or !!binary tag: the text, as in JSON
        }
      },
    })
    try {
      values.push(doc.toJS())
    } catch (err) {
      return {error: `: ${(err as Error).message.split('\n')[0]}`}
    }
  }
  return {docs: values}
}

/**
 * Where an item of a list is, as messages name it ("items[3]", "document 2 items[3]"). Kept as its parts
 * and printed only when a message needs it: a string built for each of 200k items, and kept with it until
 * the snapshot is assembled, was a measurable part of loading one.
 */
class ItemWhere {
  constructor(
    private readonly listPrefix: string,
    private readonly index: number,
  ) {}

  toString(): string {
    return `${this.listPrefix}items[${this.index}]`
  }
}

type Where = string | ItemWhere

/** Counts an object of a kind (or apiVersion) pvctl does not read. */
function skip(out: ParsedText, key: string): void {
  out.skipped.set(key, (out.skipped.get(key) ?? 0) + 1)
}

function failAt(source: string, what: Where, msg: string): never {
  throw new InputError(`${source}: ${String(what)}: ${msg}`)
}

/**
 * Walks one document (an object or a list of them, lists nesting), adding the kept objects to `out`.
 * `where` names the value in messages; `itemPrefix` goes before "items[j]" for its items (undefined: the
 * value is an item itself, and its items are "where.items[j]").
 */
function collect(
  value: unknown,
  where: Where,
  itemPrefix: string | undefined,
  inherited: {kind: string; apiVersion?: string} | undefined,
  source: string,
  out: ParsedText,
): void {
  if (!isObject(value)) return failAt(source, where, `expected an object, got ${describe(value)}`)
  // Items of a typed list (PersistentVolumeList) carry no kind or apiVersion: they are the list's.
  const kind = value.kind ?? inherited?.kind
  const apiVersion = value.apiVersion ?? inherited?.apiVersion
  // `??` made a null kind the inherited one, or undefined.
  if (kind === undefined || kind === '') return failAt(source, where, 'kind is required')
  if (typeof kind !== 'string') return failAt(source, where, `kind must be a string, got ${describe(kind)}`)

  if (kind.endsWith('List')) {
    const items = value.items ?? []
    if (!Array.isArray(items))
      return failAt(source, `${String(where)} (${kind})`, `items must be a list, got ${describe(items)}`)
    const itemKind = kind === 'List' ? undefined : kind.slice(0, -'List'.length)
    const itemApiVersion = typeof apiVersion === 'string' ? apiVersion : KINDS.get(itemKind ?? '')?.apiVersions[0]
    const itemInherited = itemKind ? {kind: itemKind, apiVersion: itemApiVersion} : undefined
    const prefix = itemPrefix ?? `${String(where)}.`
    for (let j = 0; j < items.length; j++)
      collect(items[j], new ItemWhere(prefix, j), undefined, itemInherited, source, out)
    return
  }

  const info = KINDS.get(kind)
  if (!info) return skip(out, kind)
  if (apiVersion === undefined || apiVersion === '') {
    return failAt(source, `${String(where)} (${kind})`, 'apiVersion is required')
  }
  if (typeof apiVersion !== 'string' || !info.apiVersions.includes(apiVersion)) {
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a scalar of the file, shown as written
    return skip(out, `${kind} (${String(apiVersion instanceof YamlScalar ? apiVersion.source : apiVersion)})`)
  }

  // JSON is normalized where it lies (parse once: no second copy of a large dump), by validate() and
  // here for the fields it does not read; YAML is copied out.
  let object = (
    out.json
      ? normalizeJson(value, JSON_STRING_FIELDS.get(kind) ?? NO_STRING_FIELDS)
      : unwrap(value, present(STRING_FIELDS.get(kind), 'every kind read has its string fields'))
  ) as Obj
  // The one other change: an item of a typed list gets the kind and apiVersion it was listed under.
  if (object.kind !== kind || object.apiVersion !== apiVersion) {
    object = {apiVersion, kind, ...object}
    Object.assign(object, {apiVersion, kind})
  }
  const invalid = validate(object, kind, info)
  if (invalid !== undefined) return failAt(source, invalid.what ?? `${String(where)} (${kind})`, invalid.message)
  const meta = object.metadata as {name: string; namespace?: string}
  out.entries.push({
    field: info.field,
    object,
    source,
    where,
    kind,
    namespace: info.namespaced ? present(meta.namespace, 'validate() gave a namespaced object its namespace') : '',
    name: meta.name,
  })
}

/** Replaces YamlScalars by their value, or by their source text where the field is a string. */
function unwrap(v: unknown, fields: FieldPathNode): unknown {
  if (v instanceof YamlScalar) return fields.leaf ? v.source : v.value
  if (fields.leaf && (typeof v === 'number' || typeof v === 'boolean')) return String(v)
  const next = (key: string) => childOf(fields, key) ?? NO_STRING_FIELDS
  if (Array.isArray(v)) return v.map((x, i) => unwrap(x, next(String(i))))
  if (!isObject(v)) return v
  const out: Obj = {}
  for (const [k, x] of Object.entries(v)) {
    // defineProperty, not assignment: a "__proto__" key from JSON.parse stays a plain key.
    const value = unwrap(x, next(k))
    Object.defineProperty(out, k, {value, enumerable: true, writable: true, configurable: true})
  }
  return out
}

/**
 * What unwrap does to JSON.parse output, in place: a number or boolean in a string field becomes its text.
 * Only the paths of `fields` are walked; nothing else is touched or copied.
 */
function normalizeJson(v: unknown, fields: FieldPathNode): unknown {
  if (fields.leaf) return typeof v === 'number' || typeof v === 'boolean' ? String(v) : v
  if (typeof v !== 'object' || v === null) return v
  const container = v as Record<string, unknown>
  if (fields.any !== undefined) {
    for (const k of Object.keys(container))
      normalizeMember(
        container,
        k,
        present(childOf(fields, k), 'a field path node with `any` has a child for every key'),
      )
  } else {
    // Only the named fields: look each up, rather than every key of the object up in the paths. By index:
    // no iterator and no [key, node] pair per field of every claim.
    const named = fields.named
    for (let i = 0; i < named.length; i++)
      if (hasOwn(container, named[i]))
        normalizeMember(container, named[i], present(fields.children.get(named[i]), 'a named field has its node'))
  }
  return v
}

function normalizeMember(container: Record<string, unknown>, k: string, fields: FieldPathNode): void {
  const before = container[k]
  const after = normalizeJson(before, fields)
  // defineProperty, not assignment: a "__proto__" key from JSON.parse stays a plain key.
  if (after !== before)
    Object.defineProperty(container, k, {value: after, enumerable: true, writable: true, configurable: true})
}

const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key)

/** The metadata fields that are strings (METADATA_STRINGS without the maps). */
const METADATA_STRING_KEYS = ['name', 'namespace', 'uid', 'resourceVersion']

/**
 * A number or boolean in a string field becomes its text, where it lies: JSON.parse reads `"uid": 7` as a
 * number (YAML was unwrapped to its source text already). defineProperty: a "__proto__" key stays a key.
 */
function asString(container: Obj, key: string): unknown {
  const value = container[key]
  if (typeof value !== 'number' && typeof value !== 'boolean') return value
  const text = String(value)
  Object.defineProperty(container, key, {value: text, enumerable: true, writable: true, configurable: true})
  return text
}

/** What validate() found wrong: the object or field (undefined: the object, by where it is) and why. */
interface Invalid {
  what?: string
  message: string
}

const ID_STRING_KEYS = ['uid', 'resourceVersion']
const METADATA_MAPS = ['labels', 'annotations']
const SPEC_AND_STATUS = ['spec', 'status']

/**
 * Checks the fields the controller reads, turning numbers and booleans in its string fields into text.
 * Returns what is wrong, rather than throwing from a callback: no closure per object of a large dump.
 */
function validate(obj: Obj, kind: string, info: KindInfo): Invalid | undefined {
  const meta = obj.metadata
  if (meta === undefined || meta === null) return {message: 'metadata.name is required'}
  if (!isMap(meta)) return {message: `metadata must be an object, got ${describe(meta)}`}
  const badMetadata = validateMetadata(meta, kind, info)
  if (badMetadata !== undefined) return badMetadata
  return validateSpecAndStatus(obj, kind, info, meta)
}

/** Checks the metadata the controller reads: name, namespace (defaulted), uid, resourceVersion, labels, annotations. */
function validateMetadata(meta: Obj, kind: string, info: KindInfo): Invalid | undefined {
  for (let i = 0; i < METADATA_STRING_KEYS.length; i++) asString(meta, METADATA_STRING_KEYS[i])
  if (meta.name === undefined || meta.name === null || meta.name === '') return {message: 'metadata.name is required'}
  if (typeof meta.name !== 'string') return {message: `metadata.name must be a string, got ${describe(meta.name)}`}
  if (meta.name.length > MAX_NAME_LENGTH)
    return {
      message: `metadata.name must be no more than ${MAX_NAME_LENGTH} characters, got ${meta.name.length} (${clip(meta.name)})`,
    }
  if (info.namespaced) {
    // The one normalisation: a namespaced object (PVC, Pod) without a namespace is in "default", as kubectl
    // would create it. `kubectl get -o yaml` always prints one; hand-written snapshots often leave it out.
    if (meta.namespace === undefined || meta.namespace === null || meta.namespace === '') meta.namespace = 'default'
    if (typeof meta.namespace !== 'string') {
      return {message: `metadata.namespace must be a string, got ${describe(meta.namespace)}`}
    }
    if (meta.namespace.length > MAX_NAMESPACE_LENGTH) {
      return {
        message: `metadata.namespace must be no more than ${MAX_NAMESPACE_LENGTH} characters, got ${meta.namespace.length} (${clip(meta.namespace)})`,
      }
    }
  }
  for (let i = 0; i < ID_STRING_KEYS.length; i++) {
    const f = ID_STRING_KEYS[i]
    if (meta[f] !== undefined && typeof meta[f] !== 'string') {
      return invalidField(kind, info, meta, `metadata.${f}`, `must be a string, got ${describe(meta[f])}`)
    }
  }
  for (let i = 0; i < METADATA_MAPS.length; i++) {
    const f = METADATA_MAPS[i]
    const map = meta[f]
    if (map === undefined || map === null) continue
    if (!isMap(map)) return invalidField(kind, info, meta, `metadata.${f}`, `must be a map, got ${describe(map)}`)
    // for-in, not Object.entries: no pair per label of every object (JSON objects inherit no keys).
    for (const k in map) {
      const v = asString(map, k)
      if (typeof v !== 'string')
        return invalidField(kind, info, meta, `metadata.${f}${fieldKey(k)}`, `must be a string, got ${describe(v)}`)
    }
  }
  return undefined
}

/** Checks spec and status of a named object: their shapes, quantities and a claim's label selector. */
function validateSpecAndStatus(obj: Obj, kind: string, info: KindInfo, meta: Obj): Invalid | undefined {
  if (kind === 'PersistentVolume' || kind === 'PersistentVolumeClaim' || kind === 'Pod') {
    // The engine reads spec unconditionally: a missing PV/PVC spec is an empty one. No status is added.
    if ((obj.spec === undefined || obj.spec === null) && kind !== 'Pod') obj.spec = {}
    for (let i = 0; i < SPEC_AND_STATUS.length; i++) {
      const f = SPEC_AND_STATUS[i]
      if (obj[f] !== undefined && obj[f] !== null && !isMap(obj[f])) {
        return invalidField(kind, info, meta, f, `must be an object, got ${describe(obj[f])}`)
      }
    }
  }
  const spec = (obj.spec ?? {}) as Obj
  const status = (obj.status ?? {}) as Obj
  if (kind === 'PersistentVolume') {
    const bad = invalidQuantities('spec.capacity', spec.capacity, 'storage-positive')
    if (bad !== undefined) return invalidField(kind, info, meta, bad[0], bad[1])
  }
  if (kind === 'PersistentVolumeClaim') {
    const resources = spec.resources
    if (resources !== undefined && resources !== null && !isMap(resources)) {
      return invalidField(kind, info, meta, 'spec.resources', `must be an object, got ${describe(resources)}`)
    }
    const bad =
      invalidQuantities('spec.resources.requests', resources?.requests, 'storage-positive') ??
      invalidQuantities('spec.resources.limits', resources?.limits, 'nonnegative') ??
      invalidQuantities('status.capacity', status.capacity)
    if (bad !== undefined) return invalidField(kind, info, meta, bad[0], bad[1])
  }
  // The shapes of the other fields the controller reads: a wrong type would otherwise be read as
  // "absent" and silently change a decision.
  const shapeError = checkShapes(kind, obj, spec, status)
  if (shapeError !== undefined) return invalidField(kind, info, meta, shapeError[0], shapeError[1])
  if (kind === 'PersistentVolumeClaim' && spec.selector !== undefined && spec.selector !== null) {
    try {
      compileLabelSelector(spec.selector)
    } catch (err) {
      if (!(err instanceof SelectorError)) throw err
      const field = err.field === 'selector' ? 'spec.selector' : `spec.selector.${err.field}`
      return invalidField(
        kind,
        info,
        meta,
        field,
        err.key === undefined ? err.detail : `key ${JSON.stringify(err.key)}: ${err.detail}`,
      )
    }
  }
  return undefined
}

/** A field of a named object is wrong. The label is built only here: building it for every object costs. */
function invalidField(kind: string, info: KindInfo, meta: Obj, field: string, msg: string): Invalid {
  return {
    what: objectLabel(kind, info.namespaced ? (meta.namespace as string) : '', meta.name as string),
    message: `${field}: ${msg}`,
  }
}

/**
 * What the API server's validation asks of a map's values besides parsing (ValidateResourceQuantityValue:
 * a standard resource is never negative; ValidatePersistentVolumeClaimSpec and ValidatePersistentVolumeSpec:
 * the storage requested or offered is more than zero). `Gi`, `.` and `+` parse, as resource.ParseQuantity
 * parses them, to zero.
 */
type QuantityRule = 'any' | 'nonnegative' | 'storage-positive'

/** The first entry of a map of quantities that is not one, as [field, message]; text in place of numbers. */
function invalidQuantities(field: string, map: unknown, rule: QuantityRule = 'any'): [string, string] | undefined {
  if (map === undefined || map === null) return undefined
  if (!isMap(map)) return [field, `must be a map of quantities, got ${describe(map)}`]
  for (const k in map) {
    const q = asString(map, k)
    // Not the pre-resize-capacity annotation: the controller tolerates a bad one.
    if (typeof q !== 'string') return [entryPath(field, k), `must be a quantity, got ${describe(q)}`]
    const refused = quantityRefusal(q)
    if (refused !== undefined)
      return [
        entryPath(field, k),
        `invalid quantity ${q.length > 80 ? `${JSON.stringify(q.slice(0, 80)).slice(0, -1)}…" (${q.length} characters)` : JSON.stringify(q)}${refused}`,
      ]
    if (rule === 'any') continue
    const nanos = parseQuantity(q).nanos
    if (nanos < 0n) return [entryPath(field, k), `${JSON.stringify(q)}: must be greater than or equal to 0`]
    if (rule === 'storage-positive' && k === 'storage' && nanos === 0n)
      return [entryPath(field, k), `${JSON.stringify(q)}: must be greater than zero`]
  }
  return undefined
}

/**
 * Why q is not a quantity pvctl reads: '' for a string ParseQuantity refuses too (kubectl's message says no
 * more), pvctl's own bound's words for one it refuses beyond ParseQuantity (quantity.ts), undefined when it
 * is one.
 */
function quantityRefusal(q: string): string | undefined {
  try {
    parseQuantity(q)
    return undefined
  } catch (err) {
    if (err instanceof QuantityError) return err.reason === 'range' ? `: ${err.message}` : ''
    throw err
  }
}

/** The path of a map's entry ("spec.capacity.storage"), built only for a message: most maps are valid. */
function entryPath(field: string, key: string): string {
  return `${field}${fieldKey(key)}`
}

type Shape = 'string' | 'object' | 'string[]' | 'object[]'

// Field → shape, for the fields the engine reads. Absent and null are always accepted.
const shapes: Record<string, Array<[string, Shape]>> = {
  PersistentVolume: [
    ['spec.accessModes', 'string[]'],
    ['spec.claimRef', 'object'],
    ['spec.claimRef.name', 'string'],
    ['spec.claimRef.namespace', 'string'],
    ['spec.claimRef.uid', 'string'],
    ['spec.persistentVolumeReclaimPolicy', 'string'],
    ['spec.storageClassName', 'string'],
    ['spec.volumeMode', 'string'],
    ['metadata.finalizers', 'string[]'],
    ['status.phase', 'string'],
    ['status.message', 'string'],
  ],
  PersistentVolumeClaim: [
    ['spec.accessModes', 'string[]'],
    ['spec.volumeName', 'string'],
    ['spec.storageClassName', 'string'],
    ['spec.volumeMode', 'string'],
    ['status.phase', 'string'],
    ['status.accessModes', 'string[]'],
  ],
  StorageClass: [
    ['provisioner', 'string'],
    ['volumeBindingMode', 'string'],
    ['reclaimPolicy', 'string'],
    ['mountOptions', 'string[]'],
  ],
  Pod: [
    ['spec.nodeName', 'string'],
    ['spec.volumes', 'object[]'],
    ['status.phase', 'string'],
    ['status.initContainerStatuses', 'object[]'],
    ['status.containerStatuses', 'object[]'],
    ['status.ephemeralContainerStatuses', 'object[]'],
  ],
}

const SHAPE_MESSAGES: Record<Shape, string> = {
  string: 'a string',
  object: 'an object',
  'string[]': 'a list of strings',
  'object[]': 'a list of objects',
}

/** The shapes with their paths split once, not once per object checked. */
const compiledShapes = new Map(
  Object.entries(shapes).map(([kind, fields]) => [
    kind,
    fields.map(([field, shape]) => ({field, path: field.split('.'), shape})),
  ]),
)

function checkShapes(kind: string, obj: Obj, spec: Obj, status: Obj): [string, string] | undefined {
  const fields = compiledShapes.get(kind)
  if (fields === undefined) return undefined
  // Indexed, with no closure: this runs for every object of a dump, a dozen fields each.
  for (let f = 0; f < fields.length; f++) {
    const {field, path, shape} = fields[f]
    const head = path[0]
    let value: unknown = head === 'spec' ? spec : head === 'status' ? status : obj[head]
    for (let i = 1; i < path.length; i++) value = isMap(value) ? value[path[i]] : undefined
    if (value === undefined || value === null) continue
    const ok =
      shape === 'string' ? typeof value === 'string' : shape === 'object' ? isMap(value) : isListOf(value, shape)
    if (!ok) return [field, `must be ${SHAPE_MESSAGES[shape]}, got ${describe(value)}`]
  }
  return undefined
}

/** Whether the value is a list whose every element is a string ('string[]') or an object ('object[]'). */
function isListOf(value: unknown, shape: 'string[]' | 'object[]'): boolean {
  if (!Array.isArray(value)) return false
  for (let i = 0; i < value.length; i++) {
    const v: unknown = value[i]
    if (shape === 'string[]' ? typeof v !== 'string' : !isMap(v)) return false
  }
  return true
}

function fieldKey(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`
}

/** isObject for values already unwrapped (validate and checkShapes): no YamlScalar is left to rule out. */
function isMap(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof YamlScalar)
}

function describe(v: unknown): string {
  if (v instanceof YamlScalar) return describe(v.value)
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'a list'
  // A wrong file's content is quoted, not echoed whole: at most 80 characters of it.
  if (typeof v === 'string')
    return `a string ${v.length > 80 ? `${JSON.stringify(v.slice(0, 80)).slice(0, -1)}…" (${v.length} characters)` : JSON.stringify(v)}`
  if (typeof v === 'object') return 'an object'
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a number, boolean, bigint or symbol here
  return `${typeof v === 'number' ? 'a number' : typeof v === 'boolean' ? 'a boolean' : typeof v} ${String(v)}`
}
