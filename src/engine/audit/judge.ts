// The judge of `pvctl audit`: the state after the controller's plan, and explain's verdicts on its claims,
// in; findings out. PURE. A claim's finding is read off its ClaimExplanation (the Explainer's verdict), never
// decided again here: audit cannot disagree with `pvctl explain` on a claim.
import type {ClaimExplanationBrief, Verdict} from '../explain/model.js'
import {defaultClassesNewestFirst} from '../explain/verdict.js'
import {IsDefaultStorageClassAnnotation} from '../api/constants.js'
import type {ClusterState, PersistentVolume, PersistentVolumeClaim} from '../api/model.js'
import {FINDING_CODES, type Finding, type FindingCode, type FindingObject} from './findings.js'

export interface AuditInput {
  /** The state after the plan: what the controller is about to fix is fixed here. */
  after: ClusterState
  /** explain's explanation of every claim in scope, on `after` (its candidates are not read). */
  claims: readonly ClaimExplanationBrief[]
  /** The volumes in scope, from `after`. */
  volumes: readonly PersistentVolume[]
  /** Judge the StorageClasses too (not when objects are named: they are about those objects). */
  classes: boolean
  /**
   * The flags that name where the state came from (`-f FILE`, `--context`), for the pvctl commands a fix
   * prints: pasted, they read what the audit read, not another cluster.
   */
  sourceArgs?: readonly string[]
}

/** The claim verdicts that are a finding, with its code; every other verdict is healthy or on its way. */
const CLAIM_VERDICT_CODES: Partial<Record<Verdict, FindingCode>> = {
  Lost: 'ClaimLost',
  Misbound: 'ClaimMisbound',
  SyncError: 'ClaimSyncError',
  NoMatchingVolume: 'ClaimNoMatchingVolume',
  StorageClassNotFound: 'ClaimStorageClassNotFound',
  ProvisioningNotSupported: 'ClaimProvisioningNotSupported',
  RequestedVolumeNotFound: 'ClaimRequestedVolumeNotFound',
  RequestedVolumeBoundElsewhere: 'ClaimRequestedVolumeBoundElsewhere',
  RequestedVolumeMismatch: 'ClaimRequestedVolumeMismatch',
  WaitForFirstConsumer: 'ClaimWaitingForConsumer',
  WaitForPodScheduled: 'ClaimWaitingForScheduling',
}

/** The finding a claim verdict is, or undefined for a healthy (or soon healthy) one. */
export function codeOfVerdict(v: Verdict): FindingCode | undefined {
  return CLAIM_VERDICT_CODES[v]
}

/** The verdict a claim finding code stands for (the agreement test reads it back). */
export function verdictOfCode(code: FindingCode): Verdict | undefined {
  return (Object.keys(CLAIM_VERDICT_CODES) as Verdict[]).find((v) => CLAIM_VERDICT_CODES[v] === code)
}

export function judge(input: AuditInput): Finding[] {
  const source = (input.sourceArgs ?? []).map((a) => ` ${a}`).join('')
  const claims = claimsByName(input.after.claims)
  return [...input.claims.flatMap((e) => judgeClaim(e, source)), ...input.volumes.flatMap((v) => judgeVolume(v, claims)), ...(input.classes ? judgeClasses(input.after) : [])]
}

/** The claims by namespace, then name; of two with one name the first, as a scan finds it. */
function claimsByName(claims: readonly PersistentVolumeClaim[]): ClaimsByName {
  const byName: ClaimsByName = new Map()
  for (const c of claims) {
    const names = byName.get(c.metadata.namespace) ?? new Map<string | undefined, PersistentVolumeClaim>()
    if (!names.has(c.metadata.name)) {
      names.set(c.metadata.name, c)
    } else {
      // A second claim of that name: the first stays.
    }
    byName.set(c.metadata.namespace, names)
  }
  return byName
}

type ClaimsByName = Map<string | undefined, Map<string | undefined, PersistentVolumeClaim>>

function finding(code: FindingCode, object: FindingObject, message: string, evidence: Finding['evidence'], fix: string): Finding {
  return {code, severity: FINDING_CODES[code].severity, object, message, evidence, fix}
}

function judgeClaim(e: ClaimExplanationBrief, source: string): Finding[] {
  const code = CLAIM_VERDICT_CODES[e.verdict]
  if (code === undefined) return []
  const {namespace, name} = e.claim
  const object: FindingObject = {kind: 'PersistentVolumeClaim', namespace, name}
  const explain = `pvctl explain pvc/${name} -n ${namespace}${source}`
  const evidence: Finding['evidence'] = {verdict: e.verdict, phase: e.phase, 'spec.volumeName': e.request.volumeName, storageClass: e.storageClass.name}
  if (e.error !== null) evidence.controllerError = e.error
  const p = e.pointers
  switch (code) {
    case 'ClaimLost': {
      const here = p?.volumesPointingHere ?? []
      const cause = p?.claimVolumeName == null ? 'spec.volumeName is empty' : `volume ${p.claimVolumeName} is gone`
      evidence.cause = p?.claimVolumeName == null ? 'NoVolumeName' : 'VolumeGone'
      evidence.volumesPointingHere = here.map((v) => v.name)
      const survivor = here.length > 0 ? ` Volume ${here[0].name} still points at ${namespace}/${name}: recreate the claim with spec.volumeName: ${here[0].name} to reach its data.` : ''
      return [finding(code, object, `The claim is Lost (${cause}); its pods cannot mount it.${survivor}`, evidence, `kubectl delete pvc ${name} -n ${namespace}`)]
    }
    case 'ClaimMisbound': {
      evidence.volume = p?.volume?.name ?? null
      evidence['volume.spec.claimRef'] = p?.volume?.claimRef ? `${p.volume.claimRef.namespace}/${p.volume.claimRef.name} uid ${p.volume.claimRef.uid ?? '<none>'}` : null
      evidence.claimUid = p?.claimUid ?? null
      return [
        finding(code, object, `Volume ${p?.volume?.name ?? e.request.volumeName} is bound to another claim uid: this claim is Lost; delete it (the volume stays with the other claim).`, evidence, `kubectl delete pvc ${name} -n ${namespace}`),
      ]
    }
    case 'ClaimWaitingForConsumer':
      return [finding(code, object, `The claim waits for a pod that uses it (class ${e.storageClass.name} binds on first consumer); nothing to do unless a pod should exist.`, evidence, explain)]
    case 'ClaimWaitingForScheduling':
      return [finding(code, object, `The claim waits for its pod (${e.pods.map((p) => p.name).join(', ')}) to be scheduled (class ${e.storageClass.name} binds on first consumer); look at the pod if it stays unscheduled.`, evidence, `kubectl get pods -n ${namespace} ${e.pods.map((p) => p.name).join(' ')} -o wide`)]
    default:
      // The Pending verdicts and SyncError: explain's summary says what blocks the claim, its suggestions the way out.
      evidence.suggestions = e.suggestions
      return [finding(code, object, e.summary, evidence, explain)]
  }
}

function judgeVolume(v: PersistentVolume, claims: ClaimsByName): Finding[] {
  const name = v.metadata.name ?? ''
  const object: FindingObject = {kind: 'PersistentVolume', name}
  const phase = v.status?.phase ?? null
  const policy = v.spec.persistentVolumeReclaimPolicy ?? 'Retain'
  const ref = v.spec.claimRef
  const refText = ref ? `${ref.namespace ?? ''}/${ref.name ?? ''}` : null
  const found: Finding[] = []
  if (phase === 'Released' && policy === 'Retain') {
    found.push(
      finding(
        'VolumeReleasedRetained',
        object,
        `Released by ${refText ?? 'its claim'} and kept (Retain): its data stays and nothing will happen; delete the volume, or remove spec.claimRef so a new claim can bind it (the data is kept, not wiped).`,
        {phase, persistentVolumeReclaimPolicy: policy, 'spec.claimRef': refText, capacity: v.spec.capacity?.storage ?? null},
        `kubectl patch pv ${name} --type json -p '[{"op":"remove","path":"/spec/claimRef"}]'`,
      ),
    )
  } else {
    // Released with Recycle or Delete: the plan (or its plugin) carries the reclaim out.
  }
  if (phase === 'Failed') {
    const message = v.status?.message ?? ''
    found.push(finding('VolumeFailed', object, `The volume is Failed${message ? `: ${message}` : ''}; find the cause, then delete it or fix and re-create it.`, {phase, 'status.message': message || null, persistentVolumeReclaimPolicy: policy}, `kubectl describe pv ${name}`))
  } else {
    // Not failed.
  }
  const uid = ref?.uid ?? ''
  if (ref && uid !== '') {
    const claim = claims.get(ref.namespace ?? '')?.get(ref.name ?? '')
    if (claim !== undefined && (claim.metadata.uid ?? '') !== uid) {
      found.push(
        finding(
          'VolumeClaimRefUidMismatch',
          object,
          `spec.claimRef names claim ${refText} with uid ${uid}, but that claim has uid ${claim.metadata.uid ?? '<none>'} (re-created): to give it this volume, drop the uid from the claimRef.`,
          {'spec.claimRef': refText, 'spec.claimRef.uid': uid, claimUid: claim.metadata.uid ?? null, phase},
          `kubectl patch pv ${name} --type json -p '[{"op":"remove","path":"/spec/claimRef/uid"},{"op":"remove","path":"/spec/claimRef/resourceVersion"}]'`,
        ),
      )
    } else {
      // No such claim (the release handles it), or the claim it was bound to.
    }
  } else {
    // No claimRef, or a pre-binding by name.
  }
  return found
}

function judgeClasses(after: ClusterState): Finding[] {
  const defaults = defaultClassesNewestFirst(after.classes)
  if (defaults.length < 2) return []
  const names = defaults.map((c) => c.metadata.name ?? '')
  const [winner, ...others] = names
  return [
    finding(
      'MultipleDefaultStorageClasses',
      {kind: 'StorageClass', name: winner},
      `${names.length} StorageClasses are marked default (${names.join(', ')}): the controller gives claims without a class '${winner}', the newest; unmark the others.`,
      {defaultClasses: names, picked: winner},
      others.map((o) => `kubectl annotate storageclass ${o} ${IsDefaultStorageClassAnnotation}=false --overwrite`).join(' && '),
    ),
  ]
}
