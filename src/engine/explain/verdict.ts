// The verdict on a claim: syncClaim's decision path, walked without writing anything.
//
// Each branch below is a branch of syncClaim / syncUnboundClaim / syncBoundClaim / provisionClaim
// (pv-controller.ts), in the same order and with the same tests, and every question with an answer in
// the controller (which volume the index picks, whether the class delays binding, which plugin
// provisions, which pods are unscheduled) is asked of the controller itself (explain-controller.ts). The
// agreement test (test/engine/explain.test.ts) runs one sync of every conformance claim and checks that
// the verdict predicted what the sync did.
import {AnnBindCompleted, AnnSelectedNode} from '../api/constants.js'
import type {ControllerQueries} from './controller-queries.js'
import type {ClaimTurn} from './pass.js'
import type {ClassSelection, StorageClassInPlay, Verdict} from './model.js'
import type {MatchingPath} from './candidates.js'
import type {ClusterLookup} from './lookup.js'
import {
  claimKey,
  type ClusterState,
  type ObjectReference,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type StorageClass,
} from '../api/model.js'
import type {NodeInfo} from '../api/node-affinity.js'
import {checkVolumeSatisfyClaim, getProvisionedVolumeNameForClaim} from '../controller/pv-controller.js'
import {
  deepCopy,
  getDefaultClass,
  getPersistentVolumeClaimClass,
  hasAnnotation,
  isDelayBindingProvisioning,
  isPodTerminated,
  isVolumeBoundToClaim,
  persistentVolumeClaimHasClass,
} from '../api/storage-helpers.js'

/** How a WillBind/Bound volume comes to be the claim's. */
export type BindingRoute =
  /** The smallest matching volume of the index. */
  | 'match'
  /** A volume pre-bound to the claim (its claimRef names it), found by the index. */
  | 'prebound'
  /** The volume the claim names in spec.volumeName, free and fitting. */
  | 'requested'
  /** The claim names the volume and the volume names the claim: the binding is finished. */
  | 'finish'
  /** A bound claim's volume lost its claimRef: it is bound again. */
  | 'rebind'
  /** Claim and volume point at each other: status and annotations are completed (or already are). */
  | 'complete'

export interface Decision {
  verdict: Verdict
  /** The volume the claim is or will be bound to (Bound, WillBind), or the one it names. */
  volume: PersistentVolume | undefined
  route: BindingRoute | undefined
  /** How candidates are matched against the claim. */
  path: MatchingPath
  storageClass: StorageClassInPlay
  /** The claim as the deciding sync sees it: with the default class when the next sync assigns one. */
  claim: PersistentVolumeClaim
  provisioner: string | null
  /** The in-tree plugin that provisions (WillProvision). */
  plugin: string | null
  /** WillProvision: the volume that already exists under the name the plugin would give it. */
  alreadyProvisioned: string | null
  /** The controller's own error or event text. */
  error: string | null
  /** Pods WaitForPodScheduled waits for. */
  unscheduledPods: string[]
  /**
   * Decided as a claim of a pass (a List): the volume the claim would get were it synced alone, which the
   * sync of an earlier claim (namespace/name) of the pass binds first. Null otherwise.
   */
  takenFirst: {volume: string; by: string} | null
}

/** The volume of a decision whose verdict names one (Bound, WillBind, RequestedVolume*, Misbound): decided with it. */
export function decidedVolume(d: Decision): PersistentVolume {
  if (d.volume === undefined) throw new Error(`invariant: a ${d.verdict} decision without its volume`)
  return d.volume
}

/** The claimRef of a volume found with one (bound elsewhere, misbound, released by its claim): its absence is a bug. */
export function boundClaimRef(volume: PersistentVolume): ObjectReference {
  const ref = volume.spec.claimRef
  if (ref == null)
    throw new Error(`invariant: volume ${volume.metadata.name ?? ''} was found bound and has no claimRef`)
  return ref
}

/**
 * syncClaim: split by whether binding ever completed. With a `turn`, the sync of the claim in a pass, after
 * the syncs of the claims before it (explain-pass.ts); without, its sync on the state as it is.
 */
export function decideClaim(
  q: ControllerQueries,
  state: ClusterState,
  claim: PersistentVolumeClaim,
  turn?: ClaimTurn,
): Decision {
  if (!hasAnnotation(claim.metadata, AnnBindCompleted)) {
    return decideUnboundClaim(q, state, claim, turn)
  } else {
    return decideBoundClaim(q, state, claim, turn)
  }
}

/** syncUnboundClaim */
function decideUnboundClaim(
  q: ControllerQueries,
  state: ClusterState,
  claim: PersistentVolumeClaim,
  turn: ClaimTurn | undefined,
  assigned?: StorageClass,
): Decision {
  const base = baseDecision(q, claim, assigned)
  if ((claim.spec.volumeName ?? '') === '') {
    // [Unit test set 1] The user did not care which volume they get.
    const delay = q.isDelayBindingMode(claim)
    const path: MatchingPath = {
      kind: 'index',
      claimClass: getPersistentVolumeClaimClass(claim),
      delayBinding: delay.value ?? false,
      node: nodeOfInterest(q, state, claim),
    }
    if (delay.error !== undefined) {
      return decided(base, path, 'SyncError', {error: delay.error})
    } else {
      // The class's binding mode is known.
    }
    const match = q.findBestMatchForClaim(claim, delay.value)
    let found = match.value
    const foundName = found?.metadata.name ?? ''
    const takenBy = found === undefined ? undefined : turn?.takenBy(foundName, assigned !== undefined)
    if (takenBy !== undefined) {
      // An earlier claim of the pass binds it first: the claim gets what its own sync in the pass binds.
      base.takenFirst = {volume: foundName, by: takenBy}
      found = turn?.bestMatch(assigned !== undefined)
    } else {
      // Alone, or still free at its turn: fewer volumes left never make another one the best.
    }
    if (match.error !== undefined) {
      return decided(base, path, 'SyncError', {
        error: `error finding PV for claim "${claimKey(claim)}": ${match.error}`,
      })
    } else if (found !== undefined) {
      // Found a volume: the next sync binds it.
      const route: BindingRoute = isVolumeBoundToClaim(found, claim) ? 'prebound' : 'match'
      return decided(base, path, 'WillBind', {volume: found, route})
    } else {
      // No volume: assignDefaultStorageClass, then delayed binding, provisioning or FailedBinding.
    }
    if (assigned === undefined && !persistentVolumeClaimHasClass(claim)) {
      const defaultClass = getDefaultClass(state.classes)
      if (defaultClass !== undefined) {
        // The next sync only writes the class; the one after decides again with it.
        const withClass = deepCopy(claim)
        withClass.spec.storageClassName = defaultClass.metadata.name
        const decision = decideUnboundClaim(q, state, withClass, turn, defaultClass)
        if (base.takenFirst !== null) decision.takenFirst = base.takenFirst
        return decision
      } else {
        // No default class: the claim stays without one.
      }
    } else {
      // The claim has a class (or was just given the default one).
    }
    if (delay.value && !isDelayBindingProvisioning(claim)) {
      // The scheduler has not picked a node: no consumer yet, or consumers not scheduled.
      const pods = q.findNonScheduledPodsByPVC(claim)
      return decided(base, path, pods.length > 0 ? 'WaitForPodScheduled' : 'WaitForFirstConsumer', {
        unscheduledPods: pods,
      })
    } else if (getPersistentVolumeClaimClass(claim) !== '') {
      const provisioning = decideProvisioning(q, claim)
      return decided(base, path, provisioning.verdict, provisioning)
    } else {
      return decided(base, path, 'NoMatchingVolume', {
        error: 'no persistent volumes available for this claim and no storage class is set',
      })
    }
  } else {
    // [Unit test set 2] The user asked for a specific volume.
    return decideRequestedVolume(q, claim, turn, base)
  }
}

/** syncUnboundClaim, [Unit test set 2]: the claim names the volume it wants in spec.volumeName. */
function decideRequestedVolume(
  q: ControllerQueries,
  claim: PersistentVolumeClaim,
  turn: ClaimTurn | undefined,
  base: DecisionBase,
): Decision {
  const volumeName = claim.spec.volumeName ?? ''
  const path: MatchingPath = {kind: 'requested', volumeName}
  const volume = volumeAtTurn(q, turn, volumeName, base)
  if (volume === undefined) {
    return decided(base, path, 'RequestedVolumeNotFound')
  } else if (volume.spec.claimRef == null) {
    const mismatch = checkVolumeSatisfyClaim(volume, claim, q.gates)
    if (mismatch !== undefined) {
      return decided(base, path, 'RequestedVolumeMismatch', {
        volume,
        error: `Cannot bind to requested volume "${volumeName}": ${mismatch}`,
      })
    } else {
      return decided(base, path, 'WillBind', {volume, route: 'requested'})
    }
  } else if (isVolumeBoundToClaim(volume, claim)) {
    // The volume points at the claim already: bind() finishes the job (or there is nothing left to do).
    return decided(base, path, isSettled(volume, claim) ? 'Bound' : 'WillBind', {volume, route: 'finish'})
  } else {
    return decided(base, path, 'RequestedVolumeBoundElsewhere', {
      volume,
      error: `volume "${volumeName}" already bound to a different claim.`,
    })
  }
}

/** syncBoundClaim: [Unit test set 3] */
function decideBoundClaim(
  q: ControllerQueries,
  state: ClusterState,
  claim: PersistentVolumeClaim,
  turn: ClaimTurn | undefined,
): Decision {
  const base = baseDecision(q, claim, undefined)
  const volumeName = claim.spec.volumeName ?? ''
  const path: MatchingPath = {kind: 'bound', volumeName}
  if (volumeName === '') {
    return decided(base, path, 'Lost', {
      error: 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!',
    })
  }
  const volume = volumeAtTurn(q, turn, volumeName, base)
  if (volume === undefined) {
    return decided(base, path, 'Lost', {
      error: 'Bound claim has lost its PersistentVolume. Data on the volume is lost!',
    })
  } else if (volume.spec.claimRef == null) {
    // The volume came unbound (or the cache is behind): the controller binds it again.
    return decided(base, path, 'WillBind', {volume, route: 'rebind'})
  } else if ((volume.spec.claimRef.uid ?? '') === (claim.metadata.uid ?? '')) {
    return decided(base, path, isSettled(volume, claim) ? 'Bound' : 'WillBind', {volume, route: 'complete'})
  } else {
    return decided(base, path, 'Misbound', {
      volume,
      error: 'Two claims are bound to the same volume, this one is bound incorrectly',
    })
  }
}

/** provisionClaim → findProvisionablePlugin → provisionClaimOperation[External], up to the plugin call. */
function decideProvisioning(q: ControllerQueries, claim: PersistentVolumeClaim): Provisioning {
  if (!q.enableDynamicProvisioning) {
    return provisioningOf('ProvisioningNotSupported', {error: 'dynamic provisioning is disabled in the controller'})
  } else {
    // Provisioning enabled.
  }
  const found = q.findProvisionablePlugin(claim)
  const provisioner = found.storageClass?.provisioner ?? null
  if (found.error !== undefined) {
    const verdict: Verdict = found.storageClass === undefined ? 'StorageClassNotFound' : 'ProvisioningNotSupported'
    return provisioningOf(verdict, {provisioner, error: found.error})
  } else if (found.plugin === undefined) {
    // An external provisioner; a migrated in-tree one is waited for under its CSI driver's name.
    const name = provisioner ?? ''
    if (q.migration.isMigrationEnabledForPlugin(name)) {
      const csiName = q.migration.getCSINameFromInTreeName(name)
      if (csiName === undefined) {
        return provisioningOf('ProvisioningNotSupported', {
          provisioner,
          error: `error getting CSI name for In tree plugin ${name}: could not find CSI Driver name for plugin ${name}`,
        })
      } else {
        return provisioningOf('ExternalProvisioning', {provisioner: csiName})
      }
    } else {
      return provisioningOf('ExternalProvisioning', {provisioner})
    }
  } else {
    const plugin = found.plugin.name
    if (plugin !== 'kubernetes.io/csi' && claim.spec.dataSource != null) {
      return provisioningOf('ProvisioningNotSupported', {
        provisioner,
        plugin,
        error: `plugin "${plugin}" is not a CSI plugin. Only CSI plugin can provision a claim with a datasource`,
      })
    }
    const pvName = getProvisionedVolumeNameForClaim(claim)
    if (q.volume(pvName) !== undefined) {
      // A previous provisioning finished: the controller waits for that volume to bind.
      return provisioningOf('WillProvision', {provisioner, plugin, alreadyProvisioned: pvName})
    }
    const mountOptions = found.storageClass.mountOptions ?? []
    if (!found.plugin.supportsMountOption && mountOptions.length > 0) {
      return provisioningOf('ProvisioningNotSupported', {
        provisioner,
        plugin,
        error: `Mount options are not supported by the provisioner but StorageClass "${found.storageClass.metadata.name}" has mount options [${mountOptions.join(' ')}]`,
      })
    }
    if (found.plugin.newProvisionerError !== undefined) {
      return provisioningOf('ProvisioningNotSupported', {
        provisioner,
        plugin,
        error: `Failed to create provisioner: ${found.plugin.newProvisionerError}`,
      })
    }
    return provisioningOf('WillProvision', {provisioner, plugin})
  }
}

/** What provisionClaim decides: a verdict, and the provisioner, plugin, error and existing volume it names. */
type Provisioning = Pick<Decision, 'verdict' | 'provisioner' | 'plugin' | 'error' | 'alreadyProvisioned'>

function provisioningOf(verdict: Verdict, found: Partial<Omit<Provisioning, 'verdict'>> = {}): Provisioning {
  return {
    verdict,
    provisioner: found.provisioner ?? null,
    plugin: found.plugin ?? null,
    error: found.error ?? null,
    alreadyProvisioned: found.alreadyProvisioned ?? null,
  }
}

/** The volume a claim names, as its sync finds it: taken by an earlier claim of the pass (noted in `base`), or as it is. */
function volumeAtTurn(
  q: ControllerQueries,
  turn: ClaimTurn | undefined,
  name: string,
  base: Pick<Decision, 'takenFirst'>,
): PersistentVolume | undefined {
  const taken = turn?.volume(name)
  // Read from the same record as the volume: a volume taken has the claim that took it.
  const by = turn?.takenBy(name)
  if (taken === undefined || by === undefined) return q.volume(name)
  base.takenFirst = {volume: name, by}
  return taken
}

/** The contract's Bound: the claim's phase is Bound and its volume points back at it with its uid. */
function isSettled(volume: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  return (
    claim.status?.phase === 'Bound' &&
    claim.spec.volumeName === volume.metadata.name &&
    (volume.spec.claimRef?.uid ?? '') !== '' &&
    isVolumeBoundToClaim(volume, claim)
  )
}

/** A decision's fields that every verdict has, before the sync's branch sets what it found. */
type DecisionBase = Omit<Decision, 'verdict' | 'path'>

/** What a branch of the sync found, beyond its verdict: the rest of its decision is the base's. */
type Outcome = Partial<
  Pick<Decision, 'volume' | 'route' | 'provisioner' | 'plugin' | 'alreadyProvisioned' | 'error' | 'unscheduledPods'>
>

/**
 * The decision, field by field rather than `{...base, ...outcome}`: V8 makes a spread that adds properties a
 * dictionary-mode object (about 1.3 KB against 0.25 KB), and an audit decides every claim of the cluster.
 */
function decided(base: DecisionBase, path: MatchingPath, verdict: Verdict, outcome: Outcome = {}): Decision {
  return {
    verdict,
    path,
    volume: outcome.volume ?? base.volume,
    route: outcome.route ?? base.route,
    storageClass: base.storageClass,
    claim: base.claim,
    provisioner: outcome.provisioner ?? base.provisioner,
    plugin: outcome.plugin ?? base.plugin,
    alreadyProvisioned: outcome.alreadyProvisioned ?? base.alreadyProvisioned,
    error: outcome.error ?? base.error,
    unscheduledPods: outcome.unscheduledPods ?? base.unscheduledPods,
    takenFirst: base.takenFirst,
  }
}

function baseDecision(
  q: ControllerQueries,
  claim: PersistentVolumeClaim,
  assigned: StorageClass | undefined,
): DecisionBase {
  return {
    volume: undefined,
    route: undefined,
    storageClass: classInPlay(q.lookup, claim, assigned),
    claim,
    provisioner: null,
    plugin: null,
    alreadyProvisioned: null,
    error: null,
    unscheduledPods: [],
    takenFirst: null,
  }
}

/** The class the decision is made with, and how it came to be that one. */
export function classInPlay(
  lookup: ClusterLookup,
  claim: PersistentVolumeClaim,
  assigned: StorageClass | undefined,
): StorageClassInPlay {
  const defaults = lookup.defaultClasses()
  const name = assigned?.metadata.name ?? getPersistentVolumeClaimClass(claim)
  const klass = name === '' ? undefined : lookup.classNamed(name)
  let selection: ClassSelection
  if (assigned !== undefined) {
    selection = defaults.length > 1 ? 'NewestDefault' : 'Default'
  } else if (!persistentVolumeClaimHasClass(claim)) {
    selection = 'Unset'
  } else if (name === '') {
    selection = 'NoClass'
  } else if (klass === undefined) {
    selection = 'Missing'
  } else {
    selection = 'Explicit'
  }
  return {
    name,
    selection,
    exists: klass !== undefined,
    provisioner: klass?.provisioner ?? null,
    volumeBindingMode: klass?.volumeBindingMode ?? null,
    defaultClasses: defaults.map((c) => c.metadata.name ?? ''),
    assignedByNextSync: assigned !== undefined,
  }
}

/** The node a delayed binding is heading for: the scheduler's choice, else the node of a scheduled pod. */
function nodeOfInterest(q: ControllerQueries, state: ClusterState, claim: PersistentVolumeClaim): NodeInfo | undefined {
  let name = claim.metadata.annotations?.[AnnSelectedNode]
  if (name === undefined) {
    const key = claimKey(claim)
    const pod = q.lookup.podsUsing(key).find((p) => (p.spec?.nodeName ?? '') !== '' && !isPodTerminated(p))
    name = pod?.spec?.nodeName
  }
  if (name === undefined) return undefined
  const node = q.lookup.nodeNamed(name)
  // Without the Node object its labels are unknown, and node affinity cannot be judged.
  return node === undefined ? undefined : {name, labels: node.metadata.labels}
}
