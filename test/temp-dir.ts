// A test's scratch directory under the system's temp dir, removed when the test process exits (each test
// file runs in a process of its own): a run leaves nothing behind in /tmp, failed or not.
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'

const made: string[] = []

process.on('exit', () => {
  for (const dir of made) rmSync(dir, {recursive: true, force: true})
})

/** A fresh directory named `pvctl-PREFIX-…`, gone at the process's exit. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `pvctl-${prefix}-`))
  made.push(dir)
  return dir
}
