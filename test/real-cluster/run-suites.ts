// `npm run test:real-cluster [-- --version 1.31 ...] [-- FILE ...]`: for each version (default: every
// minor under go/), a real control plane (built on first use) with kube-controller-manager running what a
// cluster runs beside the PV controller (CLUSTER_SERVICES: pvctl is the PV controller here), then the
// live suites of test/real-cluster/ and test/emulator/admission.test.ts against it, one file at a time (a
// test may empty the API server). Skips, saying why, where Go is missing. Exits non-zero when a suite
// fails at any version.
import {spawnSync} from 'node:child_process'
import {readdirSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {parseArgs} from 'node:util'

import {CLUSTER_SERVICES, startControlPlane} from './control-plane.js'
import {goMissing, kubeBinaries, kubeRelease, supportedMinors} from './kube-binaries.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const {values, positionals} = parseArgs({options: {version: {type: 'string', multiple: true}}, allowPositionals: true})
const log = (line: string) => process.stderr.write(`${line}\n`)

const missing = await goMissing()
if (missing !== undefined) {
  process.stdout.write(`test:real-cluster: skipped: ${missing}\n`)
  process.exit(0)
}
const files =
  positionals.length > 0
    ? positionals
    : [
        ...readdirSync(here)
          .filter((f) => f.endsWith('.test.ts'))
          .sort()
          .map((f) => path.join(here, f)),
        path.join(here, '..', 'emulator', 'admission.test.ts'),
      ]
let failed = 0
for (const release of (values.version ?? supportedMinors()).map(kubeRelease)) {
  const binaries = await kubeBinaries(release, log)
  const plane = await startControlPlane(binaries, {log})
  const stop = () => void plane.stop().then(() => process.exit(130))
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  await plane.startControllerManager({controllers: CLUSTER_SERVICES})
  process.stdout.write(
    `test:real-cluster: Kubernetes ${release.kubernetes} at ${plane.server} (${binaries.buildSeconds === 0 ? 'binaries from the cache' : `binaries built in ${binaries.buildSeconds.toFixed(0)} s`})\n`,
  )
  try {
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', ...files], {
      stdio: 'inherit',
      env: {
        ...process.env,
        PVCTL_REAL_CLUSTER: path.join(plane.dir, 'cluster.json'),
        PVCTL_E2E_KUBECONFIG: plane.kubeconfig,
      },
    })
    if (run.status !== 0) failed++
  } finally {
    process.removeListener('SIGINT', stop)
    process.removeListener('SIGTERM', stop)
    await plane.stop()
  }
}
process.exit(failed > 0 ? 1 : 0)
