// The pvctl.io/audit-ignore annotation: it silences the codes it names on its own object only, the summary
// counts them apart from --ignore's, and a name that is no finding code silences nothing and is said.
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'

import {auditState} from '../../../src/engine/audit/audit-state.js'
import {annotationIgnores, AUDIT_IGNORE_ANNOTATION} from '../../../src/engine/audit/silence.js'
import {defaultFeatureGates} from '../../../src/engine/api/feature-gates.js'
import type {ClusterState} from '../../../src/engine/api/model.js'
import {pv, pvc, sc, state} from '../builders.js'

const ignoreAnnotation = (value: string) => ({[AUDIT_IGNORE_ANNOTATION]: value})
const retained = (name: string, annotations?: Record<string, string>) =>
  pv(name, {phase: 'Released', className: '', claim: {name: `gone-${name}`, uid: `u-${name}`}, annotations})
const classless = (name: string, annotations?: Record<string, string>) =>
  pvc(name, `u-${name}`, {className: '', annotations})
const defaults = (annotations?: Record<string, string>) => {
  const newest = sc('b', 'example.com/x', {isDefault: true, created: '2026-02-01T00:00:00Z'})
  return [
    sc('a', 'example.com/x', {isDefault: true, created: '2026-01-01T00:00:00Z'}),
    {...newest, metadata: {...newest.metadata, annotations: {...newest.metadata.annotations, ...annotations}}},
  ]
}

const rows: Array<{
  name: string
  state: ClusterState
  ignore?: string[]
  codes: string[]
  ignored: Record<string, number>
  byAnnotation: Record<string, number>
  notices?: RegExp[]
}> = [
  {
    name: 'no annotation: the finding stands',
    state: state({volumes: [retained('pv-1')]}),
    codes: ['VolumeReleasedRetained'],
    ignored: {},
    byAnnotation: {},
  },
  {
    name: 'a volume silences its own code',
    state: state({volumes: [retained('pv-1', ignoreAnnotation('VolumeReleasedRetained'))]}),
    codes: [],
    ignored: {VolumeReleasedRetained: 1},
    byAnnotation: {VolumeReleasedRetained: 1},
  },
  {
    name: 'only on the annotated object: its neighbour keeps the finding',
    state: state({volumes: [retained('pv-1', ignoreAnnotation('VolumeReleasedRetained')), retained('pv-2')]}),
    codes: ['VolumeReleasedRetained'],
    ignored: {VolumeReleasedRetained: 1},
    byAnnotation: {VolumeReleasedRetained: 1},
  },
  {
    name: 'a claim, codes with blanks around them',
    state: state({claims: [classless('data', ignoreAnnotation(' ClaimLost , ClaimNoMatchingVolume '))]}),
    codes: [],
    ignored: {ClaimNoMatchingVolume: 1},
    byAnnotation: {ClaimNoMatchingVolume: 1},
  },
  {
    name: 'another code on the object silences nothing',
    state: state({claims: [classless('data', ignoreAnnotation('ClaimLost'))]}),
    codes: ['ClaimNoMatchingVolume'],
    ignored: {},
    byAnnotation: {},
  },
  {
    name: 'the class the finding is about (the default the controller picks)',
    state: state({classes: defaults(ignoreAnnotation('MultipleDefaultStorageClasses'))}),
    codes: [],
    ignored: {MultipleDefaultStorageClasses: 1},
    byAnnotation: {MultipleDefaultStorageClasses: 1},
  },
  {
    name: 'silenced both ways: counted as --ignore',
    state: state({volumes: [retained('pv-1', ignoreAnnotation('VolumeReleasedRetained'))]}),
    ignore: ['VolumeReleasedRetained'],
    codes: [],
    ignored: {VolumeReleasedRetained: 1},
    byAnnotation: {},
  },
  {
    name: 'an unknown name silences nothing and is said, the known ones still silence',
    state: state({
      volumes: [retained('pv-1', ignoreAnnotation('VolumeReleasedRetaind,VolumeReleasedRetained'))],
      claims: [classless('data', ignoreAnnotation('ClaimLots'))],
    }),
    codes: ['ClaimNoMatchingVolume'],
    ignored: {VolumeReleasedRetained: 1},
    byAnnotation: {VolumeReleasedRetained: 1},
    notices: [
      /^pvc\/default\/data: pvctl\.io\/audit-ignore names ClaimLots, not a finding code: it silences nothing/,
      /^pv\/pv-1: pvctl\.io\/audit-ignore names VolumeReleasedRetaind, not a finding code/,
    ],
  },
]

describe('audit: the pvctl.io/audit-ignore annotation', () => {
  for (const row of rows) {
    test(row.name, () => {
      const notices: string[] = []
      const r = auditState(
        row.state,
        {gates: defaultFeatureGates, failOn: 'warning', ignore: new Set(row.ignore ?? [])},
        {notice: (l) => void notices.push(l)},
      )
      assert.deepEqual(
        r.findings.map((f) => f.code),
        row.codes,
      )
      assert.deepEqual(r.summary.ignored, row.ignored)
      assert.deepEqual(r.summary.ignoredByAnnotation, row.byAnnotation)
      assert.equal(
        r.silenced?.length,
        Object.values(row.ignored).reduce((a, b) => a + b, 0),
        'each silenced finding is kept, with why',
      )
      assert.equal(notices.length, row.notices?.length ?? 0, notices.join('\n'))
      for (const re of row.notices ?? [])
        assert.ok(
          notices.some((n) => re.test(n)),
          `${re} in ${notices.join('\n')}`,
        )
    })
  }
  test('a silenced object is still not healthy', () => {
    const r = auditState(rows[1].state, {gates: defaultFeatureGates, failOn: 'warning', ignore: new Set()})
    assert.equal(r.summary.healthyVolumes, 0)
  })
  test('an empty annotation silences nothing and names nothing unknown', () => {
    const read = annotationIgnores([
      {
        object: {kind: 'PersistentVolume', name: 'pv-1'},
        metadata: {name: 'pv-1', annotations: ignoreAnnotation(' , ')},
      },
    ])
    assert.deepEqual([...read.codes.get('PersistentVolume//pv-1')!], [])
    assert.deepEqual(read.unknown, [])
  })
})
