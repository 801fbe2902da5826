// The generic registry (k8s.io/apiserver/pkg/registry/generic/registry.Store) over the emulator's store:
// the semantics of GET, LIST, CREATE, UPDATE, PATCH and DELETE independent of HTTP. Each step names the
// upstream function whose behaviour it keeps, so a difference can be checked against the Go code.
import {randomInt, randomUUID} from 'node:crypto'

import {applyPatch, type PatchType} from './patch.js'
import {apiVersionOf, fieldSetOf, keyOf, RESOURCES, selectableFields, type ResourceDef} from './resources.js'
import {parseFieldSelector, parseLabelSelector} from './selectors.js'
import {
  alreadyExists,
  ApiError,
  badRequest,
  conflict,
  expired,
  invalid,
  invalidValue,
  notFound,
  success,
  timeout,
  type FieldError,
  type GroupResource,
  type Status,
} from './status-errors.js'
import {lowerBound, type Store} from './store.js'
import {admitCreate, type AdmissionView, releasableProtection} from './admission.js'
import {strategyFor, validateFinalizersUpdate, validateName} from './strategies.js'
import {clone, isObject, jsonEqual, type K8sObject} from './types.js'

export interface ListOptions {
  labelSelector?: string
  fieldSelector?: string
  limit?: number
  continue?: string
  resourceVersion?: string
  resourceVersionMatch?: string
}

export interface ListResult {
  /** The stored objects, not copies: read them, never modify them. */
  items: readonly K8sObject[]
  resourceVersion: string
  continue?: string
  remainingItemCount?: number
}

export interface DeleteOptions {
  gracePeriodSeconds?: number
  preconditions?: {uid?: string; resourceVersion?: string}
  propagationPolicy?: string
}

export interface DeleteResult {
  /** HTTP status of the answer: 200, or 202 for a pending delete with an explicit orphanDependents=false. */
  code: number
  body: K8sObject | Status
  /** The object is gone (false: it is waiting for finalizers or a grace period). */
  deleted: boolean
}

export const groupResource = (d: ResourceDef): GroupResource => ({group: d.group, resource: d.plural})

/** metav1.Time: RFC 3339 in UTC with seconds precision. */
export const rfc3339 = (date: Date): string =>
  new Date(Math.floor(date.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z')

const CONTINUE_VERSION = 'meta.k8s.io/v1'

interface ContinueToken {
  rv: number
  start: string
}

/** storage.EncodeContinue: base64url (unpadded) JSON {"v","rv","start"}, start = last key + "\x00". */
const encodeContinue = (t: ContinueToken): string =>
  Buffer.from(JSON.stringify({v: CONTINUE_VERSION, rv: t.rv, start: t.start})).toString('base64url')

/** storage.DecodeContinue; a malformed token is a 400 BadRequest (expiry is checked later, 410). */
function decodeContinue(token: string): ContinueToken {
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'))
  } catch (e) {
    throw badRequest(`invalid continue token: continue key is not valid: ${(e as Error).message}`)
  }
  if (!isObject(parsed) || parsed.v !== CONTINUE_VERSION) {
    throw badRequest(
      'invalid continue token: continue key is not valid: server does not recognize this encoded version',
    )
  }
  if (typeof parsed.rv !== 'number' || parsed.rv === 0) {
    throw badRequest(
      'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    )
  }
  if (typeof parsed.start !== 'string' || parsed.start === '') {
    throw badRequest(
      'invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)',
    )
  }
  return {rv: parsed.rv, start: parsed.start}
}

const CONTINUE_EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, ' +
  'or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an ' +
  'inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.'

/** storage.ParseResourceVersion for a LIST/GET/WATCH parameter. */
export function parseResourceVersion(rv: string): number {
  if (!/^\d+$/.test(rv))
    throw badRequest(`invalid resource version: strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`)
  return Number(rv)
}

/** Go's omitempty on ObjectMeta: empty label/annotation maps and finalizer lists are not stored. */
function normalizeMeta(o: K8sObject): K8sObject {
  for (const field of ['labels', 'annotations', 'finalizers', 'ownerReferences', 'managedFields'] as const) {
    const v = o.metadata[field]
    if (v === null || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0))
      delete o.metadata[field]
  }
  return o
}

/** names.SimpleNameGenerator: generateName plus five characters from an alphabet without vowels. */
function generateName(prefix: string): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789'
  let suffix = ''
  for (let i = 0; i < 5; i++) suffix += alphabet[randomInt(alphabet.length)]
  return prefix.slice(0, 63 - 5) + suffix
}

export class Registry {
  constructor(
    private readonly store: Store,
    private readonly clock: () => Date,
  ) {}

  private now(): string {
    return rfc3339(this.clock())
  }

  /** Puts apiVersion and kind first, as the server's encoder writes them. */
  typed(d: ResourceDef, o: K8sObject): K8sObject {
    const {apiVersion: _a, kind: _k, ...rest} = o
    return {apiVersion: apiVersionOf(d), kind: d.kind, ...rest} as K8sObject
  }

  /** Decodes a request body into an object of this resource (the codec's defaulting GVK). */
  private decode(d: ResourceDef, body: unknown): K8sObject {
    if (!isObject(body))
      throw badRequest(
        `json: cannot unmarshal ${Array.isArray(body) ? 'array' : typeof body} into Go value of type ${d.kind}`,
      )
    if (body.apiVersion !== undefined && body.apiVersion !== apiVersionOf(d)) {
      throw badRequest(
        `the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${apiVersionOf(d)})`,
      )
    }
    if (body.kind !== undefined && body.kind !== d.kind) {
      throw badRequest(
        `${String(body.kind)} in version "${apiVersionOf(d)}" cannot be handled as a ${d.kind}: the object provided is unrecognized (must be of type ${d.kind})`,
      )
    }
    if (body.metadata !== undefined && !isObject(body.metadata))
      throw badRequest(
        `json: cannot unmarshal ${typeof body.metadata} into Go struct field ${d.kind}.metadata of type v1.ObjectMeta`,
      )
    const obj = clone(body) as K8sObject
    obj.metadata ??= {}
    return this.typed(d, obj)
  }

  get(d: ResourceDef, namespace: string | undefined, name: string, resourceVersion?: string): K8sObject {
    if (resourceVersion && resourceVersion !== '0') this.checkNotFromTheFuture(parseResourceVersion(resourceVersion))
    const o = this.store.get(d.id, keyOf(d, namespace, name))
    if (!o) throw notFound(groupResource(d), name)
    return clone(o)
  }

  private checkNotFromTheFuture(rv: number): void {
    const current = this.store.resourceVersion
    if (rv > current) throw timeout(`Too large resource version: ${rv}, current: ${current}`, 1)
  }

  /**
   * etcd3 store GetList + the cacher's resourceVersion semantics: unset or "0" reads the latest state;
   * N with resourceVersionMatch=Exact reads the snapshot at N; N otherwise reads "not older than N" (the
   * latest). A continue token reads at its own revision, so pages form one consistent snapshot.
   */
  list(d: ResourceDef, namespace: string | undefined, opts: ListOptions = {}): ListResult {
    const labels = parseLabelSelector(opts.labelSelector)
    const fields = parseFieldSelector(opts.fieldSelector, selectableFields(d))
    const limit = opts.limit && opts.limit > 0 ? opts.limit : undefined
    // ValidateListOptions.
    if (opts.resourceVersionMatch && !opts.resourceVersion)
      throw badRequest(
        'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
      )
    if (opts.resourceVersionMatch && opts.continue)
      throw badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided')
    if (opts.resourceVersionMatch && !['Exact', 'NotOlderThan'].includes(opts.resourceVersionMatch)) {
      throw badRequest(
        `resourceVersionMatch: Unsupported value: "${opts.resourceVersionMatch}": supported values: "Exact", "NotOlderThan"`,
      )
    }
    const current = this.store.resourceVersion
    let readRv = current
    let start = ''
    if (opts.continue) {
      const token = decodeContinue(opts.continue)
      start = token.start
      // rv -1 is what an expired-token Status hands out: continue at the latest revision, inconsistently.
      if (token.rv !== -1) readRv = token.rv
    } else if (opts.resourceVersion && opts.resourceVersion !== '0') {
      const rv = parseResourceVersion(opts.resourceVersion)
      this.checkNotFromTheFuture(rv)
      if (opts.resourceVersionMatch === 'Exact') readRv = rv
    }
    const snapshot = readRv === current ? this.store.current(d.id) : this.store.snapshot(d.id, readRv)
    if (!snapshot) {
      if (!opts.continue) throw expired('The resourceVersion for the provided list is too old.')
      // handleCompactedErrorForPaging: 410 Expired, with a token to go on at the latest revision.
      const err = expired(CONTINUE_EXPIRED)
      err.status.metadata.continue = encodeContinue({rv: -1, start})
      throw err
    }
    // The keys in scope are one range of the key order (a namespace's keys share the prefix "ns/"), and a
    // page starts at its token's key: found by binary search, so a page costs its own size, not the list's.
    const prefix = d.namespaced && namespace ? `${namespace}/` : ''
    // "0" follows "/" in byte order: the first key after every "ns/...".
    const end = prefix ? lowerBound(snapshot, `${namespace}0`) : snapshot.length
    const first = lowerBound(snapshot, start > prefix ? start : prefix)
    const items: K8sObject[] = []
    let lastIndex = first - 1
    for (let i = first; i < end && (limit === undefined || items.length < limit); i++) {
      const o = snapshot[i][1]
      lastIndex = i
      // The stored object itself: nothing mutates a stored object (store.ts), and a page is encoded at
      // once, so a deep copy of each item would only double the cost of a page.
      if (labels.matches(o.metadata.labels) && fields.matches(fieldSetOf(d, o))) items.push(o)
    }
    const result: ListResult = {items, resourceVersion: String(readRv)}
    const remaining = end - lastIndex - 1
    if (limit !== undefined && remaining > 0) {
      result.continue = encodeContinue({rv: readRv, start: `${snapshot[lastIndex][0]}\u0000`})
      // The apiserver only counts what is left when no selector filters it (the count would be a guess).
      if (labels.requirements.length === 0 && fields.requirements.length === 0) result.remainingItemCount = remaining
    }
    return result
  }

  /** Store.Create: BeforeCreate (namespace, system fields, PrepareForCreate, validation), then the write. */
  create(d: ResourceDef, namespace: string | undefined, body: unknown, dryRun = false): K8sObject {
    const obj = this.decode(d, body)
    const meta = obj.metadata
    if (!d.namespaced) delete meta.namespace
    else if (!meta.namespace) meta.namespace = namespace
    else if (namespace && meta.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request')
    }
    if (meta.resourceVersion) {
      // The etcd3 store's own check, a plain Go error: the apiserver answers 500 with reason Unknown.
      throw new ApiError({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'resourceVersion should not be set on objects to be created',
        reason: 'Unknown',
        code: 500,
      })
    }
    if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName)
    meta.uid = randomUUID()
    meta.creationTimestamp = this.now()
    delete meta.deletionTimestamp
    delete meta.deletionGracePeriodSeconds
    const strategy = strategyFor(d)
    strategy.defaults?.(obj)
    if (d.subresources.includes('status')) delete obj.status
    strategy.prepareForCreate?.(obj, {now: this.now()})
    admitCreate(d, obj, this.admissionView)
    const errs = [...validateName(d, obj), ...(strategy.validate?.(obj) ?? [])]
    if (errs.length) throw invalid(d, meta.name ?? '', errs)
    const key = keyOf(d, meta.namespace, meta.name!)
    if (this.store.get(d.id, key)) throw alreadyExists(groupResource(d), meta.name!)
    normalizeMeta(obj)
    if (dryRun) return obj
    return clone(this.store.commit(d.id, key, obj))
  }

  /** PUT: the body replaces the object, conditional on its resourceVersion when it carries one. */
  update(
    d: ResourceDef,
    namespace: string | undefined,
    name: string,
    body: unknown,
    subresource = '',
    dryRun = false,
  ): {object: K8sObject; created: boolean} {
    const obj = this.decode(d, body)
    // checkName in the update handler.
    if (obj.metadata.name !== name)
      throw badRequest(
        `the name of the object (${obj.metadata.name ?? ''}) does not match the name on the URL (${name})`,
      )
    if (d.namespaced && obj.metadata.namespace && obj.metadata.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request')
    }
    const key = keyOf(d, namespace, name)
    if (!this.store.get(d.id, key) && d.allowCreateOnUpdate && !subresource) {
      delete obj.metadata.resourceVersion
      return {object: this.create(d, namespace, obj, dryRun), created: true}
    }
    return {object: this.guaranteedUpdate(d, namespace, name, subresource, () => obj, dryRun), created: false}
  }

  /** PATCH: applied to the current object, then written like an update (patcher.patchResource). */
  patch(
    d: ResourceDef,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    patch: unknown,
    subresource = '',
    dryRun = false,
  ): K8sObject {
    if (type !== 'json' && !isObject(patch))
      throw badRequest(
        `json: cannot unmarshal ${Array.isArray(patch) ? 'array' : typeof patch} into Go value of type map[string]interface {}`,
      )
    return this.guaranteedUpdate(
      d,
      namespace,
      name,
      subresource,
      (current) => {
        const patched = applyPatch(type, current, patch)
        const obj = this.decode(d, patched)
        if (obj.metadata.name !== name)
          throw badRequest(
            `the name of the object (${obj.metadata.name ?? ''}) does not match the name on the URL (${name})`,
          )
        return obj
      },
      dryRun,
    )
  }

  /**
   * Store.Update through GuaranteedUpdate: preconditions (resourceVersion, uid), the update or status
   * strategy, BeforeUpdate's system fields, validation, the no-op short cut (an unchanged object is not
   * written and keeps its resourceVersion), and deletion once the last finalizer of a deleting object goes.
   */
  private guaranteedUpdate(
    d: ResourceDef,
    namespace: string | undefined,
    name: string,
    subresource: string,
    tryUpdate: (current: K8sObject) => K8sObject,
    dryRun: boolean,
  ): K8sObject {
    const gr = groupResource(d)
    const key = keyOf(d, namespace, name)
    const current = this.store.get(d.id, key)
    if (!current) throw notFound(gr, name)
    let obj = tryUpdate(clone(current))
    const meta = obj.metadata
    if (meta.resourceVersion && meta.resourceVersion !== current.metadata.resourceVersion) throw conflict(gr, name)
    if (meta.uid && meta.uid !== current.metadata.uid) {
      throw conflict(
        gr,
        name,
        `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${current.metadata.uid}`,
      )
    }
    const strategy = strategyFor(d)
    const ctx = {now: this.now()}
    if (subresource === 'status') {
      // StatusStrategy.PrepareForUpdate: spec (and every other top-level field) stays; status and
      // metadata come from the request, as for the built-in kinds (CRDs would also drop metadata).
      const next = clone(current)
      if (obj.status === undefined) delete next.status
      else next.status = obj.status
      next.metadata = obj.metadata
      obj = next
      strategy.prepareForStatusUpdate?.(obj, current, ctx)
    } else {
      strategy.defaults?.(obj)
      // Strategy.PrepareForUpdate of kinds with a status subresource: the main endpoint cannot set status.
      if (d.subresources.includes('status')) {
        if (current.status === undefined) delete obj.status
        else obj.status = clone(current.status)
      }
    }
    const errs: FieldError[] = []
    // rest.BeforeUpdate: system fields come from the stored object.
    const m = obj.metadata
    m.uid = current.metadata.uid
    m.creationTimestamp = current.metadata.creationTimestamp
    m.namespace = current.metadata.namespace
    if (current.metadata.namespace === undefined) delete m.namespace
    if (current.metadata.generation === undefined) delete m.generation
    else m.generation = current.metadata.generation
    if (current.metadata.deletionTimestamp) {
      m.deletionTimestamp = current.metadata.deletionTimestamp
      m.deletionGracePeriodSeconds = current.metadata.deletionGracePeriodSeconds
    } else if (m.deletionTimestamp) {
      errs.push(
        invalidValue(
          'metadata.deletionTimestamp',
          m.deletionTimestamp,
          'field is immutable; may only be changed via deletion',
        ),
      )
    } else delete m.deletionGracePeriodSeconds
    errs.push(...validateFinalizersUpdate(obj, current))
    if (subresource === '')
      errs.push(...(strategy.validate?.(obj) ?? []), ...(strategy.validateUpdate?.(obj, current) ?? []))
    if (errs.length) throw invalid(d, name, errs)
    m.resourceVersion = current.metadata.resourceVersion
    normalizeMeta(obj)
    if (jsonEqual(obj, current)) return clone(current)
    if (dryRun) return obj
    const stored = this.store.commit(d.id, key, obj)
    this.finalizeIfDone(d, key, stored, current)
    this.releaseProtection(d, key)
    return clone(stored)
  }

  /** What the admission plugins and the protection controllers look at (admission.ts). */
  private readonly admissionView: AdmissionView = {
    storageClasses: () => this.store.current('storageclasses.storage.k8s.io').map(([, o]) => o),
    podsIn: (namespace) =>
      this.store
        .current('pods')
        .filter(([key]) => key.startsWith(`${namespace}/`))
        .map(([, o]) => o),
  }

  /**
   * The pv-protection or pvc-protection controller of a cluster: the protection finalizer of an object being
   * deleted goes once nothing uses it, and the object with it when it was the last.
   */
  private releaseProtection(d: ResourceDef, key: string): void {
    const obj = this.store.get(d.id, key)
    const finalizer = obj === undefined ? undefined : releasableProtection(d, obj, this.admissionView)
    if (obj === undefined || finalizer === undefined) return
    const rest = (obj.metadata.finalizers ?? []).filter((f) => f !== finalizer)
    if (rest.length === 0 && obj.metadata.deletionGracePeriodSeconds === 0) {
      // The last finalizer: the update deletes the object, with no update event before (shouldDeleteDuringUpdate).
      this.store.commit(d.id, key, undefined)
      return
    }
    const next = clone(obj)
    if (rest.length > 0) next.metadata.finalizers = rest
    else delete next.metadata.finalizers
    this.store.commit(d.id, key, next)
  }

  /** shouldDeleteDuringUpdate: the last finalizer of an object marked for deletion (grace 0) is gone. */
  private finalizeIfDone(d: ResourceDef, key: string, stored: K8sObject, before: K8sObject): void {
    const m = stored.metadata
    if (m.deletionTimestamp && !m.finalizers?.length && before.metadata.deletionGracePeriodSeconds === 0)
      this.store.commit(d.id, key, undefined)
  }

  /**
   * Store.Delete: preconditions, then either mark the object (finalizers pending, or a pod's grace
   * period) or remove it. A marked object is answered as is; a removed one as the object
   * (ReturnDeletedObject) or a Success Status.
   */
  delete(
    d: ResourceDef,
    namespace: string | undefined,
    name: string,
    opts: DeleteOptions = {},
    dryRun = false,
  ): DeleteResult {
    const gr = groupResource(d)
    const key = keyOf(d, namespace, name)
    const current = this.store.get(d.id, key)
    if (!current) throw notFound(gr, name)
    const pre = opts.preconditions ?? {}
    if (pre.uid && pre.uid !== current.metadata.uid) {
      throw conflict(
        gr,
        name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid}`,
      )
    }
    if (pre.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
      throw conflict(
        gr,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in meta: ${current.metadata.resourceVersion}`,
      )
    }
    const grace = strategyFor(d).gracePeriodSeconds?.(current, opts.gracePeriodSeconds) ?? 0
    const pendingFinalizers = (current.metadata.finalizers?.length ?? 0) > 0
    const meta = current.metadata
    if (meta.deletionTimestamp) {
      // Already being deleted: a shorter grace period moves the deadline, grace 0 without finalizers ends it.
      const shorter = meta.deletionGracePeriodSeconds !== undefined && grace < meta.deletionGracePeriodSeconds
      if (!pendingFinalizers && grace === 0) return this.removeNow(d, key, current, dryRun)
      if (!shorter) return {code: 200, body: clone(current), deleted: false}
    } else if (!pendingFinalizers && grace === 0) {
      return this.removeNow(d, key, current, dryRun)
    }
    // markAsDeleting / graceful deletion: the object stays, stamped with when it goes.
    const next = clone(current)
    next.metadata.deletionTimestamp = rfc3339(new Date(this.clock().getTime() + grace * 1000))
    next.metadata.deletionGracePeriodSeconds = grace
    if (dryRun) return {code: 200, body: next, deleted: false}
    const marked = clone(this.store.commit(d.id, key, next))
    this.releaseProtection(d, key)
    return {code: 200, body: marked, deleted: false}
  }

  private removeNow(d: ResourceDef, key: string, current: K8sObject, dryRun: boolean): DeleteResult {
    if (d.plural === 'namespaces' && !dryRun) this.emptyNamespace(current.metadata.name!)
    if (!dryRun) this.store.commit(d.id, key, undefined)
    // The etcd delete answers with the last state at its own revision (not the deletion's).
    const body = d.returnDeletedObject
      ? clone(current)
      : success(groupResource(d), current.metadata.name!, current.metadata.uid)
    return {code: 200, body, deleted: true}
  }

  /** What the namespace controller would do before the namespace goes: delete everything in it. */
  private emptyNamespace(ns: string): void {
    for (const d of RESOURCES) {
      if (!d.namespaced || d.virtual) continue
      for (const [key] of this.store.current(d.id))
        if (key.startsWith(`${ns}/`)) this.store.commit(d.id, key, undefined)
    }
  }

  /** Store.DeleteCollection: every object the selectors match, each deleted as by DELETE. */
  deleteCollection(
    d: ResourceDef,
    namespace: string | undefined,
    list: ListOptions,
    opts: DeleteOptions,
    dryRun = false,
  ): ListResult {
    const {items, resourceVersion} = this.list(d, namespace, {
      labelSelector: list.labelSelector,
      fieldSelector: list.fieldSelector,
    })
    const deleted = items.map((o) => {
      const r = this.delete(d, o.metadata.namespace, o.metadata.name!, opts, dryRun)
      return (r.body as K8sObject).metadata ? (r.body as K8sObject) : o
    })
    return {items: deleted, resourceVersion}
  }

  // --- Programmatic access for tests: writes straight to storage: defaults, but no strategy or validation. ---

  /** Stores an object as given (status included), filling uid, creationTimestamp and namespace "default". */
  seed(d: ResourceDef, input: K8sObject): K8sObject {
    const obj = this.typed(d, clone(input))
    obj.metadata ??= {}
    if (!obj.metadata.name) throw new Error(`emulator: ${d.kind} without metadata.name`)
    if (d.namespaced) obj.metadata.namespace ||= 'default'
    else delete obj.metadata.namespace
    obj.metadata.uid ||= randomUUID()
    obj.metadata.creationTimestamp ||= this.now()
    delete obj.metadata.resourceVersion
    // Defaulting also runs when the apiserver decodes from etcd, so even a seeded object has its defaults.
    strategyFor(d).defaults?.(obj)
    const key = keyOf(d, obj.metadata.namespace, obj.metadata.name)
    if (this.store.get(d.id, key)) throw alreadyExists(groupResource(d), obj.metadata.name)
    return clone(this.store.commit(d.id, key, normalizeMeta(obj)))
  }

  /** Replaces an object unconditionally (status included); still deletes it once its finalizers are gone. */
  replace(d: ResourceDef, input: K8sObject): K8sObject {
    const obj = this.typed(d, clone(input))
    const name = obj.metadata?.name
    if (!name) throw new Error(`emulator: ${d.kind} without metadata.name`)
    if (d.namespaced) obj.metadata.namespace ||= 'default'
    const key = keyOf(d, obj.metadata.namespace, name)
    const current = this.store.get(d.id, key)
    if (!current) throw notFound(groupResource(d), name)
    obj.metadata.uid ||= current.metadata.uid
    obj.metadata.creationTimestamp ||= current.metadata.creationTimestamp
    strategyFor(d).defaults?.(obj)
    const stored = this.store.commit(d.id, key, normalizeMeta(obj))
    this.finalizeIfDone(d, key, stored, current)
    return clone(stored)
  }

  /** Removes an object at once, finalizers or not. */
  remove(d: ResourceDef, namespace: string | undefined, name: string): void {
    const key = keyOf(d, namespace, name)
    if (!this.store.get(d.id, key)) throw notFound(groupResource(d), name)
    this.store.commit(d.id, key, undefined)
  }
}
