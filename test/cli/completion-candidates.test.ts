// What `pvctl __complete` answers for a line, without a shell: a table of lines (the words after `pvctl`,
// the last the one completed) and the candidates or the names to read, over a small surface shaped like
// pvctl's own.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import type {NamesFound} from '../../src/app/completion-names.js'
import {
  complete,
  type CompletionCommand,
  Directive,
  formatAnswer,
  withNames,
} from '../../src/cli/completion/candidates.js'

const source = [
  {name: 'filename', char: 'f', takesValue: true, multiple: true, summary: 'Snapshot to read.'},
  {name: 'kubeconfig', takesValue: true},
  {name: 'context', takesValue: true},
  {name: 'namespace', char: 'n', takesValue: true},
  {name: 'all-namespaces', char: 'A', takesValue: false},
]
const commands: CompletionCommand[] = [
  {
    id: 'sync',
    aliases: [],
    summary: 'Plan.',
    strict: false,
    args: [{name: 'objects'}],
    flags: [
      ...source,
      {name: 'output', char: 'o', takesValue: true, options: ['table', 'json', 'name']},
      {name: 'color', takesValue: false, allowNo: true},
      {name: 'rounds', takesValue: true},
    ],
  },
  {
    id: 'explain',
    aliases: ['why'],
    summary: 'Explain.',
    strict: true,
    args: [{name: 'object'}, {name: 'name'}],
    flags: source,
  },
  {id: 'why', aliases: [], summary: 'Explain.', strict: true, args: [{name: 'object'}, {name: 'name'}], flags: source},
  {
    id: 'audit',
    aliases: [],
    summary: 'Audit.',
    strict: false,
    args: [{name: 'objects'}],
    flags: [...source, {name: 'fail-on', takesValue: true, options: ['error', 'warning', 'info', 'none']}],
  },
  {
    id: 'completion',
    aliases: [],
    strict: true,
    args: [{name: 'shell', options: ['bash', 'zsh', 'fish', 'powershell']}],
    flags: [],
  },
  {id: 'help', aliases: [], strict: true, args: [{name: 'command'}], flags: []},
  {id: '__complete', aliases: [], hidden: true, strict: false, args: [], flags: []},
]

const found: NamesFound = {
  claims: [
    {namespace: 'shop', name: 'orders'},
    {namespace: 'shop', name: 'logs'},
    {namespace: 'default', name: 'scratch'},
  ],
  volumes: ['pv-0002', 'pv-0001'],
  contexts: ['prod', 'staging'],
}

interface Row {
  line: string[]
  /** The values offered, in order. */
  want: string[]
  directive?: number
}

const rows: Row[] = [
  // Commands: the hidden one and the alias are not offered.
  {line: [''], want: ['audit', 'completion', 'explain', 'help', 'sync']},
  {line: ['ex'], want: ['explain']},
  {line: ['--v'], want: ['--version']},
  {line: ['nope', ''], want: []},
  // Flags, not offered twice unless repeatable; short forms after a single dash.
  {line: ['sync', '--o'], want: ['--output']},
  {line: ['sync', '--co'], want: ['--context', '--color']},
  {line: ['sync', '--no'], want: ['--no-color']},
  {
    line: ['sync', '-'],
    want: [
      '--filename',
      '-f',
      '--kubeconfig',
      '--context',
      '--namespace',
      '-n',
      '--all-namespaces',
      '-A',
      '--output',
      '-o',
      '--color',
      '--no-color',
      '--rounds',
      '--help',
    ],
  },
  {line: ['sync', '-o', 'json', '--ou'], want: []},
  {line: ['sync', '-f', 'a.yaml', '--fi'], want: ['--filename']},
  // Values of flags with fixed ones, in both forms.
  {line: ['sync', '-o', ''], want: ['table', 'json', 'name']},
  {line: ['sync', '--output', 'j'], want: ['json']},
  {line: ['sync', '--output=n'], want: ['--output=name']},
  {line: ['audit', '--fail-on', ''], want: ['error', 'warning', 'info', 'none']},
  // Files for -f (the shell completes them), nothing for a free value.
  {line: ['sync', '-f', ''], want: [], directive: Directive.Default},
  {line: ['sync', '--rounds', ''], want: []},
  // Positional arguments with options, and help's commands.
  {line: ['completion', ''], want: ['bash', 'zsh', 'fish', 'powershell']},
  {line: ['completion', 'bash', ''], want: []},
  {line: ['help', 's'], want: ['sync']},
  // Object arguments: the type words; after a TYPE/NAME, more of them as `pvc/`.
  {line: ['explain', ''], want: ['pvc', 'pv']},
  {line: ['sync', 'pvc/orders', ''], want: ['pvc/', 'pv/'], directive: Directive.NoSpace | Directive.NoFileComp},
  {line: ['explain', 'pvc/orders', ''], want: []},
  // A flag pvctl does not have takes no value: the word after it is the object.
  {line: ['why', '--bogus', ''], want: ['pvc', 'pv']},
  {line: ['explain', 'pvc', 'orders', ''], want: []},
  {line: ['sync', 'pod/'], want: []},
]

for (const row of rows) {
  test(`complete: pvctl ${row.line.map((w) => (w === '' ? "''" : w)).join(' ')}`, () => {
    const answer = complete(row.line, commands)
    assert.ok(!('names' in answer), 'no names to read')
    assert.deepEqual(
      answer.candidates.map((c) => c.value),
      row.want,
    )
    assert.equal(answer.directive, row.directive ?? Directive.NoFileComp)
  })
}

interface NamesRow {
  line: string[]
  /** The names read, and the candidates made of them. */
  kind: string
  want: string[]
  source?: object
}

const namesRows: NamesRow[] = [
  {line: ['explain', '-n', 'shop', 'pvc', ''], kind: 'claims', want: ['logs', 'orders']},
  {line: ['explain', 'pvc', ''], kind: 'claims', want: ['scratch']},
  {line: ['explain', '-A', 'pvc', ''], kind: 'claims', want: ['logs', 'orders', 'scratch']},
  {
    line: ['why', '-f', 'snap.yaml', '-n', 'shop', 'pvc/o'],
    kind: 'claims',
    want: ['pvc/orders'],
    source: {filename: ['snap.yaml']},
  },
  {line: ['sync', '-n', 'shop', 'pvc', 'orders', ''], kind: 'claims', want: ['logs']},
  {
    line: ['sync', 'pvc/shop-x', 'persistentvolume/'],
    kind: 'volumes',
    want: ['persistentvolume/pv-0001', 'persistentvolume/pv-0002'],
  },
  {line: ['sync', 'pv/pv-0001', 'pv/'], kind: 'volumes', want: ['pv/pv-0002']},
  {
    line: ['audit', '-f', 'a.yaml', '-f', 'b.yaml', 'pv', ''],
    kind: 'volumes',
    want: ['pv-0001', 'pv-0002'],
    source: {filename: ['a.yaml', 'b.yaml']},
  },
  {
    line: ['audit', '-fa.yaml,b.yaml', 'pv', ''],
    kind: 'volumes',
    want: ['pv-0001', 'pv-0002'],
    source: {filename: ['a.yaml', 'b.yaml']},
  },
  {line: ['audit', '-n', ''], kind: 'namespaces', want: ['default', 'shop']},
  {line: ['audit', '--namespace=s'], kind: 'namespaces', want: ['--namespace=shop']},
  {
    line: ['sync', '--kubeconfig', 'k.yaml', '--context', 's'],
    kind: 'contexts',
    want: ['staging'],
    source: {kubeconfig: 'k.yaml'},
  },
  {line: ['sync', '--context=arn:aws', 'pvc', ''], kind: 'claims', want: ['scratch'], source: {context: 'arn:aws'}},
]

for (const row of namesRows) {
  test(`complete with names: pvctl ${row.line.map((w) => (w === '' ? "''" : w)).join(' ')}`, () => {
    const answer = complete(row.line, commands)
    assert.ok('names' in answer, 'names to read')
    assert.equal(answer.names.kind, row.kind)
    assert.deepEqual(
      Object.fromEntries(Object.entries(answer.names.source).filter(([, v]) => v !== undefined)),
      row.source ?? {},
    )
    const done = withNames(answer.names, found, answer.names.namespace ?? 'default')
    assert.deepEqual(
      done.candidates.map((c) => c.value),
      row.want,
    )
    assert.equal(done.directive, Directive.NoFileComp)
  })
}

test("cobra's output: a candidate a line, its description after a tab, then the directive", () => {
  assert.equal(
    formatAnswer({candidates: [{value: 'sync', description: 'Plan\n(and apply).'}, {value: 'json'}], directive: 4}),
    'sync\tPlan (and apply).\njson\n:4\n',
  )
  assert.equal(formatAnswer({candidates: [], directive: 0}), ':0\n')
})
