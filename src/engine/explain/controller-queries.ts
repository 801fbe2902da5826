// The controller's own answers to the questions `explain` asks. A PersistentVolumeController runs over a
// simulated cluster that nothing writes to, and only its query methods are called (never a sync, never a
// write), so an explanation can follow syncClaim/syncVolume step by step without re-implementing any of
// their decisions: which volume the index picks, whether a class delays binding, which plugin provisions
// or deletes, which pods block a recycle.
import {CSIMigration} from '../controller/csi-migration.js'
import {clusterLookup, type ClusterLookup} from './lookup.js'
import type {ExplainEvidence} from './evidence.js'
import type {FeatureGates} from '../api/feature-gates.js'
import type {ClusterState, PersistentVolume, PersistentVolumeClaim, StorageClass} from '../api/model.js'
import {ControllerError, PersistentVolumeController} from '../controller/pv-controller.js'
import {SimulatedCluster} from '../simulation/simulated-cluster.js'
import {MatchError} from '../matching/volume-index.js'
import {defaultVolumePluginMgr, type VolumePluginMgr} from '../controller/volume-plugins.js'

export interface ExplainOptions {
  gates: FeatureGates
  plugins?: VolumePluginMgr
  /** kube-controller-manager --enable-dynamic-provisioning (default true, as reconcile's). */
  enableDynamicProvisioning?: boolean
  /** Leave out candidates that cannot matter (volumes in use by other claims, volumes not considered). */
  onlyRelevant?: boolean
  /**
   * How many candidates a claim's explanation carries, nearest first (and candidatesTotal with it); 0 or
   * unset: every volume. Summary and suggestions are worked out from all of them either way.
   */
  candidates?: number
  /**
   * How a bounded explanation (`candidates` > 0) finds the nearest: 'grouped' (the default) judges the volumes
   * once per distinct request and shares that among the claims asking it (explain-request-groups.ts);
   * 'per-claim' judges every volume for every claim (rankCandidates), the reference the grouped one is
   * tested against.
   */
  ranking?: 'grouped' | 'per-claim'
  /** Events, CSIDrivers, Leases, VolumeAttachments and the clock; without it they are reported as not read. */
  evidence?: ExplainEvidence
  /**
   * The informer caches of the state, with their matching index, as a plan left them
   * (SimulatedCluster.informerCache): used instead of caching and indexing the state again. They must
   * hold the state explained (test/engine/explain-plan-cache.test.ts).
   */
  cache?: SimulatedCluster
  /**
   * The relink of a claim as `pvctl relink pvc/NAME` decides it on the state explained (engine/repair's
   * relinkWay: explain may not import it): the command(s) to run, with the flags that read the same state,
   * or undefined where relink refuses it. Absent, explain offers no relink.
   */
  relink?: (claim: {namespace: string; name: string}) => string | undefined
}

/** A Go `error` return, as text, or a value. */
export type Answer<T> = {value: T; error?: undefined} | {value?: undefined; error: string}

export type ProvisionablePlugin = ReturnType<PersistentVolumeController['findProvisionablePlugin']>
export type DeletablePlugin = ReturnType<PersistentVolumeController['findDeletablePlugin']>

export class ControllerQueries {
  readonly cluster: SimulatedCluster
  /** The state indexed for candidates (explain-candidates.ts). */
  readonly lookup: ClusterLookup
  readonly plugins: VolumePluginMgr
  readonly migration: CSIMigration
  readonly enableDynamicProvisioning: boolean
  private readonly ctrl: PersistentVolumeController
  /** The Nodes of the state (none: not read), for what a volume's node affinity admits. */
  readonly nodes: ClusterState['nodes']

  constructor(
    state: ClusterState,
    readonly opts: ExplainOptions,
  ) {
    this.nodes = state.nodes
    this.cluster = opts.cache ?? new SimulatedCluster(state)
    this.lookup = clusterLookup(state)
    this.plugins = opts.plugins ?? defaultVolumePluginMgr()
    this.enableDynamicProvisioning = opts.enableDynamicProvisioning ?? true
    this.migration = new CSIMigration(opts.gates)
    this.ctrl = new PersistentVolumeController(this.cluster, {
      gates: opts.gates,
      plugins: this.plugins,
      enableDynamicProvisioning: this.enableDynamicProvisioning,
    })
  }

  get gates(): FeatureGates {
    return this.opts.gates
  }

  /** IsDelayBindingMode; a class without volumeBindingMode is the controller's error. */
  isDelayBindingMode(claim: PersistentVolumeClaim): Answer<boolean> {
    return guard(() => this.ctrl.isDelayBindingMode(claim))
  }

  /** findBestMatchForClaim over the controller's index: the volume syncUnboundClaim would bind. */
  findBestMatchForClaim(claim: PersistentVolumeClaim, delayBinding: boolean): Answer<PersistentVolume | undefined> {
    return guard(() => this.ctrl.volumeIndex().findBestMatchForClaim(claim, delayBinding, this.opts.gates))
  }

  findProvisionablePlugin(claim: PersistentVolumeClaim): ProvisionablePlugin {
    return this.ctrl.findProvisionablePlugin(claim)
  }

  findDeletablePlugin(volume: PersistentVolume): DeletablePlugin {
    return this.ctrl.findDeletablePlugin(volume)
  }

  /** findNonScheduledPodsByPVC: the pods WaitForPodScheduled names. */
  findNonScheduledPodsByPVC(claim: PersistentVolumeClaim): string[] {
    return this.ctrl.findNonScheduledPodsByPVC(claim)
  }

  isVolumeReleased(volume: PersistentVolume): boolean {
    return this.ctrl.isVolumeReleased(volume)
  }

  isVolumeUsed(volume: PersistentVolume): {pods: string[]; used: boolean} {
    return this.ctrl.isVolumeUsed(volume)
  }

  volume(name: string): PersistentVolume | undefined {
    return this.cluster.volumes.get(name)
  }

  claim(key: string): PersistentVolumeClaim | undefined {
    return this.cluster.claims.get(key)
  }

  storageClass(name: string): StorageClass | undefined {
    return this.cluster.classes.get(name)
  }
}

/** The controller's domain errors become answers; anything else is a bug and is thrown. */
function guard<T>(ask: () => T): Answer<T> {
  try {
    return {value: ask()}
  } catch (err) {
    if (err instanceof ControllerError || err instanceof MatchError) return {error: err.message}
    throw err
  }
}
