// The fleet audit: `pvctl audit --context a,b,c` or `--all-contexts`. Each context's cluster is audited as a
// single `pvctl audit --context X` audits it (its own session, rate limit and request timeouts; read once),
// a bounded number at a time; a cluster that cannot be read becomes a finding (fleet.ts), and the others
// are still audited. The contexts are checked against the kubeconfig before anything is read.
import {ForbiddenError, type ApiError} from '../cluster/api-errors.js'
import {kubeconfigContextNames, loadKubeconfig, type ResolvedConfig} from '../cluster/kubeconfig.js'
import {aimFixes, fleetOutcome, unreadClusterReport, type UnreadCluster} from '../engine/audit/fleet.js'
import type {AuditReport} from '../engine/audit/report.js'
import type {ObjectRef} from '../engine/simulation/plan.js'
import {ClusterError, ExitCode, PvctlError, UsageError} from '../errors.js'
import {redactUrlCredentials} from '../redact.js'
import type {AuditOptions} from '../engine/audit/audit-state.js'
import {runAudit} from './audit.js'
import type {LoadStateOptions, LoadStateUi} from './load-cluster-state.js'

/** Clusters audited at once unless --concurrency says otherwise. */
export const FLEET_CONCURRENCY = 4

export interface FleetAuditOptions
  extends
    Omit<AuditOptions, 'targets' | 'sourceArgs' | 'gates' | 'kubernetesVersion'>,
    Omit<LoadStateOptions, 'context' | 'filename'> {
  /** --context a,b,c (in that order), or every context of the kubeconfig (--all-contexts). */
  contexts: readonly string[] | 'all'
  concurrency: number
  /** The objects named, for a context whose namespace is NS (pvc/NAME without -n is in it), or none. */
  targetsFor: (contextNamespace: string | undefined) => ObjectRef[] | undefined
}

export interface FleetAuditResult {
  reports: AuditReport[]
  exitCode: number
  /** Notices to say after the answer, each naming its context. */
  after: string[]
}

interface Member {
  context: string
  config?: ResolvedConfig
  /** Why the kubeconfig does not resolve the context (--all-contexts only; a named one is a usage error). */
  broken?: UsageError
}

export async function runFleetAudit(opts: FleetAuditOptions, ui: LoadStateUi): Promise<FleetAuditResult> {
  const members = fleetMembers(opts)
  const kubeconfigArgs = opts.kubeconfig !== undefined ? ['--kubeconfig', opts.kubeconfig] : []
  const clusters = `${members.length} cluster${members.length === 1 ? '' : 's'}`
  const spinner = await ui.spinner(`auditing ${clusters}`)
  let done = 0
  const quiet: LoadStateUi = {notice: ui.notice, spinner: () => Promise.resolve({text: () => {}, stop: () => {}})}
  try {
    const audited = await mapConcurrently(members, opts.concurrency, async (m) => {
      const result = await auditMember(m, opts, kubeconfigArgs, quiet)
      spinner.text(`auditing ${clusters}: ${++done} done`)
      return result
    })
    const reports = audited.map((a) => a.report)
    // The notices after the answer in the contexts' order, whichever cluster was done first.
    const after = audited.flatMap((a) => a.after)
    const outcome = fleetOutcome(reports, opts.failOn)
    if (outcome === 'unread')
      after.push(
        `${reports.length === 1 ? 'the cluster could not be read' : `none of the ${clusters} could be read`}: nothing was audited`,
      )
    const exitCode = outcome === 'unread' ? ExitCode.Cluster : outcome === 'fails' ? ExitCode.Changes : ExitCode.Ok
    return {reports, exitCode, after}
  } finally {
    spinner.stop()
  }
}

/**
 * The contexts to audit, each resolved by the kubeconfig. A context given by name that the kubeconfig
 * lacks or cannot resolve is a usage error, before any cluster is read; with --all-contexts a context the
 * kubeconfig cannot resolve is that cluster's finding.
 */
function fleetMembers(opts: FleetAuditOptions): Member[] {
  const {origin, names} = kubeconfigContextNames({kubeconfig: opts.kubeconfig})
  if (opts.contexts === 'all') {
    if (names.length === 0)
      throw new UsageError(`--all-contexts: ${origin} has no contexts`, ['kubectl config get-contexts'])
    return names.map((context) => {
      try {
        return {context, config: loadKubeconfig({kubeconfig: opts.kubeconfig, context})}
      } catch (err) {
        if (err instanceof UsageError) return {context, broken: err}
        throw err
      }
    })
  }
  const unknown = opts.contexts.filter((c) => !names.includes(c))
  if (unknown.length > 0) {
    throw new UsageError(
      `--context: ${origin} has no context ${unknown.map((c) => `"${c}"`).join(', ')} (it has ${names.length > 0 ? names.join(', ') : 'none'})`,
      ['kubectl config get-contexts'],
    )
  }
  return opts.contexts.map((context) => ({context, config: loadKubeconfig({kubeconfig: opts.kubeconfig, context})}))
}

async function auditMember(
  m: Member,
  opts: FleetAuditOptions,
  kubeconfigArgs: string[],
  ui: LoadStateUi,
): Promise<{report: AuditReport; after: string[]}> {
  const server = m.config !== undefined ? redactUrlCredentials(m.config.cluster.server) : ''
  const unread = (u: Omit<UnreadCluster, 'context' | 'server' | 'kubeconfigArgs'>) => ({
    report: unreadClusterReport(
      {context: m.context, server, kubeconfigArgs, ...u, error: redactUrlCredentials(u.error)},
      opts.ignore,
    ),
    after: [],
  })
  if (m.broken !== undefined) return unread({cause: 'kubeconfig', status: 0, error: m.broken.message})
  const say = (line: string) => `context ${m.context}: ${line}`
  try {
    const {targetsFor, contexts: _contexts, concurrency: _concurrency, ...single} = opts
    const sourceArgs = [...kubeconfigArgs, '--context', m.context]
    const result = await runAudit(
      {...single, context: m.context, targets: targetsFor(m.config?.namespace), sourceArgs},
      {notice: (line) => ui.notice(say(line)), spinner: ui.spinner},
    )
    return {report: aimFixes({...result.report, context: m.context}, sourceArgs), after: result.after.map(say)}
  } catch (err) {
    if (err instanceof ForbiddenError) {
      const {verb, resource, namespace} = err.target
      return unread({
        cause: err.status === 401 ? 'unauthorized' : 'forbidden',
        status: err.status,
        error: err.message,
        request: {verb, resource, namespace},
      })
    }
    if (err instanceof ClusterError)
      return unread({cause: 'unreachable', status: (err as Partial<ApiError>).status ?? 0, error: err.message})
    // A usage or input error (an object named that this cluster lacks) is the user's to fix: it ends the
    // run, saying which cluster; a bug is a bug.
    if (err instanceof PvctlError && err.exitCode === ExitCode.Usage)
      throw new UsageError(`context ${m.context}: ${err.message}`, err.suggestions)
    throw err
  }
}

/**
 * `run` over every item, at most `limit` at a time, started in order; the results in the items' order.
 * A rejection rejects the whole and starts nothing more (the runs under way end unobserved).
 */
export async function mapConcurrently<T, R>(
  items: readonly T[],
  limit: number,
  run: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  let failed = false
  const worker = async () => {
    while (next < items.length && !failed) {
      const i = next++
      try {
        results[i] = await run(items[i])
      } catch (err) {
        failed = true
        throw err
      }
    }
  }
  await Promise.all(Array.from({length: Math.min(Math.max(1, limit), items.length)}, worker))
  return results
}
