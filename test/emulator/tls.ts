// A throw-away TLS identity for serving HTTPS: a self-signed certificate for 127.0.0.1 and localhost,
// made with the `openssl` command (Node has no certificate generator). The certificate is its own CA,
// so a kubeconfig can trust it through certificate-authority-data. Made once per process.
import {execFile} from 'node:child_process'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {promisify} from 'node:util'

export interface TlsIdentity {
  key: string
  cert: string
}

let cached: Promise<TlsIdentity> | undefined

async function generate(): Promise<TlsIdentity> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pvctl-emulator-tls-'))
  try {
    const keyFile = path.join(dir, 'key.pem')
    const certFile = path.join(dir, 'cert.pem')
    await promisify(execFile)('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
      '-subj', '/CN=pvctl-emulator',
      '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-addext', 'basicConstraints=critical,CA:TRUE',
      '-addext', 'keyUsage=critical,digitalSignature,keyCertSign',
      '-addext', 'extendedKeyUsage=serverAuth',
      '-keyout', keyFile, '-out', certFile,
    ])
    return {key: await readFile(keyFile, 'utf8'), cert: await readFile(certFile, 'utf8')}
  } catch (e) {
    throw new Error(`emulator: cannot make a TLS certificate (is openssl installed?): ${(e as Error).message}`)
  } finally {
    await rm(dir, {recursive: true, force: true})
  }
}

export function tlsIdentity(): Promise<TlsIdentity> {
  cached ??= generate()
  return cached
}
