// The findings about volumes. PURE. What the controller does with a volume (its state, its reclaim, what
// its finalizers wait for, whether the external controllers it waits for run) is explain's
// VolumeExplanation, asked only of the volumes that need it (being deleted, Released with Delete): the
// rest is read off the volume's fields against maps of the state, so a judge of 100k volumes stays linear.
import {PVDeletionInTreeProtectionFinalizer, PVDeletionProtectionFinalizer} from '../api/constants.js'
import type {ClusterLookup} from '../explain/lookup.js'
import type {FinalizerWait, VolumeExplanation} from '../explain/model.js'
import {PVProtectionFinalizer, removeFinalizerPatch, unowned, volumeHandleOf} from '../explain/volume.js'
import {closeNames} from '../api/close-names.js'
import type {Node, PersistentVolume} from '../api/model.js'
import {matchNodeSelectorTerms} from '../api/node-affinity.js'
import {getPersistentVolumeClass} from '../api/storage-helpers.js'
import type {ClaimName} from '../repair/reclaim.js'
import {finding, isRestored, removeClaimRefUidFix, type Finding, type FindingObject} from './findings.js'
import {type ReclaimFix, type ReleaseSteps} from './reclaim-fix.js'
import type {RelinkFix} from './relink-fix.js'

/** What judging a volume reads besides the volume. */
export interface VolumeContext extends ReleaseSteps {
  lookup: ClusterLookup
  /** explain's explanation of a volume (`pvctl explain pv/NAME`), asked only of the volumes that need it. */
  explainVolume: (name: string) => VolumeExplanation | undefined
  /** StorageClass names; undefined when the state holds no StorageClass (a partial snapshot: nothing is judged by them). */
  classNames: ReadonlySet<string> | undefined
  /** The Nodes by label; undefined when the state holds no Node (nothing is judged by them). */
  nodes: NodeIndex | undefined
  /** `pvctl relink …` where relink's decision allows it. */
  relink: RelinkFix
  /** `pvctl reclaim …` where reclaim's decision allows it (after the sync that releases the volume, where one does). */
  reclaim: ReclaimFix
  /** The claims nothing binds that a volume would fit once reclaimed, up to `most` (engine/repair/offers.ts). */
  reclaimFits: (volume: PersistentVolume, most: number) => ClaimName[]
  /** AuditInput.releasedSince: since when a volume Released as read is. */
  releasedSince: ReadonlyMap<string, string>
}

const EXTERNAL_ATTACHER_PREFIX = 'external-attacher/'

export function judgeVolume(v: PersistentVolume, ctx: VolumeContext): Finding[] {
  return [
    ...reclaimFindings(v, ctx),
    ...claimRefFindings(v, ctx),
    ...deletionFindings(v, ctx),
    ...unusableFindings(v, ctx),
  ]
}

function objectOf(v: PersistentVolume): FindingObject {
  return {kind: 'PersistentVolume', name: v.metadata.name ?? ''}
}

function refText(v: PersistentVolume): string | null {
  const ref = v.spec.claimRef
  return ref ? `${ref.namespace ?? ''}/${ref.name ?? ''}` : null
}

/**
 * The reclaim of a Released Retain volume, where reclaim's decision allows it: for the one claim it would fit
 * (nothing else binds that claim), pre-bound to it; with none or several, made Available to whichever claim
 * matches. Refused (another claim names it, a claim of the old name came back, ...): explain of the volume,
 * which says what holds it.
 */
function reclaimFix(v: PersistentVolume, fits: readonly ClaimName[], ctx: VolumeContext): string {
  const name = v.metadata.name ?? ''
  return ctx.reclaim(name, fits.length === 1 ? fits[0] : undefined) ?? `pvctl explain pv/${name}${ctx.source}`
}

/** Since when the volume has been Released, as its status.lastPhaseTransitionTime read says (stamped from v1.31, beta before). */
function releasedSince(v: PersistentVolume, ctx: VolumeContext): Finding['evidence'] {
  const since = ctx.releasedSince.get(v.metadata.name ?? '')
  return since === undefined ? {} : {releasedSince: since}
}

function sinceText(v: PersistentVolume, ctx: VolumeContext): string {
  const since = ctx.releasedSince.get(v.metadata.name ?? '')
  return since === undefined ? '' : ` since ${since}`
}

/** Released with Retain, Failed, Released with an external deleter that shows no sign of life. */
function reclaimFindings(v: PersistentVolume, ctx: VolumeContext): Finding[] {
  const name = v.metadata.name ?? ''
  const object = objectOf(v)
  const phase = v.status?.phase ?? null
  const policy = v.spec.persistentVolumeReclaimPolicy ?? 'Retain'
  const found: Finding[] = []
  // A Released volume whose claim of that name exists again is the relink's: reclaimed, its data would go
  // to whichever claim binds it next.
  const relinked = phase === 'Released' ? ctx.relink({kind: 'PersistentVolume', name}) : undefined
  if (phase === 'Released' && policy === 'Retain' && relinked !== undefined) {
    found.push(
      finding(
        'VolumeReleasedRetained',
        object,
        `Released by ${refText(v) ?? 'its claim'}${sinceText(v, ctx)} and kept (Retain), and a claim of that name exists again (another uid): relink them and the controller binds them; reclaimed, its data would go to another claim.`,
        {
          phase,
          ...releasedSince(v, ctx),
          persistentVolumeReclaimPolicy: policy,
          'spec.claimRef': refText(v),
          capacity: v.spec.capacity?.storage ?? null,
        },
        relinked,
      ),
    )
  } else if (phase === 'Released' && policy === 'Retain' && v.metadata.deletionTimestamp != null) {
    // Being deleted: not to be reclaimed (reclaim refuses it); VolumeTerminating says what holds it.
  } else if (phase === 'Released' && policy === 'Retain') {
    const fits = ctx.reclaimFits(v, 2)
    const asking =
      fits.length === 1 && ctx.lookup.claimNamed(fits[0].namespace, fits[0].name)?.spec.volumeName === name
        ? `${fits[0].namespace}/${fits[0].name}`
        : undefined
    found.push(
      finding(
        'VolumeReleasedRetained',
        object,
        asking !== undefined
          ? `Released by ${refText(v) ?? 'its claim'}${sinceText(v, ctx)} and kept (Retain), its data on it, and claim ${asking} asks for it (spec.volumeName): reclaim it for that claim, the data with it.`
          : `Released by ${refText(v) ?? 'its claim'}${sinceText(v, ctx)} and kept (Retain), its data on it: nothing will happen to it; reclaim it for a new claim (the data kept, not wiped), or delete it.`,
        {
          phase,
          ...releasedSince(v, ctx),
          persistentVolumeReclaimPolicy: policy,
          'spec.claimRef': refText(v),
          capacity: v.spec.capacity?.storage ?? null,
        },
        reclaimFix(v, fits, ctx),
      ),
    )
  } else if (phase === 'Released' && policy === 'Delete') {
    found.push(...releasedDeleteFindings(v, ctx))
  } else {
    // Released with Recycle: the plan (or its plugin) carries the reclaim out. Not Released: nothing to reclaim.
  }
  if (phase === 'Failed') {
    const message = v.status?.message ?? ''
    found.push(
      finding(
        'VolumeFailed',
        object,
        `The volume is Failed${message ? `: ${message}` : ''}; find the cause, then delete it or fix and re-create it.`,
        {phase, 'status.message': message || null, persistentVolumeReclaimPolicy: policy},
        `kubectl describe pv ${name}`,
      ),
    )
  } else {
    // Not failed.
  }
  return found
}

/**
 * A Released volume with Delete: the plan carries an in-tree delete out; an external one is left to a
 * provisioner, which must run and must reach the volume's storage.
 */
function releasedDeleteFindings(v: PersistentVolume, ctx: VolumeContext): Finding[] {
  const name = v.metadata.name ?? ''
  const object = objectOf(v)
  const phase = v.status?.phase ?? null
  const policy = v.spec.persistentVolumeReclaimPolicy ?? 'Retain'
  const e = ctx.explainVolume(name)
  const deleter = e?.controllers.find((c) => c.role === 'provisioner')
  const terms = requiredTerms(v.spec.nodeAffinity)
  if (
    e?.reclaim?.action === 'external' &&
    ctx.nodes !== undefined &&
    terms !== undefined &&
    !ctx.nodes.admitsAny(terms)
  ) {
    // Local storage on a node that is gone: no provisioner reaches it, whether it runs or not.
    return [
      finding(
        'VolumeDeleteNodeGone',
        object,
        `Released by ${refText(v) ?? 'its claim'} with Delete left to '${e.reclaim.by ?? 'its provisioner'}', but its required node affinity admits none of the ${ctx.nodes.size} nodes: its storage was on a node that is gone, and the provisioner can never delete it; delete the PersistentVolume by hand (nothing left on it to lose: the storage went with the node).`,
        {
          phase,
          persistentVolumeReclaimPolicy: policy,
          provisioner: e.reclaim.by,
          'spec.nodeAffinity.required': JSON.stringify(terms),
          nodes: ctx.nodes.size,
        },
        `kubectl delete pv ${name}`,
      ),
    ]
  } else if (
    e?.reclaim?.action === 'external' &&
    deleter !== undefined &&
    deleter.verdict === 'NoSignOfLife' &&
    deleter.actedOn === null
  ) {
    return [
      finding(
        'VolumeReleasedProvisionerNotRunning',
        object,
        `Released by ${refText(v) ?? 'its claim'} with Delete left to '${deleter.name}', and nothing shows it running (${deleter.summary}): the storage will not be freed until its csi-provisioner runs again.`,
        {
          phase,
          persistentVolumeReclaimPolicy: policy,
          provisioner: deleter.name,
          liveness: deleter.verdict,
          lease: deleter.leaseName,
          csiDriver: deleter.csiDriver,
          livenessEvidence: deleter.summary,
        },
        `pvctl explain pv/${name}${ctx.source}`,
      ),
    ]
  } else if (
    e !== undefined &&
    unowned(v) &&
    (e.reclaim?.action === 'external' || e.reclaim?.action === 'fail') &&
    deleter?.actedOn == null
  ) {
    return [
      finding(
        'VolumeDeleteUnowned',
        object,
        `Released by ${refText(v) ?? 'its claim'} with Delete, but no provisioner made it (no pv.kubernetes.io/provisioned-by): only a csi-provisioner of '${v.spec.csi?.driver ?? ''}' that handles statically provisioned volumes deletes it, and nothing shows one has; if none does, delete the PersistentVolume and its storage (volumeHandle ${volumeHandleOf(v) ?? '<none>'}) by hand, the old data with them.`,
        {
          phase,
          persistentVolumeReclaimPolicy: policy,
          driver: v.spec.csi?.driver ?? null,
          volumeHandle: volumeHandleOf(v) ?? null,
          'pv.kubernetes.io/provisioned-by': null,
        },
        `kubectl delete pv ${name}`,
      ),
    ]
  } else {
    // An in-tree deleter (the plan runs it), a provisioner that runs or has acted, or liveness not seen.
    return []
  }
}

/** A claimRef naming an existing claim of another uid (a re-created claim). Restored pairs are judge-restores.ts's. */
function claimRefFindings(v: PersistentVolume, ctx: VolumeContext): Finding[] {
  const ref = v.spec.claimRef
  const uid = ref?.uid ?? ''
  if (ref == null || uid === '') return []
  const claim = ctx.lookup.claimNamed(ref.namespace ?? '', ref.name ?? '')
  if (claim === undefined || (claim.metadata.uid ?? '') === uid) return []
  if (isRestored(v) || isRestored(claim)) {
    // Velero restored one side: RestoredUidMismatch says it with the restore's name.
    return []
  } else {
    const name = v.metadata.name ?? ''
    // The relink where its checks and proof hold; else the claimRef's uid dropped (a pre-binding by name).
    const relinked = ctx.relink({kind: 'PersistentVolume', name})
    return [
      finding(
        'VolumeClaimRefUidMismatch',
        objectOf(v),
        `spec.claimRef names claim ${refText(v)} with uid ${uid}, but that claim has uid ${claim.metadata.uid ?? '<none>'} (re-created): to give it this volume, ${relinked === undefined ? 'drop the uid from the claimRef' : "relink them (the claimRef gets the claim's uid)"}.`,
        {
          'spec.claimRef': refText(v),
          'spec.claimRef.uid': uid,
          claimUid: claim.metadata.uid ?? null,
          phase: v.status?.phase ?? null,
        },
        relinked ?? removeClaimRefUidFix(name),
      ),
    ]
  }
}

/** Being deleted: each finalizer that holds it (explain's FinalizerWait), and a Delete volume without deletion protection. */
function deletionFindings(v: PersistentVolume, ctx: VolumeContext): Finding[] {
  const since = v.metadata.deletionTimestamp
  if (since == null) return []
  const name = v.metadata.name ?? ''
  const finalizers = v.metadata.finalizers ?? []
  const found: Finding[] = []
  const e = ctx.explainVolume(name)
  if (e !== undefined) {
    for (const f of e.terminating?.finalizers ?? []) {
      if (f.blocking) {
        found.push(finalizerFinding(v, since, f, e, ctx.source))
      } else {
        // It can go already (pv-protection of a volume no longer bound): its controller removes it.
      }
    }
  }
  const policy = v.spec.persistentVolumeReclaimPolicy ?? 'Retain'
  if (
    policy === 'Delete' &&
    !finalizers.includes(PVDeletionInTreeProtectionFinalizer) &&
    !finalizers.includes(PVDeletionProtectionFinalizer)
  ) {
    found.push(
      finding(
        'VolumeDeletionUnprotected',
        objectOf(v),
        `Being deleted since ${since} with reclaimPolicy Delete but neither ${PVDeletionInTreeProtectionFinalizer} nor ${PVDeletionProtectionFinalizer}: the object can go before its storage is deleted; record the storage it names now, to delete it by hand if it leaks.`,
        {
          'metadata.deletionTimestamp': since,
          persistentVolumeReclaimPolicy: policy,
          finalizers: [...finalizers],
          phase: v.status?.phase ?? null,
        },
        `kubectl get pv ${name} -o yaml`,
      ),
    )
  } else {
    // Retain or Recycle (no storage to delete), or a deletion-protection finalizer holds the object until the storage is gone.
  }
  return found
}

function finalizerFinding(
  v: PersistentVolume,
  since: string,
  f: FinalizerWait,
  e: VolumeExplanation,
  source: string,
): Finding {
  const name = v.metadata.name ?? ''
  const ref = v.spec.claimRef
  // The external controller this finalizer waits for, with whether it runs (explain's liveness).
  const driver = f.name.startsWith(EXTERNAL_ATTACHER_PREFIX) ? f.name.slice(EXTERNAL_ATTACHER_PREFIX.length) : null
  const controller =
    driver !== null
      ? e.controllers.find((c) => c.role === 'attacher' && c.name === driver)
      : f.name === PVDeletionProtectionFinalizer
        ? e.controllers.find((c) => c.role === 'provisioner')
        : undefined
  const evidence: Finding['evidence'] = {
    'metadata.deletionTimestamp': since,
    finalizer: f.name,
    owner: f.owner,
    waitsFor: f.waitsFor,
    phase: v.status?.phase ?? null,
    'spec.claimRef': refText(v),
  }
  if (controller !== undefined) {
    evidence.liveness = controller.verdict
    evidence.livenessEvidence = controller.summary
  } else {
    // Not an external controller's finalizer, or none named.
  }
  if (driver !== null && e.attachments.available) {
    evidence.volumeAttachments = e.attachments.items
      .filter((a) => a.attacher === driver)
      .map((a) => `${a.name} (node ${a.node}, ${a.attached ? 'attached' : 'not attached'})`)
  } else {
    // VolumeAttachments not seen, or not an attacher's finalizer.
  }
  const dead = controller?.verdict === 'NoSignOfLife' ? `; nothing shows it running (${controller.summary})` : ''
  const keeps = (v.spec.persistentVolumeReclaimPolicy ?? 'Retain') !== 'Delete'
  const fix =
    f.name === PVProtectionFinalizer && ref != null
      ? `kubectl delete pvc ${ref.name ?? ''} -n ${ref.namespace ?? ''}`
      : f.name === PVDeletionProtectionFinalizer && keeps
        ? removeFinalizerPatch(v, f.name)
        : `pvctl explain pv/${name}${source}`
  return finding(
    'VolumeTerminating',
    objectOf(v),
    `Being deleted since ${since}, held by ${f.name}: ${f.owner} removes it once ${f.waitsFor}${dead}.`,
    evidence,
    fix,
  )
}

/** Available but unusable: node affinity that admits no node, a class that does not exist. */
function unusableFindings(v: PersistentVolume, ctx: VolumeContext): Finding[] {
  if (v.status?.phase !== 'Available' || v.metadata.deletionTimestamp != null) return []
  const name = v.metadata.name ?? ''
  const found: Finding[] = []
  const terms = requiredTerms(v.spec.nodeAffinity)
  if (ctx.nodes !== undefined && terms !== undefined && !ctx.nodes.admitsAny(terms)) {
    found.push(
      finding(
        'VolumeNodeAffinityMatchesNoNode',
        objectOf(v),
        `Available, but its required node affinity admits none of the ${ctx.nodes.size} nodes: a pod using it could never be scheduled; fix the affinity (re-create the volume) or delete it.`,
        {phase: 'Available', 'spec.nodeAffinity.required': JSON.stringify(terms), nodes: ctx.nodes.size},
        `kubectl get pv ${name} -o jsonpath='{.spec.nodeAffinity}'`,
      ),
    )
  } else {
    // Nodes not read (nothing is judged by them), no required affinity, or some node admits it.
  }
  const className = getPersistentVolumeClass(v)
  if (ctx.classNames !== undefined && className !== '' && !ctx.classNames.has(className)) {
    const near = closeNames(className, ctx.classNames, 1).at(0)
    found.push(
      finding(
        'VolumeStorageClassNotFound',
        objectOf(v),
        `Available with storageClassName '${className}', which names no StorageClass: only a claim naming '${className}' exactly binds it (a typo, or a class deleted): ${near === undefined ? 'set the class it should have, or create the class' : `set '${near}', the close name, if that is the one`}.`,
        {phase: 'Available', storageClassName: className, closeClass: near ?? null},
        near === undefined
          ? 'kubectl get storageclass'
          : `kubectl patch pv ${name} -p '{"spec":{"storageClassName":"${near}"}}'`,
      ),
    )
  } else {
    // Classes not read, no class asked for, or the class exists.
  }
  return found
}

type NodeSelectorTerm = Parameters<typeof matchNodeSelectorTerms>[1][number]

function requiredTerms(nodeAffinity: unknown): NodeSelectorTerm[] | undefined {
  const required = (
    nodeAffinity as {required?: {nodeSelectorTerms?: NodeSelectorTerm[] | null} | null} | null | undefined
  )?.required
  // Without a required part the affinity admits every node (CheckNodeAffinity).
  return required == null ? undefined : (required.nodeSelectorTerms ?? [])
}

/**
 * The Nodes, indexed by label (key=value), so that whether a volume's affinity admits any node is a look-up
 * of the nodes its first In requirement names (`kubernetes.io/hostname In [n1]`, as local volumes have),
 * not a scan of every node: linear in volumes. A term with no In requirement is checked against every node.
 */
export class NodeIndex {
  private readonly byLabel = new Map<string, Node[]>()

  constructor(private readonly nodes: readonly Node[]) {
    for (const n of nodes) {
      for (const [k, value] of Object.entries(n.metadata.labels ?? {})) {
        const key = `${k}=${value}`
        const list = this.byLabel.get(key)
        if (list === undefined) this.byLabel.set(key, [n])
        else list.push(n)
      }
    }
  }

  get size(): number {
    return this.nodes.length
  }

  /** CheckNodeAffinity against each node (its labels alone, as the Go helper builds it): does any admit the terms? */
  admitsAny(terms: readonly NodeSelectorTerm[]): boolean {
    return terms.some((term) => {
      const narrowing = (term.matchExpressions ?? []).find((r) => r.operator === 'In' && (r.values ?? []).length > 0)
      const candidates =
        narrowing === undefined
          ? this.nodes
          : (narrowing.values ?? []).flatMap((value) => this.byLabel.get(`${narrowing.key}=${value}`) ?? [])
      return candidates.some((n) => matchNodeSelectorTerms({labels: n.metadata.labels}, [term]))
    })
  }
}
