// Which release a --version names, where its binaries are kept, and the reason given where Go is missing.
import assert from 'node:assert/strict'
import {test} from 'node:test'

import {cacheRoot, goMissing, kubeRelease, supportedMinors} from './kube-binaries.js'

test('a version names the module of its minor: the release and the etcd it builds', () => {
  assert.deepEqual(supportedMinors(), ['1.31', '1.37'])
  for (const version of ['1.31', 'v1.31', '1.31.14', 'v1.31.14']) {
    const r = kubeRelease(version)
    assert.deepEqual([r.minor, r.kubernetes, r.etcd], ['1.31', 'v1.31.14', 'v3.5.14'], version)
  }
  const newest = kubeRelease('1.37')
  assert.deepEqual([newest.kubernetes, newest.etcd], ['v1.37.2', 'v3.7.0'])
})

test('a version without a module, or another patch than the module builds, is refused with what there is', () => {
  assert.throws(
    () => kubeRelease('1.30'),
    /no module for Kubernetes 1\.30 under test\/real-cluster\/go\/ \(there are: 1\.31, 1\.37\)/,
  )
  assert.throws(() => kubeRelease('1.31.13'), /the module for 1\.31 builds v1\.31\.14/)
  assert.throws(() => kubeRelease('latest'), /expected a Kubernetes version such as 1\.31/)
})

test('the cache: PVCTL_KUBE_CACHE, else XDG_CACHE_HOME/pvctl/kube, else ~/.cache/pvctl/kube', () => {
  assert.equal(cacheRoot({PVCTL_KUBE_CACHE: '/x/kube', XDG_CACHE_HOME: '/y'}), '/x/kube')
  assert.equal(cacheRoot({XDG_CACHE_HOME: '/y'}), '/y/pvctl/kube')
  assert.match(cacheRoot({}), /\/\.cache\/pvctl\/kube$/)
})

test('without Go on the PATH the reason says so, for the scripts to print and skip', async () => {
  const path = process.env.PATH
  process.env.PATH = '/nonexistent'
  try {
    assert.match(
      (await goMissing()) ?? '',
      /^Go is not installed \(`go version`: ENOENT\): the real-cluster suites need it/,
    )
  } finally {
    process.env.PATH = path
  }
})
