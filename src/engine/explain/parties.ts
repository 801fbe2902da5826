// The parties around the binder, as the state shows them. The PV controller decides alone, but what a claim
// waits for is often another's doing: the scheduler (which writes volume.kubernetes.io/selected-node, and
// never sees a pod that sets spec.nodeName itself), the DefaultStorageClass admission plugin (which writes
// the default class into a claim created without one), a provisioner (which makes a volume for the claim,
// and may make one that cannot serve it). Each note is raised only where the objects show it, and says what
// the controller's verdict leaves unsaid; the verdict stays the controller's. PURE.
import {AnnDynamicallyProvisioned, AnnSelectedNode, NotSupportedProvisioner} from '../api/constants.js'
import {claimKey, type PersistentVolume, type PersistentVolumeClaim, type Pod} from '../api/model.js'
import {checkNodeAffinity, matchNodeSelectorTerms} from '../api/node-affinity.js'
import {deepCopy, getPersistentVolumeClass, isPodTerminated} from '../api/storage-helpers.js'
import {reasonsFor} from './candidates.js'
import type {ControllerQueries} from './controller-queries.js'
import type {PartyNote, Verdict} from './model.js'
import {lastApplied} from './origins.js'
import type {Decision} from './verdict.js'

/** The verdicts a note may be about: a claim that is not bound and will not be by the next sync. */
const NOTED_VERDICTS: ReadonlySet<Verdict> = new Set<Verdict>([
  'WaitForFirstConsumer',
  'WaitForPodScheduled',
  'ExternalProvisioning',
  'WillProvision',
  'ProvisioningNotSupported',
])

/** What the parties around the binder show about the claim decided `d` (none for most claims: Bound ones). */
export function partyNotes(
  q: ControllerQueries,
  claim: PersistentVolumeClaim,
  d: Decision,
  nodesRead: boolean,
): PartyNote[] {
  if (d.verdict === 'Bound' && nodesRead) return volumeNodeConflicts(q, claim, d)
  if (!NOTED_VERDICTS.has(d.verdict)) return []
  return [...schedulerNotes(q, claim, d, nodesRead), ...provisionedUnfit(q, claim, d), ...defaultClassNote(q, claim, d)]
}

/**
 * A claim whose binding waits for its first consumer is bound once the scheduler places a pod using it (it
 * writes selected-node, or binds a fitting volume itself). A pod that names its node (spec.nodeName in its
 * manifest) skips the scheduler: nothing ever writes selected-node, and the claim never binds. A pod the
 * scheduler cannot place says why in its PodScheduled condition. A selected-node naming a node that is gone
 * leaves the provisioner nowhere to create the volume.
 */
function schedulerNotes(
  q: ControllerQueries,
  claim: PersistentVolumeClaim,
  d: Decision,
  nodesRead: boolean,
): PartyNote[] {
  const notes: PartyNote[] = []
  const selected = claim.metadata.annotations?.[AnnSelectedNode]
  const delayed = d.path.kind === 'index' && d.path.delayBinding
  const pods = q.lookup.podsUsing(claimKey(claim)).filter((p) => !isPodTerminated(p))
  if (delayed && selected === undefined) {
    const bypassing = pods.filter((p) => (p.spec?.nodeName ?? '') !== '' && scheduledCondition(p)?.status !== 'True')
    if (bypassing.length > 0) {
      const named = bypassing
        .map((p) => `${p.metadata.name ?? ''} (spec.nodeName ${p.spec?.nodeName ?? ''})`)
        .join(', ')
      notes.push({
        code: 'PodBypassesScheduler',
        party: 'scheduler',
        objects: bypassing.map((p) => `pod/${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}`),
        message: `pod ${named} names its node itself, so the scheduler never places it and never writes ${AnnSelectedNode}: class '${d.storageClass.name}' binds on first consumer, and this claim never binds while the pod bypasses the scheduler`,
      })
    }
    for (const p of pods.filter((x) => (x.spec?.nodeName ?? '') === '')) {
      const c = scheduledCondition(p)
      if (c?.status === 'False' && c.reason === 'Unschedulable') {
        notes.push({
          code: 'PodUnschedulable',
          party: 'scheduler',
          objects: [`pod/${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}`],
          message: `the scheduler cannot place pod ${p.metadata.name ?? ''}: ${(c.message ?? 'Unschedulable').trim().replace(/\.$/, '')}`,
        })
      }
    }
  } else if (selected !== undefined && nodesRead && q.lookup.nodeNamed(selected) === undefined) {
    notes.push({
      code: 'SelectedNodeGone',
      party: 'scheduler',
      objects: [`node/${selected}`],
      message: `the claim's ${AnnSelectedNode} names node ${selected}, which does not exist: the volume is to be made for a node that is gone; an external provisioner removes the annotation so that the scheduler picks again, and the annotation left in place means none did`,
    })
  } else {
    // Not waiting for a consumer, or the scheduler's choice stands on a node that exists (or Nodes were not read).
  }
  return notes
}

/**
 * A Bound claim whose volume only some nodes may mount (its required node affinity, as local and zonal
 * volumes have), used by a pod not yet on a node whose own node selection (nodeSelector, required node
 * affinity) admits none of them: the scheduler's VolumeBinding filter refuses every node ("volume node
 * affinity conflict"), and the pod is never placed. The binding is fine; the pod and the volume disagree.
 */
function volumeNodeConflicts(q: ControllerQueries, claim: PersistentVolumeClaim, d: Decision): PartyNote[] {
  const volume = d.volume
  if (volume == null || (volume.spec.nodeAffinity as {required?: unknown} | undefined)?.required == null) return []
  // Most Bound claims' pods run on a node already: the nodes are read only for one that waits for its node.
  const waiting = q.lookup
    .podsUsing(claimKey(claim))
    .filter((p) => !isPodTerminated(p) && (p.spec?.nodeName ?? '') === '')
  if (waiting.length === 0) return []
  const nodes = q.nodes.map((n) => ({name: n.metadata.name, labels: n.metadata.labels}))
  const mountable = nodes.filter((n) => checkNodeAffinity(volume.spec.nodeAffinity, n) === undefined)
  if (mountable.length === 0) return []
  // A pod whose selection admits no node at all is unschedulable whatever its volume: not this note's.
  return waiting
    .filter((p) => !mountable.some((n) => podAdmits(p, n)) && nodes.some((n) => podAdmits(p, n)))
    .map((p): PartyNote => {
      const selector = Object.entries(nodeSelectorOf(p)).map(([k, v]) => `${k}=${v}`)
      const own = selector.length > 0 ? `nodeSelector ${selector.join(',')}` : 'node affinity'
      return {
        code: 'PodVolumeNodeConflict',
        party: 'scheduler',
        objects: [
          `pod/${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}`,
          ...mountable.map((n) => `node/${n.name ?? ''}`),
        ],
        message: `pod ${p.metadata.name ?? ''} can run on no node its volume ${volume.metadata.name ?? ''} can be mounted on: the volume's node affinity admits ${mountable.map((n) => n.name ?? '').join(', ')}, and the pod's ${own} admits none of them, so the scheduler never places it (volume node affinity conflict)`,
      }
    })
}

/** Whether the pod's own node selection (nodeSelector, then required node affinity) admits the node. */
function podAdmits(pod: Pod, node: {labels?: Record<string, string> | null}): boolean {
  const labels = node.labels ?? {}
  const selector = Object.entries(nodeSelectorOf(pod)).every(([k, v]) => labels[k] === v)
  const affinity = pod.spec?.affinity as
    | {
        nodeAffinity?: {
          requiredDuringSchedulingIgnoredDuringExecution?: {
            nodeSelectorTerms?: Parameters<typeof matchNodeSelectorTerms>[1]
          }
        }
      }
    | undefined
  const terms = affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms
  return selector && (terms == null || matchNodeSelectorTerms({labels}, terms))
}

function nodeSelectorOf(pod: Pod): Record<string, string> {
  return (pod.spec?.nodeSelector as Record<string, string> | null | undefined) ?? {}
}

interface PodCondition {
  type?: string
  status?: string
  reason?: string
  message?: string
}

function scheduledCondition(pod: Pod): PodCondition | undefined {
  const conditions = pod.status?.conditions
  return Array.isArray(conditions) ? (conditions as PodCondition[]).find((c) => c.type === 'PodScheduled') : undefined
}

/**
 * A volume made for this claim (its claimRef names the claim with its uid) that the claim's sync does not
 * take: the provisioner acted, and made a volume that cannot serve the claim (a Filesystem volume for a Block
 * claim, RWO for RWX, smaller than asked). The controller never binds them, and the provisioner makes no
 * other: a volume of the name it gives exists.
 */
function provisionedUnfit(q: ControllerQueries, claim: PersistentVolumeClaim, d: Decision): PartyNote[] {
  if (d.path.kind !== 'index') return []
  return q.lookup
    .volumesClaiming(claimKey(claim))
    .filter((v) => (v.spec.claimRef?.uid ?? '') !== '' && v.spec.claimRef?.uid === claim.metadata.uid)
    .flatMap((v): PartyNote[] => {
      const reasons = reasonsFor(q.lookup, v, d.claim, d.path, q.gates).filter((r) => r.code !== 'VolumeBeingDeleted')
      if (reasons.length === 0) return []
      const by = v.metadata.annotations?.[AnnDynamicallyProvisioned]
      return [
        {
          code: 'ProvisionedVolumeUnfit',
          party: 'provisioner',
          objects: [`pv/${v.metadata.name ?? ''}`],
          message: `${by === undefined ? 'a provisioner' : `the provisioner '${by}'`} made ${v.metadata.name ?? ''} for this claim (its claimRef holds the claim's uid), but it cannot serve the claim: ${reasons.map((r) => r.message).join('; ')}; the controller never binds them, and no other volume is made while it exists`,
        },
      ]
    })
}

/**
 * The claim's class is the cluster's default class, and a volume without a class would bind the claim had it
 * asked for none: a claim created without storageClassName gets the default class written into it by the
 * DefaultStorageClass admission plugin, and is then matched against that class's volumes only. The claim's
 * last applied manifest, where kubectl recorded it, shows whether it named no class.
 */
function defaultClassNote(q: ControllerQueries, claim: PersistentVolumeClaim, d: Decision): PartyNote[] {
  const cls = d.storageClass
  if (cls.selection !== 'Explicit' || !cls.defaultClasses.includes(cls.name) || (claim.spec.volumeName ?? '') !== '')
    return []
  const classless = deepCopy(claim)
  classless.spec.storageClassName = ''
  const applied = lastApplied(claim.metadata, ['spec', 'storageClassName'])
  // The manifest kubectl applied names the class: the user chose it, admission did not write it.
  if (typeof applied === 'string') return []
  const match = q.findBestMatchForClaim(classless, false).value
  if (match === undefined) return []
  const origin =
    applied === null
      ? `the claim's manifest (kubectl's last-applied-configuration) names no class: the DefaultStorageClass admission plugin wrote '${cls.name}', the default, into it`
      : `'${cls.name}' is the cluster's default class, which the DefaultStorageClass admission plugin writes into a claim created without storageClassName`
  return [
    {
      code: 'DefaultClassFromAdmission',
      party: 'admission',
      objects: [`pv/${match.metadata.name ?? ''}`],
      message: `${origin}; ${describe(match)}, a volume without a class, would bind a claim that asks for storageClassName: "", but not this one, which ${cls.provisioner === null || cls.provisioner === NotSupportedProvisioner ? 'waits for a volume of that class' : `gets a new, empty volume from '${cls.provisioner}' instead`}`,
    },
  ]
}

function describe(v: PersistentVolume): string {
  return `${v.metadata.name ?? ''} (${v.spec.capacity?.storage ?? 'no capacity'}${getPersistentVolumeClass(v) === '' ? '' : `, class '${getPersistentVolumeClass(v)}'`})`
}

/** The notes that change what the verdict means: the wait it names never ends. The summary leads with them. */
const DECISIVE: ReadonlySet<PartyNote['code']> = new Set<PartyNote['code']>([
  'PodBypassesScheduler',
  'ProvisionedVolumeUnfit',
  'PodVolumeNodeConflict',
])

/** A note that makes the verdict's own advice wrong (a wait that never ends): it stands in its place. */
export function decisiveNote(notes: readonly PartyNote[]): PartyNote | undefined {
  return notes.find((n) => DECISIVE.has(n.code))
}

/** The summary with the notes: a decisive one in place of the verdict's sentence, the others after it. */
export function withNotes(sentence: string, notes: readonly PartyNote[]): string {
  const decisive = decisiveNote(notes)
  const rest = notes.filter((n) => n !== decisive).map((n) => ` ${capitalize(n.message)}.`)
  return (decisive === undefined ? sentence : `${capitalize(decisive.message)}.`) + rest.join('')
}

/** What to do about each note, in the notes' order: the change that lets the claim bind, and what it costs. */
export function noteSuggestions(notes: readonly PartyNote[], claim: PersistentVolumeClaim, d: Decision): string[] {
  const ns = claim.metadata.namespace ?? ''
  const name = claim.metadata.name ?? ''
  return notes.flatMap((n): string[] => {
    const target = n.objects[0]?.split('/').at(-1) ?? ''
    switch (n.code) {
      case 'PodBypassesScheduler':
        return [
          `let the scheduler place the pod: replace spec.nodeName in pod ${target}'s manifest with a nodeSelector (kubernetes.io/hostname: NODE) or node affinity, and create it again (spec.nodeName cannot be changed; deleting the pod loses no data, the claim never bound): the scheduler writes ${AnnSelectedNode} and the claim binds`,
        ]
      case 'PodUnschedulable':
        // The verdict's own suggestion names the pod to describe.
        return []
      case 'SelectedNodeGone':
        return [
          `remove the stale annotation, and the scheduler picks a node that exists: kubectl annotate pvc ${name} -n ${ns} ${AnnSelectedNode}-`,
        ]
      case 'DefaultClassFromAdmission':
        return [
          `to bind ${target} and its data, create the claim again with storageClassName: "" (the field cannot be changed; deleting this Pending claim loses nothing, it holds no data)`,
          `or give ${target} the class instead: kubectl patch pv ${target} -p '{"spec":{"storageClassName":"${d.storageClass.name}"}}'`,
        ]
      case 'PodVolumeNodeConflict': {
        const where = n.objects
          .slice(1)
          .map((o) => o.split('/').at(-1))
          .join(', ')
        return [
          `let pod ${target} run where its volume is: make its nodeSelector (or node affinity) admit ${where} and create it again (the volume and its data stay; the pod holds none), or move the data to a volume on a node the pod may run on`,
        ]
      }
      case 'ProvisionedVolumeUnfit':
        return [
          `${target} holds no data (it never bound): delete the claim (kubectl delete pvc ${name} -n ${ns}; ${target} then goes by its reclaim policy) and create it again asking for what the provisioner can make, or with a class whose driver can make what it asks`,
        ]
    }
  })
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1)
}
