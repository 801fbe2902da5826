// The metrics of loop mode, under the names kube-controller-manager uses where it has them:
//   pv_collector_bound_pv_count{storage_class}          pv_collector_unbound_pv_count{storage_class}
//   pv_collector_bound_pvc_count{namespace,storage_class,volume_attributes_class}
//   pv_collector_unbound_pvc_count{namespace,storage_class,volume_attributes_class}
//   volume_operation_total_seconds{plugin_name,operation_name}   (histogram: provision/delete end to end)
//   volume_operation_total_errors{plugin_name,operation_name}   (to v1.35; v1.36 also has the next, deprecating it)
//   volume_operation_errors_total{plugin_name,operation_name}   (from v1.36; the only one from v1.37)
//   retroactive_storageclass_total, retroactive_storageclass_errors_total
//   workqueue_depth / _adds_total / _retries_total / _queue_duration_seconds / _work_duration_seconds {name}
//   leader_election_master_status{name}
// and pvctl's own, prefixed pvctl_: syncs, actions by outcome, relists, watch events, whether it writes,
// when the last resync's pass was queued.
import type {ExecutedAction} from '../executor/executor.js'
import type {PersistentVolume, PersistentVolumeClaim} from '../engine/api/model.js'
import type {InformerMetrics} from './client-go/informer.js'
import {type CounterSeries, type Labels, OPERATION_BUCKETS, Registry} from './client-go/metrics.js'
import type {QueueMetrics} from './client-go/work-queue.js'
import {defaultFeatureGates, type FeatureGates} from '../engine/api/feature-gates.js'
import {hasChange, RELEASE_CHANGES} from '../engine/api/releases.js'

/**
 * The counters of failed volume operations at a release (pv metrics.go): volume_operation_total_errors to
 * v1.35; from v1.36 volume_operation_errors_total, with the old name still served deprecated in v1.36 and
 * hidden from v1.37 (component-base hides a metric one minor release after it was deprecated).
 */
export function operationErrorCounters(gates: Pick<FeatureGates, 'version'>): Array<{name: string; help: string}> {
  const renamedIn = RELEASE_CHANGES.operationErrorsMetricRenamed
  // RELEASE operationErrorsMetricRenamed
  if (!hasChange(gates, 'operationErrorsMetricRenamed')) {
    return [{name: 'volume_operation_total_errors', help: 'Total volume operation errors'}]
  } else if (gates.version === renamedIn) {
    return [
      {
        name: 'volume_operation_total_errors',
        help: `(Deprecated since 1.${renamedIn}.0) Total volume operation errors`,
      },
      {name: 'volume_operation_errors_total', help: 'Total volume operation errors'},
    ]
  } else {
    return [{name: 'volume_operation_errors_total', help: 'Total volume operation errors'}]
  }
}

export interface MetricsSource {
  readonly volumes: ReadonlyMap<string, PersistentVolume>
  readonly claims: ReadonlyMap<string, PersistentVolumeClaim>
  readonly claimQueue: {readonly depth: number; readonly name: string}
  readonly volumeQueue: {readonly depth: number; readonly name: string}
  /** Moves whenever `volumes` or `claims` change: the gauges counted at a scrape are counted again only then. */
  readonly generation?: number
}

const WORKQUEUE_BUCKETS = [0.001, 0.01, 0.1, 1, 10, 100]

export class LoopMetrics {
  readonly registry = new Registry()
  private source: MetricsSource | undefined
  /** The pv_collector gauges of the last scrape, by family, and the source's generation they counted. */
  private readonly counted = new Map<string, {generation: number; samples: Array<{labels: Labels; value: number}>}>()
  private readonly adds = this.registry.counter('workqueue_adds_total', 'Total number of adds handled by workqueue')
  private readonly retries = this.registry.counter(
    'workqueue_retries_total',
    'Total number of retries handled by workqueue',
  )
  private readonly queueDuration = this.registry.histogram(
    'workqueue_queue_duration_seconds',
    'How long in seconds an item stays in workqueue before being requested.',
    WORKQUEUE_BUCKETS,
  )
  private readonly workDuration = this.registry.histogram(
    'workqueue_work_duration_seconds',
    'How long in seconds processing an item from workqueue takes.',
    WORKQUEUE_BUCKETS,
  )
  private readonly operationSeconds = this.registry.histogram(
    'volume_operation_total_seconds',
    'Storage operation end to end duration in seconds',
    OPERATION_BUCKETS,
  )
  /** The operation error counters of the release decided as (operationErrorCounters). */
  private readonly operationErrors: ReturnType<Registry['counter']>[]
  private readonly retroactive = this.registry.counter(
    'retroactive_storageclass_total',
    'Total number of retroactive StorageClass assignments to persistent volume claim',
  )
  private readonly retroactiveErrors = this.registry.counter(
    'retroactive_storageclass_errors_total',
    'Total number of failed retroactive StorageClass assignments to persistent volume claim',
  )
  readonly leader = this.registry.gauge(
    'leader_election_master_status',
    "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease.",
  )
  readonly writing = this.registry.gauge(
    'pvctl_writing',
    '1 when pvctl writes (leader, built-in binder disabled, not --dry-run), 0 when it only plans',
  )
  /** When the last resync began its relists (after the binder check), and when they ended with its whole pass queued. */
  readonly resyncStarted = this.registry.gauge(
    'pvctl_resync_started_timestamp_seconds',
    'Unix time at which the last resync began to list again',
  )
  readonly resyncQueued = this.registry.gauge(
    'pvctl_resync_queued_timestamp_seconds',
    'Unix time at which the last resync had listed again and queued every claim and volume',
  )
  private readonly syncs = this.registry.counter(
    'pvctl_syncs_total',
    'Syncs of one object by queue and result (ok, error, planned)',
  )
  /**
   * pvctl_syncs_total's series by queue, then result, bound at the first sync of each: one per sync is
   * counted, and no key is made for it (the queue's name is the same string at every sync).
   */
  private readonly syncSeries = new Map<string, Map<string, CounterSeries>>()
  private readonly actions = this.registry.counter('pvctl_actions_total', 'Actions of the syncs by action and outcome')
  private readonly relists = this.registry.counter(
    'pvctl_informer_lists_total',
    'LISTs of an informer by resource and reason (initial, resync, expired, error)',
  )
  private readonly watchEvents = this.registry.counter(
    'pvctl_watch_events_total',
    'Watch events received by resource and type',
  )

  /** The metrics of kube-controller-manager at the version of these gates (v1.31 by default). */
  constructor(gates: Pick<FeatureGates, 'version'> = defaultFeatureGates) {
    this.operationErrors = operationErrorCounters(gates).map(({name, help}) => this.registry.counter(name, help))
    this.registry.collect('workqueue_depth', 'Current depth of workqueue', () =>
      this.source === undefined
        ? []
        : [this.source.claimQueue, this.source.volumeQueue].map((q) => ({labels: {name: q.name}, value: q.depth})),
    )
    this.registry.collect(
      'pv_collector_bound_pv_count',
      'Gauge measuring number of persistent volume currently bound',
      () => this.once('bound_pv', () => this.countVolumes(true)),
    )
    this.registry.collect(
      'pv_collector_unbound_pv_count',
      'Gauge measuring number of persistent volume currently unbound',
      () => this.once('unbound_pv', () => this.countVolumes(false)),
    )
    this.registry.collect(
      'pv_collector_bound_pvc_count',
      'Gauge measuring number of persistent volume claim currently bound',
      () => this.once('bound_pvc', () => this.countClaims(true)),
    )
    this.registry.collect(
      'pv_collector_unbound_pvc_count',
      'Gauge measuring number of persistent volume claim currently unbound',
      () => this.once('unbound_pvc', () => this.countClaims(false)),
    )
  }

  /** The controller whose cache the pv_collector gauges count (metrics.Register in Run). */
  collect(source: MetricsSource): void {
    this.source = source
  }

  queue(name: string): QueueMetrics {
    // Bound once per queue: every key added and worked counts in these.
    const [adds, retries, waits, works] = [
      this.adds.series({name}),
      this.retries.series({name}),
      this.queueDuration.series({name}),
      this.workDuration.series({name}),
    ]
    return {
      added: () => adds.inc(),
      retried: () => retries.inc(),
      waited: (s) => waits.observe(s),
      worked: (s) => works.observe(s),
    }
  }

  readonly informers: InformerMetrics = {
    relisted: (resource, reason) => this.relists.inc({resource, reason}),
    watchEvent: (resource, type) => this.watchEvents.inc({resource, type}),
  }

  /** pvctl_syncs_total, by queue and result (how long a sync takes: its queue's workqueue_work_duration_seconds). */
  synced(queue: string, result: 'ok' | 'error' | 'planned'): void {
    let ofQueue = this.syncSeries.get(queue)
    if (ofQueue === undefined) this.syncSeries.set(queue, (ofQueue = new Map<string, CounterSeries>()))
    else {
      // Synced before.
    }
    let series = ofQueue.get(result)
    if (series === undefined) ofQueue.set(result, (series = this.syncs.series({queue, result})))
    else {
      // This result before.
    }
    series.inc()
  }

  executed(actions: readonly ExecutedAction[]): void {
    for (const a of actions) {
      const outcome = a.outcome.startsWith('failed')
        ? 'failed'
        : a.outcome.startsWith('not-executed')
          ? 'not-executed'
          : a.outcome
      this.actions.inc({action: a.action, outcome})
      if (
        a.action === 'assign-storage-class' &&
        (outcome === 'written' || outcome === 'conflict-replanned' || outcome === 'failed')
      ) {
        this.retroactive.inc()
        if (outcome === 'failed') this.retroactiveErrors.inc()
      }
    }
  }

  operationSucceeded(plugin: string, operation: string, seconds: number): void {
    this.operationSeconds.observe(seconds, {plugin_name: plugin, operation_name: operation})
  }

  operationFailed(plugin: string, operation: string): void {
    for (const counter of this.operationErrors) counter.inc({plugin_name: plugin, operation_name: operation})
  }

  render(): string {
    return this.registry.render()
  }

  /**
   * A gauge counted over the whole cache, counted again only when the cache has changed since the last
   * scrape (a scrape during a pass that changes nothing, as a dry run's, costs nothing per object).
   */
  private once(
    family: string,
    count: () => Array<{labels: Labels; value: number}>,
  ): Array<{labels: Labels; value: number}> {
    const generation = this.source?.generation
    if (generation === undefined) return count()
    const last = this.counted.get(family)
    if (last !== undefined && last.generation === generation) return last.samples
    const samples = count()
    this.counted.set(family, {generation, samples})
    return samples
  }

  private countVolumes(bound: boolean): Array<{labels: Labels; value: number}> {
    const counts = new Map<string, number>()
    for (const v of this.source?.volumes.values() ?? []) {
      if ((v.status?.phase === 'Bound') !== bound) continue
      const sc = v.spec.storageClassName ?? ''
      counts.set(sc, (counts.get(sc) ?? 0) + 1)
    }
    return [...counts].sort().map(([storage_class, value]) => ({labels: {storage_class}, value}))
  }

  private countClaims(bound: boolean): Array<{labels: Labels; value: number}> {
    const counts = new Map<string, {labels: Labels; value: number}>()
    for (const c of this.source?.claims.values() ?? []) {
      if ((c.status?.phase === 'Bound') !== bound) continue
      const namespace = c.metadata.namespace ?? ''
      const storageClass = c.spec.storageClassName ?? ''
      const vac = c.spec.volumeAttributesClassName ?? ''
      // A scrape counts every claim: a key without an object or JSON per claim (NUL never occurs in names).
      const key = `${namespace}\u0000${storageClass}\u0000${vac}`
      const entry = counts.get(key)
      if (entry !== undefined) entry.value++
      else counts.set(key, {labels: {namespace, storage_class: storageClass, volume_attributes_class: vac}, value: 1})
    }
    return [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, e]) => e)
  }
}
