// Is the controller a claim or a volume waits for running? kube-controller-manager hands a claim to an
// external provisioner and a volume's detach to a CSI external-attacher, then waits without knowing
// whether they exist. Three things can show that one runs: a CSIDriver object of its name (installed,
// not proof of life), the Lease its leader election holds, and the events it records. PURE.
import {
  ageSeconds,
  eventSource,
  type ExplainEvidence,
  humanDuration,
  isAbout,
  objectEvent,
  type ObjectKey,
  type CoreEventObject,
  type LeaseObject,
} from './evidence.js'
import type {ControllerLiveness, ObjectEvent} from './model.js'

/** An event within this many seconds counts as recent; a claim waiting longer with none is a silence. */
export const SILENCE_SECONDS = 10 * 60

/**
 * csi-lib-utils leaderelection's sanitizeName: every character but [a-zA-Z0-9-] becomes '-', and a
 * trailing '-' gets an 'X' (a name must not end with '-').
 */
export function sanitizeLeaseName(name: string): string {
  const out = name.replace(/[^a-zA-Z0-9-]/g, '-')
  return out.endsWith('-') ? `${out}X` : out
}

/** external-provisioner's lock name (provisioner with '/' as '-'), then sanitizeName: ebs.csi.aws.com → ebs-csi-aws-com. */
export function provisionerLeaseName(provisioner: string): string {
  return sanitizeLeaseName(provisioner.replaceAll('/', '-'))
}

/** external-attacher's lock name: "external-attacher-leader-" + driver, then sanitizeName. */
export function attacherLeaseName(driver: string): string {
  return sanitizeLeaseName(`external-attacher-leader-${driver}`)
}

/** client-go leader election's view: a holder, renewed within its lease duration. */
export function isLeaseHeld(lease: Pick<LeaseObject, 'spec'>, now: number): boolean {
  const holder = lease.spec?.holderIdentity ?? ''
  const renewed = Date.parse(lease.spec?.renewTime ?? '')
  const seconds = lease.spec?.leaseDurationSeconds ?? 0
  return holder !== '' && Number.isFinite(renewed) && renewed + seconds * 1000 > now
}

/**
 * Whether an event was recorded by this controller. sig-storage-lib-external-provisioner records as
 * "<provisioner>_<host>_<uuid>" (older versions: the provisioner name alone); external-attacher as
 * "csi-attacher <driver>".
 */
function recordedBy(role: ControllerLiveness['role'], name: string): (component: string) => boolean {
  return role === 'provisioner' ? (c) => c === name || c.startsWith(`${name}_`) : (c) => c === `csi-attacher ${name}`
}

export function controllerLiveness(
  evidence: ExplainEvidence,
  role: ControllerLiveness['role'],
  name: string,
  explained: readonly ObjectKey[],
): ControllerLiveness {
  const leaseName = role === 'provisioner' ? provisionerLeaseName(name) : attacherLeaseName(name)
  const driverSeen = csiDriverSighting(evidence, name)
  const leaseSeen = leaseSighting(evidence, leaseName)
  const eventsSeen = eventSighting(evidence, role, name, explained)
  const csiDriver = driverSeen.found
  const lease = leaseSeen.found
  const {lastEvent, actedOn} = eventsSeen.found
  const sightings = [driverSeen, leaseSeen, eventsSeen]
  const facts = sightings.flatMap((s) => (s.fact === undefined ? [] : [s.fact]))
  const unavailable = sightings.flatMap((s) => (s.unavailable === undefined ? [] : [s.unavailable]))

  const recentEvent = lastEvent !== null && lastEvent.ageSeconds !== null && lastEvent.ageSeconds <= SILENCE_SECONDS
  const verdict: ControllerLiveness['verdict'] =
    lease?.held === true || recentEvent
      ? 'Active'
      : evidence.events.observed && evidence.leases.observed
        ? 'NoSignOfLife'
        : 'Unknown'
  // One line per reason: "cannot see csidrivers, leases: forbidden ..." rather than the same reason thrice.
  const byReason = new Map<string, string[]>()
  for (const [kind, reason] of unavailable.map((u) => u.split(/: (.*)/s)))
    byReason.set(reason, [...(byReason.get(reason) ?? []), kind])
  for (const [reason, kinds] of byReason) facts.push(`cannot see ${kinds.join(', ')}: ${reason}`)
  return {
    name,
    role,
    verdict,
    csiDriver,
    leaseName,
    lease,
    eventsVisible: evidence.events.observed,
    lastEvent,
    actedOn,
    unavailable,
    summary: facts.join('; '),
  }
}

/** What one kind of evidence shows of a controller: what it found and the fact that says it, or why it cannot be seen. */
interface Sighting<T> {
  found: T
  fact?: string
  unavailable?: string
}

/** Whether the controller's CSIDriver is installed. */
function csiDriverSighting(evidence: ExplainEvidence, name: string): Sighting<ControllerLiveness['csiDriver']> {
  if (evidence.csiDrivers.observed) {
    const csiDriver = evidence.csiDrivers.items.some((d) => d.metadata.name === name) ? 'Found' : 'NotFound'
    return {found: csiDriver, fact: csiDriver === 'Found' ? `CSIDriver ${name} is installed` : `no CSIDriver ${name}`}
  } else {
    return {found: 'Unknown', unavailable: `csidrivers: ${evidence.csiDrivers.reason}`}
  }
}

/** The controller's leader-election Lease: who holds it, and when it was last renewed. */
function leaseSighting(evidence: ExplainEvidence, leaseName: string): Sighting<ControllerLiveness['lease']> {
  const {now} = evidence
  if (evidence.leases.observed) {
    const found = evidence.leases.items.filter((l) => l.metadata.name === leaseName)
    // Several namespaces may hold one (a copy left behind): the held one, else the latest renewed, tells most.
    const best = found.find((l) => isLeaseHeld(l, now)) ?? found.sort((a, b) => renewedAt(b) - renewedAt(a)).at(0)
    if (best !== undefined) {
      const held = isLeaseHeld(best, now)
      const renewedSecondsAgo = ageSeconds(best.spec?.renewTime, now)
      const lease = {
        namespace: best.metadata.namespace ?? '',
        holder: (best.spec?.holderIdentity ?? '') || null,
        held,
        renewedSecondsAgo,
      }
      const where = `Lease ${lease.namespace}/${leaseName}`
      return {
        found: lease,
        fact: held
          ? `${where} held by ${lease.holder} (renewed ${humanDuration(renewedSecondsAgo)} ago)`
          : `${where} not held (last renewed ${humanDuration(renewedSecondsAgo)} ago)`,
      }
    } else {
      return {found: null, fact: `no Lease ${leaseName}`}
    }
  } else {
    return {found: null, unavailable: `leases: ${evidence.leases.reason}`}
  }
}

/** The controller's last event, and the last one on an object explained. */
function eventSighting(
  evidence: ExplainEvidence,
  role: ControllerLiveness['role'],
  name: string,
  explained: readonly ObjectKey[],
): Sighting<Pick<ControllerLiveness, 'lastEvent' | 'actedOn'>> {
  const {now} = evidence
  if (evidence.events.observed) {
    const mine = recordedBy(role, name)
    const events = evidence.events.items.filter((e) => mine(eventSource(e))).map((e) => ({e, seen: located(e, now)}))
    events.sort((a, b) =>
      b.seen.ageSeconds === null ? -1 : a.seen.ageSeconds === null ? 1 : a.seen.ageSeconds - b.seen.ageSeconds,
    )
    const lastEvent = events.at(0)?.seen ?? null
    const actedOn = events.find(({e}) => explained.some((o) => isAbout(e, o)))?.seen ?? null
    return {
      found: {lastEvent, actedOn},
      fact:
        lastEvent === null
          ? 'no event from it'
          : `its last event: ${lastEvent.reason} on ${lastEvent.object} ${humanDuration(lastEvent.ageSeconds)} ago`,
    }
  } else {
    return {found: {lastEvent: null, actedOn: null}, unavailable: `events: ${evidence.events.reason}`}
  }
}

function renewedAt(l: LeaseObject): number {
  const t = Date.parse(l.spec?.renewTime ?? '')
  return Number.isFinite(t) ? t : Number.NEGATIVE_INFINITY
}

/** kubectl's short names for the kinds these controllers record events on. */
const SHORT_KIND: Readonly<Record<string, string>> = {
  PersistentVolumeClaim: 'pvc',
  PersistentVolume: 'pv',
  VolumeAttachment: 'volumeattachment',
}

function located(e: CoreEventObject, now: number): ObjectEvent & {object: string} {
  const o = e.involvedObject
  const kind = SHORT_KIND[o?.kind ?? ''] ?? (o?.kind ?? '').toLowerCase()
  const namespace = o?.namespace ?? ''
  const object = `${kind}/${namespace !== '' ? `${namespace}/` : ''}${o?.name ?? ''}`
  return {...objectEvent(e, now), object}
}

/** What to do about a controller, from what shows it running; [] when it is working on the object. */
export function livenessAdvice(l: ControllerLiveness, what: string): string[] {
  const sidecar = l.role === 'provisioner' ? 'csi-provisioner' : 'csi-attacher'
  if (l.actedOn !== null && l.actedOn.type === 'Warning') {
    return [
      `fix what '${l.name}' reports on ${what}, and it retries by itself: ${l.actedOn.reason}: ${l.actedOn.message}`,
    ]
  } else if (l.actedOn !== null) {
    return []
  } else if (l.verdict === 'Active' && l.lease?.holder != null) {
    return [
      `'${l.name}' runs but has not acted on ${what}: read its log, e.g. kubectl logs -n ${l.lease.namespace} ${l.lease.holder} -c ${sidecar}`,
    ]
  } else if (l.verdict === 'Active') {
    return [`'${l.name}' runs but has not acted on ${what}: read the log of its ${sidecar} container`]
  } else if (l.verdict === 'NoSignOfLife') {
    return [
      `nothing shows '${l.name}' running (${l.summary}): deploy or restart the CSI driver's controller with its ${sidecar} sidecar`,
    ]
  } else {
    return []
  }
}
