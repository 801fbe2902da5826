// What `pvctl __complete WORD... CURRENT` answers: the candidates for the word being completed, as cobra's
// hidden `__complete` command answers kubectl's shell scripts. PURE: the commands' surface and the words in,
// either the candidates or what names to read (claims, volumes, namespaces, contexts) and how to show them.

import type {NameSource, NamesFound} from '../../app/completion-names.js'
import {commandIndex, valueFlags} from '../command-first.js'

/** cobra's ShellCompDirective bits, which the shell scripts read from the last line (`:4`). */
export const Directive = {
  /** Complete with the candidates; with none, the shell completes file names. */
  Default: 0,
  /** Something failed: complete nothing. */
  Error: 1,
  /** No space after the candidate (`pvc/` goes on with a name). */
  NoSpace: 2,
  /** With no candidate, complete nothing (not file names). */
  NoFileComp: 4,
} as const

export interface CompletionFlag {
  name: string
  char?: string
  /** Takes a value (`--output json`); a boolean does not. */
  takesValue: boolean
  options?: readonly string[]
  /** May be given more than once (-f a -f b). */
  multiple?: boolean
  allowNo?: boolean
  summary?: string
}

export interface CompletionCommand {
  id: string
  aliases: readonly string[]
  summary?: string
  hidden?: boolean
  flags: readonly CompletionFlag[]
  /** The positional arguments, by name, with their options when they have fixed ones. */
  args: ReadonlyArray<{name: string; options?: readonly string[]}>
  /** false: any number of positional arguments (sync's and audit's objects). */
  strict: boolean
}

/** A candidate and the line of help the shells that show one (zsh, fish, PowerShell) print beside it. */
export interface Candidate {
  value: string
  description?: string
}

export type NameKind = 'claims' | 'volumes' | 'namespaces' | 'contexts'

/** Names to read before the candidates can be given: each becomes `prefix + name`, kept if it starts with `partial`. */
export interface NamesWanted {
  kind: NameKind
  source: NameSource
  /** Claims: of this namespace (-n on the line); undefined: the context's, else default (the caller resolves it). */
  namespace?: string
  allNamespaces: boolean
  prefix: string
  partial: string
  /** Names already on the line (`sync pvc a <TAB>` does not offer a again). */
  exclude: readonly string[]
}

export type Answer = {candidates: Candidate[]; directive: number} | {names: NamesWanted}

const CLAIM_TYPES = ['pvc', 'pvcs', 'persistentvolumeclaim', 'persistentvolumeclaims']
const VOLUME_TYPES = ['pv', 'pvs', 'persistentvolume', 'persistentvolumes']
/** The type words offered where an object goes, as kubectl offers its short names. */
const OFFERED_TYPES = ['pvc', 'pv']

/** Flags whose values are file names: the shell completes them. */
const FILE_FLAGS = new Set(['filename', 'kubeconfig', 'recycler-pod-template'])
/** Positional arguments that name objects (pvc/NAME, pv/NAME, TYPE NAME). */
const OBJECT_ARGS = new Set(['objects', 'object', 'volume'])

const ROOT_FLAGS: Candidate[] = [
  {value: '--help', description: 'Show help.'},
  {value: '--version', description: "Print pvctl's version."},
]

/**
 * The answer for `words`, the words after the program's name, the last being the one completed (''
 * after a space).
 */
export function complete(words: readonly string[], commands: readonly CompletionCommand[]): Answer {
  const current = words.length === 0 ? '' : words[words.length - 1]
  const before = words.slice(0, -1)
  // oclif lists an alias (why) as a command of its own: offered once, as its command.
  const visible = commands
    .filter((c) => c.hidden !== true && !commands.some((o) => o.aliases.includes(c.id)))
    .sort((a, b) => (a.id < b.id ? -1 : 1))
  // Flags may come before the command, as kubectl's do (`pvctl -n shop explain pvc/<TAB>`).
  const takesValue = valueFlags(commands)
  const at = commandIndex(before, takesValue)
  if (at === undefined) {
    // The value of a flag before any command (`pvctl -n <TAB>`): as a command that has the flag completes it.
    const flag = before.at(-1)
    const holder =
      flag !== undefined && takesValue(flag) ? visible.find((c) => findFlag(c, flag) !== undefined) : undefined
    if (holder !== undefined) return completeCommand(holder, before, current, visible)
    if (current.startsWith('-')) return byPrefix(ROOT_FLAGS, current, Directive.NoFileComp)
    return byPrefix(
      visible.map((c) => ({value: c.id, description: c.summary})),
      current,
      Directive.NoFileComp,
    )
  }
  const command = commands.find((c) => c.id === before[at] || c.aliases.includes(before[at]))
  if (command === undefined) return {candidates: [], directive: Directive.NoFileComp}
  return completeCommand(command, [...before.slice(0, at), ...before.slice(at + 1)], current, visible)
}

interface LineState {
  given: Map<string, string[]>
  positionals: string[]
  /** The flag whose value `current` is, when the word before it is that flag. */
  pending?: CompletionFlag
}

function completeCommand(
  command: CompletionCommand,
  before: readonly string[],
  current: string,
  visible: readonly CompletionCommand[],
): Answer {
  const line = readLine(command, before)
  const source: NameSource = {
    // -f a.yaml,b.yaml is two files, as the commands read it.
    filename: line.given
      .get('filename')
      ?.flatMap((f) => f.split(','))
      .filter((f) => f !== ''),
    kubeconfig: last(line.given.get('kubeconfig')),
    context: last(line.given.get('context')),
    requestTimeout: last(line.given.get('request-timeout')),
  }
  if (line.pending !== undefined) return flagValue(line.pending, current, '', line, source)
  if (current.startsWith('-') && !line.given.has('--')) {
    const eq = current.indexOf('=')
    if (eq > 0) {
      const flag = findFlag(command, current.slice(0, eq))
      if (flag === undefined || !flag.takesValue) return {candidates: [], directive: Directive.NoFileComp}
      return flagValue(flag, current.slice(eq + 1), current.slice(0, eq + 1), line, source)
    }
    return byPrefix(flagNames(command, line, !current.startsWith('--')), current, Directive.NoFileComp)
  }
  return positional(command, line, current, source, visible)
}

/** The flags given so far (by long name, with their values), the positional words, and a flag left waiting for its value. */
function readLine(command: CompletionCommand, words: readonly string[]): LineState {
  const given = new Map<string, string[]>()
  const positionals: string[] = []
  const add = (name: string, value: string) => given.set(name, [...(given.get(name) ?? []), value])
  let pending: CompletionFlag | undefined
  let flagsEnded = false
  for (const word of words) {
    if (pending !== undefined) {
      add(pending.name, word)
      pending = undefined
    } else if (flagsEnded || !word.startsWith('-') || word === '-') {
      positionals.push(word)
    } else if (word === '--') {
      flagsEnded = true
      given.set('--', [])
    } else {
      const eq = word.indexOf('=')
      const flag = findFlag(command, eq > 0 ? word.slice(0, eq) : word)
      // -fFILE: a short flag and its value in one word.
      const glued = flag === undefined && /^-[^-]/.test(word) ? findFlag(command, word.slice(0, 2)) : undefined
      if (flag !== undefined && eq > 0) add(flag.name, word.slice(eq + 1))
      else if (flag !== undefined && flag.takesValue) pending = flag
      else if (flag !== undefined) add(flag.name, 'true')
      else if (glued !== undefined && glued.takesValue) add(glued.name, word.slice(2))
      else {
        // A flag pvctl does not have: the command will say so; it takes no value here.
      }
    }
  }
  return {given, positionals, pending}
}

function findFlag(command: CompletionCommand, word: string): CompletionFlag | undefined {
  if (word.startsWith('--')) {
    const name = word.slice(2)
    return command.flags.find((f) => f.name === name || (f.allowNo === true && `no-${f.name}` === name))
  }
  return command.flags.find((f) => f.char !== undefined && `-${f.char}` === word)
}

function flagNames(command: CompletionCommand, line: LineState, withShort: boolean): Candidate[] {
  const out: Candidate[] = []
  for (const f of command.flags) {
    // A flag given once is not offered again, unless it may be repeated (-f a -f b).
    if (line.given.has(f.name) && f.multiple !== true) continue
    out.push({value: `--${f.name}`, description: f.summary})
    if (f.allowNo === true) out.push({value: `--no-${f.name}`, description: f.summary})
    if (withShort && f.char !== undefined) out.push({value: `-${f.char}`, description: f.summary})
  }
  if (!line.given.has('help')) out.push({value: '--help', description: 'Show help.'})
  return out
}

/** The value of `flag`, given as `prefix` + `partial` (`--output=` + `js`, or '' + `js` after `-o`). */
function flagValue(flag: CompletionFlag, partial: string, prefix: string, line: LineState, source: NameSource): Answer {
  if (flag.options !== undefined)
    return byPrefix(
      flag.options.map((o) => ({value: `${prefix}${o}`})),
      prefix + partial,
      Directive.NoFileComp,
    )
  if (FILE_FLAGS.has(flag.name)) {
    // The shell completes file names; `--kubeconfig=PATH` cannot be split for it, so nothing then.
    return {candidates: [], directive: prefix === '' ? Directive.Default : Directive.NoFileComp}
  }
  if (flag.name === 'namespace') return {names: wanted('namespaces', line, source, prefix, partial, [])}
  if (flag.name === 'context') return {names: wanted('contexts', line, source, prefix, partial, [])}
  return {candidates: [], directive: Directive.NoFileComp}
}

function positional(
  command: CompletionCommand,
  line: LineState,
  current: string,
  source: NameSource,
  visible: readonly CompletionCommand[],
): Answer {
  const index = line.positionals.length
  const spec = command.args.length === 0 ? undefined : command.args[Math.min(index, command.args.length - 1)]
  if (spec === undefined || (command.strict && index >= command.args.length))
    return {candidates: [], directive: Directive.NoFileComp}
  // `pvctl help <TAB>`: the commands.
  if (command.id === 'help')
    return byPrefix(
      visible.map((c) => ({value: c.id, description: c.summary})),
      current,
      Directive.NoFileComp,
    )
  if (spec.options !== undefined)
    return byPrefix(
      spec.options.map((o) => ({value: o})),
      current,
      Directive.NoFileComp,
    )
  if (!OBJECT_ARGS.has(command.args[0]?.name ?? '')) return {candidates: [], directive: Directive.NoFileComp}
  return objectWord(command, line, current, source)
}

/** An object argument: a type word, TYPE/NAME, or a name after a type word (TYPE NAME...). */
function objectWord(command: CompletionCommand, line: LineState, current: string, source: NameSource): Answer {
  const first = line.positionals.at(0)?.toLowerCase()
  const typed = first !== undefined && !first.includes('/') ? kindOfType(first) : undefined
  if (typed !== undefined) {
    // TYPE NAME...: names of that type; one name for a command that takes one object (explain).
    if (command.strict && line.positionals.length > 1) return {candidates: [], directive: Directive.NoFileComp}
    return {names: wanted(typed, line, source, '', current, line.positionals.slice(1))}
  }
  const slash = current.indexOf('/')
  if (slash > 0) {
    const kind = kindOfType(current.slice(0, slash).toLowerCase())
    if (kind === undefined) return {candidates: [], directive: Directive.NoFileComp}
    const named = line.positionals.filter((p) => p.includes('/')).map((p) => p.slice(p.indexOf('/') + 1))
    return {names: wanted(kind, line, source, current.slice(0, slash + 1), current.slice(slash + 1), named)}
  }
  // A command that takes one object has it already (explain pvc/a <TAB>).
  if (command.strict && line.positionals.length > 0) return {candidates: [], directive: Directive.NoFileComp}
  // After TYPE/NAME objects, only more TYPE/NAME ones: the type words offer `pvc/`, as kubectl offers it.
  const slashed = line.positionals.length > 0
  const types = OFFERED_TYPES.map((t) => ({
    value: slashed ? `${t}/` : t,
    description: t === 'pvc' ? 'PersistentVolumeClaim' : 'PersistentVolume',
  }))
  return byPrefix(types, current, slashed ? Directive.NoSpace | Directive.NoFileComp : Directive.NoFileComp)
}

function kindOfType(word: string): 'claims' | 'volumes' | undefined {
  if (CLAIM_TYPES.includes(word)) return 'claims'
  if (VOLUME_TYPES.includes(word)) return 'volumes'
  return undefined
}

function wanted(
  kind: NameKind,
  line: LineState,
  source: NameSource,
  prefix: string,
  partial: string,
  exclude: readonly string[],
): NamesWanted {
  return {
    kind,
    source,
    namespace: last(line.given.get('namespace')),
    allNamespaces: line.given.has('all-namespaces'),
    prefix,
    partial,
    exclude,
  }
}

/** The candidates once the names are read: sorted, once each, those that start with what was typed. */
export function withNames(
  want: NamesWanted,
  found: NamesFound,
  namespace: string,
): {candidates: Candidate[]; directive: number} {
  let names: string[]
  switch (want.kind) {
    case 'claims':
      names = found.claims.filter((c) => want.allNamespaces || c.namespace === namespace).map((c) => c.name)
      break
    case 'volumes':
      names = [...found.volumes]
      break
    case 'namespaces':
      names = found.claims.map((c) => c.namespace)
      break
    case 'contexts':
      names = [...found.contexts]
      break
  }
  const excluded = new Set(want.exclude)
  const values = [...new Set(names)].filter((n) => !excluded.has(n) && n.startsWith(want.partial)).sort()
  return {candidates: values.map((n) => ({value: `${want.prefix}${n}`})), directive: Directive.NoFileComp}
}

function byPrefix(
  candidates: readonly Candidate[],
  current: string,
  directive: number,
): {candidates: Candidate[]; directive: number} {
  return {candidates: candidates.filter((c) => c.value.startsWith(current)), directive}
}

function last(values: readonly string[] | undefined): string | undefined {
  return values?.[values.length - 1]
}

/** cobra's output: one candidate a line (a tab, then its description), then `:DIRECTIVE`. */
export function formatAnswer(answer: {candidates: readonly Candidate[]; directive: number}): string {
  const lines = answer.candidates.map((c) =>
    c.description !== undefined && c.description !== '' ? `${c.value}\t${oneLine(c.description)}` : c.value,
  )
  return [...lines, `:${answer.directive}`].join('\n') + '\n'
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim()
}
