// Where a command's cluster state comes from: a snapshot (-f) or the live cluster of the kubeconfig. One
// place for both, shared by `sync` and `explain`, so that they read the same objects the same way.
import {withSimulatedClaimUids} from '../cluster/simulated-uids.js'
import {loadSnapshot, type SnapshotEvidence} from '../cluster/snapshot.js'
import type {ClusterState} from '../engine/model.js'
import type {LiveSession} from './live-session.js'

export interface LoadStateOptions {
  /** -f: the snapshot's paths, or undefined for the live cluster. */
  filename?: readonly string[]
  stdin: NodeJS.ReadableStream
  kubeconfig?: string
  context?: string
  /** Live only: list claims and pods of this namespace alone. */
  namespace?: string
  /** Live only: -l as given, for the LIST of claims. */
  labelSelectorText?: string
  qps: number
  burst: number
  requestTimeoutMs?: number
  /** --chunk-size: objects per LIST page (0: no paging). */
  chunkSize?: number
}

export interface LoadStateUi {
  /** Tells the user something on stderr (skipped kinds). */
  notice(line: string): void
  spinner(text: string): Promise<{text(t: string): void; stop(): void}>
}

export type LoadedClusterState =
  | {source: 'snapshot'; state: ClusterState; evidence: SnapshotEvidence; /** Claims given a uid (simulated-uids.ts), "NS/NAME". */ simulatedUids: string[]}
  | {source: 'live'; state: ClusterState; session: LiveSession}

export async function loadClusterState(opts: LoadStateOptions, ui: LoadStateUi): Promise<LoadedClusterState> {
  if (opts.filename?.includes('-') === true && (opts.stdin as {isTTY?: boolean}).isTTY === true) {
    // `-f -` typed at a terminal, with nothing piped in: say what pvctl waits for.
    ui.notice('reading a snapshot from standard input (end it with Ctrl-D)')
  }
  if (opts.filename !== undefined) {
    const snapshot = await loadSnapshot(opts.filename, {stdin: opts.stdin})
    for (const [kind, count] of Object.entries(snapshot.skipped)) {
      ui.notice(`skipped ${count} ${kind} object${count === 1 ? '' : 's'} (not read by the PV controller)`)
    }
    const {state, assigned} = withSimulatedClaimUids(snapshot.state)
    return {source: 'snapshot', state, evidence: snapshot.evidence, simulatedUids: assigned}
  }

  // A live cluster: client-node is loaded only now (it costs ~0.4 s).
  const {openLiveSession} = await import('./live-session.js')
  const {loadLiveState} = await import('../cluster/live-loader.js')
  const session = openLiveSession({kubeconfig: opts.kubeconfig, context: opts.context, qps: opts.qps, burst: opts.burst, requestTimeoutMs: opts.requestTimeoutMs})
  const spinner = await ui.spinner(`loading from ${session.server}`)
  try {
    const state = await loadLiveState(session.api, {namespace: opts.namespace, labelSelector: opts.labelSelectorText, chunkSize: opts.chunkSize}, (kind, n) => spinner.text(`loading ${kind}: ${n}`))
    return {source: 'live', state, session}
  } finally {
    spinner.stop()
  }
}

/**
 * Claims of the snapshot planned with a simulated uid, said once the answer that rests on them is made
 * (not before an error, which it would only crowd).
 */
export function noticeSimulatedUids(loaded: LoadedClusterState, ui: Pick<LoadStateUi, 'notice'>): void {
  const assigned = loaded.source === 'snapshot' ? loaded.simulatedUids : []
  if (assigned.length === 0) return
  const named = assigned.length <= 3 ? ` (${assigned.join(', ')})` : ''
  ui.notice(
    `${assigned.length} PersistentVolumeClaim${assigned.length === 1 ? ' has' : 's have'} no metadata.uid${named}: planned with the uid the API server would give ${assigned.length === 1 ? 'it' : 'each'} on create, derived from namespace and name`,
  )
}

/**
 * -n names a namespace with no claim in it: a typo, most likely (`-n shp`), whose plan would be empty and
 * "in sync". Said on stderr; the run goes on (a namespace can be empty).
 */
export function noticeEmptyNamespace(state: ClusterState, namespace: string | undefined, ui: Pick<LoadStateUi, 'notice'>): void {
  if (namespace === undefined || state.claims.some((c) => c.metadata.namespace === namespace)) return
  ui.notice(`no PersistentVolumeClaims in namespace "${namespace}"`)
}
