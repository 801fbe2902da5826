// `pvctl sync --watch` and `pvctl sync --interval`: the long-running use-case. It opens the cluster,
// decides the release to decide as, and hands both to the loop's manager (src/loop/manager.ts), which
// runs the loop until a signal.
import type {Logger} from '../log.js'
import {describeSource} from '../engine/api/kube-version.js'
import {LoopManager} from '../loop/manager.js'
import {type LoopManagerOptions, validateLoopOptions} from '../loop/loop-options.js'
import {decideLiveVersion, type EngineRequest} from './load-cluster-state.js'
import {openLoopSession} from './loop-session.js'
import {loadRecyclerPodTemplate} from './recycler-template.js'

/** The manager's options, and the cluster's: how to reach it and which release to decide as. */
export interface RunLoopOptions extends LoopManagerOptions {
  /** --kube-version and --feature-gates; without --kube-version the API server's /version decides. */
  engine?: EngineRequest
  kubeconfig?: string
  context?: string
  qps: number
  burst: number
  requestTimeoutMs?: number
  /** --recycler-pod-template: a file holding one Pod. */
  recyclerPodTemplate?: string
}

export interface LoopUi {
  /** The audit stream (stdout). */
  out: (text: string) => void
  /** Structured logs (stderr). */
  log: Logger
  /** Aborted on SIGTERM / SIGINT. */
  signal: AbortSignal
}

export async function runLoop(opts: RunLoopOptions, ui: LoopUi): Promise<number> {
  validateLoopOptions(opts)
  const recyclerTemplate =
    opts.recyclerPodTemplate === undefined ? undefined : await loadRecyclerPodTemplate(opts.recyclerPodTemplate)
  const session = openLoopSession({
    kubeconfig: opts.kubeconfig,
    context: opts.context,
    qps: opts.qps,
    burst: opts.burst,
    requestTimeoutMs: opts.requestTimeoutMs,
    leaseTimeoutMs:
      opts.leaderElect !== undefined ? Math.max(500, Math.floor(opts.leaderElect.renewDeadlineMs / 2)) : 5000,
  })
  const {version, gates} = await decideLiveVersion(() => session.serverVersion(), [], opts.engine, {
    notice: (line) => ui.log.info(line),
  })
  ui.log.info(`Deciding as Kubernetes ${version.version}`, {source: describeSource(version)})
  return new LoopManager(opts, {clients: session, gates, log: ui.log, out: ui.out, recyclerTemplate}).start(ui.signal)
}
