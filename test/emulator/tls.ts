// A throw-away TLS identity for serving HTTPS: a self-signed certificate for 127.0.0.1 and localhost, as
// `openssl req -x509` would make it, with nothing but Node's crypto: it makes the P-256 key and signs,
// and the certificate around them is written here in DER (Node has no certificate builder; a library
// that has one signs in JavaScript, a second per process). The certificate is its own CA, so a
// kubeconfig can trust it through certificate-authority-data. tls.test.ts reads it back with
// X509Certificate (OpenSSL's parser). Made once per process.
import {createHash, generateKeyPairSync, randomBytes, sign} from 'node:crypto'

export interface TlsIdentity {
  key: string
  cert: string
}

/** One DER element: tag, length, content. */
function der(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content)
  const size: number[] = []
  for (let n = body.length; n > 0; n >>= 8) size.unshift(n & 0xff)
  const length = body.length < 0x80 ? [body.length] : [0x80 | size.length, ...size]
  return Buffer.concat([Buffer.from([tag, ...length]), body])
}

const sequence = (...items: Buffer[]): Buffer => der(0x30, ...items)
const set = (...items: Buffer[]): Buffer => der(0x31, ...items)
const explicit = (n: number, item: Buffer): Buffer => der(0xa0 | n, item)
const octets = (bytes: Buffer): Buffer => der(0x04, bytes)
const bits = (bytes: Buffer, unused = 0): Buffer => der(0x03, Buffer.from([unused]), bytes)
const TRUE = der(0x01, Buffer.from([0xff]))

/** A non-negative INTEGER: a leading zero byte when the high bit is set. */
function integer(bytes: Buffer): Buffer {
  return der(0x02, bytes[0] >= 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes)
}

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number)
  const base128 = (v: number): number[] => {
    const out = [v & 0x7f]
    for (v = Math.floor(v / 128); v > 0; v = Math.floor(v / 128)) out.unshift(0x80 | (v & 0x7f))
    return out
  }
  return der(0x06, Buffer.from([40 * a + b, ...rest.flatMap(base128)]))
}

/** UTCTime, YYMMDDHHMMSSZ (RFC 5280 for years before 2050). */
function utcTime(d: Date): Buffer {
  return der(0x17, Buffer.from(`${d.toISOString().slice(2, 19).replace(/[-:T]/g, '')}Z`))
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [TRUE] : []), octets(value))
}

const ECDSA_WITH_SHA256 = sequence(oid('1.2.840.10045.4.3.2'))
const DAY_MS = 24 * 60 * 60 * 1000

function generate(now: number): TlsIdentity {
  const {privateKey, publicKey} = generateKeyPairSync('ec', {namedCurve: 'prime256v1'})
  const spki = publicKey.export({type: 'spki', format: 'der'})
  const name = sequence(set(sequence(oid('2.5.4.3'), der(0x0c, Buffer.from('pvctl-emulator')))))
  // The key's identifier as RFC 5280 4.2.1.2 (1) has it: SHA-1 of the key's bits (the last 65 bytes of a P-256 SPKI).
  const keyId = createHash('sha1')
    .update(spki.subarray(spki.length - 65))
    .digest()
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))), // v3
    integer(Buffer.concat([Buffer.from([0x40]), randomBytes(15)])), // positive, 16 bytes
    ECDSA_WITH_SHA256,
    name,
    // Valid from a day ago, for a clock behind this one, until two days on (`openssl req -days 2`).
    sequence(utcTime(new Date(now - DAY_MS)), utcTime(new Date(now + 2 * DAY_MS))),
    name,
    spki,
    explicit(
      3,
      sequence(
        extension('2.5.29.19', true, sequence(TRUE)), // basicConstraints: CA
        extension('2.5.29.15', true, bits(Buffer.from([0x84]), 2)), // keyUsage: digitalSignature, keyCertSign
        extension('2.5.29.37', false, sequence(oid('1.3.6.1.5.5.7.3.1'))), // extKeyUsage: serverAuth
        extension(
          '2.5.29.17',
          false,
          sequence(der(0x87, Buffer.from([127, 0, 0, 1])), der(0x82, Buffer.from('localhost'))),
        ), // subjectAltName
        extension('2.5.29.14', false, octets(keyId)), // subjectKeyIdentifier
      ),
    ),
  )
  const certificate = sequence(tbs, ECDSA_WITH_SHA256, bits(sign('sha256', tbs, privateKey)))
  const lines = certificate.toString('base64').match(/.{1,64}/g) ?? []
  return {
    key: privateKey.export({type: 'pkcs8', format: 'pem'}).toString(),
    cert: `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`,
  }
}

let cached: TlsIdentity | undefined

export function tlsIdentity(): Promise<TlsIdentity> {
  cached ??= generate(Date.now())
  return Promise.resolve(cached)
}
