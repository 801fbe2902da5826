// "What if I create this claim?": a snapshot plus a hand-written claim manifest (no uid, as manifests
// are). sync plans as the cluster would once the claim is created (it binds), and explain agrees.
import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {runCli} from './run-cli.js'
import {tempDir} from '../temp-dir.js'

const dir = tempDir('what-if')
const manifest = path.join(dir, 'new-claim.yaml')
writeFileSync(
  manifest,
  `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: invoices, namespace: shop}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
  storageClassName: standard
`,
)

test('a snapshot plus a new claim without a uid: sync binds it in a plan that settles, and explain says WillBind to the same volume', async () => {
  const sync = await runCli(['sync', '--dry-run', '-f', 'examples/cluster.yaml', '-f', manifest, '-o', 'json'])
  assert.equal(sync.code, 1, sync.stderr)
  assert.match(sync.stderr, /1 PersistentVolumeClaim has no metadata\.uid \(shop\/invoices\)/)
  const report = JSON.parse(sync.stdout)
  assert.equal(report.converged, true)
  const bound = report.objects.find(
    (o: {kind: string; metadata: {name: string}}) =>
      o.kind === 'PersistentVolumeClaim' && o.metadata.name === 'invoices',
  )
  assert.equal(bound.status.phase, 'Bound')

  const explain = await runCli([
    'explain',
    'pvc/invoices',
    '-n',
    'shop',
    '-f',
    'examples/cluster.yaml',
    '-f',
    manifest,
    '-o',
    'json',
  ])
  assert.equal(explain.code, 0, explain.stderr)
  const why = JSON.parse(explain.stdout)
  assert.equal(why.verdict, 'WillBind')
  assert.equal(why.volume, bound.spec.volumeName)
})
