// The storage helpers where pvctl departs from a line-by-line port for speed: held to Go's definition.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import fc from 'fast-check'

import type {PersistentVolumeAccessMode} from '../../src/engine/api/model.js'
import {getAccessModesAsString} from '../../src/engine/api/storage-helpers.js'
import {propertyRuns} from './differential-arbitraries.js'

/** v1helper.GetAccessModesAsString: each known mode the list contains, in Kubernetes' order, joined by commas. */
function goGetAccessModesAsString(modes: readonly string[]): string {
  const known: Array<[string, string]> = [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ]
  return known
    .filter(([mode]) => modes.includes(mode))
    .map(([, short]) => short)
    .join(',')
}

test('getAccessModesAsString: a table of mode lists, and any list, as Go writes the key', () => {
  const rows: Array<[PersistentVolumeAccessMode[] | undefined | null, string]> = [
    [undefined, ''],
    [null, ''],
    [[], ''],
    [['ReadWriteOnce'], 'RWO'],
    [['ReadWriteOncePod'], 'RWOP'],
    [['Bogus' as PersistentVolumeAccessMode], ''],
    [['ReadWriteOnce', 'ReadWriteOnce'], 'RWO'],
    [['ReadWriteMany', 'ReadWriteOnce'], 'RWO,RWX'],
    [['ReadOnlyMany', 'Bogus' as PersistentVolumeAccessMode], 'ROX'],
  ]
  for (const [modes, key] of rows) assert.equal(getAccessModesAsString(modes), key, JSON.stringify(modes))
  const mode = fc.constantFrom('ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod', 'Bogus', '')
  fc.assert(
    fc.property(fc.array(mode, {maxLength: 5}), (modes) => {
      assert.equal(getAccessModesAsString(modes as PersistentVolumeAccessMode[]), goGetAccessModesAsString(modes))
    }),
    {numRuns: propertyRuns(500)},
  )
})
