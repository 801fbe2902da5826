// TokenFileAuth reads a token file as client-go does: trimmed, and again a minute after the last read.
import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'

import {TOKEN_FILE_PROVIDER, TokenFileAuth} from '../../src/cluster/token-file-auth.js'
import {tempDir} from '../temp-dir.js'

const dir = tempDir('token')

function userOf(file: string) {
  return {name: 'u', authProvider: {name: TOKEN_FILE_PROVIDER, config: {path: file}}}
}

async function header(auth: TokenFileAuth, file: string): Promise<unknown> {
  const opts: {headers?: Record<string, string>} = {}
  await auth.applyAuthentication(userOf(file) as never, opts)
  return opts.headers?.Authorization
}

const rows = [
  {name: 'as written by echo (a trailing newline)', content: 'abc.def\n', want: 'Bearer abc.def'},
  {name: 'with CRLF and spaces around it', content: '  abc.def \r\n', want: 'Bearer abc.def'},
  {name: 'as a projected service account token (nothing around it)', content: 'abc.def', want: 'Bearer abc.def'},
]
for (const row of rows) {
  test(`a token file ${row.name} gives a header without whitespace`, async () => {
    const file = path.join(dir, row.name.replace(/\W+/g, '-'))
    writeFileSync(file, row.content)
    assert.equal(await header(new TokenFileAuth(), file), row.want)
  })
}

test('the file is read again a minute after the last read, not before (a rotated token)', async () => {
  const file = path.join(dir, 'rotated')
  let now = 1_000_000
  const auth = new TokenFileAuth(() => now)
  writeFileSync(file, 'first\n')
  assert.equal(await header(auth, file), 'Bearer first')
  writeFileSync(file, 'second\n')
  now += 59_000
  assert.equal(await header(auth, file), 'Bearer first')
  now += 2_000
  assert.equal(await header(auth, file), 'Bearer second')
})

test('only users given the provider by makeKubeConfig are its', () => {
  const auth = new TokenFileAuth()
  assert.equal(auth.isAuthProvider(userOf('/x') as never), true)
  assert.equal(
    auth.isAuthProvider({name: 'u', authProvider: {name: 'tokenFile', config: {tokenFile: '/x'}}} as never),
    false,
  )
  assert.equal(auth.isAuthProvider({name: 'u', token: 't'} as never), false)
})
