// The plan: what the controller would write and say, as data. One plan feeds the table, the diff, the
// JSON report and (later) the executor.
import type {ActionType, EventType, ObjectKind, ObjectRef, OperationType} from '../controller/cluster-client.js'

// The controller's vocabulary (engine/controller/cluster-client.ts), which the plan records.
export type {ActionType, EventType, ObjectKind, ObjectRef, OperationType}

/** Whether an action is a plugin's operation rather than a write of the API. */
export const isOperation = (a: Pick<Action, 'action'>): a is Pick<Action, 'action'> & {action: OperationType} =>
  a.action === 'recycle' || a.action === 'delete' || a.action === 'provision'

/**
 * An operation's key, "recycle:pv/NAME" or "provision:pvc/NS/NAME": what the plan's operationPlugins and
 * an executor's outcomes are kept by (one operation of a kind per object at a time, as the controller's
 * goroutinemap has it).
 */
export function operationKey(a: Pick<Action, 'action' | 'object'>): string {
  return `${a.action}:${refKey(a.object)}`
}

/** RFC 6902 JSON Patch operation, from the object as read to the object as written. */
export interface JsonPatchOp {
  op: 'add' | 'remove' | 'replace'
  path: string
  value?: unknown
}

export interface Action {
  action: ActionType
  object: ObjectRef
  reason: string
  /** Changes to the object: for a status write the paths are under /status. Empty for operations. */
  patch: JsonPatchOp[]
  /** 'status' when the write goes through the /status subresource. */
  subresource?: 'status'
  /** The resourceVersion the write is conditional on (the one read). */
  resourceVersion?: string
  /** The round of the reconciliation that planned it (1-based). */
  round: number
  /** The sync that planned it ("pvc/NS/NAME" or "pv/NAME"): writes of one sync are one unit of work. */
  sync: string
}

export interface PlannedEvent {
  object: ObjectRef
  type: EventType
  reason: string
  message: string
  /** How many times the controller would have emitted it (the recorder aggregates duplicates). */
  count: number
  /** The sync that first emitted it. */
  sync: string
}

/** A sync call that returned an error in the Go controller: it is retried on the next sync. */
export interface SyncError {
  object: ObjectRef
  message: string
}

/** A planned action that recycles or deletes a volume's storage, or deletes the PV object. */
export const destroys = (a: Action): boolean =>
  a.action === 'recycle' || a.action === 'delete' || a.action === 'delete-volume'

/** A planned status write that makes a volume Released. */
export const releases = (a: Action): boolean =>
  a.action === 'set-volume-phase' && a.patch.some((p) => p.path === '/status/phase' && p.value === 'Released')

export function refOfVolume(name: string): ObjectRef {
  return {kind: 'PersistentVolume', name}
}

export function refOfClaim(namespace: string, name: string): ObjectRef {
  return {kind: 'PersistentVolumeClaim', namespace, name}
}

export function refKey(ref: ObjectRef): string {
  return ref.kind === 'PersistentVolume' ? `pv/${ref.name}` : `pvc/${ref.namespace}/${ref.name}`
}
