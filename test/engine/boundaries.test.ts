// What a linter cannot check. The stack's import rules (floors, the engine's folders, the packages each
// folder may use, test/engine holding the engine alone) are eslint.config.js's; here: no import cycle in
// src/, lazy imports included, and an engine without a clock or randomness.
import assert from 'node:assert/strict'
import {readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

const src = path.resolve(import.meta.dirname, '../../src')

function filesOf(dir: string): string[] {
  return readdirSync(path.join(src, dir), {recursive: true})
    .map(String)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(dir, f))
}

function importsOf(file: string): string[] {
  const text = readFileSync(path.join(src, file), 'utf8')
  return [
    ...text.matchAll(
      /^\s*(?:import|export)\s+(?:type\s+)?[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm,
    ),
  ].map((m) => m[1] ?? m[2])
}

/** The files of src a file imports (relative imports, types included), as paths relative to src. */
function localImportsOf(file: string): string[] {
  return importsOf(file)
    .filter((i) => i.startsWith('.'))
    .map((i) => path.relative(src, path.resolve(path.dirname(path.join(src, file)), i.replace(/\.js$/, '.ts'))))
}

/** The files of src a file imports lazily (`await import('./x.js')`), as paths relative to src. */
function lazyImportsOf(file: string): string[] {
  return [...readFileSync(path.join(src, file), 'utf8').matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g)].map((m) =>
    path.relative(src, path.resolve(path.dirname(path.join(src, file)), m[1].replace(/\.js$/, '.ts'))),
  )
}

test('src: no import cycles (lazy imports included)', () => {
  const graph = new Map(filesOf('.').map((f) => [path.normalize(f), [...localImportsOf(f), ...lazyImportsOf(f)]]))
  const cycles: string[] = []
  const state = new Map<string, 'open' | 'done'>()
  const visit = (f: string, trail: string[]): void => {
    if (state.get(f) === 'done' || !graph.has(f)) return
    if (state.get(f) === 'open') {
      cycles.push([...trail.slice(trail.indexOf(f)), f].join(' -> '))
      return
    }
    state.set(f, 'open')
    for (const to of graph.get(f) ?? []) visit(to, [...trail, f])
    state.set(f, 'done')
  }
  for (const f of graph.keys()) visit(f, [])
  assert.deepEqual(cycles, [])
})

test('engine: no clock and no randomness', () => {
  const offenders = filesOf('engine').filter((f) =>
    /\b(Date\.now|new Date|Math\.random|performance\.now|process\.)/.test(readFileSync(path.join(src, f), 'utf8')),
  )
  assert.deepEqual(offenders, [])
})
