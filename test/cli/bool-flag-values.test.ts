// kubectl's `--flag=VALUE` on boolean flags, rewritten for oclif (which would read VALUE as an argument).
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {rewriteBooleanValues} from '../../src/cli/bool-flag-values.js'
import {UsageError} from '../../src/errors.js'

const flags = {
  'dry-run': {type: 'boolean'},
  color: {type: 'boolean', allowNo: true},
  'all-namespaces': {type: 'boolean'},
  output: {type: 'option'},
}

const rows: Array<[string[], string[]]> = [
  [['--dry-run=true'], ['--dry-run']],
  [
    ['--dry-run=client', 'pvc/a'],
    ['--dry-run', 'pvc/a'],
  ],
  [['--dry-run=server'], ['--dry-run']],
  [['--dry-run=none'], []],
  [['--dry-run=false'], []],
  [['--color=false'], ['--no-color']],
  [['--color=1'], ['--color']],
  [['--all-namespaces=True'], ['--all-namespaces']],
  // Not a boolean flag, an unknown flag, a bare flag, an argument: left for oclif.
  [
    ['--output=json', '--frob=1', '--dry-run', 'x=1'],
    ['--output=json', '--frob=1', '--dry-run', 'x=1'],
  ],
  // After `--`, everything is an argument.
  [
    ['--', '--dry-run=true'],
    ['--', '--dry-run=true'],
  ],
]

for (const [argv, want] of rows) {
  test(`${argv.join(' ')} → ${want.join(' ') || '(nothing)'}`, () => {
    assert.deepEqual(rewriteBooleanValues(argv, flags), want)
  })
}

for (const [argv, message] of [
  [['--dry-run=maybe'], '--dry-run=maybe: invalid value (true, false, client, server or none)'],
  [['--color=yes'], '--color=yes: invalid value (true or false)'],
] as const) {
  test(`${argv.join(' ')} is a usage error`, () => {
    assert.throws(
      () => rewriteBooleanValues(argv, flags),
      (err: unknown) => err instanceof UsageError && err.message === message,
    )
  })
}
