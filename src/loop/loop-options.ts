// The options of loop mode (`pvctl sync --watch` / `--interval`) and their one validation, which needs no
// cluster: the CLI runs it before the cluster client is even loaded, and the manager again for any other
// caller, so that a usage error is exit 2 before anything starts.
import type {LabelSelector} from '../engine/api/model.js'
import type {VolumePluginOptions} from '../engine/controller/volume-plugins.js'
import {UsageError} from '../errors.js'
import {validateLeaderElection} from './client-go/leader-election.js'
import {parseBindAddress} from './client-go/metrics-server.js'
import {builtinBinderEnabled} from './builtin-binder.js'

export interface LeaderElectOptions {
  namespace: string
  name: string
  leaseDurationMs: number
  renewDeadlineMs: number
  retryPeriodMs: number
  /** Default: "<hostname>_<uuid>", as kube-controller-manager. */
  identity?: string
}

/**
 * What the loop manager runs with (the cluster it talks to is opened by the use-case). The plugin options
 * (--enable-hostpath-provisioner, --local-volume-deleter) as one-shot sync takes them.
 */
export interface LoopManagerOptions extends VolumePluginOptions {
  /** --watch (informers) or --interval (a full sync every intervalMs). */
  mode: 'watch' | 'interval'
  intervalMs?: number
  resyncMs: number
  /** --relist-period: every kind listed again this often beside the watches (0 or undefined: only when a watch asks). */
  relistMs?: number
  dryRun: boolean
  yes: boolean
  /** --allow-mass-release: the loop releases however many volumes its syncs find released. */
  allowMassRelease?: boolean
  namespace?: string
  labelSelector?: LabelSelector
  labelSelectorText?: string
  /** --chunk-size: objects per LIST page (0: one request). */
  chunkSize?: number
  concurrency: number
  events: boolean
  output: 'text' | 'json'
  leaderElect?: LeaderElectOptions
  /** kube-controller-manager's --controllers, to say its binder is disabled. */
  controllers: string[]
  metricsBindAddress: string
}

/** Loop mode writes for as long as it runs: it needs consent, or --dry-run. */
export function requireLoopConsent(opts: Pick<LoopManagerOptions, 'dryRun' | 'yes'>): void {
  if (!opts.dryRun && !opts.yes) {
    throw new UsageError(
      'loop mode writes to the cluster for as long as it runs: pass --yes to consent, or --dry-run for an audit stream',
    )
  }
}

/** The checks that need no cluster, in the order a user meets them. */
export function validateLoopOptions(
  opts: Pick<
    LoopManagerOptions,
    'dryRun' | 'yes' | 'mode' | 'intervalMs' | 'resyncMs' | 'leaderElect' | 'controllers' | 'metricsBindAddress'
  >,
): void {
  requireLoopConsent(opts)
  if (opts.leaderElect !== undefined) validateLeaderElection(opts.leaderElect)
  builtinBinderEnabled(opts.controllers)
  parseBindAddress(opts.metricsBindAddress)
  if (opts.resyncMs <= 0) throw new UsageError('--resync must be longer than 0')
  if (opts.mode === 'interval' && !(opts.intervalMs !== undefined && opts.intervalMs > 0))
    throw new UsageError('--interval must be longer than 0')
}
