// Golden files of the renderers' output: compared byte for byte, regenerated with UPDATE_GOLDEN=1.
import assert from 'node:assert/strict'
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const GOLDEN_DIR = join(dirname(fileURLToPath(import.meta.url)), 'golden')
const UPDATE = process.env.UPDATE_GOLDEN === '1'

export function golden(name: string, actual: string): void {
  const file = join(GOLDEN_DIR, `${name}.txt`)
  if (UPDATE) {
    mkdirSync(GOLDEN_DIR, {recursive: true})
    writeFileSync(file, actual)
    return
  }
  assert.ok(existsSync(file), `missing golden file ${file}: run with UPDATE_GOLDEN=1 to create it`)
  assert.equal(actual, readFileSync(file, 'utf8'), `output differs from ${file} (UPDATE_GOLDEN=1 regenerates it)`)
}
