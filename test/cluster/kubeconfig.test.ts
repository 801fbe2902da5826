// kubectl's kubeconfig loading rules: first wins when KUBECONFIG merges files, --kubeconfig alone,
// ~/.kube/config, in-cluster, and an error (never localhost:8080) when nothing is configured.
import assert from 'node:assert/strict'
import {mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {kubeconfigContextNames, loadKubeconfig} from '../../src/cluster/kubeconfig.js'
import {UsageError} from '../../src/errors.js'
import {tempDir} from '../temp-dir.js'

const dir = tempDir('kubeconfig')
function file(name: string, body: string): string {
  const p = path.join(dir, name)
  mkdirSync(path.dirname(p), {recursive: true})
  writeFileSync(p, body)
  return p
}

const a = file(
  'a.yaml',
  `apiVersion: v1
kind: Config
current-context: ctx-a
clusters:
- name: shared
  cluster: {server: https://a.example:6443, certificate-authority: certs/ca.crt}
contexts:
- name: ctx-a
  context: {cluster: shared, user: alice, namespace: team-a}
- name: ctx-both
  context: {cluster: shared, user: alice}
users:
- name: alice
  user: {token: secret-a}
`,
)
const b = file(
  'b.yaml',
  `apiVersion: v1
kind: Config
current-context: ctx-b
clusters:
- name: shared
  cluster: {server: https://b.example:6443}
- name: only-b
  cluster: {server: https://only-b.example}
contexts:
- name: ctx-b
  context: {cluster: only-b, user: bob}
- name: ctx-both
  context: {cluster: only-b, user: bob}
users:
- name: bob
  user: {token: secret-b}
`,
)
const home = path.join(dir, 'home')
file(
  'home/.kube/config',
  `current-context: h\nclusters: [{name: c, cluster: {server: https://home.example}}]\ncontexts: [{name: h, context: {cluster: c, user: u}}]\nusers: [{name: u, user: {}}]\n`,
)
const emptyHome = path.join(dir, 'empty-home')
mkdirSync(emptyHome)
const sa = path.join(dir, 'sa')
file('sa/token', 'sa-token')
file('sa/namespace', 'kube-system')

const rows: Array<{
  name: string
  opts: Parameters<typeof loadKubeconfig>[0]
  want?: {server?: string; context?: string; user?: string; namespace?: string; ca?: string}
  error?: {type: Function; message: RegExp}
}> = [
  {
    name: 'KUBECONFIG: the first file current-context wins',
    opts: {env: {KUBECONFIG: `${a}:${b}`}, home: emptyHome},
    want: {context: 'ctx-a', server: 'https://a.example:6443', namespace: 'team-a'},
  },
  {
    name: 'KUBECONFIG: the first definition of a name wins',
    opts: {env: {KUBECONFIG: `${b}:${a}`}, home: emptyHome, context: 'ctx-both'},
    want: {server: 'https://only-b.example', user: 'bob'},
  },
  {
    name: 'KUBECONFIG: entries only in a later file are found',
    opts: {env: {KUBECONFIG: `${a}:${b}`}, home: emptyHome, context: 'ctx-b'},
    want: {server: 'https://only-b.example', user: 'bob'},
  },
  {
    name: 'KUBECONFIG: missing files are skipped',
    opts: {env: {KUBECONFIG: `${path.join(dir, 'nope')}:${b}`}, home: emptyHome},
    want: {context: 'ctx-b'},
  },
  {
    name: '--kubeconfig alone, KUBECONFIG ignored',
    opts: {kubeconfig: b, env: {KUBECONFIG: a}, home: emptyHome},
    want: {context: 'ctx-b'},
  },
  {
    name: 'relative certificate paths resolve against the file',
    opts: {kubeconfig: a, env: {}},
    want: {ca: path.join(dir, 'certs/ca.crt')},
  },
  {
    name: '~/.kube/config when nothing else is set',
    opts: {env: {}, home},
    want: {server: 'https://home.example', context: 'h'},
  },
  {
    name: 'in-cluster service account',
    opts: {
      env: {KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443'},
      home: emptyHome,
      serviceAccountDir: sa,
    },
    want: {server: 'https://10.0.0.1:443', namespace: 'kube-system'},
  },
  {
    name: 'nothing configured: an error, not localhost:8080',
    opts: {env: {}, home: emptyHome, serviceAccountDir: path.join(dir, 'no-sa')},
    error: {type: UsageError, message: /no cluster configured/},
  },
  {
    name: '--kubeconfig that does not exist',
    opts: {kubeconfig: path.join(dir, 'missing.yaml'), env: {}},
    error: {type: UsageError, message: /no such file/},
  },
  {
    name: 'an unknown --context',
    opts: {kubeconfig: a, context: 'nope', env: {}},
    error: {type: UsageError, message: /context "nope" does not exist/},
  },
]

for (const row of rows) {
  test(row.name, () => {
    if (row.error !== undefined) {
      assert.throws(
        () => loadKubeconfig(row.opts),
        (err: Error) => err instanceof row.error!.type && row.error!.message.test(err.message),
      )
      return
    }
    const r = loadKubeconfig(row.opts)
    if (row.want?.server) assert.equal(r.cluster.server, row.want.server)
    if (row.want?.context) assert.equal(r.contextName, row.want.context)
    if (row.want?.user) assert.equal(r.user.name, row.want.user)
    if (row.want?.namespace) assert.equal(r.namespace, row.want.namespace)
    if (row.want?.ca) assert.equal(r.cluster['certificate-authority'], row.want.ca)
  })
}

test('error messages never contain credentials', () => {
  for (const opts of [{kubeconfig: a, context: 'nope', env: {}}]) {
    try {
      loadKubeconfig(opts)
    } catch (err) {
      assert.doesNotMatch((err as Error).message, /secret-a|secret-b/)
    }
  }
})

// The contexts of a fleet audit (--all-contexts, and the names --context a,b is checked against).
const contextRows: Array<{
  name: string
  opts: Parameters<typeof kubeconfigContextNames>[0]
  names?: string[]
  error?: RegExp
}> = [
  {
    name: "KUBECONFIG: every file's contexts, a name once, in first-wins order",
    opts: {env: {KUBECONFIG: `${a}:${b}`}, home: emptyHome},
    names: ['ctx-a', 'ctx-both', 'ctx-b'],
  },
  {
    name: '--kubeconfig alone',
    opts: {kubeconfig: b, env: {KUBECONFIG: a}, home: emptyHome},
    names: ['ctx-b', 'ctx-both'],
  },
  {name: '~/.kube/config', opts: {env: {}, home}, names: ['h']},
  {
    name: 'the in-cluster service account has no contexts: an error',
    opts: {env: {KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443'}, home: emptyHome},
    error: /^no kubeconfig to take contexts from: no --kubeconfig, no KUBECONFIG, no ~\/.kube\/config$/,
  },
]

for (const row of contextRows) {
  test(`context names: ${row.name}`, () => {
    if (row.error !== undefined) {
      assert.throws(
        () => kubeconfigContextNames(row.opts),
        (err: Error) => err instanceof UsageError && row.error!.test(err.message),
      )
      return
    }
    assert.deepEqual(kubeconfigContextNames(row.opts).names, row.names)
  })
}
