// What differs between a volume as read and as read again, of what a destructive decision rests on.
import {claimRefKey, type PersistentVolume} from '../../engine/api/model.js'

/** Whether the fresh volume is another object than the one read (re-created under its name). */
export function changedObject(read: PersistentVolume, fresh: PersistentVolume): string | undefined {
  return (fresh.metadata.uid ?? '') === (read.metadata.uid ?? '')
    ? undefined
    : `it was re-created (uid ${fresh.metadata.uid ?? '<none>'}, read as ${read.metadata.uid ?? '<none>'})`
}

/**
 * What differs between the volume as read and as read again, of what a decision on it rests on (the
 * object, its phase, its claimRef, its reclaim policy); undefined when nothing does.
 */
export function changedSinceRead(read: PersistentVolume, fresh: PersistentVolume): string | undefined {
  const was = read.spec.claimRef
  const now = fresh.spec.claimRef
  const refText = (r: NonNullable<typeof now>) => `${claimRefKey(r)} (uid ${r.uid || '<none>'})`
  const recreated = changedObject(read, fresh)
  if (recreated !== undefined) {
    return recreated
  } else if ((fresh.status?.phase ?? '') !== (read.status?.phase ?? '')) {
    return `its phase is ${fresh.status?.phase ?? '<none>'} (read as ${read.status?.phase ?? '<none>'})`
  } else if (was != null && now == null) {
    return 'its claimRef was removed'
  } else if (
    now != null &&
    (was == null || claimRefKey(now) !== claimRefKey(was) || (now.uid ?? '') !== (was.uid ?? ''))
  ) {
    return `its claimRef now names ${refText(now)}${was == null ? ' (read without one)' : ''}`
  } else if (fresh.spec.persistentVolumeReclaimPolicy !== read.spec.persistentVolumeReclaimPolicy) {
    return `its reclaim policy is now ${fresh.spec.persistentVolumeReclaimPolicy ?? '<none>'}`
  } else {
    return undefined
  }
}

/** Why a fresh volume needs no reclaim of its storage (it is not Released or Failed), or undefined. */
export function notReleased(fresh: PersistentVolume): string | undefined {
  const phase = fresh.status?.phase
  return phase === 'Released' || phase === 'Failed' ? undefined : `its phase is ${phase ?? '<none>'}`
}
