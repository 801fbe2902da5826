// What every door of the destruction guard answers: done, or refused with the objects as read again.
import type {PersistentVolume, PersistentVolumeClaim} from '../../engine/api/model.js'

/** The guard found the picture stale: the objects as the API server has them now, and why it stopped. */
export interface Refusal {
  refused: string
  /** The volume as read now (undefined: it is gone). */
  volume?: PersistentVolume
  volumeGone?: boolean
  /** The volume's claim as read now, when it exists. */
  claim?: PersistentVolumeClaim
}

export type Guarded<T> = {done: T} | Refusal

export function isRefusal<T>(r: Guarded<T>): r is Refusal {
  return 'refused' in r
}
