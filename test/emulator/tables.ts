// Server-side printing: what `kubectl get` shows comes from a meta.k8s.io/v1 Table the server renders
// (kubectl asks with `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`). Columns and cells follow
// pkg/printers/internalversion/printers.go for the kinds pvctl cares about; other kinds get the
// default NAME/AGE table (rest.NewDefaultTableConvertor). Columns with priority 1 show only with -o wide.
import {apiVersionOf, type ResourceDef} from './resources.js'
import {isObject, type JsonObject, type K8sObject} from './types.js'

interface Column {
  name: string
  type: 'string' | 'integer' | 'boolean' | 'date'
  format?: 'name'
  priority?: number
  description: string
}

interface Printer {
  columns: Column[]
  cells(o: K8sObject, now: number): unknown[]
}

export type IncludeObject = 'None' | 'Metadata' | 'Object'

/** duration.HumanDuration, as translateTimestampSince uses it for AGE. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000)
  if (seconds < -1) return '<invalid>'
  if (seconds < 0) return '0s'
  if (seconds < 60 * 2) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`
  if (minutes < 60 * 3) return `${minutes}m`
  const hours = Math.floor(minutes / 60)
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`
  if (hours < 48) return `${hours}h`
  if (hours < 24 * 8)
    return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`
  if (hours < 24 * 365 * 8) {
    const days = Math.floor(hours / 24) % 365
    return days === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${days}d`
  }
  return `${Math.floor(hours / 24 / 365)}y`
}

const age = (o: K8sObject, now: number) => {
  const created = o.metadata.creationTimestamp ? Date.parse(o.metadata.creationTimestamp) : NaN
  return Number.isNaN(created) ? '<unknown>' : humanDuration(now - created)
}

const get = (o: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((n, p) => (isObject(n) ? n[p] : undefined), o)
const str = (v: unknown): string => (v === undefined || v === null ? '' : String(v))

/** helper.GetAccessModesAsString: fixed order, abbreviated, deduplicated. */
function accessModes(modes: unknown): string {
  const list = Array.isArray(modes) ? modes.map(String) : []
  const abbrev: Array<[string, string]> = [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ]
  return abbrev
    .filter(([mode]) => list.includes(mode))
    .map(([, a]) => a)
    .join(',')
}

const NAME: Column = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
}
const AGE: Column = {
  name: 'Age',
  type: 'string',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
}
const col = (name: string, priority = 0, type: Column['type'] = 'string'): Column => ({
  name,
  type,
  description: name,
  ...(priority ? {priority} : {}),
})

const PRINTERS: Record<string, Printer> = {
  persistentvolumes: {
    columns: [
      NAME,
      col('Capacity'),
      col('Access Modes'),
      col('Reclaim Policy'),
      col('Status'),
      col('Claim'),
      col('StorageClass'),
      col('VolumeAttributesClass'),
      col('Reason'),
      AGE,
      col('VolumeMode', 1),
    ],
    cells(pv, now) {
      const ref = get(pv, 'spec', 'claimRef')
      const claim = isObject(ref) ? `${str(ref.namespace)}/${str(ref.name)}` : ''
      const phase = pv.metadata.deletionTimestamp ? 'Terminating' : str(get(pv, 'status', 'phase'))
      const sc = str(
        get(pv, 'spec', 'storageClassName') ?? pv.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'],
      )
      return [
        pv.metadata.name,
        str(get(pv, 'spec', 'capacity', 'storage')),
        accessModes(get(pv, 'spec', 'accessModes')),
        str(get(pv, 'spec', 'persistentVolumeReclaimPolicy')),
        phase,
        claim,
        sc,
        str(get(pv, 'spec', 'volumeAttributesClassName') ?? '<unset>'),
        str(get(pv, 'status', 'reason')),
        age(pv, now),
        str(get(pv, 'spec', 'volumeMode') ?? '<unset>'),
      ]
    },
  },
  persistentvolumeclaims: {
    columns: [
      NAME,
      col('Status'),
      col('Volume'),
      col('Capacity'),
      col('Access Modes'),
      col('StorageClass'),
      col('VolumeAttributesClass'),
      AGE,
      col('VolumeMode', 1),
    ],
    cells(pvc, now) {
      const phase = pvc.metadata.deletionTimestamp ? 'Terminating' : str(get(pvc, 'status', 'phase'))
      const volume = str(get(pvc, 'spec', 'volumeName'))
      // printPersistentVolumeClaim shows capacity and modes from status, and only once a volume is named.
      const capacity = volume ? str(get(pvc, 'status', 'capacity', 'storage')) : ''
      const modes = volume ? accessModes(get(pvc, 'status', 'accessModes')) : ''
      const sc = str(
        get(pvc, 'spec', 'storageClassName') ?? pvc.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'],
      )
      return [
        pvc.metadata.name,
        phase,
        volume,
        capacity,
        modes,
        sc,
        str(get(pvc, 'spec', 'volumeAttributesClassName') ?? '<unset>'),
        age(pvc, now),
        str(get(pvc, 'spec', 'volumeMode') ?? '<unset>'),
      ]
    },
  },
  'storageclasses.storage.k8s.io': {
    columns: [
      NAME,
      col('Provisioner'),
      col('ReclaimPolicy'),
      col('VolumeBindingMode'),
      col('AllowVolumeExpansion'),
      AGE,
    ],
    cells(sc, now) {
      const isDefault = [
        'storageclass.kubernetes.io/is-default-class',
        'storageclass.beta.kubernetes.io/is-default-class',
      ].some((a) => sc.metadata.annotations?.[a] === 'true')
      return [
        isDefault ? `${sc.metadata.name} (default)` : sc.metadata.name,
        str(sc.provisioner),
        str(sc.reclaimPolicy ?? 'Delete'),
        str(sc.volumeBindingMode ?? 'Immediate'),
        String(sc.allowVolumeExpansion === true),
        age(sc, now),
      ]
    },
  },
  pods: {
    columns: [NAME, col('Ready'), col('Status'), col('Restarts', 0, 'string'), AGE, col('IP', 1), col('Node', 1)],
    cells(p, now) {
      const containers = Array.isArray(get(p, 'spec', 'containers')) ? (get(p, 'spec', 'containers') as unknown[]) : []
      const statuses = Array.isArray(get(p, 'status', 'containerStatuses'))
        ? (get(p, 'status', 'containerStatuses') as unknown[])
        : []
      const ready = statuses.filter((s) => get(s, 'ready') === true).length
      const restarts = statuses.reduce<number>((n, s) => n + Number(get(s, 'restartCount') ?? 0), 0)
      const phase = p.metadata.deletionTimestamp ? 'Terminating' : str(get(p, 'status', 'phase'))
      return [
        p.metadata.name,
        `${ready}/${containers.length}`,
        phase,
        String(restarts),
        age(p, now),
        str(get(p, 'status', 'podIP') ?? '<none>'),
        str(get(p, 'spec', 'nodeName') ?? '<none>'),
      ]
    },
  },
  nodes: {
    columns: [NAME, col('Status'), col('Roles'), AGE, col('Version')],
    cells(n, now) {
      const conditions = Array.isArray(get(n, 'status', 'conditions'))
        ? (get(n, 'status', 'conditions') as unknown[])
        : []
      const readyCond = conditions.find((c) => get(c, 'type') === 'Ready')
      let status = readyCond ? (get(readyCond, 'status') === 'True' ? 'Ready' : 'NotReady') : 'Unknown'
      if (get(n, 'spec', 'unschedulable') === true) status += ',SchedulingDisabled'
      const roles = Object.keys(n.metadata.labels ?? {})
        .filter((l) => l.startsWith('node-role.kubernetes.io/'))
        .map((l) => l.slice('node-role.kubernetes.io/'.length))
        .filter(Boolean)
        .sort()
      return [
        n.metadata.name,
        status,
        roles.length ? roles.join(',') : '<none>',
        age(n, now),
        str(get(n, 'status', 'nodeInfo', 'kubeletVersion')),
      ]
    },
  },
  namespaces: {
    columns: [NAME, col('Status'), AGE],
    cells: (ns, now) => [ns.metadata.name, str(get(ns, 'status', 'phase')), age(ns, now)],
  },
  'volumeattachments.storage.k8s.io': {
    columns: [NAME, col('Attacher'), col('PV'), col('Node'), col('Attached'), AGE],
    cells: (va, now) => [
      va.metadata.name,
      str(get(va, 'spec', 'attacher')),
      str(get(va, 'spec', 'source', 'persistentVolumeName')),
      str(get(va, 'spec', 'nodeName')),
      String(get(va, 'status', 'attached') === true),
      age(va, now),
    ],
  },
  'leases.coordination.k8s.io': {
    columns: [NAME, col('Holder'), AGE],
    cells: (l, now) => [l.metadata.name, str(get(l, 'spec', 'holderIdentity')), age(l, now)],
  },
  events: {
    columns: [col('Last Seen'), col('Type'), col('Reason'), col('Object'), col('Message')],
    cells(e, now) {
      const stamp = str(e.lastTimestamp ?? e.firstTimestamp ?? e.eventTime)
      const last = stamp ? humanDuration(now - Date.parse(stamp)) : '<unknown>'
      const kind = str(get(e, 'involvedObject', 'kind')).toLowerCase()
      const name = str(get(e, 'involvedObject', 'name'))
      return [last, str(e.type), str(e.reason), name ? `${kind}/${name}` : kind, str(e.message).trim()]
    },
  },
}

const DEFAULT_PRINTER: Printer = {
  columns: [NAME, {...AGE, name: 'Created At', type: 'date'}],
  cells: (o) => [o.metadata.name, str(o.metadata.creationTimestamp)],
}

function rowObject(d: ResourceDef, o: K8sObject, include: IncludeObject): JsonObject | undefined {
  if (include === 'None') return undefined
  if (include === 'Object') return {apiVersion: apiVersionOf(d), kind: d.kind, ...o}
  return {kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata}
}

/** A Table of the given objects; `metadata` carries resourceVersion and continue like the List it replaces. */
export function toTable(
  d: ResourceDef,
  objects: readonly K8sObject[],
  metadata: JsonObject,
  opts: {now: number; include: IncludeObject; apiVersion: string},
): JsonObject {
  const printer = PRINTERS[d.id] ?? DEFAULT_PRINTER
  // Every Table carries its column definitions, watch events included: kubectl copes either way.
  const table: JsonObject = {kind: 'Table', apiVersion: opts.apiVersion, metadata, columnDefinitions: printer.columns}
  table.rows = objects.map((o) => {
    const row: JsonObject = {cells: printer.cells(o, opts.now)}
    const object = rowObject(d, o, opts.include)
    if (object) row.object = object
    return row
  })
  return table
}
