// The emulator's certificate, made without openssl (tls.ts), read back by OpenSSL's parser (Node's
// X509Certificate) and used for real: what `openssl req -x509` would make, a CA for 127.0.0.1 and
// localhost that signs itself, and a TLS server that a client trusting it reaches.
import assert from 'node:assert/strict'
import {X509Certificate} from 'node:crypto'
import {once} from 'node:events'
import https from 'node:https'
import type {AddressInfo} from 'node:net'
import {test} from 'node:test'

import {tlsIdentity} from './tls.js'

test('the certificate: its own CA, for 127.0.0.1 and localhost, signed by its key, valid now', async () => {
  const {cert} = await tlsIdentity()
  const x = new X509Certificate(cert)
  assert.equal(x.subject, 'CN=pvctl-emulator')
  assert.equal(x.issuer, x.subject)
  assert.equal(x.ca, true)
  assert.equal(x.subjectAltName, 'IP Address:127.0.0.1, DNS:localhost')
  assert.equal(x.checkIP('127.0.0.1'), '127.0.0.1')
  assert.equal(x.checkHost('localhost'), 'localhost')
  assert.deepEqual(x.keyUsage, ['1.3.6.1.5.5.7.3.1'])
  assert.ok(x.verify(x.publicKey), 'not signed by its own key')
  assert.ok(Date.parse(x.validFrom) < Date.now() && Date.now() < Date.parse(x.validTo))
})

test('a TLS client that trusts the certificate reaches a server using it, by IP and by name', async () => {
  const {key, cert} = await tlsIdentity()
  const server = https.createServer({key, cert}, (_, res) => res.end('ok'))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const {port} = server.address() as AddressInfo
  try {
    for (const host of ['127.0.0.1', 'localhost']) {
      const body = await new Promise<string>((resolve, reject) => {
        https
          .get({host, port, ca: cert, lookup: (_h, _o, cb) => cb(null, [{address: '127.0.0.1', family: 4}])}, (res) => {
            let text = ''
            res.on('data', (chunk: Buffer) => (text += chunk.toString()))
            res.on('end', () => resolve(text))
          })
          .on('error', reject)
      })
      assert.equal(body, 'ok', host)
    }
  } finally {
    server.close()
  }
})
