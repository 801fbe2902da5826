// The flags of `pvctl sync --watch` / `--interval` (loop mode), spelled as kube-controller-manager spells
// the same settings (--leader-elect-*, --controllers, --v, --logging-format as --log-format), and their
// translation into the loop use-case's options.
import {Flags} from '@oclif/core'

import {type LoopManagerOptions, requireLoopConsent, validateLoopOptions} from '../loop/loop-options.js'
import {UsageError} from '../errors.js'
import {parseDuration} from './duration.js'
import {createLogger, LOG_FORMATS, type LogFormat, type Logger} from '../log.js'

/** Loop-mode flags are listed apart in --help. */
const LOOP = 'LOOP MODE'

export const loopFlags = {
  watch: Flags.boolean({
    helpGroup: LOOP,
    summary:
      'Run as a controller: watch volumes, claims, classes, pods and nodes and sync each change (until SIGTERM).',
    description:
      'Loop mode. Writes need --yes (or use --dry-run for an audit stream). stdout carries one line per action (JSON lines with -o json), stderr the logs.',
    default: false,
    exclusive: ['interval'],
  }),
  interval: Flags.string({
    helpGroup: LOOP,
    summary: 'Run a full one-shot sync every DURATION instead of watching (e.g. 5m).',
    helpValue: 'DURATION',
    exclusive: ['watch'],
  }),
  resync: Flags.string({
    helpGroup: LOOP,
    summary:
      "With --watch: sync every claim and volume of the informers' caches this often (the controller's --pvclaimbinder-sync-period).",
    default: '15s',
    helpValue: 'DURATION',
  }),
  'relist-period': Flags.string({
    helpGroup: LOOP,
    summary:
      'With --watch: also LIST every kind again this often, beside the watches (0: only when a watch asks for it).',
    description:
      'A relist merges every object again and syncs every claim and volume, as a resync does. The watches do not miss changes (each resumes from its last resourceVersion, and a 410 Gone relists), so kube-controller-manager never relists on a timer; this is for API paths you do not trust to deliver every event. Each relist reads every volume, claim and pod from the API server.',
    default: '0',
    helpValue: 'DURATION',
  }),
  'leader-elect': Flags.boolean({
    helpGroup: LOOP,
    summary: 'With --watch/--interval: write only while holding a coordination.k8s.io/v1 Lease (for several replicas).',
    default: false,
  }),
  'leader-elect-lease-name': Flags.string({
    helpGroup: LOOP,
    summary: 'Name of the leader-election Lease.',
    default: 'pvctl',
    helpValue: 'NAME',
  }),
  'leader-elect-namespace': Flags.string({
    helpGroup: LOOP,
    summary: 'Namespace of the leader-election Lease.',
    default: 'kube-system',
    helpValue: 'NS',
  }),
  'leader-elect-lease-duration': Flags.string({
    helpGroup: LOOP,
    summary: 'How long a standby waits after the last observed renewal before it takes the lease over.',
    default: '15s',
    helpValue: 'DURATION',
  }),
  'leader-elect-renew-deadline': Flags.string({
    helpGroup: LOOP,
    summary:
      'How long the leader keeps trying to renew before it stops writing and exits (shorter than the lease duration).',
    default: '10s',
    helpValue: 'DURATION',
  }),
  'leader-elect-retry-period': Flags.string({
    helpGroup: LOOP,
    summary: 'How often to try to acquire or renew the lease.',
    default: '2s',
    helpValue: 'DURATION',
  }),
  controllers: Flags.string({
    helpGroup: LOOP,
    summary:
      "kube-controller-manager's --controllers, to tell pvctl its binder is disabled (e.g. '*,-persistentvolume-binder-controller').",
    description:
      'Unless the list disables persistentvolume-binder-controller, loop mode reads the kube-system/kube-controller-manager Lease and, while it is live, does not write: it runs as an audit stream and says why. A one-shot sync that writes reads it too: while it is live, it says so, and refuses a plan that releases, recycles or deletes a volume.',
    default: '*',
    helpValue: 'LIST',
  }),
  'metrics-bind-address': Flags.string({
    helpGroup: LOOP,
    summary: 'Serve /metrics, /healthz and /readyz on HOST:PORT or :PORT (0: off).',
    default: '0',
    helpValue: 'ADDRESS',
  }),
  'log-format': Flags.string({
    helpGroup: LOOP,
    summary: 'Log format of loop mode (stderr).',
    options: [...LOG_FORMATS],
    default: 'text',
    helpValue: 'FORMAT',
  }),
  v: Flags.integer({
    helpGroup: LOOP,
    char: 'v',
    summary: 'Log verbosity of loop mode: 0 (default), 2 (syncs that act), 4 (every sync), 5.',
    default: 0,
    min: 0,
    helpValue: 'N',
  }),
}

/** A loop-mode flag given without --watch or --interval: a usage error rather than a silent no-op. */
export function loopOnlyFlagGiven(raw: ReadonlyArray<{type: string; flag?: string}>): string | undefined {
  // --controllers tells one-shot writes too that kube-controller-manager's binder is disabled.
  const loopOnly = new Set(
    Object.keys(loopFlags).filter((f) => f !== 'watch' && f !== 'interval' && f !== 'controllers'),
  )
  return raw.find((t) => t.type === 'flag' && t.flag !== undefined && loopOnly.has(t.flag))?.flag
}

/** The logger of loop mode: --log-format and -v, on stderr. */
export function loopLogger(flags: Pick<LoopFlagValues, 'log-format' | 'v'>, write: (line: string) => void): Logger {
  return createLogger({format: flags['log-format'] as LogFormat, verbosity: flags.v, write})
}

export interface LoopFlagValues {
  watch: boolean
  interval?: string
  resync: string
  'relist-period': string
  'leader-elect': boolean
  'leader-elect-lease-name': string
  'leader-elect-namespace': string
  'leader-elect-lease-duration': string
  'leader-elect-renew-deadline': string
  'leader-elect-retry-period': string
  controllers: string
  'metrics-bind-address': string
  'log-format': string
  v: number
  output: string
  'dry-run': boolean
  yes: boolean
}

/** The loop-specific options; the caller adds what one-shot sync shares (scope, gates, the cluster). */
export function loopOptionsFromFlags(
  flags: LoopFlagValues,
): Pick<
  LoopManagerOptions,
  'mode' | 'intervalMs' | 'resyncMs' | 'relistMs' | 'leaderElect' | 'controllers' | 'metricsBindAddress' | 'output'
> {
  const consent = {dryRun: flags['dry-run'], yes: flags.yes}
  requireLoopConsent(consent)
  if (flags.output !== 'table' && flags.output !== 'wide' && flags.output !== 'json') {
    throw new UsageError(
      `-o ${flags.output} does not stream: with --watch or --interval use -o table (text lines) or -o json (JSON lines)`,
    )
  }
  const options: ReturnType<typeof loopOptionsFromFlags> = {
    mode: flags.watch ? 'watch' : 'interval',
    intervalMs: flags.interval !== undefined ? parseDuration(flags.interval, '--interval') : undefined,
    resyncMs: parseDuration(flags.resync, '--resync'),
    relistMs: parseDuration(flags['relist-period'], '--relist-period'),
    leaderElect: flags['leader-elect']
      ? {
          name: flags['leader-elect-lease-name'],
          namespace: flags['leader-elect-namespace'],
          leaseDurationMs: parseDuration(flags['leader-elect-lease-duration'], '--leader-elect-lease-duration'),
          renewDeadlineMs: parseDuration(flags['leader-elect-renew-deadline'], '--leader-elect-renew-deadline'),
          retryPeriodMs: parseDuration(flags['leader-elect-retry-period'], '--leader-elect-retry-period'),
        }
      : undefined,
    controllers: flags.controllers.split(','),
    metricsBindAddress: flags['metrics-bind-address'],
    output: flags.output === 'json' ? 'json' : 'text',
  }
  // Checked here, before the cluster client is even loaded: a usage error is immediate.
  validateLoopOptions({...options, ...consent})
  return options
}
