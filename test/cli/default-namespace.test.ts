// pvc/NAME without -n is looked for in the namespace kubectl would use: the context's, else "default".
import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {defaultNamespace} from '../../src/cli/default-namespace.js'
import {tempDir} from '../temp-dir.js'

const dir = tempDir('default-ns')

function kubeconfig(name: string, contexts: Array<{name: string; namespace?: string}>, current: string): string {
  const file = path.join(dir, name)
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]',
      'users: [{name: u, user: {token: t}}]',
      `contexts: [${contexts.map((c) => `{name: ${c.name}, context: {cluster: c, user: u${c.namespace !== undefined ? `, namespace: ${c.namespace}` : ''}}}`).join(', ')}]`,
      `current-context: ${current}`,
    ].join('\n'),
  )
  return file
}

const withNamespace = kubeconfig('a.yaml', [{name: 'one', namespace: 'team-b'}, {name: 'two'}], 'one')

const rows: Array<{
  id: string
  flags: Parameters<typeof defaultNamespace>[0]
  env?: Record<string, string>
  want: string
}> = [
  {id: '-n wins', flags: {namespace: 'shop', kubeconfig: withNamespace}, want: 'shop'},
  {id: "the current context's namespace", flags: {kubeconfig: withNamespace}, want: 'team-b'},
  {
    id: '--context names a context without one: default',
    flags: {kubeconfig: withNamespace, context: 'two'},
    want: 'default',
  },
  {id: 'KUBECONFIG, as kubectl reads it', flags: {}, env: {KUBECONFIG: withNamespace, HOME: dir}, want: 'team-b'},
  {
    id: 'a snapshot has no context: default',
    flags: {filename: ['snap.yaml'], kubeconfig: withNamespace},
    want: 'default',
  },
  {
    id: 'an unusable kubeconfig is left to the session to report: default',
    flags: {kubeconfig: path.join(dir, 'missing.yaml')},
    want: 'default',
  },
]

for (const row of rows) {
  test(`default namespace: ${row.id}`, () => {
    assert.equal(defaultNamespace(row.flags, row.env ?? {HOME: dir}), row.want)
  })
}
