// `pvctl explain pv/NAME`: what the controller does with a volume and why — syncVolume's decision path
// (and reclaimVolume's, for a released volume) walked without writing, plus what holds a volume that is
// being deleted. PURE: state in, a VolumeExplanation out.
import {
  AnnBoundByController,
  AnnDynamicallyProvisioned,
  AnnMigratedTo,
  PVDeletionInTreeProtectionFinalizer,
  PVDeletionProtectionFinalizer,
} from '../api/constants.js'
import {pointerOf} from './binding.js'
import type {ControllerQueries} from './controller-queries.js'
import {eventsOf, type ExplainEvidence, type ObjectKey} from './evidence.js'
import {controllerLiveness, livenessAdvice} from './liveness.js'
import {
  EXPLAIN_API_VERSION,
  type AttachmentsSeen,
  type ControllerLiveness,
  type FinalizerWait,
  type ReclaimPlan,
  type VolumeExplanation,
  type VolumeState,
} from './model.js'
import {boundClaimRef, decideClaim} from './verdict.js'
import {
  claimKey,
  claimRefKey,
  type ClusterState,
  type PersistentVolume,
  type PersistentVolumeClaim,
} from '../api/model.js'
import {admitsNoNode, affinityHostnames, type NodeInfo} from '../api/node-affinity.js'
import {quantityValue} from '../api/quantity.js'
import {checkVolumeModeMismatches, hasAnnotation, isPodTerminated} from '../api/storage-helpers.js'
import {storageQuantity} from '../matching/volume-index.js'

/** kubernetes.io/pv-protection: the pv-protection controller's finalizer (pkg/controller/volume/pvprotection). */
export const PVProtectionFinalizer = 'kubernetes.io/pv-protection'
/** external-attacher/<driver>: the CSI external-attacher's finalizer on volumes it attached. */
const ExternalAttacherFinalizerPrefix = 'external-attacher/'

const REMOVE_CLAIM_REF = `--type json -p '[{"op":"remove","path":"/spec/claimRef"}]'`

interface VolumeDecision {
  state: VolumeState
  summary: string
  reclaim: ReclaimPlan | null
  failure: string | null
  suggestions: string[]
}

/**
 * The explanation of volume `name`, or undefined when the state has no such volume. `wantedBy: false`
 * leaves out the claims whose next sync binds it (a look at every claim): audit asks many volumes.
 */
export function describeVolume(
  q: ControllerQueries,
  state: ClusterState,
  name: string,
  evidence: ExplainEvidence,
  {wantedBy = true} = {},
): VolumeExplanation | undefined {
  const volume = q.volume(name)
  if (volume === undefined) return undefined
  const ref = volume.spec.claimRef
  const holder = ref == null ? undefined : q.claim(claimRefKey(ref))
  const sameClaim = holder !== undefined && ((ref?.uid ?? '') === '' || holder.metadata.uid === ref?.uid)
  const decision = decideVolume(q, state, volume)
  const attachments = attachmentsOf(evidence, name)
  const controllers = externalControllers(volume, decision, attachments, evidence)
  const terminating =
    volume.metadata.deletionTimestamp == null
      ? null
      : {since: volume.metadata.deletionTimestamp, finalizers: finalizerWaits(volume, decision, attachments)}
  // A volume being deleted is not reused (its deletion cannot be called off): its reclaim's advice is for one
  // that stays. What holds the object (its finalizers' owners) comes first: that is what keeps it Terminating.
  const reclaimSuggestions = terminating === null || decision.reclaim?.action !== 'retain' ? decision.suggestions : []
  const suggestions =
    terminating === null
      ? [...reclaimSuggestions]
      : [...terminatingAdvice(q, state, volume, terminating.finalizers, attachments), ...reclaimSuggestions]
  for (const c of controllers) suggestions.push(...livenessAdvice(c, `pv/${name}`))
  return {
    apiVersion: EXPLAIN_API_VERSION,
    kind: 'VolumeExplanation',
    volume: {name},
    phase: volume.status?.phase ?? null,
    state: decision.state,
    claim: ref == null ? null : {...pointerOf(ref), exists: sameClaim},
    summary:
      terminating === null
        ? decision.summary
        : `${decision.summary} It is being deleted (since ${terminating.since}); ${describeBlocking(terminating.finalizers)}.`,
    reclaim: decision.reclaim,
    failure: decision.failure,
    terminating,
    wantedBy: wantedBy ? claimsThatBind(q, state, volume, name) : [],
    suggestions: [...new Set(suggestions)],
    events: eventsOf(evidence, {kind: 'PersistentVolume', name, uid: volume.metadata.uid}),
    attachments,
    controllers,
  }
}

/** The VolumeAttachments of the volume (spec.source.persistentVolumeName), by name. */
function attachmentsOf(evidence: ExplainEvidence, name: string): AttachmentsSeen {
  const seen = evidence.volumeAttachments
  if (!seen.observed) return {available: false, unavailableReason: seen.reason, items: []}
  const items = seen.items
    .filter((va) => va.spec?.source?.persistentVolumeName === name)
    .map((va) => ({
      name: va.metadata.name ?? '',
      attacher: va.spec?.attacher ?? '',
      node: va.spec?.nodeName ?? '',
      attached: va.status?.attached === true,
      deleting: va.metadata.deletionTimestamp != null,
      error: va.status?.detachError?.message ?? va.status?.attachError?.message ?? null,
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return {available: true, unavailableReason: null, items}
}

/**
 * The controllers outside kube-controller-manager that this volume waits for, with whether they run: the
 * CSI attacher of each external-attacher finalizer, and the external provisioner that is to delete it.
 */
function externalControllers(
  volume: PersistentVolume,
  d: VolumeDecision,
  attachments: AttachmentsSeen,
  evidence: ExplainEvidence,
): ControllerLiveness[] {
  const self: ObjectKey = {kind: 'PersistentVolume', name: volume.metadata.name ?? '', uid: volume.metadata.uid}
  const out: ControllerLiveness[] = []
  const finalizers = volume.metadata.finalizers ?? []
  for (const f of finalizers) {
    if (!f.startsWith(ExternalAttacherFinalizerPrefix)) continue
    const driver = f.slice(ExternalAttacherFinalizerPrefix.length)
    const mine = attachments.items
      .filter((a) => a.attacher === driver)
      .map((a): ObjectKey => ({kind: 'VolumeAttachment', name: a.name}))
    out.push(controllerLiveness(evidence, 'attacher', driver, [self, ...mine]))
  }
  const deleter = externalDeleter(volume)
  const waitsForDeleter = finalizers.includes(PVDeletionProtectionFinalizer) || d.reclaim?.action === 'external'
  if (waitsForDeleter && deleter !== null) out.push(controllerLiveness(evidence, 'provisioner', deleter, [self]))
  return out
}

/** syncVolume: [Unit test set 4] */
function decideVolume(q: ControllerQueries, state: ClusterState, volume: PersistentVolume): VolumeDecision {
  const name = volume.metadata.name ?? ''
  const ref = volume.spec.claimRef
  if (ref == null) {
    return settled('Available', `Available: no claim points at it; the first unbound claim it matches gets it.`)
  }
  const key = claimRefKey(ref)
  if ((ref.uid ?? '') === '') {
    return decidePreBoundVolume(q, state, name, key)
  }

  let claim: PersistentVolumeClaim | undefined = q.claim(key)
  if (claim !== undefined && (claim.metadata.uid ?? '') !== ref.uid) {
    // A new claim of the same name: the one this volume was bound to is gone.
    claim = undefined
  }
  if (claim === undefined) {
    return released(q, volume, `its claim ${key} (uid ${ref.uid}) is gone`)
  } else if ((claim.spec.volumeName ?? '') === '') {
    if (checkVolumeModeMismatches(claim.spec, volume.spec)) {
      return {
        state: 'Binding',
        summary: `Bound to ${key}, which cannot take it: their volume modes differ (${volume.spec.volumeMode ?? 'Filesystem'} ≠ ${claim.spec.volumeMode ?? 'Filesystem'}); the controller warns (VolumeMismatch) and neither side moves.`,
        reclaim: null,
        failure: 'incompatible volumeMode',
        suggestions: [
          `recreate the claim with volumeMode ${volume.spec.volumeMode ?? 'Filesystem'}, or unbind the volume: kubectl patch pv ${name} ${REMOVE_CLAIM_REF}`,
        ],
      }
    }
    // The claim's sync takes a volume pre-bound to it only if it fits (FindMatchingVolume): a promise to finish
    // the binding is the claim's decision's, or none.
    const d = decideClaim(q, state, claim)
    if (d.verdict === 'WillBind' && d.volume?.metadata.name === name) {
      return settled(
        'Binding',
        `Bound to ${key}, which does not know it yet: the claim's next sync finishes the binding.`,
      )
    }
    return {
      ...settled(
        'Binding',
        `Bound to ${key}, which does not take it (${d.verdict}${d.volume !== undefined && d.volume.metadata.name !== name ? `: it gets ${d.volume.metadata.name}` : ''}): neither side moves.`,
      ),
      suggestions: [`pvctl explain pvc/${claim.metadata.name ?? ''} -n ${claim.metadata.namespace ?? ''} says why`],
    }
  } else if (claim.spec.volumeName === name) {
    return settled('Bound', `Bound to ${key}, which points back at it.`)
  } else {
    // The claim is bound elsewhere.
    if (
      hasAnnotation(volume.metadata, AnnDynamicallyProvisioned) &&
      volume.spec.persistentVolumeReclaimPolicy === 'Delete'
    ) {
      return released(q, volume, `it was provisioned for ${key}, which is bound to ${claim.spec.volumeName} instead`)
    } else if (hasAnnotation(volume.metadata, AnnBoundByController)) {
      return settled(
        'Unbinding',
        `The controller bound it to ${key}, which is bound to ${claim.spec.volumeName}: the next sync rolls back (claimRef removed) and makes it Available.`,
      )
    } else {
      return settled(
        'Unbinding',
        `Pre-bound by a user to ${key}, which is bound to ${claim.spec.volumeName}: the next sync clears claimRef.uid and leaves it Available, pre-bound to that claim.`,
      )
    }
  }
}

/** syncVolume of a volume whose claimRef has no uid: pre-bound by a user to claim `key`. */
function decidePreBoundVolume(q: ControllerQueries, state: ClusterState, name: string, key: string): VolumeDecision {
  // Pre-bound by a user: the claim's sync binds it.
  const claim = q.claim(key)
  if (claim === undefined) {
    return {
      ...settled(
        'PreBound',
        `Pre-bound to ${key}, which does not exist: it stays Available for that claim alone until it is created.`,
      ),
      suggestions: [
        `create claim ${key}, or drop the pre-binding so any claim can have it: kubectl patch pv ${name} ${REMOVE_CLAIM_REF}`,
      ],
    }
  }
  const d = decideClaim(q, state, claim)
  if (d.verdict === 'WillBind' && d.volume?.metadata.name === name) {
    return settled('PreBound', `Pre-bound to ${key}: the claim's next sync binds them.`)
  }
  return {
    ...settled(
      'PreBound',
      `Pre-bound to ${key}, but that claim does not take it (${d.verdict}${d.volume !== undefined && d.volume.metadata.name !== name ? `: it gets ${d.volume.metadata.name}` : ''}): it stays Available for that claim alone.`,
    ),
    suggestions: [`pvctl explain pvc/${claim.metadata.name} -n ${claim.metadata.namespace} says why`],
  }
}

/** The claim is gone (or took another volume): Released, and reclaimVolume applies the policy. */
function released(q: ControllerQueries, volume: PersistentVolume, why: string): VolumeDecision {
  const reclaim = reclaimPlan(q, volume)
  const wasFailed = volume.status?.phase === 'Failed'
  const failure = reclaim.action === 'fail' ? reclaim.detail : wasFailed ? (volume.status?.message ?? null) : null
  const state: VolumeState = reclaim.action === 'fail' || wasFailed ? 'Failed' : 'Released'
  const head =
    state === 'Failed'
      ? `Failed: ${why}, and reclaiming it fails${failure !== null ? ` (${failure})` : ''}; the controller retries on every sync.`
      : `Released: ${why}.`
  return {
    state,
    summary: `${head} ${capitalize(reclaim.detail)}.`,
    reclaim,
    failure,
    suggestions: reclaimAdvice(volume, reclaim, stateNodes(q)),
  }
}

/** reclaimVolume, and the checks of the recycle and delete operations it schedules. */
function reclaimPlan(q: ControllerQueries, volume: PersistentVolume): ReclaimPlan {
  const policy = volume.spec.persistentVolumeReclaimPolicy ?? ''
  const migratedTo = volume.metadata.annotations?.[AnnMigratedTo] ?? ''
  if (migratedTo !== '') {
    return {
      policy,
      action: 'none',
      by: migratedTo,
      detail: `the volume is migrated to CSI driver ${migratedTo}: the controller stands down and that driver's provisioner applies the ${policy} policy`,
    }
  }
  switch (policy) {
    case 'Retain':
      return {
        policy,
        action: 'retain',
        by: null,
        detail: 'the Retain policy keeps it, with its data, until an administrator deletes it or removes its claimRef',
      }
    case 'Recycle': {
      const {pods, used} = q.isVolumeUsed(volume)
      const claimCached = q.claim(claimRefKey(boundClaimRef(volume))) !== undefined
      if (used && !claimCached) {
        return {
          policy,
          action: 'blocked',
          by: null,
          detail: `recycling waits: the volume is used by pods ${pods.join(', ')}`,
        }
      }
      const found = q.plugins.findRecyclablePluginBySpec(volume)
      if (found.plugin === undefined) {
        return {policy, action: 'fail', by: null, detail: 'No recycler plugin found for the volume!'}
      }
      return {
        policy,
        action: 'recycle',
        by: found.plugin.name,
        detail: `the next sync has ${found.plugin.name} scrub it (delete every file on it), then it becomes Available again`,
      }
    }
    case 'Delete': {
      if (!q.gates.HonorPVReclaimPolicy && volume.metadata.deletionTimestamp != null) {
        return {
          policy,
          action: 'none',
          by: null,
          detail:
            'the volume object is already being deleted; without HonorPVReclaimPolicy the controller does not delete its storage',
        }
      }
      const found = q.findDeletablePlugin(volume)
      if (found.error !== undefined) {
        return {policy, action: 'fail', by: null, detail: found.error}
      } else if (found.plugin === undefined) {
        const by = externalDeleter(volume)
        return {
          policy,
          action: 'external',
          by,
          detail: unowned(volume)
            ? `deleting it is left to the csi-provisioner of '${by}', though none provisioned it (no ${AnnDynamicallyProvisioned}): one that handles statically provisioned volumes (HonorPVReclaimPolicy) deletes the storage and the PersistentVolume, an older one never acts on a volume it did not provision, and the volume then stays Released`
            : `deleting it is left to ${by === null ? 'an external provisioner' : `'${by}'`}: the controller does nothing, and the volume goes away only when that provisioner deletes the storage and the PersistentVolume; if it stays Released, the provisioner is not running or cannot delete it`,
        }
      } else {
        return {
          policy,
          action: 'delete',
          by: found.plugin.name,
          detail: `the next sync has ${found.plugin.name} delete the storage, then the PersistentVolume`,
        }
      }
    }
    default:
      return {policy, action: 'fail', by: null, detail: 'Volume has unrecognized PersistentVolumeReclaimPolicy'}
  }
}

/** The Nodes of the state as node-affinity checks read them (none: not read). */
function stateNodes(q: ControllerQueries): NodeInfo[] {
  return q.nodes.map((n) => ({name: n.metadata.name, labels: n.metadata.labels}))
}

/**
 * A volume whose required node affinity admits no node of the cluster: local storage on a node that is
 * gone, which its provisioner's delete (run on that node) can never reach. Only the object is left to
 * delete, by hand: its storage went with the node.
 */
function nodeGoneAdvice(volume: PersistentVolume, deleter: string | null, nodes: number): string {
  const name = volume.metadata.name ?? ''
  const hosts = affinityHostnames(volume.spec.nodeAffinity)
  const on = hosts.length === 0 ? 'its node affinity admits' : `its node affinity names ${hosts.join(', ')}, and admits`
  return `${on} none of the ${nodes} nodes of the cluster: the node its storage was on is gone, so ${deleter === null ? 'its provisioner' : `'${deleter}'`} can never delete it; delete the PersistentVolume by hand, nothing left on it to lose (its storage went with the node): kubectl delete pv ${name}`
}

/** The external deleter of a volume: its provisioner, or the CSI driver it is (or is migrated to). */
function externalDeleter(volume: PersistentVolume): string | null {
  const provisionedBy = volume.metadata.annotations?.[AnnDynamicallyProvisioned] ?? ''
  if (provisionedBy !== '' && !provisionedBy.startsWith('kubernetes.io/')) return provisionedBy
  const migratedTo = volume.metadata.annotations?.[AnnMigratedTo] ?? ''
  if (migratedTo !== '') return migratedTo
  return volume.spec.csi?.driver ?? (provisionedBy === '' ? null : provisionedBy)
}

function reclaimAdvice(volume: PersistentVolume, reclaim: ReclaimPlan, nodes: readonly NodeInfo[]): string[] {
  const name = volume.metadata.name ?? ''
  switch (reclaim.action) {
    case 'retain':
      return [
        `to reuse it (its old data stays on it): kubectl patch pv ${name} ${REMOVE_CLAIM_REF}; to free the storage: delete the PersistentVolume and the storage behind it, its old data with them`,
      ]
    case 'external':
      if (unowned(volume)) return [unownedDeleteAdvice(volume)]
      if (admitsNoNode(volume.spec.nodeAffinity, nodes)) return [nodeGoneAdvice(volume, reclaim.by, nodes.length)]
      return reclaim.by === null
        ? ['find the provisioner that owns it (pv.kubernetes.io/provisioned-by) and check that it is running']
        : [
            `check that '${reclaim.by}' is running: kubectl get csidriver ${reclaim.by}, and look for its controller pods and their logs`,
          ]
    case 'fail':
      if (unowned(volume) && reclaim.policy === 'Delete') return [unownedDeleteAdvice(volume)]
      return reclaim.detail === 'Volume has unrecognized PersistentVolumeReclaimPolicy'
        ? [
            `set a known policy: kubectl patch pv ${name} -p '{"spec":{"persistentVolumeReclaimPolicy":"Retain"}}' (or Delete, Recycle)`,
          ]
        : [
            `the controller retries on every sync; to stop it, keep the volume: kubectl patch pv ${name} -p '{"spec":{"persistentVolumeReclaimPolicy":"Retain"}}'`,
          ]
    case 'blocked':
      return ['stop the pods that use it; recycling starts on the next sync after that']
    case 'recycle':
    case 'delete':
    case 'none':
      return []
  }
}

/**
 * A CSI volume no provisioner made (no pv.kubernetes.io/provisioned-by, not migrated): created by hand. A
 * csi-provisioner deletes it only where it handles statically provisioned volumes; an older one never does.
 */
export function unowned(volume: PersistentVolume): boolean {
  return (
    volume.spec.csi != null &&
    (volume.metadata.annotations?.[AnnDynamicallyProvisioned] ?? '') === '' &&
    (volume.metadata.annotations?.[AnnMigratedTo] ?? '') === ''
  )
}

/** spec.csi.volumeHandle: the storage a CSI volume names. */
export function volumeHandleOf(volume: PersistentVolume): string | undefined {
  const handle = volume.spec.csi?.volumeHandle
  return typeof handle === 'string' ? handle : undefined
}

/** What to do when nothing deletes a volume no provisioner made: delete it by hand, saying what goes. */
function unownedDeleteAdvice(volume: PersistentVolume): string {
  const handle = volumeHandleOf(volume) ?? '<none>'
  return `if '${volume.spec.csi?.driver ?? ''}' does not delete it (no event of its csi-provisioner on it), delete it by hand: kubectl delete pv ${volume.metadata.name ?? ''}, then the storage it names (volumeHandle ${handle}) as the driver documents; the old data goes with them`
}

/** Each finalizer of a volume being deleted: who removes it, and what it waits for. */
function finalizerWaits(volume: PersistentVolume, d: VolumeDecision, attachments: AttachmentsSeen): FinalizerWait[] {
  const ref = volume.spec.claimRef
  const provisioner = externalDeleter(volume)
  return (volume.metadata.finalizers ?? []).map((name): FinalizerWait => {
    if (name === PVProtectionFinalizer) {
      const inUse = d.state === 'Bound' || d.state === 'Binding'
      return {
        name,
        owner: 'the pv-protection controller (kube-controller-manager)',
        waitsFor:
          inUse && ref != null
            ? `claim ${claimRefKey(ref)}, which is bound to it, is deleted`
            : 'the volume is no longer Bound to a claim',
        blocking: inUse,
      }
    } else if (name === PVDeletionInTreeProtectionFinalizer) {
      const waits =
        d.reclaim?.action === 'delete'
          ? `${d.reclaim.by} has deleted the storage (the next sync starts it)`
          : d.reclaim === null
            ? 'the volume is released (its claim deleted) and its in-tree deleter has deleted the storage'
            : `its in-tree deleter has deleted the storage, which it cannot do: ${d.reclaim.detail}`
      return {
        name,
        owner: 'the PersistentVolume controller (in-tree deleter, HonorPVReclaimPolicy)',
        waitsFor: waits,
        blocking: true,
      }
    } else if (name === PVDeletionProtectionFinalizer) {
      const owner =
        provisioner === null
          ? 'the external provisioner that provisioned it'
          : `the external provisioner '${provisioner}'`
      return (volume.spec.persistentVolumeReclaimPolicy ?? 'Retain') === 'Delete'
        ? {
            name,
            owner,
            waitsFor: 'that provisioner has deleted the storage; if it is not running, the volume stays Terminating',
            blocking: true,
          }
        : {
            name,
            owner,
            // sig-storage-lib-external-provisioner's handleProtectionFinalizer: a Retain or Recycle volume's is removed, no storage deleted.
            waitsFor: `its next sync of the volume, which deletes no storage (reclaim policy ${volume.spec.persistentVolumeReclaimPolicy ?? 'Retain'}) and only removes the finalizer; a provisioner too old to handle it, or none running, never does`,
            blocking: true,
          }
    } else if (name.startsWith(ExternalAttacherFinalizerPrefix)) {
      const driver = name.slice(ExternalAttacherFinalizerPrefix.length)
      return {
        name,
        owner: `the CSI external-attacher of ${driver}`,
        waitsFor: attachmentWait(driver, attachments),
        blocking: true,
      }
    } else {
      return {
        name,
        owner: 'not a Kubernetes storage finalizer: whoever added it',
        waitsFor: 'its owner removes it',
        blocking: true,
      }
    }
  })
}

/** What an external-attacher finalizer waits for, naming the VolumeAttachments when they could be read. */
function attachmentWait(driver: string, attachments: AttachmentsSeen): string {
  if (!attachments.available)
    return `the volume is detached from every node (its VolumeAttachments deleted; VolumeAttachments not seen: ${attachments.unavailableReason})`
  const mine = attachments.items.filter((a) => a.attacher === driver)
  if (mine.length === 0)
    return `its attacher notices that no VolumeAttachment of the volume is left and removes it; if it stays, the attacher of ${driver} is not running`
  const each = mine.map(
    (a) =>
      `${a.name} (node ${a.node}, ${a.attached ? 'attached' : 'not attached'}${a.deleting ? ', being detached' : ''}${a.error !== null ? `, error: ${a.error}` : ''})`,
  )
  return `VolumeAttachment${mine.length > 1 ? 's' : ''} ${each.join(', ')} ${mine.length > 1 ? 'are' : 'is'} detached and deleted`
}

function describeBlocking(finalizers: readonly FinalizerWait[]): string {
  const blocking = finalizers.filter((f) => f.blocking)
  if (finalizers.length === 0) return 'no finalizer holds it: it is about to disappear'
  if (blocking.length === 0)
    return `no finalizer holds it any more (${finalizers.map((f) => f.name).join(', ')} can go)`
  return `held by ${blocking.map((f) => `${f.name} until ${f.waitsFor}`).join('; and by ')}`
}

function terminatingAdvice(
  q: ControllerQueries,
  state: ClusterState,
  volume: PersistentVolume,
  finalizers: readonly FinalizerWait[],
  attachments: AttachmentsSeen,
): string[] {
  const ref = volume.spec.claimRef
  const protection = finalizers.find((f) => f.name === PVProtectionFinalizer)
  if (protection !== undefined && finalizers.every((f) => !f.blocking)) {
    // Nothing binds the volume: the pv-protection controller lets it go; where it stays, that controller does not run.
    return [
      `no claim is bound to it, so kube-controller-manager's pv-protection controller removes ${PVProtectionFinalizer} on its next sync; if it stays, remove it by hand (nothing uses the volume): ${removeFinalizerPatch(volume, PVProtectionFinalizer)}`,
    ]
  }
  return finalizers
    .filter((f) => f.blocking)
    .flatMap((f) => {
      if (f.name === PVProtectionFinalizer && ref != null) return [claimHoldsIt(q, state, volume, claimRefKey(ref))]
      if (
        f.name === PVDeletionProtectionFinalizer &&
        (volume.spec.persistentVolumeReclaimPolicy ?? 'Retain') !== 'Delete'
      ) {
        // The provisioner deletes nothing here: where it does not remove its finalizer, removing it is the way out.
        return [
          `no storage is to be deleted (reclaim policy ${volume.spec.persistentVolumeReclaimPolicy ?? 'Retain'}): if ${f.owner} has not removed its finalizer, remove it by hand and the object goes, the storage and its data staying where they are: ${removeFinalizerPatch(volume, f.name)}`,
        ]
      }
      if (f.name.startsWith(ExternalAttacherFinalizerPrefix)) {
        if (!attachments.available)
          return [`see what still attaches it: kubectl get volumeattachments | grep ${volume.metadata.name}`]
        // A VolumeAttachment goes when the pod using the volume leaves its node (the attach-detach controller deletes it).
        const attached = attachments.items.filter((a) => !a.deleting)
        return attached.map(
          (a) =>
            `stop the pods that use it on node ${a.node} (kubectl get pods -A --field-selector spec.nodeName=${a.node}); the attach-detach controller then deletes VolumeAttachment ${a.name}`,
        )
      }
      return []
    })
}

/**
 * kubernetes.io/pv-protection holds a volume while a claim is bound to it: its deletion cannot be called
 * off, and it ends once the claim is deleted. What deleting the claim loses: the pods' volume, and, unless
 * the reclaim policy is Retain, the storage's data; with Retain the storage outlives the object, and the
 * way to go on using the data is to recreate the volume from its spec (sig-storage's answer).
 */
function claimHoldsIt(q: ControllerQueries, state: ClusterState, volume: PersistentVolume, key: string): string {
  const name = volume.metadata.name ?? ''
  const [namespace, claim] = key.split('/')
  const pods = q.lookup
    .podsUsing(key)
    .filter((p) => !isPodTerminated(p))
    .map((p) => `${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}`)
  const using =
    state.pods.length === 0
      ? ' (no Pod was read: whether pods use it could not be seen)'
      : pods.length === 0
        ? ' (no pod uses it)'
        : `, and pod${pods.length === 1 ? '' : 's'} ${pods.join(', ')} use${pods.length === 1 ? 's' : ''} it`
  const deleteClaim = `kubectl delete pvc ${claim} -n ${namespace}`
  const policy = volume.spec.persistentVolumeReclaimPolicy ?? 'Retain'
  return policy === 'Retain'
    ? `nothing is lost while claim ${key} exists${using}: the volume waits for it, and its storage is kept whatever happens to the object (reclaim policy Retain); to go on using the data, save the volume's manifest, delete the claim once no pod needs it, then create the volume again from the manifest (claimRef without uid) and the claim again: kubectl get pv ${name} -o yaml; ${deleteClaim}`
    : `delete claim ${key} only if its data may go: the volume goes with it, and reclaim policy ${policy} ${policy === 'Delete' ? 'deletes its storage' : 'scrubs it'}, the data with it (${deleteClaim}); nothing is lost while the claim exists${using}; to keep the data, set Retain first (kubectl patch pv ${name} -p '{"spec":{"persistentVolumeReclaimPolicy":"Retain"}}')`
}

/** The JSON patch that removes one finalizer, guarded by a test of its place (a list changed since is refused). */
export function removeFinalizerPatch(volume: PersistentVolume, finalizer: string): string {
  const at = (volume.metadata.finalizers ?? []).indexOf(finalizer)
  return `kubectl patch pv ${volume.metadata.name ?? ''} --type json -p '[{"op":"test","path":"/metadata/finalizers/${at}","value":"${finalizer}"},{"op":"remove","path":"/metadata/finalizers/${at}"}]'`
}

/** Claims whose next sync binds this volume, in the order the controller syncs claims (namespace, name). */
function claimsThatBind(q: ControllerQueries, state: ClusterState, volume: PersistentVolume, name: string): string[] {
  // Every way of binding needs the volume to be at least as large as the request (in whole units, the
  // laxer comparison of checkVolumeSatisfyClaim); checking that first keeps this linear in practice.
  const size = quantityValue(storageQuantity(volume.spec.capacity))
  return state.claims
    .filter((c) => c.status?.phase !== 'Bound' && ((c.spec.volumeName ?? '') === '' || c.spec.volumeName === name))
    .filter((c) => quantityValue(storageQuantity(c.spec.resources?.requests)) <= size)
    .filter((c) => {
      const d = decideClaim(q, state, c)
      return d.verdict === 'WillBind' && d.volume?.metadata.name === name
    })
    .map(claimKey)
    .sort()
}

function settled(state: VolumeState, summary: string): VolumeDecision {
  return {state, summary, reclaim: null, failure: null, suggestions: []}
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1)
}
