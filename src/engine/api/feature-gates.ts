// The feature gates that change the controller's decisions in v1.31, with v1.31's defaults.
// Parsed from `--feature-gates Gate=true,Other=false` as kube-controller-manager does.

export interface FeatureGates {
  /** GA-track in v1.31 (beta, on): finalizers protect dynamically provisioned volumes until deleted. */
  HonorPVReclaimPolicy: boolean
  /** Beta, off in v1.31: a claim naming a VolumeAttributesClass can only match with the gate on. */
  VolumeAttributesClass: boolean
  /** Beta, off in v1.31: Portworx in-tree volumes are handed to the CSI driver. */
  CSIMigrationPortworx: boolean
}

export const defaultFeatureGates: FeatureGates = Object.freeze({
  HonorPVReclaimPolicy: true,
  VolumeAttributesClass: false,
  CSIMigrationPortworx: false,
})

export const knownFeatureGates = Object.keys(defaultFeatureGates) as Array<keyof FeatureGates>

export class FeatureGateError extends Error {}

/** strconv.ParseBool: exactly these spellings, nothing else (not "yes", not "tRuE"). */
const PARSE_BOOL = new Map<string, boolean>([
  ...['1', 't', 'T', 'TRUE', 'true', 'True'].map((v): [string, boolean] => [v, true]),
  ...['0', 'f', 'F', 'FALSE', 'false', 'False'].map((v): [string, boolean] => [v, false]),
])

/**
 * parseFeatureGates("A=true,B=0") → gates over the defaults, as component-base's featureGate.Set reads
 * the flag: each value by strconv.ParseBool (its error first), then every name must be a known gate.
 */
export function parseFeatureGates(spec: string | undefined, base: FeatureGates = defaultFeatureGates): FeatureGates {
  const values = new Map<string, boolean>()
  for (const item of (spec ?? '').split(',')) {
    if (item === '') continue
    const eq = item.indexOf('=')
    const name = (eq < 0 ? item : item.slice(0, eq)).trim()
    if (eq < 0) throw new FeatureGateError(`missing bool value for ${name}`)
    const value = item.slice(eq + 1).trim()
    const enabled = PARSE_BOOL.get(value)
    if (enabled === undefined) {
      throw new FeatureGateError(`invalid value of ${name}=${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`)
    } else {
      values.set(name, enabled)
    }
  }
  const gates: FeatureGates = {...base}
  for (const [name, enabled] of values) {
    if (!(knownFeatureGates as string[]).includes(name)) {
      throw new FeatureGateError(`unrecognized feature gate: ${name} (known: ${knownFeatureGates.join(', ')})`)
    } else {
      gates[name as keyof FeatureGates] = enabled
    }
  }
  return gates
}
