// writeChunks: back-pressure (no write while the stream's buffer is full), a reader that goes away (EPIPE:
// `pvctl sync -o json | head`) ends the output quietly, any other write error is the caller's. The CLI
// rows run the built pvctl with a reader that closes its end after the first bytes.
import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {EventEmitter} from 'node:events'
import {closeSync, existsSync, openSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, it} from 'node:test'

import {clusterJson, generateCluster} from '../../bench/generate-cluster.js'
import {terminalWidth, writeChunks} from '../../src/cli/write-chunks.js'
import {bin, cleanEnv, example, repoRoot, tempDir, withoutVersionNotice} from './run-cli.js'

/** A stream whose buffer is full after every `capacity` writes until the test drains it. */
class FakeStream extends EventEmitter {
  written: string[] = []
  destroyed = false
  /** Writes made while the stream had said it was full. */
  writesWhileFull = 0
  private full = false

  constructor(
    private readonly capacity: number,
    private readonly failAt?: {index: number; code: string},
  ) {
    super()
  }

  write(chunk: string): boolean {
    if (this.full) this.writesWhileFull++
    if (this.failAt !== undefined && this.written.length === this.failAt.index) {
      // As a node Writable: destroyed at once, the error emitted a tick later, then 'close'.
      const err = Object.assign(new Error(`write ${this.failAt.code}`), {code: this.failAt.code})
      this.destroyed = true
      process.nextTick(() => (this.emit('error', err), this.emit('close')))
    }
    this.written.push(chunk)
    this.full = this.written.length % this.capacity === 0
    // The reader catches up a little later.
    if (this.full) setTimeout(() => ((this.full = false), this.emit('drain')), 1)
    return !this.full
  }
}

const chunks = Array.from({length: 20}, (_, i) => `chunk ${i}\n`)

describe('writeChunks', () => {
  const cases = [
    {name: 'a fast reader takes everything', capacity: 1000, failAt: undefined, outcome: 'written', count: 20},
    {
      name: 'a slow reader: waits for drain, then writes on',
      capacity: 3,
      failAt: undefined,
      outcome: 'written',
      count: 20,
    },
    {
      name: 'the reader goes away (EPIPE): stops quietly',
      capacity: 3,
      failAt: {index: 4, code: 'EPIPE'},
      outcome: 'closed',
      count: 5,
    },
    {
      name: 'a destroyed stream is a closed reader too',
      capacity: 1000,
      failAt: {index: 0, code: 'ERR_STREAM_DESTROYED'},
      outcome: 'closed',
      count: 1,
    },
  ] as const
  for (const c of cases) {
    it(c.name, async () => {
      const stream = new FakeStream(c.capacity, c.failAt)
      assert.equal(await writeChunks(stream, chunks), c.outcome)
      assert.equal(stream.writesWhileFull, 0, 'wrote while the stream was full')
      // With EPIPE, what was written before the error is all there is: never a write after it is known.
      assert.ok(stream.written.length <= c.count, `${stream.written.length} writes`)
      if (c.outcome === 'written') assert.deepEqual(stream.written, chunks)
      assert.equal(stream.listenerCount('drain'), 0, 'left a drain listener behind')
    })
  }

  it('any other write error is thrown', async () => {
    const stream = new FakeStream(1000, {index: 2, code: 'ENOSPC'})
    await assert.rejects(writeChunks(stream, chunks), /ENOSPC/)
  })

  it('a file: written with its own writes, byte for byte what the stream would write', async () => {
    const file = path.join(tempDir('write-chunks'), 'out.json')
    const fd = openSync(file, 'w')
    // Multi-byte characters, a lone surrogate (written as U+FFFD, as the stream does), small chunks
    // gathered into one write, and a chunk larger than the buffer, which then grows.
    const text = ['{"a": "é€😀"}\n', '\ud800', 'é'.repeat(200_000), 'x'.repeat(400_000), '\n']
    const sink = {
      fd,
      write: () => assert.fail('the stream was used'),
      on: () => sink,
      once: () => sink,
      removeListener: () => sink,
    }
    try {
      assert.equal(await writeChunks(sink, text), 'written')
    } finally {
      closeSync(fd)
    }
    assert.deepEqual(readFileSync(file), Buffer.from(text.join(''), 'utf8'))
  })

  it('takes the chunks lazily: one generated chunk at a time', async () => {
    const stream = new FakeStream(2)
    let generated = 0
    function* lazy() {
      for (const c of chunks) {
        // Never more than one chunk ahead of what the stream accepted.
        assert.ok(generated <= stream.written.length, `${generated} generated, ${stream.written.length} written`)
        generated++
        yield c
      }
    }
    assert.equal(await writeChunks(stream, lazy()), 'written')
    assert.equal(generated, chunks.length)
  })
})

/** `pvctl ARGS | head -c 1`: the reader takes one chunk and closes its end of the pipe. */
function runIntoClosedPipe(
  args: readonly string[],
): Promise<{code: number | null; signal: string | null; stderr: string}> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: repoRoot,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()))
    child.stdout.once('data', () => child.stdout.destroy())
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({code, signal, stderr}))
  })
}

describe('pvctl sync into a pipe closed early', () => {
  // Large enough that every output outruns the pipe's buffer (64 KiB): the writes after the close fail.
  const snapshot = path.join(tempDir('closed-pipe'), 'cluster.json')
  writeFileSync(snapshot, clusterJson(generateCluster(500)))
  for (const output of ['json', 'yaml', 'diff', 'wide']) {
    it(`-o ${output}: no error, no stack trace, the dry run's exit status`, async () => {
      const result = await runIntoClosedPipe(['sync', '--dry-run', '-f', snapshot, '-o', output])
      assert.equal(withoutVersionNotice(result.stderr).replace(/^pvctl: skipped .*\n/gm, ''), '')
      assert.equal(result.signal, null)
      assert.equal(result.code, 1)
    })
  }
})

describe(
  'pvctl writing to a full disk (/dev/full)',
  {skip: existsSync('/dev/full') ? false : 'no /dev/full on this machine'},
  () => {
    for (const args of [
      ['sync', '--dry-run', '-f', example],
      ['sync', '--dry-run', '-f', example, '-o', 'json'],
      ['explain', '-f', example],
    ]) {
      it(`${args.join(' ')}: one line naming the failure, exit 2, no stack trace`, async () => {
        const result = await new Promise<{code: number | null; stderr: string}>((resolve, reject) => {
          const full = openSync('/dev/full', 'w')
          const child = spawn(process.execPath, [bin, ...args], {
            cwd: repoRoot,
            env: cleanEnv(),
            stdio: ['ignore', full, 'pipe'],
          })
          let stderr = ''
          child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()))
          child.on('error', reject)
          child.on('close', (code) => {
            closeSync(full)
            resolve({code, stderr})
          })
        })
        assert.equal(result.stderr, 'error: cannot write the output: ENOSPC: no space left on device, write\n')
        assert.equal(result.code, 2)
      })
    }
  },
)

it("terminalWidth: a terminal's columns; COLUMNS, else 80, for one that does not tell its size; undefined for a pipe", () => {
  const rows: Array<[{isTTY?: boolean; columns?: number}, Record<string, string>, number | undefined]> = [
    [{isTTY: true, columns: 60}, {COLUMNS: '200'}, 60],
    [{isTTY: true, columns: 0}, {COLUMNS: '200'}, 200],
    [{isTTY: true, columns: 0}, {}, 80],
    [{isTTY: true}, {COLUMNS: 'wide'}, 80],
    [{isTTY: false, columns: 60}, {COLUMNS: '200'}, undefined],
    [{}, {}, undefined],
  ]
  for (const [stream, env, want] of rows) assert.equal(terminalWidth(stream, env), want, JSON.stringify([stream, env]))
})
