// Where a command's cluster state comes from: a snapshot (-f) or the live cluster of the kubeconfig. One
// place for both, shared by `sync` and `explain`, so that they read the same objects the same way.
import {withSimulatedClaimUids} from '../cluster/simulated-uids.js'
import {loadSnapshot, type SnapshotEvidence} from '../cluster/snapshot.js'
import {
  defaultGatesAt,
  FeatureGateError,
  type FeatureGates,
  type GateSettings,
  setGates,
} from '../engine/api/feature-gates.js'
import {
  decidedAsLine,
  DEFAULT_MINOR,
  type DecidedVersion,
  kubeVersionText,
  minorOf,
  nearestKnown,
  parseKubeVersion,
  versionFromNodes,
} from '../engine/api/kube-version.js'
import type {ClusterState, LabelSelector, Node, PersistentVolume, PersistentVolumeClaim} from '../engine/api/model.js'
import {UsageError} from '../errors.js'
import {closeNames} from '../engine/api/close-names.js'
import {scopePredicate} from '../engine/simulation/reconcile.js'
import type {MissingKind} from '../engine/explain/missing-kinds.js'
import type {PodsRead} from '../engine/repair/reclaim.js'
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
  /** --kube-version and --feature-gates: the release to decide as, and the gates set over its defaults. */
  engine?: EngineRequest
}

/** What the flags ask of the engine, read but not yet set at a version (that needs the cluster's). */
export interface EngineRequest {
  /** --kube-version's minor version. */
  kubeVersion?: number
  /** --feature-gates, read (readFeatureGates). */
  gates?: GateSettings
}

/** The release and gates to decide as. */
export interface Decided {
  /** The Kubernetes version pvctl decides as, and where it learned it. */
  version: DecidedVersion
  /** That version's gate defaults with --feature-gates over them. */
  gates: FeatureGates
}

export interface LoadStateUi {
  /** Tells the user something on stderr (skipped kinds). */
  notice: (line: string) => void
  spinner: (text: string) => Promise<{text: (t: string) => void; stop: () => void}>
}

export type LoadedClusterState = (
  | {
      source: 'snapshot'
      state: ClusterState
      evidence: SnapshotEvidence
      /** What the answer rests on that the snapshot did not hold (kinds missing, uids simulated): said after it. */
      caveats: string[]
      /** The kinds the snapshot lacks that its plan would judge by. */
      missing: MissingKind[]
    }
  | {
      source: 'live'
      state: ClusterState
      session: LiveSession
      /** Reads the cluster again as it was read (after a write, what the next question rests on). */
      reload: () => Promise<ClusterState>
    }
) &
  Decided

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
    const missing = missingKinds(state)
    const decided = decideSnapshotVersion(state, opts.engine)
    return {
      source: 'snapshot',
      state,
      evidence: snapshot.evidence,
      missing: missing.map((m) => m.kind),
      caveats: [...decided.caveats, ...missing.map((m) => m.line), ...simulatedUidsCaveat(assigned)],
      version: decided.version,
      gates: decided.gates,
    }
  }

  // A live cluster: client-node, slow to load, is loaded only now (docs/performance.md).
  const {openLiveSession} = await import('./live-session.js')
  const {loadLiveState} = await import('../cluster/live-loader.js')
  const session = openLiveSession({
    kubeconfig: opts.kubeconfig,
    context: opts.context,
    qps: opts.qps,
    burst: opts.burst,
    requestTimeoutMs: opts.requestTimeoutMs,
  })
  for (const warning of session.warnings) ui.notice(`warning: ${warning}`)
  const read = async () => {
    const spinner = await ui.spinner(`loading from ${session.server}`)
    try {
      return await loadLiveState(
        session.api,
        {namespace: opts.namespace, labelSelector: opts.labelSelectorText, chunkSize: opts.chunkSize},
        (kind, n) => spinner.text(`loading ${kind}: ${n}`),
      )
    } finally {
      spinner.stop()
    }
  }
  const state = await read()
  const decided = await decideLiveVersion(() => session.serverVersion(), state.nodes, opts.engine, ui)
  return {source: 'live', state, session, reload: read, ...decided}
}

/**
 * The release a snapshot is decided as: --kube-version; else its nodes' newest kubeletVersion (the control
 * plane runs at least that), said after the answer; else v1.31, said too.
 */
function decideSnapshotVersion(state: ClusterState, engine: EngineRequest | undefined): Decided & {caveats: string[]} {
  if (engine?.kubeVersion !== undefined) {
    return {...decidedAt({version: kubeVersionText(engine.kubeVersion), source: 'flag'}, engine), caveats: []}
  }
  return fromNodesOrDefault(
    state.nodes,
    engine,
    'the snapshot does not say which release the cluster runs (no Node with a kubeletVersion)',
  )
}

/**
 * The release a live cluster is decided as: --kube-version, else the API server's /version; a /version
 * that cannot be read or understood is said, and the nodes' kubeletVersion stands in for it.
 */
export async function decideLiveVersion(
  serverVersion: () => Promise<string>,
  nodes: readonly Node[],
  engine: EngineRequest | undefined,
  ui: Pick<LoadStateUi, 'notice'>,
): Promise<Decided> {
  if (engine?.kubeVersion !== undefined) {
    return decidedAt({version: kubeVersionText(engine.kubeVersion), source: 'flag'}, engine)
  }
  let gitVersion: string
  try {
    gitVersion = await serverVersion()
  } catch (err) {
    const fallback = fromNodesOrDefault(nodes, engine, 'no Node has a kubeletVersion either')
    ui.notice(
      `could not read the API server's version (${err instanceof Error ? err.message : String(err)}): ${fallback.caveats.join('; ')}`,
    )
    return fallback
  }
  const minor = parseKubeVersion(gitVersion)
  if (minor === undefined) {
    const fallback = fromNodesOrDefault(nodes, engine, 'no Node has a kubeletVersion either')
    ui.notice(
      `the API server's version ${JSON.stringify(gitVersion)} is not a Kubernetes 1.x version: ${fallback.caveats.join('; ')}`,
    )
    return fallback
  }
  const known = nearestKnown(minor, gitVersion)
  if (known.notice !== undefined) ui.notice(known.notice)
  return decidedAt({version: kubeVersionText(known.minor), source: 'server', observed: gitVersion}, engine)
}

/** The nodes' newest kubeletVersion, said; else v1.31, said with `why`. */
function fromNodesOrDefault(
  nodes: readonly Node[],
  engine: EngineRequest | undefined,
  why: string,
): Decided & {caveats: string[]} {
  const fromNodes = versionFromNodes(nodes)
  if (fromNodes !== undefined) {
    const {minor, notice} = nearestKnown(fromNodes.minor, fromNodes.observed)
    const version = kubeVersionText(minor)
    const inferred = `decided as Kubernetes ${version}, inferred from the nodes' kubeletVersion (newest ${fromNodes.observed}); the control plane may be newer: --kube-version says which`
    return {
      ...decidedAt({version, source: 'nodes', observed: fromNodes.observed}, engine),
      caveats: [...(notice !== undefined ? [notice] : []), inferred],
    }
  }
  const version = kubeVersionText(DEFAULT_MINOR)
  return {
    ...decidedAt({version, source: 'default'}, engine),
    caveats: [`decided as Kubernetes ${version}: ${why}; --kube-version says which`],
  }
}

/** The gates of the version decided as, with --feature-gates set over them: a gate it locks or lacks is a usage error. */
function decidedAt(version: DecidedVersion, engine: EngineRequest | undefined): Decided {
  try {
    return {version, gates: setGates(engine?.gates ?? new Map(), defaultGatesAt(minorOf(version)))}
  } catch (err) {
    if (err instanceof FeatureGateError)
      throw new UsageError(`--feature-gates: ${err.message}`, [
        `--kube-version decides as another release (${decidedAsLine(version)})`,
      ])
    throw err
  }
}

const TAKE_IT_WHOLE = 'take the snapshot with kubectl get pv,pvc,storageclasses,pods,nodes -A -o yaml'

/**
 * Whether the state's pods are the cluster's: live they were listed (a list that fails stops the load); a
 * snapshot that holds no Pod was taken without them, as a kind it holds none of is taken everywhere else.
 */
export function podsRead(loaded: LoadedClusterState): PodsRead {
  return loaded.source === 'snapshot' && loaded.state.pods.length === 0
    ? {observed: false, reason: 'the snapshot holds no Pod objects'}
    : {observed: true}
}

/** The class a claim or volume names (spec.storageClassName, else the beta annotation), if any. */
function addClassOf(o: PersistentVolume | PersistentVolumeClaim, names: Set<string>): void {
  const name = o.spec.storageClassName ?? o.metadata.annotations?.['volume.beta.kubernetes.io/storage-class']
  if (name) names.add(name)
}

/**
 * The kinds a snapshot lacks that the plan would judge by (`kubectl get pv,pvc -A -o yaml` is the obvious
 * first try): without StorageClasses every class looks missing, without Pods every volume unused and every
 * claim of a WaitForFirstConsumer class consumer-less, without Nodes no node affinity can be checked. One
 * line per missing kind that matters to this snapshot, naming what the plan cannot judge.
 */
export function missingKinds(state: ClusterState): Array<{kind: MissingKind; line: string}> {
  const lines: Array<{kind: MissingKind; line: string}> = []
  if (state.claims.length === 0 && state.volumes.length === 0) return lines
  const classNames = new Set<string>()
  // Indexed, over each list in turn, not over both spread into one list (a copy of every reference):
  // see docs/design.md, "Loops that run once".
  for (let i = 0; i < state.claims.length; i++) addClassOf(state.claims[i], classNames)
  for (let i = 0; i < state.volumes.length; i++) addClassOf(state.volumes[i], classNames)
  const unsetClass = state.claims.filter(
    (c) =>
      c.spec.storageClassName == null && c.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] == null,
  ).length
  if (state.classes.length === 0 && (classNames.size > 0 || unsetClass > 0)) {
    const named = [...classNames].sort().slice(0, 5).join(', ')
    const what = [
      classNames.size > 0
        ? `claims and volumes of class ${named}${classNames.size > 5 ? ', …' : ''} are judged as if the class did not exist`
        : '',
      unsetClass > 0 ? `${unsetClass} claim(s) without a class find no default class` : '',
    ]
    lines.push({
      kind: 'StorageClass',
      line: `the snapshot holds no StorageClass: ${what.filter((w) => w !== '').join('; ')}; ${TAKE_IT_WHOLE}`,
    })
  }
  const podsMatter =
    state.volumes.some((v) => v.spec.persistentVolumeReclaimPolicy === 'Recycle') ||
    state.classes.some((c) => c.volumeBindingMode === 'WaitForFirstConsumer')
  if (state.pods.length === 0 && state.claims.length > 0 && podsMatter) {
    lines.push({
      kind: 'Pod',
      line: `the snapshot holds no Pod: every volume is judged unused (a recycle goes ahead) and every claim of a WaitForFirstConsumer class consumer-less; ${TAKE_IT_WHOLE}`,
    })
  }
  const needsNodes =
    state.volumes.some((v) => v.spec.nodeAffinity != null) ||
    state.claims.some((c) => c.metadata.annotations?.['volume.kubernetes.io/selected-node'] != null)
  if (state.nodes.length === 0 && needsNodes) {
    lines.push({
      kind: 'Node',
      line: `the snapshot holds no Node: volumes' node affinity and claims' selected nodes cannot be checked against nodes; ${TAKE_IT_WHOLE}`,
    })
  }
  return lines
}

/** Claims of the snapshot planned with a simulated uid (simulated-uids.ts), "NS/NAME". */
function simulatedUidsCaveat(assigned: readonly string[]): string[] {
  if (assigned.length === 0) return []
  const named = assigned.length <= 3 ? ` (${assigned.join(', ')})` : ''
  return [
    `${assigned.length} PersistentVolumeClaim${assigned.length === 1 ? ' has' : 's have'} no metadata.uid${named}: planned with the uid the API server would give ${assigned.length === 1 ? 'it' : 'each'} on create, derived from namespace and name`,
  ]
}

/**
 * What the answer rests on that the snapshot did not hold, said once the answer is made (not before an
 * error, which it would only crowd, and after a long table rather than scrolled away above it).
 */
export function noticeCaveats(loaded: LoadedClusterState, ui: Pick<LoadStateUi, 'notice'>): void {
  if (loaded.source === 'snapshot') for (const line of loaded.caveats) ui.notice(line)
}

/**
 * -n names a namespace with no claim in it: a typo, most likely (`-n shp`), whose plan would be empty and
 * "in sync". Said on stderr, with the namespaces close to it; the run goes on (a namespace can be empty).
 */
export function noticeEmptyNamespace(
  state: ClusterState,
  namespace: string | undefined,
  ui: Pick<LoadStateUi, 'notice'>,
): void {
  if (namespace === undefined || state.claims.some((c) => c.metadata.namespace === namespace)) return
  ui.notice(`no PersistentVolumeClaims in namespace "${namespace}"${namespaceHint(state, namespace)}`)
}

/** What a printed command names a snapshot read from stdin by (stdin is read once): the user saves it there. */
export const STDIN_SNAPSHOT = 'SNAPSHOT.yaml'

/** What a scope (-n, -l) is checked with: sync's and audit's options. */
export interface ScopeOptions {
  targets?: readonly unknown[]
  namespace?: string
  labelSelector?: LabelSelector
  labelSelectorText?: string
  /** --fail-on-empty: a scope that matches nothing is an error, not a notice. */
  failOnEmpty?: boolean
}

/**
 * A scope (-n, -l) that matches no volume and no claim: a typo, most likely, whose plan would be empty and
 * "in sync", and whose audit would check nothing (a CI job that audits with it passes). Said on stderr, as
 * kubectl's "No resources found", with the namespaces close to the one given; with --fail-on-empty an error
 * (exit 2). Else a -n with volumes but no claim in it is said too.
 */
export function checkScope(state: ClusterState, opts: ScopeOptions, ui: Pick<LoadStateUi, 'notice'>): void {
  if (opts.targets !== undefined && opts.targets.length > 0) return
  if (opts.namespace === undefined && opts.labelSelector === undefined) return
  const inScope = scopePredicate({namespace: opts.namespace, labelSelector: opts.labelSelector})
  // Under -n, every unbound volume is in scope (any claim of the namespace may take it): they do not make a
  // namespace without claims, or with no volume bound into it, any less empty.
  const counts = (v: PersistentVolume) => inScope.volume(v) && (opts.namespace === undefined || v.spec.claimRef != null)
  if (!state.volumes.some(counts) && !state.claims.some(inScope.claim)) {
    const scope = [
      opts.namespace !== undefined ? `in namespace "${opts.namespace}"` : '',
      opts.labelSelectorText !== undefined ? `matching -l ${opts.labelSelectorText}` : '',
    ]
    const what =
      opts.namespace !== undefined
        ? 'no PersistentVolumeClaims, and no PersistentVolumes bound to one,'
        : 'no PersistentVolumes or PersistentVolumeClaims'
    const message = `${what} ${scope.filter((s) => s !== '').join(' ')}${opts.namespace !== undefined ? namespaceHint(state, opts.namespace) : ''}`
    if (opts.failOnEmpty) throw new UsageError(message, ['check -n and -l (kubectl get pv,pvc -A --show-labels)'])
    ui.notice(message)
  } else {
    noticeEmptyNamespace(state, opts.namespace, ui)
  }
}

/** ` (did you mean "shop"?)` for a namespace that holds no claim, when one that does is close to it (`-n Shop`). */
function namespaceHint(state: ClusterState, namespace: string): string {
  const known = new Set<string>()
  for (const c of state.claims) known.add(c.metadata.namespace ?? 'default')
  for (const v of state.volumes) if (v.spec.claimRef?.namespace != null) known.add(v.spec.claimRef.namespace)
  const close = closeNames(namespace, known, 2)
  return close.length === 0 ? '' : ` (did you mean ${close.map((n) => `"${n}"`).join(' or ')}?)`
}
