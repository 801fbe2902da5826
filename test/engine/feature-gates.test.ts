// --feature-gates is read as kube-controller-manager reads it (component-base featureGate.Set):
// strconv.ParseBool's spellings, its error before an unknown name's.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {defaultFeatureGates, FeatureGateError, parseFeatureGates} from '../../src/engine/api/feature-gates.js'

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
  ['HonorPVReclaimPolicy=yes', 'invalid value of HonorPVReclaimPolicy=yes, err: strconv.ParseBool: parsing "yes": invalid syntax'],
  ['HonorPVReclaimPolicy=tRuE', 'invalid value of HonorPVReclaimPolicy=tRuE, err: strconv.ParseBool: parsing "tRuE": invalid syntax'],
  ['HonorPVReclaimPolicy=', 'invalid value of HonorPVReclaimPolicy=, err: strconv.ParseBool: parsing "": invalid syntax'],
  // Every value is parsed before any name is looked up, as Set does before SetFromMap.
  ['Frobnicate=true,HonorPVReclaimPolicy=2', 'invalid value of HonorPVReclaimPolicy=2, err: strconv.ParseBool: parsing "2": invalid syntax'],
  ['Frobnicate=1', 'unrecognized feature gate: Frobnicate (known: HonorPVReclaimPolicy, VolumeAttributesClass, CSIMigrationPortworx)'],
]

for (const [spec, message] of refused) {
  test(`--feature-gates ${JSON.stringify(spec)} is refused`, () => {
    assert.throws(() => parseFeatureGates(spec), (err: unknown) => err instanceof FeatureGateError && err.message === message)
  })
}
