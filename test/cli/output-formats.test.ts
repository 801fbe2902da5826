// -o as kubectl users try it: every command with -o prints kubectl's jsonpath= and custom-columns= of the
// document its -o json prints; a format the command does not have is one error line that names the
// commands that have it (sync -o junit: audit's CI formats; explain -o wide), or says what to use instead
// (kubectl's go-template), exit 2, nothing on stdout.
import assert from 'node:assert/strict'
import path from 'node:path'
import {test} from 'node:test'

import {example, repoRoot, runCli} from './run-cli.js'

const commands: Array<{name: string; args: string[]}> = [
  {name: 'sync', args: ['sync', '--dry-run', '-f', example]},
  {name: 'explain', args: ['explain', 'pvc/logs', '-n', 'shop', '-f', example]},
  {name: 'explain (a List)', args: ['explain', '-A', '-f', example]},
  {name: 'audit', args: ['audit', '-f', example]},
  {
    name: 'reclaim',
    args: ['reclaim', 'pv/pv-0004', '--for', 'shop/db', '-f', path.join(repoRoot, 'examples', 'reclaim.yaml')],
  },
  {name: 'relink', args: ['relink', 'pvc/db', '-n', 'shop', '-f', path.join(repoRoot, 'examples', 'relink.yaml')]},
]

test(
  'every command with -o prints -o jsonpath= and -o custom-columns= of its -o json document, with the exit status of -o json',
  {concurrency: 3},
  async (t) => {
    for (const {name, args} of commands) {
      await t.test(name, async () => {
        const json = await runCli([...args, '-o', 'json'])
        const doc = JSON.parse(json.stdout) as {kind: string; apiVersion: string; items?: Array<{kind: string}>}
        const jsonpath = await runCli([...args, '-o', 'jsonpath={.kind} {.apiVersion}'])
        assert.equal(jsonpath.code, json.code, jsonpath.stderr)
        assert.equal(jsonpath.stdout, `${doc.kind} ${doc.apiVersion}`)
        const columns = await runCli([...args, '-o', 'custom-columns=KIND:.kind', '--no-headers'])
        assert.equal(columns.code, json.code, columns.stderr)
        // A row per item of a List, else one for the document.
        assert.equal(columns.stdout, `${(doc.items ?? [doc]).map((item) => item.kind).join('\n')}\n`)
      })
    }
  },
)

test('a range over the actions of a plan, as kubectl scripts write them', async () => {
  const run = await runCli([
    'sync',
    '--dry-run',
    '-f',
    example,
    '-o',
    'jsonpath={range .actions[?(@.action=="delete")]}{.object.name}{"\\n"}{end}',
  ])
  assert.equal(run.code, 1, run.stderr)
  assert.equal(run.stdout, 'pv-0006\n')
})

test(
  'a format the command does not have: one error line pointing at the command that has it, or at what to use, exit 2',
  {concurrency: 4},
  async (t) => {
    const rows: Array<{args: string[]; error: RegExp}> = [
      {
        args: ['sync', '--dry-run', '-f', example, '-o', 'junit'],
        error:
          /^error: --output junit: pvctl sync prints table, wide, diff, json, yaml, name, jsonpath=TEMPLATE, custom-columns=SPEC; junit is pvctl audit's \(pvctl audit -o junit\)$/,
      },
      {
        args: ['sync', '--dry-run', '-f', example, '-o', 'markdown'],
        error: /; markdown is pvctl audit's \(pvctl audit -o markdown\)$/,
      },
      {
        args: ['explain', 'pvc/logs', '-n', 'shop', '-f', example, '-o', 'wide'],
        error:
          /^error: --output wide: pvctl explain prints table, json, yaml, name, jsonpath=TEMPLATE, custom-columns=SPEC; wide is pvctl sync's and pvctl audit's \(pvctl sync -o wide\)$/,
      },
      {
        args: ['audit', '-f', example, '-o', 'diff'],
        error: /; diff is pvctl sync's and pvctl reclaim's and pvctl relink's \(pvctl sync -o diff\)$/,
      },
      {
        args: ['sync', '--dry-run', '-f', example, '-o', 'go-template={{.kind}}'],
        error: /^error: --output go-template: not supported; pvctl sync prints .* \(or use -o json \| jq\)$/,
      },
      {
        args: ['audit', '-f', example, '-o', 'jsonpath-file=x.tpl'],
        error: /^error: --output jsonpath-file: not supported;/,
      },
      {
        args: ['sync', '--dry-run', '-f', example, '-o', 'jsonpath={.actions[*]'],
        error: /^error: --output jsonpath: unclosed action/,
      },
      {
        args: ['explain', '-A', '-f', example, '-o', 'custom-columns=NAME'],
        error: /^error: --output custom-columns: "NAME" is not HEADER:PATH/,
      },
      {
        args: ['sync', '--dry-run', '-f', example, '-o', 'tabel'],
        error: /^error: --output tabel: pvctl sync prints table, wide,/,
      },
    ]
    for (const {args, error} of rows) {
      await t.test(args.slice(-1)[0], async () => {
        const run = await runCli(args)
        assert.equal(run.code, 2, run.stderr)
        assert.equal(run.stdout, '')
        assert.match(run.stderr.trimEnd(), error)
        assert.equal(run.stderr.split('\n').filter((l) => l !== '').length, 1, run.stderr)
      })
    }
  },
)
