// The findings about what a Velero restore left behind: objects labelled velero.io/restore-name whose
// pointers do not close. PURE. What Velero does (site/content/docs/main/restore-reference.md): a restored
// volume keeps its claimRef without uid and resourceVersion (so the restored claim, with its new uid, can
// bind it), its claimRef namespace follows --namespace-mappings, and a volume restored from a snapshot
// while the original still exists under a remapped namespace is created as velero-clone-<uuid> with the
// original's name in the velero.io/original-pv-name annotation. A restore that left the claim out, or
// restored one side onto an existing other side, leaves pairs that never bind.
import type {ClusterLookup} from '../explain/lookup.js'
import {claimRefKey, type PersistentVolume} from '../api/model.js'
import type {RelinkFix} from './relink-fix.js'
import {
  finding,
  isRestored,
  removeClaimRefFix,
  removeClaimRefUidFix,
  VeleroRestoreNameLabel,
  type Finding,
} from './findings.js'

/** Velero's annotation on a renamed (velero-clone-*) volume: the name of the volume it copies. */
export const VeleroOriginalPVNameAnnotation = 'velero.io/original-pv-name'

export function judgeRestoredVolume(v: PersistentVolume, lookup: ClusterLookup, relink: RelinkFix): Finding[] {
  return [...claimRefFindings(v, lookup, relink), ...cloneFindings(v, lookup)]
}

function restoreName(o: {metadata: {labels?: Record<string, string> | null}}): string | null {
  return o.metadata.labels?.[VeleroRestoreNameLabel] ?? null
}

function claimRefFindings(v: PersistentVolume, lookup: ClusterLookup, relink: RelinkFix): Finding[] {
  const ref = v.spec.claimRef
  if (ref == null) return []
  const name = v.metadata.name ?? ''
  const key = claimRefKey(ref)
  const claim = lookup.claimNamed(ref.namespace ?? '', ref.name ?? '')
  const uid = ref.uid ?? ''
  if (uid === '' && claim === undefined && isRestored(v)) {
    return [
      finding(
        'RestoredVolumeClaimMissing',
        {kind: 'PersistentVolume', name},
        `Restored by ${restoreName(v)} pre-bound to claim ${key}, which does not exist: it stays reserved for that claim; restore the claim (its namespace may have been left out or mapped elsewhere), or free the volume.`,
        {restore: restoreName(v), 'spec.claimRef': key, 'spec.claimRef.uid': null, phase: v.status?.phase ?? null},
        removeClaimRefFix(name),
      ),
    ]
  } else if (
    uid !== '' &&
    claim !== undefined &&
    (claim.metadata.uid ?? '') !== uid &&
    (isRestored(v) || isRestored(claim))
  ) {
    const restored = isRestored(v) ? `volume (restore ${restoreName(v)})` : `claim (restore ${restoreName(claim)})`
    // The relink where its checks and proof hold; else the claimRef's uid dropped (a pre-binding by name).
    const relinked = relink({kind: 'PersistentVolume', name})
    return [
      finding(
        'RestoredUidMismatch',
        {kind: 'PersistentVolume', name},
        `The restored ${restored} and its other side do not close: spec.claimRef names ${key} with uid ${uid}, that claim has uid ${claim.metadata.uid ?? '<none>'}; ${relinked === undefined ? 'drop the claimRef uid so the claim of that name binds it' : "relink them (the claimRef gets the claim's uid) and the controller binds them"}.`,
        {
          restore: restoreName(v) ?? restoreName(claim),
          'spec.claimRef': key,
          'spec.claimRef.uid': uid,
          claimUid: claim.metadata.uid ?? null,
          'claim.spec.volumeName': claim.spec.volumeName ?? null,
          phase: v.status?.phase ?? null,
        },
        relinked ?? removeClaimRefUidFix(name),
      ),
    ]
  } else {
    // The pointers close (or neither side was restored: judge-volumes.ts judges it as any volume).
    return []
  }
}

/** A velero-clone-* volume whose original is not bound: the original is left over beside its copy. */
function cloneFindings(clone: PersistentVolume, lookup: ClusterLookup): Finding[] {
  const originalName = clone.metadata.annotations?.[VeleroOriginalPVNameAnnotation] ?? ''
  if (originalName === '' || !isRestored(clone)) return []
  const original = lookup.volumeByName(originalName)
  if (original === undefined || original.status?.phase === 'Bound') {
    // The original is gone, or bound to its own claim: copy and original each serve a claim.
    return []
  } else {
    const cloneName = clone.metadata.name ?? ''
    const policy = original.spec.persistentVolumeReclaimPolicy ?? 'Retain'
    const ref = clone.spec.claimRef
    return [
      finding(
        'RestoredCloneBesideUnboundOriginal',
        {kind: 'PersistentVolume', name: originalName},
        `Restore ${restoreName(clone)} copied this volume as ${cloneName}${ref ? ` for ${claimRefKey(ref)}` : ''}, and this original is not bound (${original.status?.phase ?? 'no phase'}, ${policy}): compare the two, then delete the original or bind it again.`,
        {
          restore: restoreName(clone),
          clone: cloneName,
          original: originalName,
          phase: original.status?.phase ?? null,
          persistentVolumeReclaimPolicy: policy,
          'clone.spec.claimRef': ref ? claimRefKey(ref) : null,
        },
        `kubectl describe pv ${originalName} ${cloneName}`,
      ),
    ]
  }
}
