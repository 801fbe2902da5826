// Posts the controller's events as core/v1 Events, like client-go's event recorder: source component
// "pvctl", the object as involvedObject, events of cluster-scoped objects in "default", and a repeat
// of the same event (object, type, reason, message) counted on the existing Event instead of a new one.
import type {CoreEvent, ClusterApi} from '../cluster/live-api.js'
import type {PlannedEvent} from '../engine/simulation/plan.js'

export const EVENT_SOURCE = 'pvctl'

export interface InvolvedObject {
  uid?: string
  resourceVersion?: string
}

/** The core/v1 Event for a planned event, as client-go's recorder makes it. */
export function coreEvent(
  event: PlannedEvent,
  involved: InvolvedObject,
  name: string,
  namespace: string,
  timestamp: string,
): CoreEvent {
  return {
    metadata: {name, namespace},
    involvedObject: {
      kind: event.object.kind,
      name: event.object.name,
      apiVersion: 'v1',
      ...(event.object.namespace !== undefined ? {namespace: event.object.namespace} : {}),
      ...(involved.uid !== undefined ? {uid: involved.uid} : {}),
      ...(involved.resourceVersion !== undefined ? {resourceVersion: involved.resourceVersion} : {}),
    },
    reason: event.reason,
    message: event.message,
    type: event.type,
    source: {component: EVENT_SOURCE},
    reportingComponent: EVENT_SOURCE,
    count: event.count,
    firstTimestamp: timestamp,
    lastTimestamp: timestamp,
  }
}

export class EventRecorder {
  private readonly posted = new Map<string, {namespace: string; name: string; count: number}>()

  constructor(
    private readonly api: ClusterApi,
    private readonly now: () => Date,
  ) {}

  async record(event: PlannedEvent, involved: InvolvedObject): Promise<void> {
    const key = `${event.object.kind}/${event.object.namespace ?? ''}/${event.object.name}\u0000${event.type}\u0000${event.reason}\u0000${event.message}`
    const t = this.now()
    const timestamp = t.toISOString().replace(/\.\d+Z$/, 'Z')
    const existing = this.posted.get(key)
    if (existing !== undefined) {
      existing.count += event.count
      await this.api.patchEventCount(existing.namespace, existing.name, existing.count, timestamp)
      return
    }
    const namespace = event.object.namespace ?? 'default'
    // client-go names events "<object>.<unix nanoseconds in hex>".
    const name = `${event.object.name}.${(BigInt(t.getTime()) * 1_000_000n).toString(16)}`
    const body = coreEvent(event, involved, name, namespace, timestamp)
    await this.api.createEvent(body)
    this.posted.set(key, {namespace, name, count: event.count})
  }
}
