// Credentials never reach the screen: a password in the kubeconfig's server URL is redacted from every
// error and notice, and credentials bound for a plain-HTTP server are warned about.
import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {redactUrlCredentials} from '../../src/redact.js'
import {startEmulator} from '../emulator/emulator.js'
import {runCli} from './run-cli.js'
import {tempDir} from '../temp-dir.js'

const dir = tempDir('secrets')

const kubeconfig = (server: string, user: Record<string, unknown>) => `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${server}", insecure-skip-tls-verify: true}}]
users: [{name: u, user: ${JSON.stringify(user)}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`

test('redactUrlCredentials: the userinfo of every URL, and nothing else', () => {
  const rows: Array<[string, string]> = [
    [
      'cannot reach the API server at https://admin:s3cret@10.0.0.1:6443: ECONNREFUSED',
      'cannot reach the API server at https://<redacted>@10.0.0.1:6443: ECONNREFUSED',
    ],
    ['http://token@host/x and https://a:b@c', 'http://<redacted>@host/x and https://<redacted>@c'],
    ['mail me at someone@example.com', 'mail me at someone@example.com'],
    ['https://host/path?q=a@b', 'https://host/path?q=a@b'],
  ]
  for (const [input, want] of rows) assert.equal(redactUrlCredentials(input), want)
})

test('a password in the server URL is not printed when the server cannot be reached', async () => {
  const file = path.join(dir, 'userinfo.yaml')
  writeFileSync(file, kubeconfig('https://admin:s3cret-pw@127.0.0.1:9', {token: 't'}))
  const run = await runCli(['sync', '--dry-run', '--kubeconfig', file, '--request-timeout', '5s'])
  assert.equal(run.code, 3, run.stderr)
  assert.match(run.stderr, /<redacted>@127\.0\.0\.1:9/)
  assert.ok(!run.stderr.includes('s3cret-pw') && !run.stdout.includes('s3cret-pw'), run.stderr)
})

test('a token bound for a plain-HTTP server: one warning on stderr', async () => {
  const api = await startEmulator({objects: []})
  try {
    const file = path.join(dir, 'http.yaml')
    writeFileSync(file, kubeconfig(api.url, {token: 'secret-token'}))
    const run = await runCli(['sync', '--dry-run', '--kubeconfig', file, '-o', 'json'])
    assert.equal(run.code, 0, run.stderr)
    assert.match(
      run.stderr,
      /^pvctl: warning: the API server http:\/\/127\.0\.0\.1:\d+ is plain HTTP: a bearer token would travel unencrypted; use https:\/\//m,
    )
    assert.equal(run.stderr.match(/warning/g)?.length, 1)
    assert.ok(!run.stderr.includes('secret-token'))
  } finally {
    await api.stop()
  }
})
