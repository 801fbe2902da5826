// The machine a bench ran on: its processors and memory, and what it costs to touch memory for the first
// time. Machines of one kind differ most in the second: a virtual machine whose host backs guest memory
// only when it is first written pays a fault of the host's for every fresh page, and everything that
// grows a heap (parsing a snapshot, a pass that keeps a plan per object) pays it page by page.
import {spawnSync} from 'node:child_process'
import os from 'node:os'

export function machine(): string {
  const cpus = os.cpus()
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}, ${os.platform()} ${os.release()}`
}

export interface FreshMemory {
  /** Microseconds per 4 KiB page written for the first time (PROBE_MIB MiB just allocated, a byte a page). */
  firstTouchUs: number
  /** The same pages written again: what a page the process holds already costs. */
  againUs: number
}

const PROBE_MIB = 64

/** FreshMemory, measured in a process of its own (a heap of its own, given back when it exits). */
export function freshMemory(): FreshMemory {
  const script = `
    const pages = ${PROBE_MIB} * 256
    const b = Buffer.allocUnsafeSlow(pages * 4096)
    const touch = (v) => { const t = performance.now(); for (let i = 0; i < b.length; i += 4096) b[i] = v; return performance.now() - t }
    const first = touch(1)
    const again = touch(2)
    process.stdout.write(JSON.stringify({firstTouchUs: (first * 1000) / pages, againUs: (again * 1000) / pages}))`
  const run = spawnSync(process.execPath, ['-e', script], {encoding: 'utf8'})
  if (run.status !== 0) throw new Error(`the fresh-memory probe failed (exit ${run.status}): ${run.stderr.trim()}`)
  return JSON.parse(run.stdout) as FreshMemory
}

export function describeFreshMemory(m: FreshMemory): string {
  return `fresh memory: ${m.firstTouchUs.toFixed(2)} µs per 4 KiB page at its first write (${((m.firstTouchUs * 262_144) / 1e6).toFixed(2)} s per GiB), ${m.againUs.toFixed(3)} µs written again`
}
