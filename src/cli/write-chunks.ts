// Writes rendered output to stdout a chunk at a time, so that no command ever holds its whole output as one
// string (V8 caps a string at 512 MiB; a 160k-volume report is more) or as one buffer.

import {fstatSync, writeSync} from 'node:fs'
import {isatty} from 'node:tty'

import {OutputError} from '../errors.js'

/** What writeChunks needs of a stream: process.stdout, or a test's. */
export interface ChunkSink {
  /** The file descriptor behind the stream, when there is one (process.stdout's is 1). */
  readonly fd?: number
  write(chunk: string): boolean
  on(event: 'error', listener: (...args: unknown[]) => void): unknown
  once(event: 'drain' | 'error' | 'close', listener: (...args: unknown[]) => void): unknown
  removeListener(event: 'drain' | 'error' | 'close', listener: (...args: unknown[]) => void): unknown
  /** Set once the stream failed or was closed: nothing written after that arrives. */
  readonly destroyed?: boolean
}

/** 'closed': the reader went away (`pvctl sync -o json | head`); the rest was not written. */
export type WriteOutcome = 'written' | 'closed'

/**
 * Writes every chunk, waiting for 'drain' whenever the stream's buffer is full, so memory holds one chunk
 * and the stream's high-water mark however slow the reader. When the reader closes the pipe (EPIPE) the
 * rest is dropped without a word, as kubectl and other Unix tools end under `| head`; any other write
 * error is thrown.
 */
export async function writeChunks(sink: ChunkSink, chunks: Iterable<string>): Promise<WriteOutcome> {
  if (sink.fd !== undefined && isFile(sink.fd)) {
    try {
      writeChunksToFile(sink.fd, chunks)
    } catch (err) {
      throw outputFailed(sink, err)
    }
    return 'written'
  } else {
    // A pipe, a terminal, a socket: through the stream, which may hold a chunk until the reader takes it.
  }
  let failure: unknown
  // A write error arrives as an 'error' event, not from write(): listen for the whole run.
  const onError = (err: unknown) => {
    failure ??= err
  }
  sink.on('error', onError)
  try {
    for (const chunk of chunks) {
      // A failed write destroys the stream at once; its 'error' event comes a tick later.
      if (failure !== undefined || sink.destroyed === true) break
      if (!sink.write(chunk)) await drained(sink)
    }
    // An EPIPE of the last write is reported a tick later too.
    await new Promise((resolve) => setImmediate(resolve))
  } finally {
    sink.removeListener('error', onError)
  }
  if (failure === undefined && sink.destroyed !== true) return 'written'
  if (failure === undefined || isBrokenPipe(failure)) {
    // Later writes (oclif's, a stray log line) must not turn the closed pipe into a crash.
    sink.on('error', ignore)
    return 'closed'
  }
  throw outputFailed(sink, failure)
}

/**
 * A write that failed for another reason than a closed reader (a full disk: ENOSPC) ends the command with
 * a one-line error; what is written after it (a notice, oclif's flush) must not crash on the dead stream.
 */
function outputFailed(sink: ChunkSink, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code
  if (code === undefined) return err
  sink.on('error', ignore)
  return new OutputError(`cannot write the output: ${(err as Error).message}`)
}

/** Resolves when the stream can take more, or when it failed or closed (the caller looks at which). */
function drained(sink: ChunkSink): Promise<void> {
  return new Promise((resolve) => {
    // A destroyed stream has said all it will: no 'drain', and its 'close' may be past.
    if (sink.destroyed === true) return resolve()
    const done = () => {
      sink.removeListener('drain', done)
      sink.removeListener('error', done)
      sink.removeListener('close', done)
      resolve()
    }
    sink.once('drain', done)
    sink.once('error', done)
    sink.once('close', done)
  })
}

function isBrokenPipe(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED'
}

function ignore(): void {}

/**
 * A regular file or a device such as /dev/null, not a terminal: the stream over it writes synchronously,
 * and so can writeChunksToFile.
 */
function isFile(fd: number): boolean {
  try {
    const stats = fstatSync(fd)
    return stats.isFile() || (stats.isCharacterDevice() && !isatty(fd))
  } catch {
    return false
  }
}

/**
 * Writes every chunk to a file through one buffer that is reused: the stream would encode each chunk into
 * a buffer of its own, fresh memory for the whole report (docs/performance.md). Small chunks (the separators
 * between slices of a list) are gathered into one write. A write error (ENOSPC) is thrown.
 */
function writeChunksToFile(fd: number, chunks: Iterable<string>): void {
  let buffer = Buffer.allocUnsafe(1 << 20)
  let used = 0
  const flush = () => {
    for (let offset = 0; offset < used;) offset += writeSync(fd, buffer, offset, used - offset)
    used = 0
  }
  for (const chunk of chunks) {
    // At most 3 bytes of UTF-8 for each UTF-16 code unit.
    const room = chunk.length * 3
    if (used + room > buffer.length) flush()
    if (room > buffer.length) buffer = Buffer.allocUnsafe(room)
    used += buffer.write(chunk, used, 'utf8')
  }
  flush()
}

/**
 * The columns of a terminal to fit tables and sentences to; undefined when the stream is not a terminal (a
 * pipe, a file): then nothing is cut or wrapped. A terminal that does not tell its size (0 columns, as a
 * pseudo-terminal nobody sized) is as wide as COLUMNS says, else 80.
 */
export function terminalWidth(
  stream: {isTTY?: boolean; columns?: number},
  env: Record<string, string | undefined> = process.env,
): number | undefined {
  if (stream.isTTY !== true) return undefined
  if (stream.columns !== undefined && stream.columns > 0) return stream.columns
  const columns = Number(env.COLUMNS)
  return Number.isInteger(columns) && columns > 0 ? columns : 80
}
