import {Args, Flags, type Interfaces} from '@oclif/core'

import {type RelinkOptions, runRelink} from '../app/relink.js'
import {PvctlCommand} from '../cli/base-command.js'
import {defaultNamespace} from '../cli/default-namespace.js'
import {engineFlags, outputFlags, sourceFlags} from '../cli/flags.js'
import {parseClaimName, relinkTarget} from '../cli/object-args.js'
import {repairOptions, repairUi} from '../cli/repair-ui.js'
import {RELINK_RENDERERS} from '../cli/report-renderers.js'
import {outputContext, showResult} from '../cli/show-result.js'
import {RELINK_CHECKS} from '../engine/repair/relink.js'
import {renderRelinkTable} from '../render/relink-table.js'

/** relink's exit codes, as sync's (docs/output-contract.md: every command documents them in its help). */
const EXIT_STATUS = [
  '0  the relink was written (with --sync: and the sync after it too), or the pair is relinked already ("already relinked: …", nothing to write: a re-run, or a run after a crash); with --all, also: no pair to relink',
  '1  --dry-run, or a snapshot (-f): the relink is allowed and shown, not written; or it was not confirmed at the prompt',
  '2  usage or input error, or the relink of the pair named is refused on the state read: the checks that hold it back are named, nothing is written',
  '3  cluster error: unreachable or forbidden API, a missing permission, or the pair changed before the write (read again, not written)',
  '130  interrupted (Ctrl-C, SIGTERM or SIGHUP): before the write, nothing written; pvctl does not wait for a write in flight (pvctl explain shows what it left); with --sync, as pvctl sync',
]

export default class Relink extends PvctlCommand {
  static override summary =
    'Re-close the pointers of a volume and its claim that a restore or a re-created claim broke.'

  static override description = `Where a volume's spec.claimRef names an existing claim by namespace and name but holds another uid (a claim re-created, or restored onto a volume that kept its old claimRef), the controller never binds them: it releases the volume (and with reclaimPolicy Delete deletes it), leaves a claim that names the volume Pending, and turns a claim that completed binding Lost. relink points the claimRef at the claim as it is now (its uid; no resourceVersion), and for a claim that completed binding and lost its spec.volumeName, sets it again (the volume is written first): the next sync binds them. No data is moved or wiped.

pvc/NAME relinks that claim (-n NS) and its volume (spec.volumeName, or the one volume naming it); pv/NAME that volume and the claim its claimRef names; --all every pair pvctl audit offers the relink for.

Checks (none can be overridden: each guards the volume's data or another claim's binding):
${Object.entries(RELINK_CHECKS)
  .map(([name, c]) => `  ${name}: ${c.meaning}`)
  .join('\n')}

With -f the state comes from a snapshot and nothing is written: a simulation. Live, pvctl shows the relink, asks for a typed "yes" on a terminal (--yes in scripts; with neither it refuses), checks that it may make every call that follows (SelfSubjectAccessReview; deploy/repair-rbac.yaml is a role that grants them), then reads the volume and the claim again and lists the claims again (one that names the volume since the load stops the relink), decides again on them, and PUTs the volume, then the claim, conditional on the resourceVersions just read (a conflict reads and decides again, at most 3 times). Interrupted between the two writes, a re-run writes the claim alone; after both, a re-run finds the pointers closed and says "already relinked: …" (exit 0). --sync runs the controller's sync of the pairs afterwards.

EXIT STATUS
${EXIT_STATUS.map((l) => `  ${l}`).join('\n')}`

  static override examples = [
    {
      description:
        'Relink a restored claim and the volume that names it with its old uid (a simulation on a snapshot):',
      command: '<%= config.bin %> <%= command.id %> pvc/db -n shop -f examples/relink.yaml',
    },
    {
      description: 'Every pair the audit offers the relink for, as a diff, writing nothing:',
      command: '<%= config.bin %> <%= command.id %> --all --dry-run -o diff',
    },
    {
      description: 'Relink by the volume, then let the controller bind the pair:',
      command: '<%= config.bin %> <%= command.id %> pv/pv-0004 --yes --sync',
    },
  ]

  static override strict = false

  static override args = {
    object: Args.string({
      description: 'The pair, by its claim (pvc/NAME with -n, or pvc/NAMESPACE/NAME) or its volume (pv/NAME).',
      required: false,
      ignoreStdin: true,
    }),
  }

  static override flags = {
    ...sourceFlags,
    namespace: Flags.string({
      char: 'n',
      summary:
        "Namespace of the pvc/NAME claim (else the context's, else default); with --all, only the pairs of its claims.",
      helpValue: 'NS',
    }),
    all: Flags.boolean({
      summary:
        'Relink every pair that pvctl audit reports as relinkable, but those of claims re-created under the old name (another uid, no spec.volumeName, not restored): each is named, to relink by name or with --owner.',
      default: false,
    }),
    owner: Flags.string({
      summary:
        "With --all: say that this claim, re-created under a volume's old claim name and naming no volume, is the owner of the volume's data: relink it too. NS/CLAIM, or CLAIM in the namespace of -n; repeat it for several.",
      helpValue: 'NS/CLAIM',
      multiple: true,
      dependsOn: ['all'],
    }),
    ...outputFlags('relink'),
    'dry-run': Flags.boolean({summary: 'Decide and show the relink; write nothing.', default: false}),
    yes: Flags.boolean({char: 'y', summary: 'Write without asking for confirmation (live clusters).', default: false}),
    sync: Flags.boolean({
      summary: "Run the controller's sync of the pairs once the relink is written.",
      default: false,
    }),
    ...engineFlags,
  }

  public async run(): Promise<void> {
    const {argv, flags} = await this.parse(Relink)
    const options = relinkOptions(argv as string[], flags)
    const context = outputContext(flags)
    const result = await runRelink(options, repairUi(flags.output, context.palette, renderRelinkTable))
    const document = {report: result.report, edits: result.edits}
    await showResult(result, {renderers: RELINK_RENDERERS, output: flags.output, document, context})
  }
}

/** The pair (or --all, and the owners said of its claims re-created), from the arguments and flags. */
function relinkOptions(argv: string[], flags: Interfaces.InferredFlags<typeof Relink.flags>): RelinkOptions {
  const target = relinkTarget(argv, defaultNamespace(flags), flags.all, flags.namespace)
  const owners = (flags.owner ?? []).map((o) => parseClaimName(o, defaultNamespace(flags), '--owner'))
  return {
    ...repairOptions(flags),
    target,
    all: flags.all,
    allNamespace: flags.all ? flags.namespace : undefined,
    owners,
  }
}
