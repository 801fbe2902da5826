// Typed errors, presented in one place (src/cli/present-error.ts). Each carries the exit code of the
// command-line contract (docs/output-contract.md) and, where there is one, what the user can do about it.

export const ExitCode = {
  /** In sync (dry-run), or written successfully. */
  Ok: 0,
  /** Dry-run found changes to make. */
  Changes: 1,
  /** A usage or input error: bad flag, bad snapshot, no such object. */
  Usage: 2,
  /** A cluster error: unreachable or forbidden API, a write that failed. */
  Cluster: 3,
  /** Interrupted (Ctrl-C, SIGTERM, SIGHUP): before writing, nothing was; after, the report says what was and was not done. */
  Interrupted: 130,
} as const

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode]

/** The table behind every command's EXIT STATUS section of its help and man page. */
export const EXIT_STATUS_HELP = [
  '0  in sync (with --dry-run), or the plan was written successfully',
  '1  --dry-run found changes the controller would make (or they were not confirmed at the prompt)',
  '2  usage, input or output error: bad flag, malformed snapshot, no such object, output that cannot be written; a plan that releases more volumes at once than the mass-release guard allows, or releases any while kube-controller-manager runs beside pvctl',
  '3  cluster error: unreachable or forbidden API, a write that failed, a destructive step stopped by the double-check (the cluster changed since it was read)',
  '130  interrupted (Ctrl-C, SIGTERM or SIGHUP): before the writes began, nothing was written; while writing, the report says what was written and what was not; run pvctl sync again to complete the job',
]

export abstract class PvctlError extends Error {
  abstract readonly exitCode: ExitCodeValue
  constructor(
    message: string,
    readonly code: string,
    readonly suggestions: readonly string[] = [],
  ) {
    super(message)
    this.name = new.target.name
  }
}

/** A flag, argument or object name the user got wrong. Terminal. */
export class UsageError extends PvctlError {
  readonly exitCode = ExitCode.Usage
  constructor(message: string, suggestions: readonly string[] = []) {
    super(message, 'Usage', suggestions)
  }
}

/** Input that cannot be interpreted: a malformed file, quantity or selector. Terminal. */
export class InputError extends PvctlError {
  readonly exitCode = ExitCode.Usage
  constructor(message: string, suggestions: readonly string[] = []) {
    super(message, 'Input', suggestions)
  }
}

/** The command's output could not be written (a full disk). Terminal; a closed pipe is not one. */
export class OutputError extends PvctlError {
  readonly exitCode = ExitCode.Usage
  constructor(message: string) {
    super(message, 'Output')
  }
}

/** The cluster could not be read or written. Terminal for this run (retries happen below it). */
export class ClusterError extends PvctlError {
  readonly exitCode = ExitCode.Cluster
  constructor(message: string, suggestions: readonly string[] = []) {
    super(message, 'Cluster', suggestions)
  }
}
