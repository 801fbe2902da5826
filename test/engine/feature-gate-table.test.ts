// The engine's one table of feature gates (src/engine/api/feature-gates.ts), held to what
// k8s.io/kubernetes's pkg/features declares at each release tag from v1.29 to the newest pvctl knows
// (feature-gate-history.json, written from the sources by scripts/feature-gate-history.js): at every
// minor version, each gate's default, whether it is locked, and whether the release still declares it.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {test} from 'node:test'

import {defaultGatesAt, gateSpecAt, knownFeatureGates} from '../../src/engine/api/feature-gates.js'
import {NEWEST_MINOR, OLDEST_MINOR} from '../../src/engine/api/kube-version.js'

interface UpstreamSpec {
  default: boolean
  preRelease: string
  lockToDefault: boolean
}

const history = JSON.parse(readFileSync(new URL('./feature-gate-history.json', import.meta.url), 'utf8')) as {
  tags: Record<string, Record<string, UpstreamSpec>>
}

test('the history covers every minor version pvctl decides as', () => {
  const minors = Object.keys(history.tags).map((tag) => Number(tag.split('.')[1]))
  assert.deepEqual(
    minors,
    Array.from({length: NEWEST_MINOR - OLDEST_MINOR + 1}, (_, i) => OLDEST_MINOR + i),
  )
})

for (const [tag, upstream] of Object.entries(history.tags)) {
  const minor = Number(tag.split('.')[1])
  test(`every gate at ${tag}: declared, default, locked as upstream`, () => {
    for (const gate of knownFeatureGates) {
      const mine = gateSpecAt(gate, minor)
      const theirs = upstream[gate]
      if (theirs === undefined) {
        assert.equal(mine, undefined, `${gate}: ${tag} does not declare it`)
      } else {
        assert.notEqual(mine, undefined, `${gate}: ${tag} declares it`)
        assert.deepEqual(
          {default: mine!.default, preRelease: mine!.preRelease, lockToDefault: mine!.lockToDefault === true},
          theirs,
          `${gate} at ${tag}`,
        )
        assert.equal(defaultGatesAt(minor)[gate], theirs.default, `${gate}'s default at ${tag}`)
      }
    }
  })
}

test('a gate removed keeps the value it was removed with; one not yet declared is off', () => {
  assert.equal(defaultGatesAt(36).HonorPVReclaimPolicy, true)
  assert.equal(defaultGatesAt(36).CSIMigrationPortworx, true)
  assert.equal(defaultGatesAt(31).CSIMigrationRBD, false)
  assert.equal(defaultGatesAt(30).CSIMigrationAzureFile, true)
  assert.equal(defaultGatesAt(33).PersistentVolumeLastPhaseTransitionTime, true)
  assert.equal(defaultGatesAt(35).PersistentVolumeClaimUnusedSinceTime, false)
})
