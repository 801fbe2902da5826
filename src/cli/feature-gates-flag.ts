// --feature-gates as kube-controller-manager takes it; a bad spec is a usage error (exit 2).
import {FeatureGateError, type FeatureGates, parseFeatureGates} from '../engine/api/feature-gates.js'
import {UsageError} from '../errors.js'

export function parseFeatureGatesFlag(spec: string | undefined): FeatureGates {
  try {
    return parseFeatureGates(spec)
  } catch (err) {
    if (err instanceof FeatureGateError) throw new UsageError(`--feature-gates: ${err.message}`)
    throw err
  }
}
