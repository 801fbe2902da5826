// The resource table: every kind the emulator serves, with the names discovery publishes (what kubectl
// resolves `pv`, `pvc`, `sc` ... against) and the registry facts that change wire behaviour: scope,
// status subresource, whether DELETE answers with the object or a Status, whether PUT may create, and
// which fields a fieldSelector may name. Values are those of the kube-apiserver 1.32 registries.
import type {K8sObject, Verb} from './types.js'

export interface ResourceDef {
  /** Qualified resource (`persistentvolumes`, `storageclasses.storage.k8s.io`): the store's bucket id. */
  readonly id: string
  readonly group: string
  readonly version: string
  readonly plural: string
  readonly singular: string
  readonly kind: string
  readonly namespaced: boolean
  readonly shortNames: readonly string[]
  readonly categories: readonly string[]
  readonly verbs: readonly Verb[]
  /** Subresources served; only `status` is modelled. */
  readonly subresources: readonly string[]
  /** genericregistry.Store.ReturnDeletedObject: DELETE answers with the object instead of a Status. */
  readonly returnDeletedObject: boolean
  /** RESTUpdateStrategy.AllowCreateOnUpdate: PUT to a missing name creates it. */
  readonly allowCreateOnUpdate: boolean
  /** Selectable fields besides metadata.name and metadata.namespace (the kind's GetAttrs / field index). */
  readonly fields: Readonly<Record<string, (o: K8sObject) => string>>
  /** Only `create` is served (SelfSubjectAccessReview): nothing is stored. */
  readonly virtual?: boolean
}

const ALL_VERBS: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']

/** Reads a dotted path as a field selector value: missing is "", booleans print as Go does. */
export function fieldValue(o: unknown, path: string): string {
  let node: unknown = o
  for (const part of path.split('.')) {
    if (typeof node !== 'object' || node === null) return ''
    node = (node as Record<string, unknown>)[part]
  }
  if (node === undefined || node === null) return ''
  return typeof node === 'object' ? JSON.stringify(node) : String(node)
}

const byPath = (...paths: string[]) => Object.fromEntries(paths.map((p) => [p, (o: K8sObject) => fieldValue(o, p)]))

function def(
  d: Omit<ResourceDef, 'id' | 'categories' | 'fields' | 'verbs' | 'subresources' | 'allowCreateOnUpdate'> &
    Partial<ResourceDef>,
): ResourceDef {
  return {
    id: d.group ? `${d.plural}.${d.group}` : d.plural,
    categories: [],
    fields: {},
    verbs: ALL_VERBS,
    subresources: [],
    allowCreateOnUpdate: false,
    ...d,
  }
}

export const RESOURCES: readonly ResourceDef[] = [
  def({
    group: '',
    version: 'v1',
    plural: 'persistentvolumes',
    singular: 'persistentvolume',
    kind: 'PersistentVolume',
    namespaced: false,
    shortNames: ['pv'],
    subresources: ['status'],
    returnDeletedObject: true,
  }),
  def({
    group: '',
    version: 'v1',
    plural: 'persistentvolumeclaims',
    singular: 'persistentvolumeclaim',
    kind: 'PersistentVolumeClaim',
    namespaced: true,
    shortNames: ['pvc'],
    subresources: ['status'],
    returnDeletedObject: true,
  }),
  def({
    group: '',
    version: 'v1',
    plural: 'pods',
    singular: 'pod',
    kind: 'Pod',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    subresources: ['status'],
    returnDeletedObject: true,
    fields: {
      ...byPath(
        'spec.nodeName',
        'spec.restartPolicy',
        'spec.schedulerName',
        'spec.serviceAccountName',
        'status.phase',
        'status.podIP',
        'status.nominatedNodeName',
      ),
      'spec.hostNetwork': (o) => String(fieldValue(o, 'spec.hostNetwork') === 'true'),
    },
  }),
  def({
    group: '',
    version: 'v1',
    plural: 'nodes',
    singular: 'node',
    kind: 'Node',
    namespaced: false,
    shortNames: ['no'],
    subresources: ['status'],
    returnDeletedObject: false,
    fields: {'spec.unschedulable': (o) => String(fieldValue(o, 'spec.unschedulable') === 'true')},
  }),
  def({
    group: '',
    version: 'v1',
    plural: 'events',
    singular: 'event',
    kind: 'Event',
    namespaced: true,
    shortNames: ['ev'],
    returnDeletedObject: false,
    allowCreateOnUpdate: true,
    fields: {
      ...byPath(
        'involvedObject.kind',
        'involvedObject.namespace',
        'involvedObject.name',
        'involvedObject.uid',
        'involvedObject.apiVersion',
        'involvedObject.resourceVersion',
        'involvedObject.fieldPath',
        'reason',
        'reportingComponent',
        'type',
      ),
      source: (o) => fieldValue(o, 'source.component'),
    },
  }),
  def({
    group: '',
    version: 'v1',
    plural: 'namespaces',
    singular: 'namespace',
    kind: 'Namespace',
    namespaced: false,
    shortNames: ['ns'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: ['status'],
    returnDeletedObject: true,
    fields: byPath('status.phase'),
  }),
  def({
    group: 'storage.k8s.io',
    version: 'v1',
    plural: 'storageclasses',
    singular: 'storageclass',
    kind: 'StorageClass',
    namespaced: false,
    shortNames: ['sc'],
    returnDeletedObject: true,
  }),
  def({
    group: 'storage.k8s.io',
    version: 'v1',
    plural: 'csidrivers',
    singular: 'csidriver',
    kind: 'CSIDriver',
    namespaced: false,
    shortNames: ['csid'],
    returnDeletedObject: true,
  }),
  def({
    group: 'storage.k8s.io',
    version: 'v1',
    plural: 'volumeattachments',
    singular: 'volumeattachment',
    kind: 'VolumeAttachment',
    namespaced: false,
    shortNames: [],
    subresources: ['status'],
    returnDeletedObject: true,
  }),
  def({
    group: 'coordination.k8s.io',
    version: 'v1',
    plural: 'leases',
    singular: 'lease',
    kind: 'Lease',
    namespaced: true,
    shortNames: [],
    returnDeletedObject: false,
    allowCreateOnUpdate: true,
  }),
  def({
    group: 'authorization.k8s.io',
    version: 'v1',
    plural: 'selfsubjectaccessreviews',
    singular: 'selfsubjectaccessreview',
    kind: 'SelfSubjectAccessReview',
    namespaced: false,
    shortNames: [],
    verbs: ['create'],
    returnDeletedObject: false,
    virtual: true,
  }),
]

export const apiVersionOf = (d: ResourceDef): string => (d.group ? `${d.group}/${d.version}` : d.version)

/** The group/versions served, in the order discovery lists them (core first). */
export const GROUP_VERSIONS: readonly {group: string; version: string}[] = [
  ...new Map(RESOURCES.map((d) => [apiVersionOf(d), {group: d.group, version: d.version}])).values(),
]

/** The resource at a URL: group, version and plural must all match. */
export function lookupResource(group: string, version: string, plural: string): ResourceDef | undefined {
  return RESOURCES.find((d) => d.group === group && d.version === version && d.plural === plural)
}

/**
 * Resolves what a test calls a kind: `PersistentVolume`, `persistentvolumes`, `persistentvolume`, `pv`,
 * or a qualified `storageclasses.storage.k8s.io`. Throws for an unknown name: a typo in a test should fail loudly.
 */
export function resolveKind(name: string): ResourceDef {
  const lower = name.toLowerCase()
  const found = RESOURCES.find(
    (d) =>
      d.id === lower ||
      d.plural === lower ||
      d.singular === lower ||
      d.kind.toLowerCase() === lower ||
      d.shortNames.includes(lower),
  )
  if (!found)
    throw new Error(
      `emulator: unknown kind ${JSON.stringify(name)} (served: ${RESOURCES.map((d) => d.kind).join(', ')})`,
    )
  return found
}

/** The resource an object belongs to, from its apiVersion and kind. */
export function resourceForObject(o: K8sObject): ResourceDef | undefined {
  return RESOURCES.find((d) => d.kind === o.kind && (o.apiVersion === undefined || o.apiVersion === apiVersionOf(d)))
}

/** The fields a fieldSelector may use on this resource. */
export const selectableFields = (d: ResourceDef): string[] => [
  'metadata.name',
  'metadata.namespace',
  ...Object.keys(d.fields),
]

/** fields.Set of an object for matching a field selector. */
export function fieldSetOf(d: ResourceDef, o: K8sObject): Record<string, string> {
  const set: Record<string, string> = {
    'metadata.name': o.metadata.name ?? '',
    'metadata.namespace': o.metadata.namespace ?? '',
  }
  for (const [field, get] of Object.entries(d.fields)) set[field] = get(o)
  return set
}

/** The store key: etcd orders keys by namespace, then name. */
export const keyOf = (d: ResourceDef, namespace: string | undefined, name: string): string =>
  d.namespaced ? `${namespace ?? ''}/${name}` : name
