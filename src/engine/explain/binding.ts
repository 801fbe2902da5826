// The two pointers of a binding and which one the controller believes. A binding is claim.spec.volumeName
// one way and volume.spec.claimRef (namespace, name AND uid) the other; `kubectl get` shows neither uid,
// so "Lost" and "Misbound" look like nonsense until the whole triangle is on one screen.
import {AnnBindCompleted} from '../api/constants.js'
import type {BindingPointers, ClaimRefPointer} from './model.js'
import type {ClusterLookup} from './lookup.js'
import {claimKey, claimRefKey, type ObjectReference, type PersistentVolumeClaim} from '../api/model.js'
import {hasAnnotation} from '../api/storage-helpers.js'

/** The triangle of a claim that names a volume or completed binding once; null for any other claim. */
export function bindingPointers(cluster: ClusterLookup, claim: PersistentVolumeClaim): BindingPointers | null {
  const volumeName = claim.spec.volumeName ?? ''
  const completed = hasAnnotation(claim.metadata, AnnBindCompleted)
  if (volumeName === '' && !completed) return null

  const key = claimKey(claim)
  const uid = claim.metadata.uid ?? ''
  const volume = volumeName === '' ? undefined : cluster.volumeByName(volumeName)
  const ref = volume?.spec.claimRef ?? null
  // A claimRef without uid is a pre-binding, pointing back at a claim not bound yet; for one that completed
  // binding, syncBoundClaim takes it for another claim's.
  const pointsBack = ref != null && claimRefKey(ref) === key && ((ref.uid ?? '') === '' ? !completed : ref.uid === uid)
  const volumesPointingHere = cluster
    .volumesClaiming(key)
    .filter((v) => v.metadata.name !== volumeName)
    .map((v) => ({name: v.metadata.name ?? '', uidMatches: (v.spec.claimRef?.uid ?? '') === uid}))

  let authoritative: BindingPointers['authoritative']
  let explanation: string
  if (volumeName === '') {
    authoritative = 'None'
    explanation =
      'the claim completed binding once and has lost spec.volumeName: Lost is final, the controller never binds it again'
    if (volumesPointingHere.some((v) => v.uidMatches)) {
      explanation += `, even though ${volumesPointingHere
        .filter((v) => v.uidMatches)
        .map((v) => v.name)
        .join(', ')} still points at it`
    }
  } else if (volume === undefined) {
    authoritative = 'None'
    explanation = `the claim points at ${volumeName}, which does not exist: nothing points back`
  } else if (ref == null) {
    authoritative = 'PersistentVolumeClaim'
    explanation = completed
      ? `${volumeName} has no claimRef: the claim's spec.volumeName is believed and the volume is bound to it again`
      : `${volumeName} has no claimRef: the claim's spec.volumeName asks for it, and gets it if it fits`
  } else if (pointsBack) {
    authoritative = 'PersistentVolume'
    explanation = `claim and volume point at each other${(ref.uid ?? '') === '' ? ' (the volume is pre-bound: its claimRef has no uid yet)' : ''}; the volume's claimRef with the claim's uid is the binding`
  } else {
    authoritative = 'PersistentVolume'
    const whose =
      claimRefKey(ref) !== key
        ? ''
        : (ref.uid ?? '') === ''
          ? ' (its claimRef has no uid, which a claim that completed binding never has)'
          : ' (an earlier claim of this name)'
    explanation = `the volume's claimRef wins: ${volumeName} belongs to ${claimRefKey(ref)}${whose}, ${completed ? 'and this claim is misbound' : 'so this claim cannot have it'}`
  }

  return {
    claimUid: uid === '' ? null : uid,
    claimVolumeName: volumeName === '' ? null : volumeName,
    volume:
      volume === undefined && volumeName === ''
        ? null
        : {name: volumeName, exists: volume !== undefined, claimRef: ref == null ? null : pointerOf(ref), pointsBack},
    volumesPointingHere,
    authoritative,
    explanation,
  }
}

export function pointerOf(ref: ObjectReference): ClaimRefPointer {
  const uid = ref.uid ?? ''
  return {namespace: ref.namespace ?? '', name: ref.name ?? '', uid: uid === '' ? null : uid}
}
