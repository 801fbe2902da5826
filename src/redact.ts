// Credentials in URLs (`https://user:password@host`, a kubeconfig's server or proxy-url) never reach a
// message or a log line: every error, notice and log record passes through here on its way out.

/** The text with the userinfo of every URL in it replaced by `<redacted>`. */
export function redactUrlCredentials(text: string): string {
  return text.includes('@') ? text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi, '$1<redacted>@') : text
}
