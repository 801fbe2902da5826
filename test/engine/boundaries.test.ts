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
  return [...text.matchAll(/^\s*import\s+(?:type\s+)?[^'"]*['"]([^'"]+)['"]/gm)].map((m) => m[1])
}

const rules: Array<{layer: string; forbidden: RegExp; why: string}> = [
  {layer: 'engine', forbidden: /^(node:|@kubernetes|@oclif|ora|cli-table3|@inquirer|yaml$|diff$)/, why: 'the engine is pure and self-contained'},
  {layer: 'render', forbidden: /^(node:|@kubernetes|@oclif|ora|@inquirer|\.\.\/(cluster|commands|cli|app\/(?!sync-report)))/, why: 'renderers are pure'},
  {layer: 'app', forbidden: /^(@oclif|\.\.\/commands)/, why: 'use-cases know nothing of oclif'},
  {layer: 'controller', forbidden: /^(@oclif|@kubernetes|\.\.\/(commands|app)\/)/, why: 'the loop reaches the cluster through the ports and knows nothing of oclif or the use-cases'},
]

// Folders inside the engine (audit/) import their siblings with ../: what counts is that the path stays in src/engine.
test('engine: no import leaves src/engine', () => {
  const engine = path.join(src, 'engine')
  const offenders = filesOf('engine').flatMap((f) =>
    importsOf(f)
      .filter((i) => i.startsWith('.') && !path.resolve(path.dirname(path.join(src, f)), i).startsWith(engine + path.sep))
      .map((i) => `${f} imports ${i}`),
  )
  assert.deepEqual(offenders, [])
})

for (const rule of rules) {
  test(`${rule.layer}: ${rule.why}`, () => {
    const offenders = filesOf(rule.layer).flatMap((f) => importsOf(f).filter((i) => rule.forbidden.test(i)).map((i) => `${f} imports ${i}`))
    assert.deepEqual(offenders, [])
  })
}

test('engine: no clock and no randomness', () => {
  const offenders = filesOf('engine').filter((f) => /\b(Date\.now|new Date|Math\.random|performance\.now|process\.)/.test(readFileSync(path.join(src, f), 'utf8')))
  assert.deepEqual(offenders, [])
})
