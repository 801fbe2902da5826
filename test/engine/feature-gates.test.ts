// --feature-gates is read as kube-controller-manager reads it (component-base featureGate.Set):
// strconv.ParseBool's spellings, its error before an unknown name's; then set at the version pvctl decides
// as (SetFromMap at the emulation version): a removed gate is unrecognized, a locked one keeps its value.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {
  defaultFeatureGates,
  defaultGatesAt,
  FeatureGateError,
  knownFeatureGates,
  parseFeatureGates,
} from '../../src/engine/api/feature-gates.js'

const accepted: Array<[string, Partial<typeof defaultFeatureGates>]> = [
  ['', {}],
  ['VolumeAttributesClass=true', {VolumeAttributesClass: true}],
  ['VolumeAttributesClass=1', {VolumeAttributesClass: true}],
  ['VolumeAttributesClass=T', {VolumeAttributesClass: true}],
  ['VolumeAttributesClass=TRUE', {VolumeAttributesClass: true}],
  ['HonorPVReclaimPolicy=0', {HonorPVReclaimPolicy: false}],
  ['HonorPVReclaimPolicy=f,CSIMigrationPortworx=True', {HonorPVReclaimPolicy: false, CSIMigrationPortworx: true}],
  [' HonorPVReclaimPolicy = False ,', {HonorPVReclaimPolicy: false}],
  ['HonorPVReclaimPolicy=false,HonorPVReclaimPolicy=true', {HonorPVReclaimPolicy: true}],
]

for (const [spec, want] of accepted) {
  test(`--feature-gates ${JSON.stringify(spec)} is accepted`, () => {
    assert.deepEqual(parseFeatureGates(spec), {...defaultFeatureGates, ...want})
  })
}

const refused: Array<[string, string]> = [
  ['HonorPVReclaimPolicy', 'missing bool value for HonorPVReclaimPolicy'],
  [
    'HonorPVReclaimPolicy=yes',
    'invalid value of HonorPVReclaimPolicy=yes, err: strconv.ParseBool: parsing "yes": invalid syntax',
  ],
  [
    'HonorPVReclaimPolicy=tRuE',
    'invalid value of HonorPVReclaimPolicy=tRuE, err: strconv.ParseBool: parsing "tRuE": invalid syntax',
  ],
  [
    'HonorPVReclaimPolicy=',
    'invalid value of HonorPVReclaimPolicy=, err: strconv.ParseBool: parsing "": invalid syntax',
  ],
  // Every value is parsed before any name is looked up, as Set does before SetFromMap.
  [
    'Frobnicate=true,HonorPVReclaimPolicy=2',
    'invalid value of HonorPVReclaimPolicy=2, err: strconv.ParseBool: parsing "2": invalid syntax',
  ],
  ['Frobnicate=1', `unrecognized feature gate: Frobnicate (known: ${knownFeatureGates.join(', ')})`],
  // Gates of other releases than v1.31, pvctl's default.
  ['CSIMigrationRBD=true', 'unrecognized feature gate: CSIMigrationRBD (removed in v1.31; pvctl decides as v1.31)'],
  [
    'PersistentVolumeLastPhaseTransitionTime=false',
    'cannot set feature gate PersistentVolumeLastPhaseTransitionTime to false, feature is locked to true in v1.31',
  ],
  [
    'PersistentVolumeClaimUnusedSinceTime=true',
    'cannot set feature gate PersistentVolumeClaimUnusedSinceTime to true, feature is PreAlpha at emulated version 1.31',
  ],
]

for (const [spec, message] of refused) {
  test(`--feature-gates ${JSON.stringify(spec)} is refused`, () => {
    assert.throws(
      () => parseFeatureGates(spec),
      (err: unknown) => err instanceof FeatureGateError && err.message === message,
    )
  })
}

/** The same flag at other versions: what each release lets an operator turn off, and what it no longer has. */
const byVersion: Array<{minor: number; spec: string; want?: Partial<typeof defaultFeatureGates>; refused?: string}> = [
  {
    minor: 29,
    spec: 'HonorPVReclaimPolicy=true,CSIMigrationRBD=true',
    want: {HonorPVReclaimPolicy: true, CSIMigrationRBD: true},
  },
  {
    minor: 29,
    spec: 'CSIMigrationAzureFile=false',
    refused: 'cannot set feature gate CSIMigrationAzureFile to false, feature is locked to true in v1.29',
  },
  {
    minor: 30,
    spec: 'CSIMigrationAzureFile=true',
    refused: 'unrecognized feature gate: CSIMigrationAzureFile (removed in v1.30; pvctl decides as v1.30)',
  },
  {
    minor: 32,
    spec: 'HonorPVReclaimPolicy=false,CSIMigrationPortworx=false',
    want: {HonorPVReclaimPolicy: false, CSIMigrationPortworx: false},
  },
  {
    minor: 33,
    spec: 'HonorPVReclaimPolicy=false',
    refused: 'cannot set feature gate HonorPVReclaimPolicy to false, feature is locked to true in v1.33',
  },
  {minor: 33, spec: 'HonorPVReclaimPolicy=true', want: {}},
  {
    minor: 34,
    spec: 'CSIMigrationPortworx=false',
    refused: 'cannot set feature gate CSIMigrationPortworx to false, feature is locked to true in v1.34',
  },
  {minor: 35, spec: 'VolumeAttributesClass=false', want: {VolumeAttributesClass: false}},
  {
    minor: 36,
    spec: 'VolumeAttributesClass=false',
    refused: 'cannot set feature gate VolumeAttributesClass to false, feature is locked to true in v1.36',
  },
  {
    minor: 36,
    spec: 'HonorPVReclaimPolicy=true',
    refused: 'unrecognized feature gate: HonorPVReclaimPolicy (removed in v1.36; pvctl decides as v1.36)',
  },
  {
    minor: 36,
    spec: 'CSIMigrationPortworx=true',
    refused: 'unrecognized feature gate: CSIMigrationPortworx (removed in v1.36; pvctl decides as v1.36)',
  },
  {minor: 37, spec: 'PersistentVolumeClaimUnusedSinceTime=false', want: {PersistentVolumeClaimUnusedSinceTime: false}},
]

for (const row of byVersion) {
  test(`--feature-gates ${JSON.stringify(row.spec)} at v1.${row.minor}`, () => {
    const base = defaultGatesAt(row.minor)
    if (row.refused !== undefined) {
      assert.throws(
        () => parseFeatureGates(row.spec, base),
        (err: unknown) => err instanceof FeatureGateError && err.message === row.refused,
      )
    } else {
      assert.deepEqual(parseFeatureGates(row.spec, base), {...base, ...row.want})
    }
  })
}
