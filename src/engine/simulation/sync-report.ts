// The SyncReport document of docs/output-contract.md (`pvctl sync -o json|yaml`).
import type {DecidedVersion} from '../api/kube-version.js'
import type {PersistentVolume, PersistentVolumeClaim} from '../api/model.js'
import type {Action, PlannedEvent, SyncError} from './plan.js'

export const API_VERSION = 'pvctl/v1alpha1'

export interface SyncSummary {
  binds: number
  releases: number
  recycles: number
  deletions: number
  provisions: number
  lostClaims: number
  phaseChanges: number
  writes: number
}

export interface SyncReport {
  apiVersion: typeof API_VERSION
  kind: 'SyncReport'
  /** The Kubernetes release the plan was decided as, and where pvctl learned it. */
  kubernetesVersion: DecidedVersion
  dryRun: boolean
  rounds: number
  converged: boolean
  actions: Action[]
  events: PlannedEvent[]
  errors: SyncError[]
  summary: SyncSummary
  /** The state after the plan of every PV and PVC in scope, sorted by kind, namespace, name. */
  objects: Array<PersistentVolume | PersistentVolumeClaim>
  /** The same objects before the plan (not printed in JSON; the diff renderer needs them). */
  before?: Array<PersistentVolume | PersistentVolumeClaim>
}
