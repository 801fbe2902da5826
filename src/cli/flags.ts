// Flags shared by the commands, spelled as kubectl spells them.
import {Flags} from '@oclif/core'

import {STDIN_SNAPSHOT} from '../app/load-cluster-state.js'
import {parseDuration} from './duration.js'
import {checkOutput, formatsOf, OUTPUT_FORMATS, type OutputCommand} from './output-formats.js'

export const sourceFlags = {
  filename: Flags.string({
    char: 'f',
    summary:
      'Snapshot to read instead of a live cluster: a file, a directory, or - for stdin (repeat, or separate with commas, for several).',
    description:
      'YAML or JSON, one or many documents, each an object or a List, as `kubectl get pv,pvc,storageclasses,pods,nodes -A -o yaml` prints. Several files (`-f pv.yaml -f pvc.yaml`, `-f pv.yaml,pvc.yaml`) are read as one cluster, in the order given; an object in two of them is an error. With -f pvctl never contacts a cluster.',
    helpValue: 'FILE|DIR|-',
    multiple: true,
    // One value per -f, as kubectl's: `-f snap.yaml pvc/data` leaves pvc/data an argument.
    multipleNonGreedy: true,
    delimiter: ',',
  }),
  kubeconfig: Flags.string({summary: 'Path to the kubeconfig file (live clusters).', helpValue: 'PATH'}),
  context: Flags.string({summary: 'The kubeconfig context to use (live clusters).', helpValue: 'NAME'}),
  'chunk-size': Flags.integer({
    summary:
      'Read large lists in chunks of this many objects rather than all at once, as kubectl (live clusters; 0: one request per kind).',
    description:
      'Each chunk is one request; a list takes one token of the client-side rate limit (--qps/--burst) for its first chunk, none for the rest: reading in chunks costs the API server no more than one request and holds less in its memory. Loop mode lists in these chunks too (--watch: at start and at every relist; --interval: every pass).',
    default: 500,
    min: 0,
    helpValue: 'N',
  }),
  qps: Flags.integer({
    summary: 'Client-side rate limit, requests per second, as client-go (live clusters).',
    default: 5,
    min: 1,
    helpValue: 'N',
  }),
  burst: Flags.integer({
    summary: 'Client-side burst above --qps, as client-go (live clusters).',
    default: 10,
    min: 1,
    helpValue: 'N',
  }),
  'request-timeout': Flags.string({
    summary: 'How long to wait for one API request before giving up, e.g. 30s, 1m or 30 (seconds); 0: no limit.',
    default: '0',
    helpValue: 'DURATION',
  }),
}

/** The values of sourceFlags a live cluster is reached with, as the loaders take them (-f is the caller's). */
export function connectionOptions(flags: {
  kubeconfig?: string
  context?: string
  qps: number
  burst: number
  'request-timeout': string
  'chunk-size': number
}) {
  return {
    kubeconfig: flags.kubeconfig,
    context: flags.context,
    qps: flags.qps,
    burst: flags.burst,
    requestTimeoutMs: parseDuration(flags['request-timeout'], '--request-timeout', {bareSeconds: true}),
    chunkSize: flags['chunk-size'],
  }
}

/**
 * The flags that name where the state came from (`-f` files, or the kubeconfig and context), for hints that
 * print a command: the command must read the same source, not another cluster. Stdin (`-f -`) is read once:
 * a command printed with it would wait on the terminal, so it names the snapshot STDIN_SNAPSHOT instead.
 */
export function sourceArgs(flags: {filename?: readonly string[]; kubeconfig?: string; context?: string}): string[] {
  if (flags.filename !== undefined) return flags.filename.flatMap((f) => ['-f', f === '-' ? STDIN_SNAPSHOT : f])
  return [
    ...(flags.kubeconfig !== undefined ? ['--kubeconfig', flags.kubeconfig] : []),
    ...(flags.context !== undefined ? ['--context', flags.context] : []),
  ]
}

export const scopeFlags = {
  namespace: Flags.string({
    char: 'n',
    summary: 'Namespace of named claims (pvc/NAME); with no objects named, sync only this namespace.',
    helpValue: 'NS',
  }),
  'all-namespaces': Flags.boolean({
    char: 'A',
    summary: 'Every namespace (the default when no -n is given).',
    default: false,
  }),
  selector: Flags.string({
    char: 'l',
    summary: 'Only objects whose labels match this selector (e.g. tier=gold,app!=db).',
    helpValue: 'SELECTOR',
  }),
}

/** -o, --no-headers and --[no-]color; the formats are the command's row of OUTPUT_FORMATS. */
export const outputFlags = (command: OutputCommand) => ({
  output: Flags.string({
    char: 'o',
    summary: `Output format: ${formatsOf(command).join('|')}.`,
    description: [
      ...((OUTPUT_FORMATS[command] as readonly string[]).includes('name')
        ? [
            'name: one object a line as kubectl prints it, RESOURCE/NAME without the namespace (persistentvolumeclaim/orders, persistentvolume/pv-0004).',
          ]
        : []),
      "jsonpath=TEMPLATE and custom-columns=SPEC as kubectl has them, over the document -o json prints: -o jsonpath='{.kind}', -o custom-columns=KIND:.kind,API:.apiVersion (a row per item of a List, else one for the document).",
    ].join(' '),
    default: 'table',
    helpValue: 'FORMAT',
    parse: async (value) => checkOutput(command, value),
  }),
  'no-headers': Flags.boolean({
    summary: "Print tables without their header line, as kubectl's --no-headers.",
    default: false,
  }),
  color: Flags.boolean({summary: 'Colour the output (default: on a terminal, unless NO_COLOR is set).', allowNo: true}),
})

export const engineFlags = {
  'kube-version': Flags.string({
    summary:
      "The Kubernetes release to decide as (1.29 to 1.37), e.g. 1.34; default: the API server's, else a snapshot's nodes' kubeletVersion, else 1.31.",
    description:
      "The controller's code and its gates' defaults moved between releases (VolumeAttributesClass is on from 1.34, HonorPVReclaimPolicy locked from 1.33): pvctl decides as the release given here, or as the cluster's own. Every report names the release it was decided as and where that came from.",
    helpValue: 'VERSION',
  }),
  'feature-gates': Flags.string({
    summary: 'Feature gates as kube-controller-manager takes them, e.g. VolumeAttributesClass=true.',
    description:
      'Over the defaults of the release decided as (--kube-version). Gates: HonorPVReclaimPolicy, VolumeAttributesClass, CSIMigrationPortworx, CSIMigrationRBD, CSIMigrationAzureFile, RecoverVolumeExpansionFailure, PersistentVolumeClaimUnusedSinceTime, PersistentVolumeLastPhaseTransitionTime. A gate that release locks may be set to its locked value only, and one it no longer has is refused (exit 2), as kube-controller-manager refuses them.',
    helpValue: 'GATE=BOOL,...',
  }),
  'enable-hostpath-provisioner': Flags.boolean({
    summary:
      "Provision claims of host-path classes, as kube-controller-manager's flag of that name (off by default there too).",
    description:
      'Without it, a claim of a kubernetes.io/host-path class gets "Failed to create provisioner: provisioning in volume plugin \"kubernetes.io/host-path\" is disabled", as in a cluster whose kube-controller-manager runs without the flag.',
    default: false,
  }),
}
