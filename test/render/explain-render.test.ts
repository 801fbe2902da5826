// Golden tests of explain's renderers, on explanations the engine makes of the bundled example and of a
// few small states. Regenerate after a deliberate change with
//   UPDATE_GOLDEN=1 node --import tsx --test test/render/explain-render.test.ts
// and read every changed file in test/render/golden/ before committing it.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {describe, it} from 'node:test'
import {fileURLToPath} from 'node:url'

import {parseSnapshotText} from '../../src/cluster/snapshot.js'
import {explainClaim, explainVolume} from '../../src/engine/explain/explainer.js'
import {EXPLAIN_API_VERSION, type ExplainDocument} from '../../src/engine/explain/model.js'
import {defaultFeatureGates} from '../../src/engine/api/feature-gates.js'
import {ansi, plain} from '../../src/render/color.js'
import {
  explainJsonChunks,
  explainTextChunks,
  explainYamlChunks,
  renderExplainJson,
  renderExplainText,
  renderExplainYaml,
} from '../../src/render/explain-doc.js'
import {bound, pvc, pv, sc, state} from '../engine/builders.js'
import {ago, csiDriver, event, evidence, lease, volumeAttachment} from '../engine/evidence-builders.js'
import {golden} from './golden.js'

const here = dirname(fileURLToPath(import.meta.url))
const example = parseSnapshotText(readFileSync(join(here, '../../examples/cluster.yaml'), 'utf8'), 'cluster.yaml').state
const opts = {gates: defaultFeatureGates}
const claim = (name: string) => explainClaim(example, 'shop', name, opts)!
const volume = (name: string) => explainVolume(example, name, opts)!

const terminating = state({
  volumes: [
    pv('pv-data', {
      claim: {namespace: 'app', name: 'data', uid: 'c1'},
      phase: 'Bound',
      deleting: true,
      source: {csi: {driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1'}},
      finalizers: ['kubernetes.io/pv-protection', 'external-attacher/ebs.csi.aws.com'],
    }),
  ],
  claims: [
    pvc('data', 'c1', {namespace: 'app', className: '', volumeName: 'pv-data', phase: 'Bound', annotations: bound}),
  ],
})

const defaulted = state({
  volumes: [pv('pv-gold', {capacity: '5Gi', className: 'gold'})],
  claims: [pvc('data', 'c1', {namespace: 'app'})],
  classes: [
    sc('gold', 'ebs.csi.aws.com', {isDefault: true, created: '2026-01-01T00:00:00Z'}),
    sc('silver', 'ebs.csi.aws.com', {isDefault: true, created: '2025-01-01T00:00:00Z'}),
  ],
})

// A claim handed to an external provisioner that nothing shows running, with kube-controller-manager's events.
const handedOff = state({
  claims: [
    {
      ...pvc('data', 'c1', {namespace: 'app', className: 'gp3', request: '20Gi'}),
      metadata: {name: 'data', namespace: 'app', uid: 'c1', creationTimestamp: ago(2400)},
    },
  ],
  classes: [sc('gp3', 'ebs.csi.aws.com')],
})
const handedOffEvidence = evidence({
  events: [
    event({
      namespace: 'app',
      name: 'data',
      reason: 'ExternalProvisioning',
      component: 'persistentvolume-controller',
      lastSeconds: 8,
      count: 162,
      message:
        "Waiting for a volume to be created either by the external provisioner 'ebs.csi.aws.com' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
    }),
  ],
  csiDrivers: [csiDriver('efs.csi.aws.com')],
  leases: [],
})

// The terminating volume, still attached on a node, its attacher running.
const attachedEvidence = evidence({
  volumeAttachments: [
    volumeAttachment('csi-5d0c7e', {attacher: 'ebs.csi.aws.com', volume: 'pv-data', node: 'ip-10-0-1-7'}),
  ],
  csiDrivers: [csiDriver('ebs.csi.aws.com')],
  leases: [lease('kube-system', 'external-attacher-leader-ebs-csi-aws-com', 'ebs-csi-controller-6f9c-lq2', 4)],
  events: [
    event({
      kind: 'VolumeAttachment',
      name: 'csi-5d0c7e',
      reason: 'AttachSucceeded',
      component: 'csi-attacher ebs.csi.aws.com',
      lastSeconds: 5400,
    }),
  ],
})

const cases: Array<[string, ExplainDocument]> = [
  ['claim-no-matching-volume', claim('logs')],
  ['claim-will-bind', claim('orders')],
  ['claim-misbound', claim('reports-b')],
  ['claim-lost', claim('sessions')],
  ['claim-wait-for-pod', claim('search')],
  ['claim-default-class', explainClaim(defaulted, 'app', 'data', opts)!],
  ['volume-released-retain', volume('pv-0004')],
  ['volume-released-delete', volume('pv-0006')],
  ['volume-terminating', explainVolume(terminating, 'pv-data', opts)!],
  ['claim-external-silent', explainClaim(handedOff, 'app', 'data', {...opts, evidence: handedOffEvidence})!],
  ['volume-terminating-attached', explainVolume(terminating, 'pv-data', {...opts, evidence: attachedEvidence})!],
  [
    'list',
    {
      apiVersion: EXPLAIN_API_VERSION,
      kind: 'List',
      items: ['carts', 'logs'].map(claim),
    },
  ],
  ['list-empty', {apiVersion: EXPLAIN_API_VERSION, kind: 'List', items: []}],
]

describe('explain renderers (golden)', () => {
  for (const [name, doc] of cases) {
    it(`${name}: text`, () => golden(`explain-${name}`, renderExplainText(doc, plain)))
  }
  it('claim-no-matching-volume: text with colour', () =>
    golden('explain-claim-no-matching-volume-ansi', renderExplainText(claim('logs'), ansi)))
  it('claim-misbound: json', () => golden('explain-claim-misbound-json', renderExplainJson(claim('reports-b'))))
  it('volume-terminating: yaml', () =>
    golden('explain-volume-terminating-yaml', renderExplainYaml(explainVolume(terminating, 'pv-data', opts)!)))

  it('the JSON document leads with the contract fields, in its order', () => {
    const keys = Object.keys(JSON.parse(renderExplainJson(claim('logs'))))
    assert.deepEqual(keys.slice(0, 9), [
      'apiVersion',
      'kind',
      'claim',
      'phase',
      'verdict',
      'volume',
      'summary',
      'candidates',
      'suggestions',
    ])
    const candidate = JSON.parse(renderExplainJson(claim('logs'))).candidates[0]
    assert.deepEqual(Object.keys(candidate).slice(0, 3), ['volume', 'eligible', 'reasons'])
  })

  it('the Events block keeps the newest ten on screen and says how many more -o yaml has', () => {
    const many = evidence({
      events: Array.from({length: 12}, (_, i) =>
        event({namespace: 'app', name: 'data', reason: `R${i}`, component: 'c', lastSeconds: 10 * (i + 1)}),
      ),
    })
    const text = renderExplainText(explainClaim(handedOff, 'app', 'data', {...opts, evidence: many})!, plain)
    const block = text
      .slice(text.indexOf('\nEvents:\n') + 1)
      .trimEnd()
      .split('\n')
    assert.deepEqual(
      block.slice(2).map((l) => l.split(/\s+/)[1]),
      [...Array.from({length: 10}, (_, i) => `R${i}`), 'older'],
    )
    assert.equal(block.at(-1), '(2 older not shown: -o yaml lists them all)')
  })

  it('plain text has no escape codes; the YAML parses back to the JSON document', async () => {
    for (const [, doc] of cases) {
      assert.doesNotMatch(renderExplainText(doc, plain), /\u001b/)
      const {parse} = await import('yaml')
      assert.deepEqual(parse(renderExplainYaml(doc)), JSON.parse(renderExplainJson(doc)))
    }
  })
})

describe('explain on a terminal: tables fitted to its width, nothing cut', () => {
  const fitted: Array<[string, ExplainDocument]> = [
    ['claim-no-matching-volume', claim('logs')],
    ['claim-external-silent', explainClaim(handedOff, 'app', 'data', {...opts, evidence: handedOffEvidence})!],
    ['volume-terminating-attached', explainVolume(terminating, 'pv-data', {...opts, evidence: attachedEvidence})!],
  ]
  /** The lines of the tables (a header line and the rows below it), up to the blank line that ends each. */
  const tableLines = (text: string) =>
    text.split('\n\n').flatMap((block) => {
      const lines = block.split('\n')
      const header = lines.findIndex((l) => /^[A-Z][A-Z()]*( [A-Z()]+)? {3,}[A-Z]/.test(l))
      return header === -1 ? [] : lines.slice(header)
    })
  const words = (text: string) => text.split(/\s+/).filter((w) => w !== '')
  for (const [name, doc] of fitted) {
    it(`${name}: at 80 columns every line fits (tables and prose wrap), and the words are those of the pipe's text`, () => {
      const narrow = renderExplainText(doc, plain, undefined, {width: 80})
      golden(`explain-${name}-80`, narrow)
      assert.ok(tableLines(narrow).length > 2, 'the text has tables')
      const piped = renderExplainText(doc, plain)
      // Longer only as the pipe prints it: a table whose other columns leave its text less than
      // MIN_TEXT_WIDTH is not wrapped at all, and a command is never broken.
      for (const line of narrow.split('\n'))
        assert.ok(
          line.length <= 80 || piped.split('\n').includes(line) || /(kubectl|pvctl) /.test(line),
          `too long (${line.length}): ${line}`,
        )
      assert.deepEqual(words(narrow), words(piped))
    })
  }
  it('--no-headers: the tables without their header lines', () => {
    const text = renderExplainText(claim('logs'), plain, undefined, {noHeaders: true})
    assert.doesNotMatch(text, /^VOLUME +CAPACITY/m)
    assert.match(text, /^pv-0002 +10Gi +RWO/m)
    const list = renderExplainText(
      {apiVersion: EXPLAIN_API_VERSION, kind: 'List', items: ['carts', 'logs'].map(claim)},
      plain,
      undefined,
      {noHeaders: true},
    )
    assert.match(list, /^shop +carts +Pending/)
    assert.doesNotMatch(list, /NAMESPACE +NAME/)
  })
})

describe('explain output in chunks (what the command writes) is byte for byte the whole document', () => {
  const renderers = [
    {format: 'json', whole: renderExplainJson, chunks: explainJsonChunks},
    {format: 'yaml', whole: renderExplainYaml, chunks: explainYamlChunks},
  ]
  for (const [name, doc] of cases) {
    for (const r of renderers) {
      for (const perChunk of [1, 2, 100]) {
        it(`${name}: ${r.format}, ${perChunk} item(s) a chunk`, () => {
          const chunks = [...r.chunks(doc, perChunk)]
          assert.equal(chunks.join(''), r.whole(doc))
          if (doc.kind === 'List' && doc.items.length > perChunk)
            assert.ok(chunks.length > 1, 'a List goes out in pieces')
        })
      }
    }
    it(`${name}: text`, () => assert.equal([...explainTextChunks(doc, plain)].join(''), renderExplainText(doc, plain)))
  }
})
