// A snapshot that lacks a kind the plan judges by (`kubectl get pv,pvc -A -o yaml`, the obvious first
// try) says so, one line per missing kind that matters, for sync and explain alike; a whole one says nothing.
import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {parse, stringify} from 'yaml'

import {runCli} from './run-cli.js'
import {tempDir} from '../temp-dir.js'

const dir = tempDir('partial')
const example = parse(readFileSync('examples/cluster.yaml', 'utf8')) as {
  items: Array<{kind: string; spec?: Record<string, unknown>}>
}

function snapshot(
  name: string,
  keep: (o: {kind: string}) => boolean,
  change: (o: {kind: string; spec?: Record<string, unknown>}) => object = (o) => o,
): string {
  const file = path.join(dir, name)
  writeFileSync(file, stringify({...example, items: example.items.filter(keep).map(change)}))
  return file
}

const rows: Array<{name: string; file: () => string; want: RegExp[]}> = [
  {
    name: 'PVs and PVCs alone: no StorageClass and no Pod',
    file: () => snapshot('pv-pvc.yaml', (o) => o.kind === 'PersistentVolume' || o.kind === 'PersistentVolumeClaim'),
    want: [
      /^pvctl: the snapshot holds no StorageClass: claims and volumes of class fast, standard are judged as if the class did not exist; take the snapshot with kubectl get pv,pvc,storageclasses,pods,nodes -A -o yaml$/m,
      /^pvctl: the snapshot holds no Pod: every volume is judged unused/m,
    ],
  },
  {
    name: 'no Node, and a volume with node affinity',
    file: () =>
      snapshot(
        'no-nodes.yaml',
        (o) => o.kind !== 'Node',
        (o) =>
          o.kind === 'PersistentVolume'
            ? {
                ...o,
                spec: {
                  ...o.spec,
                  nodeAffinity: {
                    required: {
                      nodeSelectorTerms: [
                        {matchExpressions: [{key: 'kubernetes.io/hostname', operator: 'In', values: ['node-a']}]},
                      ],
                    },
                  },
                },
              }
            : o,
      ),
    want: [
      /^pvctl: the snapshot holds no Node: volumes' node affinity and claims' selected nodes cannot be checked against nodes/m,
    ],
  },
  {name: 'the whole example: nothing to say', file: () => 'examples/cluster.yaml', want: []},
]

for (const row of rows) {
  test(`partial snapshot: ${row.name}`, async () => {
    const file = row.file()
    for (const args of [
      ['sync', '--dry-run', '-f', file, '-o', 'json'],
      ['explain', 'pvc/search', '-n', 'shop', '-f', file, '-o', 'json'],
    ]) {
      const run = await runCli(args)
      assert.ok(run.code === 0 || run.code === 1, run.stderr)
      for (const re of row.want) assert.match(run.stderr, re, `${args[0]}: ${run.stderr}`)
      assert.equal(
        run.stderr.split('\n').filter((l) => /holds no/.test(l)).length,
        row.want.length,
        `${args[0]}: ${run.stderr}`,
      )
    }
  })
}

test('partial snapshot: explain marks a verdict that rests on the missing kind, and only then', async () => {
  const partial = snapshot(
    'pv-pvc-explain.yaml',
    (o) => o.kind === 'PersistentVolume' || o.kind === 'PersistentVolumeClaim',
  )
  const marked = JSON.parse((await runCli(['explain', 'pvc/search', '-n', 'shop', '-f', partial, '-o', 'json'])).stdout)
  assert.equal(marked.verdict, 'StorageClassNotFound')
  assert.deepEqual(marked.caveats, ['the snapshot holds no StorageClass: the class may exist in the cluster'])
  const text = (await runCli(['explain', 'pvc/search', '-n', 'shop', '-f', partial])).stdout
  assert.match(text, /^Caveats:\n {2}- the snapshot holds no StorageClass: the class may exist in the cluster$/m)
  // A claim bound to a volume rests on nothing the snapshot lacks.
  const bound = JSON.parse(
    (await runCli(['explain', 'pvc/reports-a', '-n', 'shop', '-f', partial, '-o', 'json'])).stdout,
  )
  assert.equal(bound.caveats, undefined)
  const whole = JSON.parse(
    (await runCli(['explain', 'pvc/search', '-n', 'shop', '-f', 'examples/cluster.yaml', '-o', 'json'])).stdout,
  )
  assert.equal(whole.caveats, undefined)
})
