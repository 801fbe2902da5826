// On a terminal of 60 columns (a pseudo-terminal made by script(1), `stty cols 60`), what pvctl prints
// fits it: a table's free-text column wraps within what the other columns leave, or, where that would
// leave it unreadably narrow, the table is not wrapped at all (its lines are the pipe's, for the terminal
// to fold, as kubectl's); sentences wrap at spaces. The words are always the pipe's: nothing is cut.
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {test} from 'node:test'

import {bin, cleanEnv, example, runCli} from './run-cli.js'

const hasScript = spawnSync('script', ['--version'], {encoding: 'utf8'}).status === 0
const WIDTH = 60

/** What pvctl prints on a terminal of WIDTH columns, without colour. */
function onTerminal(args: readonly string[]): string {
  const command = `stty cols ${WIDTH} rows 50; exec ${[process.execPath, bin, ...args].map((a) => `'${a}'`).join(' ')}`
  const run = spawnSync('script', ['-qec', command, '/dev/null'], {
    env: cleanEnv({NO_COLOR: '1', TERM: 'xterm'}),
    encoding: 'utf8',
  })
  return run.stdout.replace(/\r\n/g, '\n')
}

/** The text without its blanks: what is printed, however it is wrapped (a word too long for its column is split). */
const words = (text: string) => text.replace(/\s+/g, '')

/** The lines of the block that starts with a line matching `first`, up to the blank line that ends it. */
function block(text: string, first: RegExp): string[] {
  const lines = text.split('\n')
  const start = lines.findIndex((l) => first.test(l))
  assert.notEqual(start, -1, `no line matches ${first}`)
  const end = lines.indexOf('', start)
  return lines.slice(start, end === -1 ? undefined : end)
}

const tooWide = (lines: readonly string[]) => lines.filter((l) => [...l].length > WIDTH)

test(
  `sync --dry-run at ${WIDTH} columns: the plan's table and its summary fit; the events table, too narrow to wrap, is the pipe's`,
  {skip: hasScript ? false : 'script(1) is not installed'},
  async () => {
    const args = ['sync', '--dry-run', '-f', example, '--kube-version', '1.31']
    const [tty, pipe] = [onTerminal(args), (await runCli(args)).stdout]
    assert.deepEqual(tooWide(block(tty, /^ACTION +OBJECT +REASON$/)), [])
    assert.deepEqual(tooWide(block(tty, /^Plan: /)), [])
    assert.deepEqual(block(tty, /^TYPE +REASON +OBJECT +MESSAGE$/), block(pipe, /^TYPE +REASON +OBJECT +MESSAGE$/))
    assert.deepEqual(words(tty), words(pipe))
  },
)

test(
  `explain at ${WIDTH} columns: its sentences wrap to the width; the candidates table, too narrow to wrap, is the pipe's`,
  {skip: hasScript ? false : 'script(1) is not installed'},
  async () => {
    const args = ['explain', 'pvc/logs', '-n', 'shop', '-f', example, '--kube-version', '1.31']
    const [tty, pipe] = [onTerminal(args), (await runCli(args)).stdout]
    const table = block(tty, /^VOLUME +CAPACITY/)
    assert.deepEqual(table, block(pipe, /^VOLUME +CAPACITY/))
    assert.deepEqual(tooWide(tty.split('\n').filter((l) => !table.includes(l))), [])
    assert.deepEqual(words(tty), words(pipe))
  },
)

test(
  `audit at ${WIDTH} columns: a findings table wraps its messages within the width, or, too narrow to wrap, is the pipe's`,
  {skip: hasScript ? false : 'script(1) is not installed'},
  async () => {
    const args = ['audit', '-f', example, '--kube-version', '1.31']
    const [tty, pipe] = [onTerminal(args), (await runCli(args)).stdout]
    // A table's rows, up to its fixes (commands, never wrapped: they are copied whole).
    const table = (text: string, severity: string) => {
      const rows = block(text.slice(text.indexOf(`${severity}:`)), /^CODE +OBJECT +MESSAGE$/)
      return rows.slice(0, rows.indexOf('Fix:'))
    }
    // The warnings' codes and objects leave their messages room to wrap in.
    assert.deepEqual(tooWide(table(tty, 'Warnings')), [])
    assert.ok(table(tty, 'Warnings').length > table(pipe, 'Warnings').length, 'the warnings wrap')
    // The errors' (ClaimNoMatchingVolume, pvc/shop/reports-b) leave less than MIN_TEXT_WIDTH: the pipe's lines.
    assert.deepEqual(table(tty, 'Errors'), table(pipe, 'Errors'))
    assert.deepEqual(tooWide(block(tty, /^Audit: /)), [])
    // The capacity bars are the terminal's extra; the findings' words are the pipe's.
    assert.deepEqual(words(tty.slice(tty.indexOf('Errors:'))), words(pipe.slice(pipe.indexOf('Errors:'))))
  },
)

test(
  'the notice of the release decided as is said once, on a terminal as in a pipe',
  {skip: hasScript ? false : 'script(1) is not installed'},
  async () => {
    const args = ['audit', '-f', example]
    const count = (text: string) => text.split('pvctl: decided as').length - 1
    assert.equal(count(onTerminal(args)), 1)
    assert.equal(count((await runCli(args)).stderr), 1)
  },
)

test(
  `a notice on stderr wraps to the ${WIDTH} columns of the terminal, and stays one line in a pipe`,
  {skip: hasScript ? false : 'script(1) is not installed'},
  async () => {
    const args = ['sync', '--dry-run', '-f', example, '-o', 'json']
    const [tty, pipe] = [onTerminal(args), (await runCli(args)).stderr]
    const notice = pipe.split('\n').find((l) => l.startsWith('pvctl: decided as'))
    assert.ok(
      notice !== undefined && [...notice].length > WIDTH,
      `a notice wider than ${WIDTH} columns in the pipe: ${pipe}`,
    )
    const at = tty.indexOf('pvctl: decided as')
    const shown = block(tty.slice(at), /^pvctl: decided as/)
    assert.ok(shown.length > 1, 'the notice takes several lines on the terminal')
    assert.deepEqual(tooWide(shown), [])
    assert.equal(words(shown.join('\n')), words(notice))
  },
)
