import {Args, Flags, type Interfaces} from '@oclif/core'

import {type ReclaimOptions, runReclaim} from '../app/reclaim.js'
import {PvctlCommand} from '../cli/base-command.js'
import {defaultNamespace} from '../cli/default-namespace.js'
import {engineFlags, outputFlags, sourceFlags} from '../cli/flags.js'
import {parseClaimName, reclaimTarget} from '../cli/object-args.js'
import {repairOptions, repairUi} from '../cli/repair-ui.js'
import {RECLAIM_RENDERERS} from '../cli/report-renderers.js'
import {outputContext, showResult} from '../cli/show-result.js'
import {overridingFlag, RECLAIM_CHECKS, type ReclaimCheckName} from '../engine/repair/reclaim.js'
import {renderReclaimTable} from '../render/reclaim-table.js'

/** reclaim's exit codes, as sync's (docs/output-contract.md: every command documents them in its help). */
const EXIT_STATUS = [
  '0  the reclaim was written (with --sync: and the sync after it too), or the volume is reclaimed already ("already reclaimed: …", nothing to write: a re-run, or a run after a crash)',
  '1  --dry-run, or a snapshot (-f): the reclaim is allowed and shown, not written; or it was not confirmed at the prompt',
  '2  usage or input error, or the reclaim is refused on the state read: the checks that hold it back are named, nothing is written',
  '3  cluster error: unreachable or forbidden API, a missing permission, or the volume, a claim or a pod changed before the write and a check no longer holds (read again, nothing is written)',
  '130  interrupted (Ctrl-C, SIGTERM or SIGHUP): before the write, nothing written; pvctl does not wait for a write in flight (pvctl explain shows what it left); with --sync, as pvctl sync',
]

export default class Reclaim extends PvctlCommand {
  static override summary = 'Make a Released volume Available again, or give it to one claim, once it is safe.'

  static override description = `The manual reclamation the Kubernetes documentation leaves to administrators, decided from the controller's own rules. Without --for, spec.claimRef is removed (and the bound-by-controller annotation, as the controller's unbindVolume does): the next sync makes the volume Available to any claim that matches. With --for NS/CLAIM, the volume is pre-bound to that claim by namespace and name, with no uid and no resourceVersion: the next sync binds them (a claim not created yet is bound once it is).

The volume's data is not wiped: it stays on the volume and becomes visible to the new claim's pods.

Checks (--force, or the flag named, overrides only those marked so, each named in the output):
${Object.entries(RECLAIM_CHECKS)
  .map(
    ([name, c]) =>
      `  ${name}: ${c.meaning}${c.overridable === false ? '' : ` (${overridingFlag(name as ReclaimCheckName)}: ${c.overridable === true ? 'yes' : c.overridable})`}`,
  )
  .join('\n')}
A claim that may own the data stops the hand-over, each way out named: a claim restored from a backup, or one of the old claim's name that names the volume, is its owner (pvctl relink gives the volume back to it); a claim re-created under the old name that names no volume may be: pvctl relink if it is, --not-owner NS/CLAIM if it is not (the confirmation says so too).
Each check's result is ok, blocked (the reclaim is refused), forced (blocked, overridden by --force or --not-owner) or not read: a snapshot that holds no VolumeAttachments or no Pods cannot show what the check looks for, and says so instead of passing it (live, both are always read).

A volume found as the reclaim leaves it (no claimRef; with --for, a claimRef naming that claim) is reclaimed already: nothing is judged or written, and pvctl says "already reclaimed: …" (exit 0), so that a re-run after a crash finishes cleanly.

The proof is the controller's plan on the edited state: pvctl writes only when that plan does what the reclaim promises and destroys nothing, and says what the controller does next.

With -f the state comes from a snapshot and nothing is written: a simulation. Live, pvctl shows the reclaim, asks for a typed "yes" on a terminal (--yes in scripts; with neither it refuses), checks that it may make every call that follows (SelfSubjectAccessReview; a missing permission is named and nothing is written; deploy/repair-rbac.yaml is a role that grants them), then reads again the volume, every claim, the pods of the old claim's namespace and the VolumeAttachments, decides again on them (the volume must be the one read, with the phase, claimRef and policy read; every check must still hold, to the same end, overriding what was shown overridden and no more), and PUTs the volume conditional on the resourceVersion just read (a conflict reads and decides again, at most 3 times). --sync runs the controller's sync of the volume and the claim afterwards.

EXIT STATUS
${EXIT_STATUS.map((l) => `  ${l}`).join('\n')}`

  static override examples = [
    {
      description: 'Pre-bind a Released volume of a snapshot to a claim (a simulation):',
      command: '<%= config.bin %> <%= command.id %> pv/pv-0004 --for shop/db -f examples/reclaim.yaml',
    },
    {
      description: 'Show the edit as a diff, writing nothing:',
      command: '<%= config.bin %> <%= command.id %> pv/pv-0004 --for shop/db --dry-run -o diff',
    },
    {
      description: 'Make it Available to any claim, then let the controller bind one:',
      command: '<%= config.bin %> <%= command.id %> pv pv-0004 --yes --sync',
    },
  ]

  static override strict = false

  static override args = {
    volume: Args.string({description: 'The volume: pv/NAME, or pv NAME.', required: false, ignoreStdin: true}),
  }

  static override flags = {
    ...sourceFlags,
    for: Flags.string({
      summary:
        "The claim to give the volume to: NS/CLAIM, or CLAIM in the namespace of -n (else the context's, else default).",
      helpValue: 'NS/CLAIM',
    }),
    namespace: Flags.string({
      char: 'n',
      summary: 'Namespace of the --for (and --not-owner) claim when it is given as CLAIM alone.',
      helpValue: 'NS',
    }),
    ...outputFlags('reclaim'),
    'dry-run': Flags.boolean({summary: 'Decide and show the reclaim; write nothing.', default: false}),
    yes: Flags.boolean({char: 'y', summary: 'Write without asking for confirmation (live clusters).', default: false}),
    force: Flags.boolean({
      summary:
        'Override the checks that may be overridden (a VolumeAttachment left behind, pods that no node runs); never the others.',
      default: false,
    }),
    'not-owner': Flags.string({
      summary:
        "Say that this claim, re-created under the volume's old claim name and naming no volume, is not the owner of the volume's data: hand the volume over anyway (OldNameFree). NS/CLAIM, or CLAIM in the namespace of -n.",
      helpValue: 'NS/CLAIM',
    }),
    sync: Flags.boolean({
      summary: "Run the controller's sync of the volume (and the claim) once the reclaim is written.",
      default: false,
    }),
    ...engineFlags,
  }

  public async run(): Promise<void> {
    const {argv, flags} = await this.parse(Reclaim)
    const options = reclaimOptions(argv as string[], flags)
    const context = outputContext(flags)
    const result = await runReclaim(options, repairUi(flags.output, context.palette, renderReclaimTable))
    const document = {report: result.report, edits: [result.edit]}
    await showResult(result, {renderers: RECLAIM_RENDERERS, output: flags.output, document, context})
  }
}

/** The volume, the claim it goes to, and the claim said not to own it, from the arguments and flags. */
function reclaimOptions(argv: string[], flags: Interfaces.InferredFlags<typeof Reclaim.flags>): ReclaimOptions {
  const volumeName = reclaimTarget(argv)
  const target = flags.for === undefined ? undefined : parseClaimName(flags.for, defaultNamespace(flags))
  const notOwner =
    flags['not-owner'] === undefined
      ? undefined
      : parseClaimName(flags['not-owner'], defaultNamespace(flags), '--not-owner')
  return {...repairOptions(flags), volumeName, target, force: flags.force, notOwner}
}
