// --kube-version and --feature-gates: read here (a bad value is a usage error, exit 2, before anything is
// loaded); set at the version decided as once the cluster's is known (load-cluster-state.ts).
import type {EngineRequest} from '../app/load-cluster-state.js'
import {FeatureGateError, readFeatureGates} from '../engine/api/feature-gates.js'
import {
  isKnownMinor,
  kubeVersionText,
  NEWEST_MINOR,
  OLDEST_MINOR,
  parseKubeVersion,
} from '../engine/api/kube-version.js'
import {UsageError} from '../errors.js'

export function engineRequest(flags: {'kube-version'?: string; 'feature-gates'?: string}): EngineRequest {
  return {kubeVersion: parseKubeVersionFlag(flags['kube-version']), gates: readFeatureGatesFlag(flags['feature-gates'])}
}

function readFeatureGatesFlag(spec: string | undefined) {
  try {
    return readFeatureGates(spec)
  } catch (err) {
    if (err instanceof FeatureGateError) throw new UsageError(`--feature-gates: ${err.message}`)
    throw err
  }
}

function parseKubeVersionFlag(text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  const minor = parseKubeVersion(text)
  const known = `pvctl knows ${kubeVersionText(OLDEST_MINOR)} to ${kubeVersionText(NEWEST_MINOR)}`
  if (minor === undefined)
    throw new UsageError(`--kube-version "${text}": not a Kubernetes version (1.34, v1.34 or v1.34.2)`, [known])
  if (!isKnownMinor(minor)) throw new UsageError(`--kube-version "${text}": ${known}`)
  return minor
}
