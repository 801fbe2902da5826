// The names shell completion offers (claims, volumes, namespaces, contexts), read from the snapshot named by
// `-f` on the line being completed, else from the cluster of its kubeconfig and context: read-only, within a
// short deadline, and silent. A completion that cannot read names offers none; it never prints an error into
// the user's prompt.

/**
 * How long the live list may take, from its first request, before completion gives up, unless the line
 * gives a --request-timeout (kubectl's completion waits as long as that; a shell waiting on TAB should not
 * wait for ever).
 */
export const LIVE_NAMES_DEADLINE_MS = 5000

/** Where names come from: the `-f`, `--kubeconfig` and `--context` on the line being completed (and its `--request-timeout`). */
export interface NameSource {
  filename?: readonly string[]
  kubeconfig?: string
  context?: string
  requestTimeout?: string
}

/** The names read: what completion offers from. */
export interface NamesFound {
  claims: ReadonlyArray<{namespace: string; name: string}>
  volumes: readonly string[]
  contexts: readonly string[]
}

const NONE: NamesFound = {claims: [], volumes: [], contexts: []}

export interface NamesRequest {
  kind: 'claims' | 'volumes' | 'namespaces' | 'contexts'
  source: NameSource
  /** The line's --request-timeout, when it gives one (not 0): the deadline of each request and of the list. */
  requestTimeoutMs?: number
}

export async function readCompletionNames(request: NamesRequest): Promise<NamesFound> {
  const deadlineMs =
    request.requestTimeoutMs !== undefined && request.requestTimeoutMs > 0
      ? request.requestTimeoutMs
      : LIVE_NAMES_DEADLINE_MS
  try {
    if (request.kind === 'contexts') {
      const {contextNames} = await import('../cluster/kubeconfig.js')
      return {...NONE, contexts: contextNames({kubeconfig: request.source.kubeconfig})}
    }
    if (request.source.filename !== undefined) return await fromSnapshot(request.source.filename)
    return await fromCluster(request, deadlineMs)
  } catch {
    // Unreadable file, no kubeconfig, unreachable or forbidden cluster, past the deadline: no names.
    return NONE
  }
}

async function fromSnapshot(filename: readonly string[]): Promise<NamesFound> {
  // `-f -` is the terminal the user types at while completing: nothing to read there.
  if (filename.includes('-')) return NONE
  const {loadSnapshot} = await import('../cluster/snapshot.js')
  const {state} = await loadSnapshot(filename)
  return {
    claims: state.claims.map((c) => ({namespace: c.metadata.namespace ?? 'default', name: c.metadata.name ?? ''})),
    volumes: state.volumes.map((v) => v.metadata.name ?? ''),
    contexts: [],
  }
}

/** Lists only the kind asked for (namespaces come from the claims' namespaces), within the deadline. */
async function fromCluster(request: NamesRequest, deadlineMs: number): Promise<NamesFound> {
  const {openLiveSession} = await import('./live-session.js')
  const {listAll} = await import('../cluster/live-loader.js')
  const session = openLiveSession({
    kubeconfig: request.source.kubeconfig,
    context: request.source.context,
    qps: 5,
    burst: 10,
    requestTimeoutMs: deadlineMs,
  })
  if (request.kind === 'volumes')
    return {
      ...NONE,
      volumes: (
        await withDeadline(
          listAll((p) => session.api.listVolumes(p)),
          deadlineMs,
        )
      ).map((v) => v.metadata.name ?? ''),
    }
  const claims = await withDeadline(
    listAll((p) => session.api.listClaims(undefined, p)),
    deadlineMs,
  )
  return {
    ...NONE,
    claims: claims.map((c) => ({namespace: c.metadata.namespace ?? 'default', name: c.metadata.name ?? ''})),
  }
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('deadline')), ms)
    timer.unref()
  })
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer))
}
