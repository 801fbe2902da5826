// A bundled example snapshot (examples/*.yaml) edited by a test: the state a repair finds after a restore,
// a re-created claim or its own earlier run, written as a JSON List for `-f`.
import {writeFileSync} from 'node:fs'
import path from 'node:path'

import {loadSnapshot} from '../../src/cluster/snapshot.js'
import type {PersistentVolume, PersistentVolumeClaim} from '../../src/engine/api/model.js'
import {tempDir} from '../temp-dir.js'
import {repoRoot} from './run-cli.js'

const dir = tempDir('edited-snapshot')
let made = 0

/** examples/`example`'s volumes and claims (copies) with `edit` applied, as a snapshot file; its path. */
export async function editedSnapshot(
  example: string,
  edit: (s: {volumes: PersistentVolume[]; claims: PersistentVolumeClaim[]}) => void,
): Promise<string> {
  const {state} = await loadSnapshot(path.join(repoRoot, 'examples', example))
  const s = {
    ...structuredClone(state),
    volumes: structuredClone([...state.volumes]),
    claims: structuredClone([...state.claims]),
  }
  edit(s)
  const file = path.join(dir, `${path.basename(example, '.yaml')}-${made++}.json`)
  writeFileSync(
    file,
    JSON.stringify({apiVersion: 'v1', kind: 'List', items: [...s.classes, ...s.volumes, ...s.claims, ...s.pods]}),
  )
  return file
}
