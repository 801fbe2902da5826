// A token file (a kubeconfig user's tokenFile, the in-cluster service account token) read as client-go
// reads it: again a minute after it was last read, and trimmed. client-node's own tokenFile provider sends
// the file's content as it is, and a token file written by `echo` ends with a newline, which an HTTP header
// cannot carry: every request failed before it was sent ("Invalid character in header content").
import {readFile} from 'node:fs/promises'

import type * as k8s from '@kubernetes/client-node'

type Authenticator = Parameters<k8s.KubeConfig['addAuthenticator']>[0]
type User = Parameters<Authenticator['applyAuthentication']>[0]
type RequestOptions = Parameters<Authenticator['applyAuthentication']>[1]

/** The auth-provider name makeKubeConfig gives a token file; its config holds the file's `path`. */
export const TOKEN_FILE_PROVIDER = 'pvctl-token-file'

/** How long a token is used before its file is read again (client-go's cachedFileTokenSource: a minute). */
const REREAD_MS = 60_000

export class TokenFileAuth implements Authenticator {
  private cached: {path: string; token: string; readAt: number} | undefined

  constructor(private readonly now: () => number = Date.now) {}

  isAuthProvider(user: User): boolean {
    return providerOf(user)?.name === TOKEN_FILE_PROVIDER
  }

  async applyAuthentication(user: User, opts: RequestOptions): Promise<void> {
    const path = String(providerOf(user)?.config?.path)
    const now = this.now()
    if (this.cached === undefined || this.cached.path !== path || now - this.cached.readAt > REREAD_MS) {
      // A rotated token (a projected service account token is renewed hourly) is picked up within a minute.
      this.cached = {path, token: (await readFile(path, 'utf8')).trim(), readAt: now}
    } else {
      // Read less than a minute ago.
    }
    // In place, as client-node's own authenticators set it (the caller made `headers` an object).
    const headers = ((opts as {headers?: Record<string, string>}).headers ??= {})
    headers.Authorization = `Bearer ${this.cached.token}`
  }
}

/** The kubeconfig user's auth-provider entry, which client-node's types leave untyped. */
function providerOf(user: User): {name?: unknown; config?: {path?: unknown}} | undefined {
  return (user as {authProvider?: {name?: unknown; config?: {path?: unknown}}}).authProvider
}
