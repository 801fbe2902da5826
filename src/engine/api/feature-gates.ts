// The feature gates that change what pvctl decides or reads, with their history: one table, read at the
// version pvctl decides as (kube-version.ts), as component-base's versioned feature gate reads its specs at
// the emulation version. Held to k8s.io/kubernetes's pkg/features at every tag from v1.29 to the newest by
// test/engine/feature-gate-table.test.ts. Parsed from `--feature-gates Gate=true,Other=false` as
// kube-controller-manager does.
import {kubeVersionText, DEFAULT_MINOR} from './kube-version.js'

export type PreRelease = 'Alpha' | 'Beta' | 'GA' | 'Deprecated'

/** One line of a gate's versioned spec: from this minor version on (until the next line). */
export interface GateSpec {
  since: number
  default: boolean
  preRelease: PreRelease
  lockToDefault?: true
}

export interface GateHistory {
  /** What the gate changes, and in which component. */
  what: string
  specs: readonly GateSpec[]
  /** The first minor version whose sources no longer declare the gate: from then on it is its last default. */
  removedIn?: number
}

/** The gates, oldest spec first, as pkg/features declares them. */
export const GATE_HISTORY = {
  HonorPVReclaimPolicy: {
    what: 'kube-controller-manager, PV controller: finalizers protect dynamically provisioned volumes until their storage is deleted',
    specs: [
      {since: 23, default: false, preRelease: 'Alpha'},
      {since: 31, default: true, preRelease: 'Beta'},
      {since: 33, default: true, preRelease: 'GA', lockToDefault: true},
    ],
    removedIn: 36,
  },
  VolumeAttributesClass: {
    what: "kube-controller-manager, PV controller: a claim's and a volume's VolumeAttributesClass must be equal; off, a volume that has one never matches (from v1.31)",
    specs: [
      {since: 29, default: false, preRelease: 'Alpha'},
      {since: 31, default: false, preRelease: 'Beta'},
      {since: 34, default: true, preRelease: 'GA'},
      {since: 36, default: true, preRelease: 'GA', lockToDefault: true},
    ],
  },
  CSIMigrationPortworx: {
    what: 'kube-controller-manager, PV controller: Portworx in-tree volumes are handed to the CSI driver pxd.portworx.com',
    specs: [
      {since: 23, default: false, preRelease: 'Alpha'},
      {since: 25, default: false, preRelease: 'Beta'},
      {since: 31, default: true, preRelease: 'Beta'},
      {since: 33, default: true, preRelease: 'GA', lockToDefault: true},
    ],
    removedIn: 36,
  },
  CSIMigrationRBD: {
    what: 'kube-controller-manager, PV controller: RBD in-tree volumes are handed to the CSI driver rbd.csi.ceph.com (the in-tree plugin is gone in v1.31)',
    specs: [{since: 28, default: false, preRelease: 'Deprecated'}],
    removedIn: 31,
  },
  CSIMigrationAzureFile: {
    what: 'kube-controller-manager, PV controller: Azure File in-tree volumes are handed to the CSI driver file.csi.azure.com',
    specs: [{since: 26, default: true, preRelease: 'GA', lockToDefault: true}],
    removedIn: 30,
  },
  RecoverVolumeExpansionFailure: {
    what: "kube-apiserver and the resizers: a claim's request may be lowered after a failed expansion; allocatedResourceStatuses and resize conditions report it",
    specs: [
      {since: 23, default: false, preRelease: 'Alpha'},
      {since: 32, default: true, preRelease: 'Beta'},
      {since: 34, default: true, preRelease: 'GA', lockToDefault: true},
    ],
  },
  PersistentVolumeClaimUnusedSinceTime: {
    what: "kube-controller-manager, pvc-protection controller: a claim's Unused condition says since when no pod uses it",
    specs: [
      {since: 36, default: false, preRelease: 'Alpha'},
      {since: 37, default: true, preRelease: 'Beta'},
    ],
  },
  PersistentVolumeLastPhaseTransitionTime: {
    what: "kube-apiserver: a volume's status.lastPhaseTransitionTime is stamped on every phase change",
    specs: [
      {since: 28, default: false, preRelease: 'Alpha'},
      {since: 29, default: true, preRelease: 'Beta'},
      {since: 31, default: true, preRelease: 'GA', lockToDefault: true},
    ],
    removedIn: 33,
  },
} as const satisfies Record<string, GateHistory>

export type GateName = keyof typeof GATE_HISTORY

export const knownFeatureGates = Object.keys(GATE_HISTORY) as GateName[]

/** The gates' values, and the minor version they are those of (component-base's emulation version). */
export type FeatureGates = {[G in GateName]: boolean} & {version: number}

/** The spec of a gate at a minor version; undefined when the sources of that version do not declare it. */
export function gateSpecAt(gate: GateName, minor: number): GateSpec | undefined {
  const history: GateHistory = GATE_HISTORY[gate]
  if (history.removedIn !== undefined && minor >= history.removedIn) return undefined
  let current: GateSpec | undefined
  for (const spec of history.specs) if (spec.since <= minor) current = spec
  return current
}

/**
 * Each gate's value at a minor version by default: its spec's default; a gate not yet declared is off
 * (component-base's PreAlpha), a removed one keeps the default it was removed with.
 */
export function defaultGatesAt(minor: number): FeatureGates {
  const values: Record<string, boolean | number> = {version: minor}
  for (const gate of knownFeatureGates) {
    const history: GateHistory = GATE_HISTORY[gate]
    const spec = gateSpecAt(gate, minor)
    values[gate] =
      spec !== undefined
        ? spec.default
        : minor >= (history.removedIn ?? Infinity)
          ? history.specs[history.specs.length - 1].default
          : false
  }
  return Object.freeze(values) as FeatureGates
}

/** v1.31's defaults: what pvctl decides with when nothing says which release the cluster runs. */
export const defaultFeatureGates: FeatureGates = defaultGatesAt(DEFAULT_MINOR)

export class FeatureGateError extends Error {}

/** strconv.ParseBool: exactly these spellings, nothing else (not "yes", not "tRuE"). */
const PARSE_BOOL = new Map<string, boolean>([
  ...['1', 't', 'T', 'TRUE', 'true', 'True'].map((v): [string, boolean] => [v, true]),
  ...['0', 'f', 'F', 'FALSE', 'false', 'False'].map((v): [string, boolean] => [v, false]),
])

/** A --feature-gates value read (each value by strconv.ParseBool), not yet set at a version. */
export type GateSettings = ReadonlyMap<string, boolean>

/**
 * `A=true,B=0` → the values asked for, as component-base's featureGate.Set reads the flag: each value by
 * strconv.ParseBool (its error first, before any name is looked at); a later value of a gate wins.
 */
export function readFeatureGates(spec: string | undefined): GateSettings {
  const values = new Map<string, boolean>()
  for (const item of (spec ?? '').split(',')) {
    if (item === '') continue
    const eq = item.indexOf('=')
    const name = (eq < 0 ? item : item.slice(0, eq)).trim()
    if (eq < 0) throw new FeatureGateError(`missing bool value for ${name}`)
    const value = item.slice(eq + 1).trim()
    const enabled = PARSE_BOOL.get(value)
    if (enabled === undefined) {
      throw new FeatureGateError(
        `invalid value of ${name}=${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`,
      )
    } else {
      values.set(name, enabled)
    }
  }
  for (const name of values.keys()) {
    if (!(knownFeatureGates as string[]).includes(name)) {
      throw new FeatureGateError(`unrecognized feature gate: ${name} (known: ${knownFeatureGates.join(', ')})`)
    } else {
      // A gate of some release pvctl knows; whether the release decided as has it is setGates'.
    }
  }
  return values
}

/**
 * The settings over the defaults of `base`'s version, as component-base's SetFromMap takes them: a gate
 * the version does not declare is unrecognized, a locked gate may be set to its locked value only, and a
 * gate not yet declared (PreAlpha) cannot be set at all.
 */
export function setGates(settings: GateSettings, base: FeatureGates): FeatureGates {
  const at = kubeVersionText(base.version)
  const gates: Record<string, boolean | number> = {...base}
  for (const [name, enabled] of settings) {
    const gate = name as GateName
    const history: GateHistory = GATE_HISTORY[gate]
    const spec = gateSpecAt(gate, base.version)
    if (history.removedIn !== undefined && base.version >= history.removedIn) {
      throw new FeatureGateError(
        `unrecognized feature gate: ${name} (removed in ${kubeVersionText(history.removedIn)}; pvctl decides as ${at})`,
      )
    } else if (spec === undefined) {
      throw new FeatureGateError(
        `cannot set feature gate ${name} to ${enabled}, feature is PreAlpha at emulated version ${at.slice(1)}`,
      )
    } else if (spec.lockToDefault === true && spec.default !== enabled) {
      throw new FeatureGateError(
        `cannot set feature gate ${name} to ${enabled}, feature is locked to ${spec.default} in ${at}`,
      )
    } else {
      gates[gate] = enabled
    }
  }
  return Object.freeze(gates) as FeatureGates
}

/** readFeatureGates then setGates: the gates of a --feature-gates value at `base`'s version (v1.31 by default). */
export function parseFeatureGates(spec: string | undefined, base: FeatureGates = defaultFeatureGates): FeatureGates {
  return setGates(readFeatureGates(spec), base)
}
