// The releases the conformance cases run as, and how a case's gates are set at each. The Go tests set gates
// at the version they were written for; at a later release a gate may be locked or gone:
// - `emulationVersion` (the Go test's SetFeatureGateEmulationVersionDuringTest) is the release the case runs
//   as instead of the newest (`--kube-version`): v1.36's TestSync turns VolumeAttributesClass off at 1.35;
// - a gate the release no longer has is left out when the case asks for the value it was removed with
//   (the Go tests of that release dropped the line), else the case cannot run as that release;
// - a gate the release locks to another value makes the case unrunnable there, said as the skip's reason.
import {defaultGatesAt, GATE_HISTORY, type GateName, gateSpecAt} from '../../src/engine/api/feature-gates.js'
import {DEFAULT_MINOR, NEWEST_MINOR} from '../../src/engine/api/kube-version.js'

/** v1.31 (the seed's release) and the newest release pvctl knows. */
export const CONFORMANCE_VERSIONS = [DEFAULT_MINOR, NEWEST_MINOR] as const

export interface GateRun {
  kubeVersion: string
  featureGates: string
  label: string
}

export type GateRunOrSkip = GateRun | {label: string; skip: string}

export function gateRunAt(gates: Record<string, unknown>, minor: number): GateRunOrSkip {
  const emulated =
    typeof gates.emulationVersion === 'string' && minor !== DEFAULT_MINOR
      ? Number(gates.emulationVersion.split('.')[1])
      : minor
  const at = `1.${emulated}`
  const set: string[] = []
  for (const [name, value] of Object.entries(gates)) {
    if (name === 'emulationVersion') continue
    const gate = name as GateName
    const history = GATE_HISTORY[gate]
    if (history === undefined) return {label: `v${at}`, skip: `${name} is a gate pvctl does not model`}
    if (gateSpecAt(gate, emulated) === undefined && defaultGatesAt(emulated)[gate] === value) continue
    if (gateSpecAt(gate, emulated) === undefined)
      return {
        label: `v${at} ${name}=${String(value)}`,
        skip: `${name} is gone in v${at}, where it stands at ${String(defaultGatesAt(emulated)[gate])}`,
      }
    const spec = gateSpecAt(gate, emulated)!
    if (spec.lockToDefault === true && spec.default !== value)
      return {label: `v${at} ${name}=${String(value)}`, skip: `${name} is locked to ${String(spec.default)} in v${at}`}
    set.push(`${name}=${String(value)}`)
  }
  return {kubeVersion: at, featureGates: set.join(','), label: [`v${at}`, ...set].join(' ')}
}
