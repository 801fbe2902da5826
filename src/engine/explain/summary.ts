// The one sentence of a claim explanation: what happens next and, when nothing good does, why. Written
// for the person who has to act on it: the volume, the class, the pod or the provisioner by name.
import {boundClaimRef, type Decision, decidedVolume} from './verdict.js'
import type {Candidate, ControllerLiveness, StorageClassInPlay} from './model.js'
import {humanDuration} from './evidence.js'
import {SILENCE_SECONDS} from './liveness.js'
import {claimKey, claimRefKey, type PersistentVolume, type PersistentVolumeClaim} from '../api/model.js'
import {AnnSelectedNode, NotSupportedProvisioner} from '../api/constants.js'
import {getPersistentVolumeClass} from '../api/storage-helpers.js'
import {writtenBy} from './origins.js'

/** What is known about the wait for an external provisioner (explain-liveness.ts). */
export interface ProvisionerWait {
  liveness: ControllerLiveness | null
  /** Since the claim was created, by the evidence's clock. */
  claimAgeSeconds: number | null
}

/** `eligible`: how many candidates are eligible, when `candidates` holds only the nearest of them. */
export function summarizeClaim(
  d: Decision,
  claim: PersistentVolumeClaim,
  candidates: readonly Candidate[],
  wait: ProvisionerWait = {liveness: null, claimAgeSeconds: null},
  eligible = candidates.filter((c) => c.eligible).length,
): string {
  const sentence = nextSync(d, claim, candidates, wait, eligible)
  if (d.takenFirst === null) return sentence
  // A claim of a pass that loses the volume it would get alone: say where that one goes.
  return `${sentence.replace(/\.$/, '')}; ${d.takenFirst.volume}, which it would get alone, goes to ${d.takenFirst.by}, synced before it in this pass.`
}

function nextSync(
  d: Decision,
  claim: PersistentVolumeClaim,
  candidates: readonly Candidate[],
  wait: ProvisionerWait,
  eligible: number,
): string {
  const cls = d.storageClass
  const className = `'${cls.name}'`
  const volumeName = d.volume?.metadata.name ?? claim.spec.volumeName ?? ''
  const then = afterDefaultClass(cls)

  switch (d.verdict) {
    case 'Bound':
      return `Bound to ${describeVolume(decidedVolume(d))}, which points back at it.`
    case 'WillBind':
      return willBind(d, volumeName, eligible, then)
    case 'NoMatchingVolume':
      if (cls.selection === 'NoClass') {
        return `No volume matches and none will be provisioned: the claim asks for no class (storageClassName: ""), so only an existing volume without a class can bind it.`
      }
      return `No volume matches and none will be provisioned: the claim names no class and the cluster has no default class.`
    case 'ProvisioningNotSupported':
      if (d.provisioner === NotSupportedProvisioner) {
        return then(
          `no volume matches, and class ${className} uses ${NotSupportedProvisioner}: nothing will be provisioned, a matching volume must be created by hand.`,
        )
      }
      return then(`no volume matches and provisioning fails: ${d.error}.`)
    case 'WillProvision':
      if (d.alreadyProvisioned !== null) {
        return then(
          `no volume matches; ${d.alreadyProvisioned} was already provisioned for it by ${d.plugin} but does not match it yet, so the claim waits.`,
        )
      }
      return then(
        `no volume matches: the next sync provisions one with ${d.plugin} (class ${className})${selectedNode(claim)}.`,
      )
    case 'ExternalProvisioning':
      return then(externalProvisioning(d, claim, className, wait))
    case 'StorageClassNotFound':
      return then(`the claim asks for class ${className}, which does not exist, and no volume of that class matches.`)
    case 'WaitForFirstConsumer':
      return then(
        `class ${className} binds on first consumer and no pod uses the claim yet: an expected wait, not a fault; it binds once a pod that uses it is scheduled.`,
      )
    case 'WaitForPodScheduled': {
      const pods = d.unscheduledPods
      return then(
        `class ${className} binds on first consumer: waiting for ${pods.length === 1 ? `pod ${pods[0]}` : `pods ${pods.join(', ')}`} to be scheduled.`,
      )
    }
    case 'RequestedVolumeNotFound':
      return `The claim asks for volume ${volumeName} (spec.volumeName), which does not exist: it stays Pending until that volume is created.`
    case 'RequestedVolumeBoundElsewhere':
      return requestedVolumeBoundElsewhere(d, volumeName)
    case 'RequestedVolumeMismatch': {
      const reasons = candidates.find((c) => c.volume === volumeName)?.reasons.map((r) => r.message) ?? []
      return `The claim asks for volume ${volumeName} (spec.volumeName), which is free but does not fit: ${reasons.join('; ')}.`
    }
    case 'Lost':
      if (volumeName === '') {
        return `The claim was bound and has lost its spec.volumeName: it is Lost for good, the controller never binds it again.`
      }
      return `The claim was bound to ${volumeName}, which no longer exists: it is Lost, and the data went with the volume unless it is restored.`
    case 'Misbound':
      return misbound(decidedVolume(d), claim)
    case 'SyncError':
      return `The controller's sync of ${claimKey(claim)} fails and is retried forever, so the claim stays ${claim.status?.phase ?? 'Pending'}: ${d.error}.`
  }
}

/**
 * The sentence as the claim's next sync says it: where that sync first gives the claim the default class,
 * what follows happens on the sync after that.
 */
function afterDefaultClass(cls: StorageClassInPlay): (s: string) => string {
  const className = `'${cls.name}'`
  const defaultFirst = cls.assignedByNextSync
    ? `The next sync gives the claim the default class ${className}${cls.selection === 'NewestDefault' ? ` (the newest of ${cls.defaultClasses.length} default classes)` : ''}; then `
    : ''
  return (s: string) =>
    defaultFirst === ''
      ? s.charAt(0).toUpperCase() + s.slice(1)
      : defaultFirst + s.replace(/^the next sync/, 'the sync after that')
}

/** WillBind: how the volume comes to be the claim's, by its binding route. */
function willBind(d: Decision, volumeName: string, eligible: number, then: (s: string) => string): string {
  switch (d.route) {
    case 'prebound':
      return (decidedVolume(d).spec.claimRef?.uid ?? '') === ''
        ? then(
            `the next sync binds it to ${describeVolume(decidedVolume(d))}, which is pre-bound to it (spec.claimRef).`,
          )
        : then(
            `the next sync finishes binding it to ${describeVolume(decidedVolume(d))}, which already points at it (a binding the controller started).`,
          )
    case 'requested':
      return `The next sync binds it to ${describeVolume(decidedVolume(d))}, the volume it asks for (spec.volumeName), which is free and fits.`
    case 'finish':
      return `${volumeName} already points at it: the next sync finishes the binding.`
    case 'rebind':
      return `${volumeName} has lost its claimRef: the next sync binds it to the claim again.`
    case 'complete':
      return `Claim and ${volumeName} point at each other: the next sync completes the binding (status and annotations).`
    default: {
      const of = eligible > 1 ? `, the best of ${eligible} matching volumes` : ''
      return then(`the next sync binds it to ${describeVolume(decidedVolume(d))}${of}.`)
    }
  }
}

/** RequestedVolumeBoundElsewhere: a stale claimRef that must go, or a binding that lasts. */
function requestedVolumeBoundElsewhere(d: Decision, volumeName: string): string {
  const volume = decidedVolume(d)
  const ref = claimRefKey(boundClaimRef(volume))
  const phase = volume.status?.phase
  return phase === 'Released' || phase === 'Failed'
    ? `The claim asks for volume ${volumeName} (spec.volumeName), which is ${phase} and still names ${ref}, its old claim: it stays Pending until that stale claimRef goes.`
    : `The claim asks for volume ${volumeName} (spec.volumeName), which is bound to ${ref}: it stays Pending while that binding lasts.`
}

/**
 * Misbound: the volume's claimRef holds another uid than the claim's. It may name another claim, or this
 * claim's namespace and name with an older claim's uid, or with none at all (a manifest re-applied over
 * the volume drops what the controller wrote): each is said as it is, with who wrote it where that shows.
 */
function misbound(volume: PersistentVolume, claim: PersistentVolumeClaim): string {
  const name = volume.metadata.name ?? ''
  const ref = boundClaimRef(volume)
  if (claimRefKey(ref) !== claimKey(claim)) {
    return `The claim says it is bound to ${name}, but ${name} is bound to ${claimRefKey(ref)}: the volume's claimRef wins, so this claim is Lost.`
  } else if ((ref.uid ?? '') === '') {
    const by = writtenBy(volume.metadata, ['spec', 'claimRef'])
    return `${name}'s claimRef names this claim but has lost its uid (${by === undefined ? 'a manifest of the volume re-applied by kubectl apply or a GitOps tool does that' : `last written by ${by}`}): the controller takes the volume for another claim's and this claim for Lost, and never binds them again by itself.`
  } else {
    return `${name}'s claimRef names this claim's namespace and name with the uid of an older claim (${ref.uid}): the controller takes the volume for that claim's and this one for Lost.`
  }
}

/** The WaitForFirstConsumer case "node N selected, provisioner working": where the volume is to be made. */
function selectedNode(claim: PersistentVolumeClaim): string {
  const node = claim.metadata.annotations?.[AnnSelectedNode]
  return node === undefined ? '' : ` on node ${node}, which the scheduler selected`
}

/**
 * Waiting for an external provisioner. With its events visible, "waiting" becomes what it did: it failed
 * on this claim (its last word is a Warning), it is working on it, or nothing named so has acted on the
 * claim since it was created, for longer than an attempt takes (SILENCE_SECONDS).
 */
function externalProvisioning(
  d: Decision,
  claim: PersistentVolumeClaim,
  className: string,
  wait: ProvisionerWait,
): string {
  const where = selectedNode(claim)
  const l = wait.liveness
  const acted = l?.actedOn ?? null
  if (acted !== null && acted.type === 'Warning') {
    return `no volume matches, and the external provisioner '${d.provisioner}' failed to create one${where} (${acted.reason}, ${humanDuration(acted.ageSeconds)} ago): ${acted.message.replace(/\.$/, '')}.`
  } else if (acted !== null) {
    return `no volume matches: the external provisioner '${d.provisioner}' (class ${className}) is working on it${where} (${acted.reason}, ${humanDuration(acted.ageSeconds)} ago).`
  } else if (
    l !== null &&
    l.eventsVisible &&
    wait.claimAgeSeconds !== null &&
    wait.claimAgeSeconds >= SILENCE_SECONDS
  ) {
    const why =
      l.verdict === 'Active'
        ? `yet it runs (${l.summary})`
        : l.verdict === 'NoSignOfLife'
          ? `and nothing shows it running (${l.summary})`
          : `and whether it runs cannot be seen (${l.summary})`
    return `no volume matches, and no controller named '${d.provisioner}' has acted on this claim in the ${humanDuration(wait.claimAgeSeconds)} since it was created${where}, ${why}.`
  } else {
    return `no volume matches: waiting for the external provisioner '${d.provisioner}' (class ${className}) to create one${where}; if none appears, check that it is running.`
  }
}

function describeVolume(volume: PersistentVolume): string {
  return `${volume.metadata.name} (${volume.spec.capacity?.storage ?? 'no capacity'}, class '${getPersistentVolumeClass(volume)}')`
}
