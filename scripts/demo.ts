// `npm run demo`: live mode in one command, without a cluster. Starts the API-server emulator of the tests
// (test/emulator) on the bundled example (examples/cluster.yaml, or the files given with -f), with a
// stand-in kubelet that runs the recycler and cleanup pods pvctl starts to completion (the emulator runs
// no pods: without it `pvctl sync --yes` would wait for them until its timeout), writes a kubeconfig and
// prints what to export and try. Serves until Ctrl-C.
//   npm run demo -- [--port 0] [-f FILE ...] [--kubeconfig-out PATH] (--help says what each is)
import {writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {parseArgs} from 'node:util'

import {kubelet} from '../test/e2e/kubelet.js'
import {startEmulator, type K8sObject} from '../test/emulator/emulator.js'
import {loadObjects} from '../test/emulator/load-objects.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** The namespaces the objects live in, for `kubectl get namespaces` to list them as a cluster would (the emulator stores objects in any namespace). */
function namespacesOf(objects: readonly K8sObject[]): K8sObject[] {
  const names = new Set(objects.map((o) => o.metadata?.namespace).filter((n): n is string => n !== undefined))
  for (const n of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) names.delete(n)
  return [...names].sort().map((name) => ({apiVersion: 'v1', kind: 'Namespace', metadata: {name}}) as K8sObject)
}

const USAGE = `Usage: npm run demo -- [--port N] [-f FILE ...] [--kubeconfig-out PATH]
  --port N               the API server's port (default 0: any free port)
  -f, --file FILE        the snapshot to serve (repeat for several; default examples/cluster.yaml)
  --kubeconfig-out PATH  where to write the kubeconfig (default: a file in the system's temp dir)
  -h, --help             this text
(npm passes the options after --; \`npm run demo --port 8001\` would be npm's own option.)
`

const {values} = parseArgs({
  options: {
    port: {type: 'string', default: '0'},
    file: {type: 'string', short: 'f', multiple: true},
    'kubeconfig-out': {type: 'string'},
    help: {type: 'boolean', short: 'h'},
  },
})
if (values.help === true) {
  process.stdout.write(USAGE)
  process.exit(0)
}
const files = values.file ?? [path.join(root, 'examples', 'cluster.yaml')]
const objects = files.flatMap(loadObjects)
const api = await startEmulator({port: Number(values.port), objects: [...namespacesOf(objects), ...objects]})
const stopKubelet = kubelet(api, 'Succeeded')
const kubeconfig = values['kubeconfig-out'] ?? path.join(tmpdir(), `pvctl-demo-${api.port}.kubeconfig`)
writeFileSync(kubeconfig, api.kubeconfig({namespace: 'default'}))

process.stdout
  .write(`pvctl demo: an emulated API server at ${api.url} holding ${files.map((f) => path.relative(process.cwd(), f) || f).join(', ')},
with a stand-in kubelet that completes recycler and cleanup pods.

  export KUBECONFIG=${kubeconfig}

Then try:
  pvctl sync --dry-run          # the plan, against the live (emulated) cluster; writes nothing
  pvctl explain pvc/logs -n shop
  pvctl sync                    # asks, then writes the plan (--yes to skip asking)
  kubectl get pv,pvc -A         # what was written

Ctrl-C stops the demo.
`)

const shutdown = () => {
  stopKubelet()
  void api.stop().then(() => process.exit(0))
}
process.on('SIGINT', shutdown)
process.on('SIGTERM', shutdown)
