// `-o name`, as kubectl's name printer prints it: RESOURCE[.GROUP]/NAME, one object a line, without its
// namespace (`persistentvolumeclaim/orders`, `storageclass.storage.k8s.io/fast`), for scripts:
// `pvctl audit -o name | xargs kubectl describe`. PURE.
import type {AuditReport} from '../engine/audit/report.js'
import type {ExplainDocument} from '../engine/explain/model.js'
import type {SyncReport} from '../engine/simulation/sync-report.js'

interface Named {
  kind: string
  namespace?: string
  name: string
}

/** The resource kubectl names each kind by: lower-case, with its API group unless it is the core group's. */
const RESOURCES: Readonly<Record<string, string>> = {
  PersistentVolumeClaim: 'persistentvolumeclaim',
  PersistentVolume: 'persistentvolume',
  StorageClass: 'storageclass.storage.k8s.io',
}

/** Each object once, in the order first met (claims of two namespaces with one name are two lines, as kubectl prints them). */
export function objectNames(objects: Iterable<Named>): string {
  const seen = new Set<string>()
  const lines: string[] = []
  for (const o of objects) {
    const key = `${o.kind}/${o.namespace ?? ''}/${o.name}`
    if (seen.has(key)) continue
    seen.add(key)
    lines.push(`${RESOURCES[o.kind] ?? o.kind.toLowerCase()}/${o.name}`)
  }
  return lines.map((l) => `${l}\n`).join('')
}

/** sync: the objects the plan writes to. */
export function syncNames(report: SyncReport): string {
  return objectNames(report.actions.map((a) => a.object))
}

/** audit: the objects with findings. */
export function auditNames(report: AuditReport): string {
  return objectNames(report.findings.map((f) => f.object))
}

/** explain: the claim or volume explained, or every claim of a List. */
export function explainNames(doc: ExplainDocument): string {
  switch (doc.kind) {
    case 'ClaimExplanation':
      return objectNames([{kind: 'PersistentVolumeClaim', ...doc.claim}])
    case 'VolumeExplanation':
      return objectNames([{kind: 'PersistentVolume', name: doc.volume.name}])
    case 'List':
      return objectNames(doc.items.map((e) => ({kind: 'PersistentVolumeClaim', ...e.claim})))
  }
}
