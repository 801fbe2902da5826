// The Kubernetes release pvctl decides as, and where it learned it. The controller's code and its gates'
// defaults moved between releases (feature-gates.ts); pvctl decides as the cluster's own minor version,
// from v1.29 to the newest release it knows.
import type {Node} from './model.js'

/** The oldest and newest minor versions pvctl knows the controller of; v1.31 when nothing says otherwise. */
export const OLDEST_MINOR = 29
export const NEWEST_MINOR = 37
export const DEFAULT_MINOR = 31

/**
 * Where the version came from: `--kube-version`; the API server's /version; the snapshot's nodes'
 * kubeletVersion; or nothing said it (v1.31).
 */
export type KubeVersionSource = 'flag' | 'server' | 'nodes' | 'default'

/** The version a report was decided as: `v1.34`, its source and what was read, when something was. */
export interface DecidedVersion {
  /** `v1.<minor>`. */
  version: string
  source: KubeVersionSource
  /** The version text read (the server's gitVersion, the newest kubeletVersion), when it was read. */
  observed?: string
}

/** Where a decided version came from, in words. */
export function describeSource(version: DecidedVersion): string {
  switch (version.source) {
    case 'flag':
      return '--kube-version'
    case 'server':
      return `the API server's /version, ${version.observed ?? '?'}`
    case 'nodes':
      return `the nodes' newest kubeletVersion, ${version.observed ?? '?'}`
    case 'default':
      return 'the default: which release the cluster runs is not known'
  }
}

/** "Decided as Kubernetes v1.34 (--kube-version)": the line a report's header names its release with. */
export function decidedAsLine(version: DecidedVersion): string {
  return `Decided as Kubernetes ${version.version} (${describeSource(version)})`
}

export function kubeVersionText(minor: number): string {
  return `v1.${minor}`
}

/** The minor version of a DecidedVersion. */
export function minorOf(decided: DecidedVersion): number {
  return Number(decided.version.slice('v1.'.length))
}

/**
 * The minor version of a Kubernetes version text: `1.34`, `v1.34`, `v1.34.2`, `v1.34.2-gke.100`,
 * `v1.34.2+k3s1`; undefined for anything else (another major, no minor).
 */
export function parseKubeVersion(text: string): number | undefined {
  const m = /^v?1\.(\d+)(?:\.\d+)?(?:[-+].*)?$/.exec(text.trim())
  return m === null ? undefined : Number(m[1])
}

/** A minor version pvctl has the controller of. */
export function isKnownMinor(minor: number): boolean {
  return minor >= OLDEST_MINOR && minor <= NEWEST_MINOR
}

/**
 * The version to decide as for one read from the cluster (the server's, a node's): itself when pvctl knows
 * it, else the nearest one it knows, with a line that says so.
 */
export function nearestKnown(minor: number, read: string): {minor: number; notice?: string} {
  if (isKnownMinor(minor)) {
    return {minor}
  } else if (minor > NEWEST_MINOR) {
    return {
      minor: NEWEST_MINOR,
      notice: `the cluster runs ${read}, newer than the newest release pvctl knows: deciding as ${kubeVersionText(NEWEST_MINOR)}`,
    }
  } else {
    return {
      minor: OLDEST_MINOR,
      notice: `the cluster runs ${read}, older than the oldest release pvctl knows: deciding as ${kubeVersionText(OLDEST_MINOR)}`,
    }
  }
}

/** The version of a snapshot, from its nodes' kubeletVersion: the newest, which the control plane is at least. */
export function versionFromNodes(nodes: readonly Node[]): {minor: number; observed: string} | undefined {
  let best: {minor: number; observed: string} | undefined
  for (const node of nodes) {
    const text = (node.status as {nodeInfo?: {kubeletVersion?: unknown}} | null | undefined)?.nodeInfo?.kubeletVersion
    const minor = typeof text === 'string' ? parseKubeVersion(text) : undefined
    if (minor !== undefined && (best === undefined || minor > best.minor)) best = {minor, observed: text as string}
  }
  return best
}
