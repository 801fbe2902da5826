// Loop mode's double-check, against the emulator: the volume informer holds a volume whose claim the claim
// informer has not seen yet (the claim's event comes late), as under load after an in-tree provision. The
// volume's sync takes the claim for gone; the guard asks the API server, finds it, and the volume is never
// written Released, let alone deleted.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {claim, cluster, FAST, getVolume, Pvctl, volume} from './loop-harness.js'

const DISABLED = '--controllers=*,-persistentvolume-binder-controller'

test('a claim whose event reaches the claim informer late: its freshly provisioned volume is not released, nor deleted', async () => {
  const {api, kubeconfig} = await cluster([])
  let pvctl: Pvctl | undefined
  // The claim list is answered first, without the claim; then the claim and its provisioned volume appear;
  // the volume list, held until then, has the volume. The claim's own event waits behind its watch, held
  // until the volume's sync has run.
  let provisioned!: () => void
  const appeared = new Promise<void>((resolve) => (provisioned = resolve))
  api.faults.add({
    verb: 'list',
    resource: 'pvc',
    count: 1,
    effect: {
      type: 'afterAnswer',
      run: () => {
        api.create(claim('team-a', 'fresh', {uid: 'uid-fresh', volumeName: 'pvc-uid-fresh'}) as never)
        const volumeOfClaim = volume('pvc-uid-fresh', {
          claimRef: {namespace: 'team-a', name: 'fresh', uid: 'uid-fresh'},
          phase: 'Bound',
        })
        volumeOfClaim.spec.persistentVolumeReclaimPolicy = 'Delete'
        volumeOfClaim.metadata.annotations = {
          ...volumeOfClaim.metadata.annotations,
          'pv.kubernetes.io/provisioned-by': 'kubernetes.io/host-path',
        }
        api.create(volumeOfClaim as never)
        provisioned()
      },
    },
  })
  api.faults.add({verb: 'list', resource: 'pv', count: 1, effect: {type: 'hook', run: () => appeared}})
  api.faults.add({
    verb: 'watch',
    resource: 'pvc',
    count: 1,
    effect: {
      type: 'hook',
      run: async () => {
        await pvctl!.lineAt(/"Synced" sync="pv\/pvc-uid-fresh"/).catch(() => {})
      },
    },
  })
  pvctl = new Pvctl(kubeconfig(), ['--watch', '--yes', '--enable-hostpath-provisioner', ...FAST, DISABLED, '-v', '4'])
  try {
    await pvctl.line(/Caches are synced/, {stream: 'err'})
    // The volume's sync runs now, with its claim missing from the cache: before it would release the
    // volume, it asks the API server for the claim, finds it, and goes on with it found (syncVolume).
    await pvctl.lineAt(/"Synced" sync="pv\/pvc-uid-fresh"/)
    // Released is a status write: none was made, nor a DELETE.
    assert.equal(api.countWrites({resource: 'pv', subresource: 'status', name: 'pvc-uid-fresh'}), 0, 'never Released')
    assert.equal(api.countRequests({verb: 'delete', resource: 'pv', name: 'pvc-uid-fresh'}), 0, 'never deleted')
    assert.equal(getVolume(api, 'pvc-uid-fresh')?.status?.phase, 'Bound')
    assert.equal(api.countRequests({verb: 'create', resource: 'pods'}), 0, 'no cleanup pod')
    assert.ok(
      api.countRequests({verb: 'get', resource: 'pvc', name: 'fresh'}) > 0,
      'the claim was asked of the API server',
    )
    assert.equal(
      pvctl.err.filter((l) => /Double-check stopped/.test(l)).length,
      0,
      'a claim found is a re-plan, as in syncVolume, not a refusal',
    )
  } finally {
    await pvctl.stop()
    await api.stop()
  }
})

test('a watch event that is not one the API server sends (no name, a bad type, nested too deep): the watch ends, the informer lists afresh, nothing is taken in', async () => {
  const deep = `${'['.repeat(2000)}${']'.repeat(2000)}`
  const lines = [
    '{"type":"ADDED","object":{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"namespace":"team-a"}}}',
    `{"type":"MODIFIED","object":{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"x","namespace":"team-a"},"spec":${deep}}}`,
    '{"type":"EXPLODED","object":{}}',
  ]
  for (const line of lines) {
    const {api, kubeconfig} = await cluster([volume('pv-a')])
    api.faults.add({verb: 'watch', resource: 'pvc', count: 1, effect: {type: 'body', code: 200, body: `${line}\n`}})
    const pvctl = new Pvctl(kubeconfig(), ['--watch', '--dry-run', ...FAST, DISABLED, '-v', '2'])
    try {
      await pvctl.line(/List and watch failed; retrying/, {stream: 'err'})
      assert.match(pvctl.err.join('\n'), /resource="persistentvolumeclaims" err=.*watch persistentvolumeclaims: /)
      // The informer lists again, and the loop goes on.
      await pvctl.line(/"Listed" resource="persistentvolumeclaims" reason="error"/, {stream: 'err'})
      assert.equal(pvctl.exitCode, undefined, 'still running')
    } finally {
      await pvctl.stop()
      await api.stop()
    }
  }
})
