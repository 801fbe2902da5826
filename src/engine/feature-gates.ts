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

/** parseFeatureGates("A=true,B=false") → gates over the defaults; unknown gates and non-booleans throw. */
export function parseFeatureGates(spec: string | undefined, base: FeatureGates = defaultFeatureGates): FeatureGates {
  const gates: FeatureGates = {...base}
  if (spec === undefined || spec.trim() === '') return gates
  for (const part of spec.split(',')) {
    const item = part.trim()
    if (item === '') continue
    const eq = item.indexOf('=')
    if (eq < 0) throw new FeatureGateError(`missing bool value for ${item}`)
    const name = item.slice(0, eq).trim()
    const value = item.slice(eq + 1).trim().toLowerCase()
    if (!(knownFeatureGates as string[]).includes(name)) {
      throw new FeatureGateError(`unrecognized feature gate: ${name} (known: ${knownFeatureGates.join(', ')})`)
    }
    if (value !== 'true' && value !== 'false') {
      throw new FeatureGateError(`invalid value of ${name}=${value}, err: strconv.ParseBool: parsing "${value}": invalid syntax`)
    }
    gates[name as keyof FeatureGates] = value === 'true'
  }
  return gates
}
