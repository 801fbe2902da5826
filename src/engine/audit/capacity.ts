// Capacity at a glance (pvctl audit -o html's chart, the terminal's bars): storage per class and per
// namespace, in bytes, of the state after the plan. PURE. Only for the html and terminal renderers: the
// JSON AuditReport does not carry it.
import {parseQuantity, quantityValue} from '../api/quantity.js'
import {getPersistentVolumeClaimClass, getPersistentVolumeClass} from '../api/storage-helpers.js'
import {ReclaimPolicy, VolumePhase, type PersistentVolume, type PersistentVolumeClaim} from '../api/model.js'

/**
 * What is counted, each in bytes: `requested` the claims' spec.resources.requests.storage; the volumes'
 * spec.capacity.storage by phase: `bound`, `available`, `released` (Released with reclaimPolicy Retain: its
 * data is kept and nothing will free it) and `failed`. A Released volume to recycle or delete is on its way
 * to being freed: counted as a volume, in no measure.
 */
export const CAPACITY_MEASURES = ['requested', 'bound', 'available', 'released', 'failed'] as const
export type CapacityMeasure = (typeof CAPACITY_MEASURES)[number]

export interface CapacityRow extends Record<CapacityMeasure, number> {
  /** The class (`""`: no class) or the namespace. */
  name: string
  claims: number
  volumes: number
}

export interface AuditCapacity {
  byClass: CapacityRow[]
  /** Namespaces by their claims and by the claimRef of the volumes: an Available volume is in none. */
  byNamespace: CapacityRow[]
  /** How many claims and volumes are in each phase (`""`: none written yet), phases sorted by name. */
  claimPhases: Record<string, number>
  volumePhases: Record<string, number>
}

const PHASE_MEASURE: Partial<Record<string, CapacityMeasure>> = {
  [VolumePhase.Bound]: 'bound',
  [VolumePhase.Available]: 'available',
  [VolumePhase.Released]: 'released',
  [VolumePhase.Failed]: 'failed',
}

/** The capacity of the claims and volumes audited, each table sorted by name. */
export function auditCapacity(
  claims: readonly PersistentVolumeClaim[],
  volumes: readonly PersistentVolume[],
): AuditCapacity {
  const byClass = new Map<string, CapacityRow>()
  const byNamespace = new Map<string, CapacityRow>()
  const rowOf = (rows: Map<string, CapacityRow>, name: string): CapacityRow => {
    let row = rows.get(name)
    if (row === undefined) {
      row = {name, claims: 0, volumes: 0, requested: 0, bound: 0, available: 0, released: 0, failed: 0}
      rows.set(name, row)
    } else {
      // Seen already: its sums go on.
    }
    return row
  }
  const claimPhases: Record<string, number> = {}
  const volumePhases: Record<string, number> = {}
  for (const c of claims) {
    const phase = c.status?.phase ?? ''
    claimPhases[phase] = (claimPhases[phase] ?? 0) + 1
    const requested = bytes(c.spec.resources?.requests?.storage)
    for (const row of [
      rowOf(byClass, getPersistentVolumeClaimClass(c)),
      rowOf(byNamespace, c.metadata.namespace ?? ''),
    ]) {
      row.claims++
      row.requested += requested
    }
  }
  for (const v of volumes) {
    const phase = v.status?.phase ?? ''
    volumePhases[phase] = (volumePhases[phase] ?? 0) + 1
    const kept = phase !== VolumePhase.Released || v.spec.persistentVolumeReclaimPolicy === ReclaimPolicy.Retain
    const measure = kept ? PHASE_MEASURE[phase] : undefined
    const size = bytes(v.spec.capacity?.storage)
    const rows = [rowOf(byClass, getPersistentVolumeClass(v))]
    const namespace = v.spec.claimRef?.namespace
    if (namespace !== undefined && namespace !== '') rows.push(rowOf(byNamespace, namespace))
    else {
      // A volume no claim holds belongs to no namespace: it counts in its class only.
    }
    for (const row of rows) {
      row.volumes++
      if (measure !== undefined) row[measure] += size
      else {
        // Pending (or a phase not yet written), or Released to be recycled or deleted: counted as a volume only.
      }
    }
  }
  const sorted = (rows: Map<string, CapacityRow>) =>
    [...rows.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const byName = (counts: Record<string, number>) =>
    Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  return {
    byClass: sorted(byClass),
    byNamespace: sorted(byNamespace),
    claimPhases: byName(claimPhases),
    volumePhases: byName(volumePhases),
  }
}

/** A storage quantity in bytes; 0 when absent or not a quantity (the judges report a malformed one). */
function bytes(quantity: string | undefined): number {
  if (quantity === undefined) return 0
  try {
    return Number(quantityValue(parseQuantity(quantity)))
  } catch {
    return 0
  }
}

const BINARY_UNITS = ['B', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei']

/** Bytes as kubectl writes sizes: the largest binary unit with a value of at least 1, one decimal where it is not whole. */
export function formatBytes(n: number): string {
  let value = n
  let unit = 0
  while (value >= 1024 && unit < BINARY_UNITS.length - 1) {
    value /= 1024
    unit++
  }
  const text = Number.isInteger(value) ? String(value) : value.toFixed(1).replace(/\.0$/, '')
  return `${text}${BINARY_UNITS[unit]}`
}
