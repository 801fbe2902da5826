// Leader election on a coordination.k8s.io/v1 Lease, ported from client-go's
// tools/leaderelection (leaderelection.go, resourcelock/leaselock.go) with kube-controller-manager's
// timing: lease 15 s, renew deadline 10 s, retry 2 s.
//
//   acquire   every retry period (jittered by 1.2, as wait.JitterUntil): tryAcquireOrRenew until it wins
//   renew     every retry period; when no attempt succeeds within the renew deadline, leadership is lost
//   release   on shutdown the leader writes an empty holder with a 1 s lease, so a successor need not
//             wait for the lease to expire (ReleaseOnCancel)
//
// Expiry is judged as client-go judges it, on the local monotonic clock from the moment a change of
// the record was OBSERVED, never by comparing the holder's renewTime with our wall clock: clocks skew.
//
// Writing is fenced (mayWrite): a leader may write only until the start of its last successful renewal
// plus the renew deadline. The others count the lease duration from when they observed that renewal,
// which is later, and the lease duration is longer than the deadline; so a leader that cannot renew stops
// writing at least (lease duration - renew deadline) before anyone else may take over.
import {abortableSleep} from '../../cluster/abortable-sleep.js'
import {NotFoundError} from '../../cluster/api-errors.js'
import type {Lease, LeaseApi} from '../../cluster/live-api.js'
import type {Logger} from '../../log.js'
import {UsageError} from '../../errors.js'

export interface LeaderElectionConfig {
  namespace: string
  name: string
  /** Unique per process: kube-controller-manager uses "<hostname>_<uuid>". */
  identity: string
  leaseDurationMs: number
  renewDeadlineMs: number
  retryPeriodMs: number
}

/** kube-controller-manager's defaults (--leader-elect-lease-duration, -renew-deadline, -retry-period). */
export const KCM_LEADER_ELECTION = {leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000} as const

/** client-go's JitterFactor for the acquire and renew loops. */
export const JITTER_FACTOR = 1.2

export interface Clock {
  /** Monotonic milliseconds (performance.now). */
  monotonic(): number
  /** Wall time, for the Lease's acquireTime and renewTime. */
  wall(): Date
  sleep(ms: number, signal?: AbortSignal): Promise<void>
  random(): number
}

export const systemClock: Clock = {
  monotonic: () => performance.now(),
  wall: () => new Date(),
  sleep: abortableSleep,
  random: Math.random,
}

/** NewLeaderElector's validation. */
export function validateLeaderElection(
  c: Pick<LeaderElectionConfig, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'>,
): void {
  if (c.leaseDurationMs <= c.renewDeadlineMs)
    throw new UsageError('--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline')
  if (c.renewDeadlineMs <= JITTER_FACTOR * c.retryPeriodMs) {
    throw new UsageError(
      `--leader-elect-renew-deadline must be greater than ${JITTER_FACTOR} × --leader-elect-retry-period`,
    )
  }
  if (c.retryPeriodMs < 1) throw new UsageError('--leader-elect-retry-period must be positive')
}

/** metav1.MicroTime: RFC 3339 with exactly six fractional digits, as the API server parses it. */
export function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z')
}

interface LeaderRecord {
  holderIdentity: string
  leaseDurationSeconds: number
  acquireTime?: string
  renewTime?: string
  leaseTransitions: number
}

function recordOf(lease: Lease): LeaderRecord {
  const s = lease.spec ?? {}
  return {
    holderIdentity: s.holderIdentity ?? '',
    leaseDurationSeconds: s.leaseDurationSeconds ?? 0,
    acquireTime: s.acquireTime ?? undefined,
    renewTime: s.renewTime ?? undefined,
    leaseTransitions: s.leaseTransitions ?? 0,
  }
}

const sameRecord = (a: LeaderRecord, b: LeaderRecord) =>
  a.holderIdentity === b.holderIdentity &&
  a.leaseDurationSeconds === b.leaseDurationSeconds &&
  a.acquireTime === b.acquireTime &&
  a.renewTime === b.renewTime &&
  a.leaseTransitions === b.leaseTransitions

export interface LeaderEvents {
  onStartedLeading?(): void
  onStoppedLeading?(why: string): void
  onNewLeader?(identity: string): void
}

export class LeaderElector {
  private observed: LeaderRecord | undefined
  /** The Lease as last read or written: updates are conditional on its resourceVersion. */
  private lease: Lease | undefined
  private observedAt = 0
  /** Start of the last successful tryAcquireOrRenew while leader (the fence counts from here). */
  private renewedAt = -Infinity
  private leading = false
  /**
   * The renewal still in flight when the renew loop was stopped (it races a timeout, and the loop does not
   * wait for the loser). release() waits for it: client-go's renewal and release run one after the other
   * in one goroutine, and a release written beside a renewal fails one of the two on the resourceVersion.
   */
  private attempt: Promise<boolean> | undefined
  private reportedLeader = ''

  constructor(
    readonly config: LeaderElectionConfig,
    private readonly api: LeaseApi,
    private readonly log: Logger,
    private readonly events: LeaderEvents = {},
    private readonly clock: Clock = systemClock,
  ) {
    validateLeaderElection(config)
  }

  get lockName(): string {
    return `${this.config.namespace}/${this.config.name}`
  }

  /** This process holds the lease (as far as it last knew). */
  isLeader(): boolean {
    return this.leading
  }

  /** The leader's write fence: true only while the last successful renewal is younger than the renew deadline. */
  mayWrite(): boolean {
    return this.leading && this.clock.monotonic() < this.renewedAt + this.config.renewDeadlineMs
  }

  /** The identity of the current holder, as last observed. */
  holder(): string {
    return this.observed?.holderIdentity ?? ''
  }

  /** Retries until this process holds the lease; false when aborted first. */
  async acquire(signal: AbortSignal): Promise<boolean> {
    this.log.info('Attempting to acquire leader lease', {lease: this.lockName, identity: this.config.identity})
    while (!signal.aborted) {
      if (await this.tryAcquireOrRenew()) {
        this.leading = true
        this.log.info('Successfully acquired lease', {lease: this.lockName, identity: this.config.identity})
        this.events.onStartedLeading?.()
        return true
      }
      await this.clock.sleep(this.jittered(), signal)
    }
    return false
  }

  /**
   * Renews every retry period while leading. Resolves 'lost' when no renewal succeeded within the renew
   * deadline (the fence has closed by then), 'stopped' when aborted.
   */
  async renewLoop(signal: AbortSignal): Promise<'lost' | 'stopped'> {
    while (!signal.aborted) {
      await this.clock.sleep(this.config.retryPeriodMs, signal)
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the signal aborts while this awaits
      if (signal.aborted) break
      const deadline = this.clock.monotonic() + this.config.renewDeadlineMs
      let renewed = false
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the signal aborts while this awaits
      while (!signal.aborted && this.clock.monotonic() < deadline) {
        const attempt = (this.attempt = this.tryAcquireOrRenew())
        const left = deadline - this.clock.monotonic()
        const won = await Promise.race([attempt, this.clock.sleep(Math.max(0, left), signal).then(() => false)])
        if (won) {
          renewed = true
          break
        }
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the signal aborts while this awaits
        if (this.clock.monotonic() >= deadline || signal.aborted) break
        await this.clock.sleep(
          Math.min(this.config.retryPeriodMs, Math.max(0, deadline - this.clock.monotonic())),
          signal,
        )
      }
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the signal aborts while this awaits
      if (signal.aborted) break
      if (!renewed) {
        this.leading = false
        const why = `failed to renew lease ${this.lockName} within ${this.config.renewDeadlineMs} ms`
        this.log.error('Leader election lost', {lease: this.lockName, reason: why})
        this.events.onStoppedLeading?.(why)
        return 'lost'
      }
    }
    return 'stopped'
  }

  /** Gives the lease up (holder "", 1 s), so that a successor takes over at once. Best effort. */
  async release(): Promise<boolean> {
    await this.attempt?.catch(() => false)
    if (!this.leading || this.lease === undefined || this.observed === undefined) return false
    this.leading = false
    const now = microTime(this.clock.wall())
    const record: LeaderRecord = {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: this.observed.leaseTransitions,
    }
    try {
      this.lease = await this.api.replaceLease(this.withRecord(this.lease, record))
      this.observed = record
      this.log.info('Released leader lease', {lease: this.lockName})
      return true
    } catch (err) {
      this.log.error('Failed to release leader lease', {lease: this.lockName, err})
      return false
    }
  }

  private jittered(): number {
    return this.config.retryPeriodMs * (1 + this.clock.random() * JITTER_FACTOR)
  }

  private withRecord(lease: Lease, r: LeaderRecord): Lease {
    return {
      ...lease,
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      spec: {
        ...lease.spec,
        holderIdentity: r.holderIdentity,
        leaseDurationSeconds: r.leaseDurationSeconds,
        acquireTime: r.acquireTime,
        renewTime: r.renewTime,
        leaseTransitions: r.leaseTransitions,
      },
    }
  }

  private observe(record: LeaderRecord, at: number): void {
    this.observed = record
    this.observedAt = at
    if (record.holderIdentity !== this.reportedLeader) {
      this.reportedLeader = record.holderIdentity
      if (record.holderIdentity !== '') {
        if (record.holderIdentity !== this.config.identity)
          this.log.info('New leader elected', {lease: this.lockName, leader: record.holderIdentity})
        this.events.onNewLeader?.(record.holderIdentity)
      }
    }
  }

  /** tryAcquireOrRenew: true when this process holds the lease after the attempt. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const started = this.clock.monotonic()
    const now = microTime(this.clock.wall())
    const durationSeconds = Math.ceil(this.config.leaseDurationMs / 1000)
    const desired: LeaderRecord = {
      holderIdentity: this.config.identity,
      leaseDurationSeconds: durationSeconds,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 0,
    }

    let current: Lease
    try {
      current = await this.api.readLease(this.config.namespace, this.config.name)
    } catch (err) {
      if (!(err instanceof NotFoundError)) {
        // klog.Errorf in client-go: a standby that cannot reach the API server says so at every retry.
        this.log.error('Error retrieving resource lock', {lease: this.lockName, err})
        return false
      }
      try {
        this.lease = await this.api.createLease(
          this.withRecord({metadata: {name: this.config.name, namespace: this.config.namespace}}, desired),
        )
      } catch (createErr) {
        this.log.error('Error initially creating leader election record', {lease: this.lockName, err: createErr})
        return false
      }
      this.observe(desired, this.clock.monotonic())
      this.renewedAt = started
      return true
    }

    const old = recordOf(current)
    this.lease = current
    if (this.observed === undefined || !sameRecord(old, this.observed)) this.observe(old, this.clock.monotonic())
    const heldByOther = old.holderIdentity !== '' && old.holderIdentity !== this.config.identity
    if (heldByOther && this.observedAt + old.leaseDurationSeconds * 1000 > this.clock.monotonic()) {
      this.log
        .v(4)
        .info('Lease is held by another and has not yet expired', {lease: this.lockName, holder: old.holderIdentity})
      return false
    }
    if (old.holderIdentity === this.config.identity) {
      desired.acquireTime = old.acquireTime
      desired.leaseTransitions = old.leaseTransitions
    } else {
      desired.leaseTransitions = old.leaseTransitions + 1
    }
    try {
      this.lease = await this.api.replaceLease(this.withRecord(current, desired))
    } catch (err) {
      // klog.Errorf, a conflict too: two candidates raced for an expired lease, and this one lost.
      this.log.error('Failed to update lock', {lease: this.lockName, err})
      return false
    }
    this.observe(desired, this.clock.monotonic())
    this.renewedAt = started
    return true
  }
}
