// The names shell completion offers (claims, volumes, namespaces, contexts), read from the snapshot named by
// `-f` on the line being completed, else from the cluster of its kubeconfig and context: read-only, within a
// short deadline, and silent. A completion that cannot read names offers none; it never prints an error into
// the user's prompt.
import type {NameSource, NamesFound} from '../cli/completion/candidates.js'

/** How long a live read may take before completion gives up (kubectl's completion has no deadline; a shell waiting on TAB should). */
export const LIVE_NAMES_DEADLINE_MS = 2000

const NONE: NamesFound = {claims: [], volumes: [], contexts: []}

export interface NamesRequest {
  kind: 'claims' | 'volumes' | 'namespaces' | 'contexts'
  source: NameSource
}

export async function readCompletionNames(request: NamesRequest, deadlineMs = LIVE_NAMES_DEADLINE_MS): Promise<NamesFound> {
  try {
    if (request.kind === 'contexts') {
      const {contextNames} = await import('../cluster/kubeconfig.js')
      return {...NONE, contexts: contextNames({kubeconfig: request.source.kubeconfig})}
    }
    if (request.source.filename !== undefined) return await fromSnapshot(request.source.filename)
    return await withDeadline(fromCluster(request), deadlineMs)
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
  return {claims: state.claims.map((c) => ({namespace: c.metadata.namespace ?? 'default', name: c.metadata.name ?? ''})), volumes: state.volumes.map((v) => v.metadata.name ?? ''), contexts: []}
}

/** Lists only the kind asked for (namespaces come from the claims' namespaces), with one short timeout per request. */
async function fromCluster(request: NamesRequest): Promise<NamesFound> {
  const {openLiveSession} = await import('./live-session.js')
  const {listAll} = await import('../cluster/live-loader.js')
  const session = openLiveSession({kubeconfig: request.source.kubeconfig, context: request.source.context, qps: 5, burst: 10, requestTimeoutMs: LIVE_NAMES_DEADLINE_MS})
  if (request.kind === 'volumes') return {...NONE, volumes: (await listAll((p) => session.api.listVolumes(p))).map((v) => v.metadata.name ?? '')}
  const claims = await listAll((p) => session.api.listClaims(undefined, p))
  return {...NONE, claims: claims.map((c) => ({namespace: c.metadata.namespace ?? 'default', name: c.metadata.name ?? ''}))}
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('deadline')), ms)
    timer.unref()
  })
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer))
}
