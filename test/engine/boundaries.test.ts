// The engine is pure: it imports nothing with effects (no node:*, no client runtime, no clock, no
// randomness) and nothing outside src/engine. The layers above point inward only.
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

const rules: Array<{layer: string; forbidden: RegExp; why: string}> = [
  {
    layer: 'engine',
    forbidden: /^(node:|@kubernetes|@oclif|ora|cli-table3|@inquirer|yaml$|diff$)/,
    why: 'the engine is pure and self-contained',
  },
  {
    layer: 'render',
    forbidden: /^(node:|@kubernetes|@oclif|ora|@inquirer|\.\.\/(cluster|commands|cli|app))/,
    why: 'renderers are pure',
  },
  {layer: 'app', forbidden: /^(@oclif|\.\.\/commands)/, why: 'use-cases know nothing of oclif'},
  {
    layer: 'loop',
    forbidden: /^(@oclif|@kubernetes|(\.\.\/)+(commands|cli|app)\/)/,
    why: 'the loop reaches the cluster through the ports and knows nothing of oclif or the use-cases',
  },
  {
    layer: 'loop/client-go',
    forbidden: /^\.\.\/[^./]/,
    why: "client-go's machinery knows nothing of the PV loop it serves",
  },
  {
    layer: 'volume-plugins',
    forbidden: /^(@oclif|@kubernetes|(\.\.\/)+(commands|app|cli|loop|executor)\/)/,
    why: 'the volume plugins run pods through the workload port and know nothing of their callers',
  },
]

// Folders inside the engine (audit/) import their siblings with ../: what counts is that the path stays in src/engine.
test('engine: no import leaves src/engine', () => {
  const engine = path.join(src, 'engine')
  const offenders = filesOf('engine').flatMap((f) =>
    importsOf(f)
      .filter(
        (i) => i.startsWith('.') && !path.resolve(path.dirname(path.join(src, f)), i).startsWith(engine + path.sep),
      )
      .map((i) => `${f} imports ${i}`),
  )
  assert.deepEqual(offenders, [])
})

// The engine's tests hold the engine alone: they import nothing from src/ outside src/engine (snapshots are
// read through test/fixtures/states.ts, and what runs a use-case is tested in test/app).
test('test/engine: no import of src/ outside src/engine', () => {
  const tests = path.resolve(import.meta.dirname)
  const files = readdirSync(tests, {recursive: true})
    .map(String)
    .filter((f) => f.endsWith('.ts'))
  const offenders = files.flatMap((f) => {
    const text = readFileSync(path.join(tests, f), 'utf8')
    const imported = [...text.matchAll(/(?:from\s+|import\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm)].map((m) => m[1])
    return imported
      .filter((i) => i.startsWith('.'))
      .map((i) => path.resolve(tests, path.dirname(f), i))
      .filter((p) => p.startsWith(src + path.sep) && !p.startsWith(path.join(src, 'engine') + path.sep))
      .map((p) => `test/engine/${f} imports ${path.relative(path.dirname(src), p)}`)
  })
  assert.deepEqual(offenders, [])
})

for (const rule of rules) {
  test(`${rule.layer}: ${rule.why}`, () => {
    const offenders = filesOf(rule.layer).flatMap((f) =>
      importsOf(f)
        .filter((i) => rule.forbidden.test(i))
        .map((i) => `${f} imports ${i}`),
    )
    assert.deepEqual(offenders, [])
  })
}

// The engine's folders, each with the folders it may import (its own always): api is the ground; the
// controller talks to the cluster through its own interface (controller/cluster-client.ts), as the Go
// controller through its clientset, listers and event recorder, and the simulated cluster implements it,
// so simulation knows the controller (reconcile drives it) and the controller knows nothing of simulation;
// what pvctl adds on top (explain, repair, audit) is built from them and never imported by them; audit
// offers the repairs that fix what it finds, so it sits on top.
const ENGINE_LAYERS: Record<string, readonly string[]> = {
  api: [],
  matching: ['api'],
  controller: ['api', 'matching'],
  simulation: ['api', 'matching', 'controller'],
  explain: ['api', 'matching', 'controller', 'simulation'],
  repair: ['api', 'matching', 'controller', 'simulation', 'explain'],
  audit: ['api', 'matching', 'controller', 'simulation', 'explain', 'repair'],
}

test('engine: every file is in a folder that says what it is, and imports only the folders below it', () => {
  const files = filesOf('engine')
  assert.deepEqual(
    files.filter((f) => !(f.split(path.sep)[1] in ENGINE_LAYERS)),
    [],
    "a file outside the engine's folders",
  )
  const offenders = files.flatMap((f) => {
    const layer = f.split(path.sep)[1]
    return localImportsOf(f)
      .map((i) => i.split(path.sep)[1])
      .filter((to) => to !== layer && !ENGINE_LAYERS[layer].includes(to))
      .map((to) => `${f} imports engine/${to}`)
  })
  assert.deepEqual(offenders, [])
})

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

// The floors, highest first: an import may go down any number of floors, never up one. The top-level modules
// (errors, redact, yaml-library, log) are shared by every floor above the engine.
const FLOORS: Record<string, number> = {
  commands: 6,
  hooks: 6,
  'command-index.ts': 6,
  cli: 5,
  app: 4,
  loop: 3.4,
  executor: 3.3,
  'volume-plugins': 3.2,
  cluster: 3.1,
  render: 3,
  engine: 1,
}
const floorOf = (file: string): number => FLOORS[file.split(path.sep)[0]] ?? (file.includes(path.sep) ? Number.NaN : 2)

test('src: no import goes up a floor (lazy imports included)', () => {
  const files = filesOf('.')
  assert.deepEqual(
    files.filter((f) => Number.isNaN(floorOf(f))),
    [],
    'a file on no floor',
  )
  const offenders = files.flatMap((f) =>
    [...localImportsOf(f), ...lazyImportsOf(f)]
      .filter((to) => !(floorOf(to) <= floorOf(f)))
      .map((to) => `${f} imports ${to}`),
  )
  assert.deepEqual(offenders, [])
})

test('engine: no clock and no randomness', () => {
  const offenders = filesOf('engine').filter((f) =>
    /\b(Date\.now|new Date|Math\.random|performance\.now|process\.)/.test(readFileSync(path.join(src, f), 'utf8')),
  )
  assert.deepEqual(offenders, [])
})
