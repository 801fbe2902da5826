// The snapshot loader decodes a whole input in one go, as Latin-1 when every byte is ASCII (the same string,
// faster) and as UTF-8 otherwise: text outside ASCII must come through unchanged from files and stdin.
import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {Readable} from 'node:stream'
import {describe, it} from 'node:test'

import {loadSnapshot} from '../../src/cluster/snapshot.js'
import {tempDir} from '../cli/run-cli.js'

function volumeJson(note: string): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {name: 'pv1', annotations: {note}},
    spec: {},
  })
}

function volumeYaml(note: string): string {
  return `apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: pv1\n  annotations:\n    note: "${note}"\nspec: {}\n`
}

const notes = [
  {name: 'ASCII', note: 'plain text'},
  {name: 'Latin-1 range, two UTF-8 bytes each', note: 'données à réviser'},
  {name: 'CJK, three bytes each', note: '日本語のボリューム'},
  {name: 'outside the BMP, four bytes', note: 'disk 💾'},
]
const formats = [
  {ext: 'json', text: volumeJson},
  {ext: 'yaml', text: volumeYaml},
]

describe('loadSnapshot decodes text', () => {
  const dir = tempDir('decode')
  for (const {name, note} of notes) {
    for (const {ext, text} of formats) {
      it(`${name}, ${ext} file`, async () => {
        const file = join(dir, `${name.replace(/\W+/g, '-')}.${ext}`)
        writeFileSync(file, text(note))
        const {state} = await loadSnapshot(file)
        assert.equal(state.volumes[0]!.metadata.annotations!.note, note)
      })

      it(`${name}, ${ext} on stdin in small pieces (characters split across them)`, async () => {
        const bytes = Buffer.from(text(note))
        const pieces = Array.from({length: Math.ceil(bytes.length / 5)}, (_, i) => bytes.subarray(i * 5, i * 5 + 5))
        const {state} = await loadSnapshot('-', {stdin: Readable.from(pieces)})
        assert.equal(state.volumes[0]!.metadata.annotations!.note, note)
      })
    }
  }
})
