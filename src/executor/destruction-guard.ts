// The one door every destructive write on a live cluster goes through: a volume written Released, a
// recycler or cleanup pod started, a PV object deleted, a volume given to another claim. Before each, the
// guard re-reads from the API server what the decision rests on. Its concepts, a file each, in guard/:
//   re-reads.ts         the controller's own double-checks before a release, a recycle, a delete
//                       (DestructionGuard), and pvctl's stricter ones
//   guarded-repairs.ts  reclaim's and relink's writes, decided again on the objects read again
//   refusal.ts          what every door answers: done, or refused with the fresh objects
// How much a run may release at once (ReleaseBudget, the mass-release guard) is pure arithmetic over the
// plan, the engine's: engine/simulation/release-budget.ts.
//
// test/executor/destruction-boundary.test.ts fails if a Released write, a plugin's pod, a PV DELETE or a
// reclaim's volume write is issued anywhere else.
export {
  guardedReclaim,
  guardedRelink,
  RECLAIM_ATTEMPTS,
  type ReclaimIo,
  type RelinkIo,
  type RelinkWritten,
  type RepairWritten,
} from './guard/guarded-repairs.js'
export {DestructionGuard} from './guard/re-reads.js'
export {type Guarded, isRefusal, type Refusal} from './guard/refusal.js'
export {
  countBoundVolumes,
  DEFAULT_RELEASE_LIMIT,
  DEFAULT_RELEASE_SHARE,
  MASS_RELEASE_WINDOW_MS,
  massReleaseMessage,
  massReleaseOf,
  ReleaseBudget,
  volumesDestroyedBy,
} from '../engine/simulation/release-budget.js'
