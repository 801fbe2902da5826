// `npm run real-cluster`: a real control plane on 127.0.0.1 (etcd, kube-apiserver and, with
// --controller-manager, kube-controller-manager running only the PV controller), built from the Go
// module proxy on first use, holding the bundled example (examples/cluster.yaml, or the files given with
// -f, status included; --empty for none). Prints the KUBECONFIG to export, as `npm run demo` does, and
// serves until Ctrl-C; then ends every process it started.
//   npm run real-cluster -- [--version 1.31] [-f FILE ... | --empty] [--controller-manager] [--sync-period 15s] [--kubeconfig-out PATH]
//   npm run real-cluster -- --build-only [--version 1.31 ...]   (build or reuse the binaries, then exit)
import {copyFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {parseArgs} from 'node:util'

import {loadSnapshot} from '../../src/cluster/snapshot.js'

import {CLUSTER_SERVICES, startControlPlane} from './control-plane.js'
import {goMissing, kubeBinaries, kubeRelease} from './kube-binaries.js'
import {clients, seed} from './seed.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')

const {values} = parseArgs({
  options: {
    version: {type: 'string', multiple: true},
    'controller-manager': {type: 'boolean', default: false},
    'sync-period': {type: 'string'},
    'kubeconfig-out': {type: 'string'},
    'build-only': {type: 'boolean', default: false},
    file: {type: 'string', short: 'f', multiple: true},
    empty: {type: 'boolean', default: false},
  },
})
const log = (line: string) => process.stderr.write(`${line}\n`)

const missing = await goMissing()
if (missing !== undefined) {
  process.stdout.write(`real-cluster: skipped: ${missing}\n`)
  process.exit(0)
}
const releases = (values.version ?? ['1.31']).map(kubeRelease)
if (values['build-only']) {
  for (const release of releases) {
    const binaries = await kubeBinaries(release, log)
    process.stdout.write(
      `real-cluster: Kubernetes ${release.kubernetes} binaries in ${binaries.dir} (${binaries.buildSeconds === 0 ? 'cached' : `built in ${binaries.buildSeconds.toFixed(0)} s`})\n`,
    )
  }
  process.exit(0)
}
if (releases.length !== 1) throw new Error('--version: give one version to serve (several only with --build-only)')

const binaries = await kubeBinaries(releases[0]!, log)
const plane = await startControlPlane(binaries, {log})
const shutdown = () => void plane.stop().then(() => process.exit(0))
process.on('SIGINT', shutdown)
process.on('SIGTERM', shutdown)
process.on('SIGHUP', shutdown)
const files = values.empty ? [] : (values.file ?? [path.join(root, 'examples', 'cluster.yaml')])
if (files.length > 0) {
  const {refused} = await seed(clients(plane.kubeconfig), (await loadSnapshot(files)).state)
  for (const r of refused) log(`the API server refused ${r.object}: ${r.message}`)
}
// What a cluster runs beside the PV controller (default ServiceAccounts, the protection controllers).
await plane.startControllerManager({controllers: CLUSTER_SERVICES})
const manager = values['controller-manager']
  ? await plane.startControllerManager({syncPeriod: values['sync-period']})
  : undefined
let kubeconfig = plane.kubeconfig
if (values['kubeconfig-out'] !== undefined) {
  copyFileSync(plane.kubeconfig, values['kubeconfig-out'])
  kubeconfig = values['kubeconfig-out']
}

process.stdout
  .write(`pvctl real-cluster: Kubernetes ${binaries.release.kubernetes} at ${plane.server} (etcd ${binaries.release.etcd}; ${binaries.buildSeconds === 0 ? 'binaries from the cache' : `binaries built in ${binaries.buildSeconds.toFixed(0)} s`}),
${manager ? `with a kube-controller-manager running only the PV controller (metrics at ${manager.url}/metrics)` : 'without the PV controller of kube-controller-manager: pvctl is the PV controller (--controller-manager starts the real one)'};
another runs what a cluster runs beside it (the service-account and volume protection controllers).
${files.length > 0 ? `It holds ${files.map((f) => path.relative(process.cwd(), f) || f).join(', ')}, status included. ` : ''}State, certificates and logs in ${plane.dir}; the admin is a client certificate in system:masters.

  export KUBECONFIG=${kubeconfig}

Then try:
  pvctl sync --dry-run
  pvctl sync --yes
  kubectl get pv,pvc -A

Ctrl-C stops the control plane.
`)
