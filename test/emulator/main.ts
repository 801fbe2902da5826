// Runs the emulator by hand:
//   node --import tsx test/emulator/main.ts [--port 8001] [-f objects.yaml ...] [--tls]
//        [--token TOKEN=USER ...] [--watch-history N] [--kubeconfig-out PATH]
// Prints the URL and a kubeconfig path, then serves until interrupted. objects.yaml may hold several
// documents and `kind: List` wrappers (what `kubectl get -o yaml` prints).
import {readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {parseArgs} from 'node:util'

import {startEmulator, type Tokens} from './emulator.js'
import {loadObjects} from './load-objects.js'

async function main(): Promise<void> {
  const {values} = parseArgs({
    options: {
      port: {type: 'string', default: '8001'},
      file: {type: 'string', short: 'f', multiple: true, default: []},
      tls: {type: 'boolean', default: false},
      token: {type: 'string', multiple: true, default: []},
      'watch-history': {type: 'string'},
      'kubeconfig-out': {type: 'string'},
      help: {type: 'boolean', short: 'h', default: false},
    },
  })
  if (values.help) {
    process.stdout.write(
      readFileSync(new URL(import.meta.url), 'utf8')
        .split('\n')
        .slice(0, 5)
        .join('\n')
        .replace(/^\/\/ ?/gm, '') + '\n',
    )
    return
  }
  let tokens: Tokens | undefined
  for (const spec of values.token) {
    const [token, user] = spec.split('=')
    if (!token || !user) throw new Error(`--token wants TOKEN=USER, got ${JSON.stringify(spec)}`)
    tokens = {...tokens, [token]: {user}}
  }
  const api = await startEmulator({
    port: Number(values.port),
    tls: values.tls,
    tokens,
    watchHistory: values['watch-history'] ? Number(values['watch-history']) : undefined,
    objects: values.file.flatMap(loadObjects),
  })
  const kubeconfigPath = values['kubeconfig-out'] ?? path.join(tmpdir(), `pvctl-emulator-${api.port}.kubeconfig`)
  writeFileSync(
    kubeconfigPath,
    api.kubeconfig({token: tokens ? Object.keys(tokens)[0] : undefined, namespace: 'default'}),
  )
  process.stdout.write(`emulator serving at ${api.url}\nKUBECONFIG=${kubeconfigPath}\n`)
  const shutdown = () => void api.stop().then(() => process.exit(0))
  process.on('SIGINT', shutdown)
  process.on('SIGTERM', shutdown)
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`)
  process.exit(1)
})
