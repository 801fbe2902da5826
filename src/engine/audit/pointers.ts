// The pointers around a finding's object (pvctl audit -o html's pictures): the claim, the volume and the
// pods, and the arrows between them — claim.spec.volumeName, volume.spec.claimRef (with its uid), the
// pod's volumes — each marked whether it closes. PURE. Read from the state after the plan, as the
// findings are; only for the html renderer: the JSON AuditReport does not carry it.
import {podClaimKeys} from '../api/storage-helpers.js'
import {
  claimKey,
  claimRefKey,
  type ClusterState,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type Pod,
} from '../api/model.js'
import {objectKey, type Finding, type FindingObject} from './findings.js'

export interface PointerNode {
  /** Unique in its picture: `pvc/NS/NAME`, `pv/NAME`, `pod/NS/NAME`. */
  id: string
  kind: 'PersistentVolumeClaim' | 'PersistentVolume' | 'Pod'
  namespace?: string
  name: string
  uid?: string
  phase?: string
  /** A pod's spec.nodeName: where it is scheduled (absent: not yet). */
  nodeName?: string
  /** false: named by a pointer but not in the cluster (a deleted claim, a volume gone). */
  exists: boolean
}

/**
 * `ok`: the pointer and the one back agree; `broken`: its target is missing, holds another uid, or points
 * elsewhere; `unset`: the field is empty (a claim no volume was chosen for).
 */
export type ArrowState = 'ok' | 'broken' | 'unset'

export interface PointerArrow {
  from: string
  to: string
  /** The field the arrow is: spec.volumeName, spec.claimRef, spec.volumes. */
  field: 'spec.volumeName' | 'spec.claimRef' | 'spec.volumes'
  /** The field's value as read: the volume's name, `NS/NAME uid UID` of a claimRef. */
  label: string
  state: ArrowState
  /** Why it does not close (broken and unset arrows). */
  why?: string
}

export interface PointerPicture {
  object: FindingObject
  nodes: PointerNode[]
  arrows: PointerArrow[]
}

/** The node standing for "no volume" at the end of an empty spec.volumeName. */
export const NO_VOLUME_ID = 'pv/'

/**
 * One picture per claim or volume with a finding (classes and clusters have no pointers), keyed by
 * objectKey, in the findings' order.
 */
export function pointerPictures(
  state: Pick<ClusterState, 'claims' | 'volumes' | 'pods'>,
  findings: readonly Finding[],
): Map<string, PointerPicture> {
  const world = indexed(state)
  const pictures = new Map<string, PointerPicture>()
  for (const f of findings) {
    const key = objectKey(f.object)
    if (pictures.has(key)) continue
    if (f.object.kind === 'PersistentVolumeClaim') {
      const claim = world.claims.get(`${f.object.namespace ?? ''}/${f.object.name}`)
      if (claim !== undefined) pictures.set(key, claimPicture(f.object, claim, world))
      else {
        // A finding of a claim the state does not hold (never, as judged from it): nothing to draw.
      }
    } else if (f.object.kind === 'PersistentVolume') {
      const volume = world.volumes.get(f.object.name)
      if (volume !== undefined) pictures.set(key, volumePicture(f.object, volume, world))
      else {
        // As for a claim: nothing to draw.
      }
    } else {
      // StorageClass and Cluster findings point at nothing.
    }
  }
  return pictures
}

interface World {
  claims: Map<string, PersistentVolumeClaim>
  volumes: Map<string, PersistentVolume>
  /** Volumes by the claim their claimRef names ("ns/name"). */
  referring: Map<string, PersistentVolume[]>
  /** Pods by the claims they use ("ns/name"). */
  podsOf: Map<string, Pod[]>
}

function indexed(state: Pick<ClusterState, 'claims' | 'volumes' | 'pods'>): World {
  const claims = new Map(state.claims.map((c) => [claimKey(c), c]))
  const volumes = new Map(state.volumes.map((v) => [v.metadata.name ?? '', v]))
  const referring = new Map<string, PersistentVolume[]>()
  for (const v of state.volumes) {
    const ref = v.spec.claimRef
    if (ref != null) pushTo(referring, claimRefKey(ref), v)
    else {
      // A volume no claim holds refers to none.
    }
  }
  const podsOf = new Map<string, Pod[]>()
  for (const p of state.pods) for (const k of podClaimKeys(p)) pushTo(podsOf, k, p)
  return {claims, volumes, referring, podsOf}
}

function pushTo<T>(m: Map<string, T[]>, key: string, value: T): void {
  const list = m.get(key)
  if (list === undefined) m.set(key, [value])
  else list.push(value)
}

class Picture {
  readonly nodes = new Map<string, PointerNode>()
  readonly arrows: PointerArrow[] = []
  constructor(private readonly world: World) {}

  claim(namespace: string, name: string): string {
    const id = `pvc/${namespace}/${name}`
    if (!this.nodes.has(id)) {
      const c = this.world.claims.get(`${namespace}/${name}`)
      this.nodes.set(id, {
        id,
        kind: 'PersistentVolumeClaim',
        namespace,
        name,
        exists: c !== undefined,
        ...(c?.metadata.uid !== undefined ? {uid: c.metadata.uid} : {}),
        ...(c?.status?.phase !== undefined ? {phase: c.status.phase} : {}),
      })
    } else {
      // Drawn once, however many arrows reach it.
    }
    return id
  }

  volume(name: string): string {
    const id = `pv/${name}`
    if (!this.nodes.has(id)) {
      const v = this.world.volumes.get(name)
      this.nodes.set(id, {
        id,
        kind: 'PersistentVolume',
        name,
        exists: v !== undefined && name !== '',
        ...(v?.metadata.uid !== undefined ? {uid: v.metadata.uid} : {}),
        ...(v?.status?.phase !== undefined ? {phase: v.status.phase} : {}),
      })
    } else {
      // As for a claim.
    }
    return id
  }

  /** The claim's pods, each with its arrow to the claim. */
  pods(namespace: string, name: string, claimId: string): void {
    for (const pod of this.world.podsOf.get(`${namespace}/${name}`) ?? []) {
      const podName = pod.metadata.name ?? ''
      const id = `pod/${namespace}/${podName}`
      if (this.nodes.has(id)) continue
      const phase = pod.status?.phase
      const nodeName = pod.spec?.nodeName
      this.nodes.set(id, {
        id,
        kind: 'Pod',
        namespace,
        name: podName,
        exists: true,
        ...(phase !== undefined ? {phase} : {}),
        ...(nodeName !== undefined && nodeName !== '' ? {nodeName} : {}),
      })
      // claimId is a node already: the claim's (see claimPicture).
      const claimExists = this.nodes.get(claimId)?.exists === true
      this.arrows.push({
        from: id,
        to: claimId,
        field: 'spec.volumes',
        label: name,
        state: claimExists ? 'ok' : 'broken',
        ...(claimExists ? {} : {why: 'the claim does not exist'}),
      })
    }
  }

  /** volume.spec.claimRef, and whether it holds the claim it names (name and uid). */
  claimRef(volume: PersistentVolume): void {
    const ref = volume.spec.claimRef
    if (ref == null) return
    const from = this.volume(volume.metadata.name ?? '')
    const to = this.claim(ref.namespace ?? '', ref.name ?? '')
    const claim = this.world.claims.get(claimRefKey(ref))
    const uid = ref.uid ?? ''
    const label = `${claimRefKey(ref)}${uid !== '' ? ` uid ${uid}` : ''}`
    const why =
      claim === undefined
        ? uid === ''
          ? 'pre-bound to a claim that does not exist'
          : 'the claim it names does not exist'
        : uid !== '' && uid !== (claim.metadata.uid ?? '')
          ? `uid ${uid} is not the claim's (${claim.metadata.uid ?? 'none'})`
          : undefined
    this.arrows.push({
      from,
      to,
      field: 'spec.claimRef',
      label,
      state: why === undefined ? 'ok' : 'broken',
      ...(why !== undefined ? {why} : {}),
    })
  }

  /** claim.spec.volumeName, and whether the volume it names holds this claim. */
  volumeName(claim: PersistentVolumeClaim): string | undefined {
    const from = this.claim(claim.metadata.namespace ?? '', claim.metadata.name ?? '')
    const name = claim.spec.volumeName ?? ''
    if (name === '') {
      this.nodes.set(NO_VOLUME_ID, {id: NO_VOLUME_ID, kind: 'PersistentVolume', name: '', exists: false})
      // A Bound or Lost claim had a volume once; a Pending one waits for its first.
      const phase = claim.status?.phase ?? ''
      this.arrows.push({
        from,
        to: NO_VOLUME_ID,
        field: 'spec.volumeName',
        label: '',
        state: 'unset',
        why: phase === 'Pending' || phase === '' ? 'no volume chosen yet' : 'spec.volumeName is empty',
      })
      return undefined
    }
    const to = this.volume(name)
    const volume = this.world.volumes.get(name)
    const ref = volume?.spec.claimRef
    const why =
      volume === undefined
        ? 'the volume does not exist'
        : ref == null
          ? 'the volume has no claimRef back'
          : claimRefKey(ref) !== claimKey(claim)
            ? `the volume's claimRef names ${claimRefKey(ref)}`
            : (ref.uid ?? '') !== '' && ref.uid !== claim.metadata.uid
              ? "the volume's claimRef holds another uid"
              : undefined
    this.arrows.push({
      from,
      to,
      field: 'spec.volumeName',
      label: name,
      state: why === undefined ? 'ok' : 'broken',
      ...(why !== undefined ? {why} : {}),
    })
    return volume !== undefined ? name : undefined
  }

  done(object: FindingObject): PointerPicture {
    return {object, nodes: [...this.nodes.values()], arrows: this.arrows}
  }
}

/** The claim, the volume it names and that volume's claimRef, the other volumes naming the claim, its pods. */
function claimPicture(object: FindingObject, claim: PersistentVolumeClaim, world: World): PointerPicture {
  const p = new Picture(world)
  const namespace = claim.metadata.namespace ?? ''
  const name = claim.metadata.name ?? ''
  const claimId = p.claim(namespace, name)
  const named = p.volumeName(claim)
  // volumeName answers a name only when that volume exists.
  const volume = named === undefined ? undefined : world.volumes.get(named)
  if (volume !== undefined) p.claimRef(volume)
  else {
    // No volume (or a missing one): no claimRef to follow from it.
  }
  for (const v of world.referring.get(claimKey(claim)) ?? []) if (v.metadata.name !== named) p.claimRef(v)
  p.pods(namespace, name, claimId)
  return p.done(object)
}

/** The volume, the claim its claimRef names, that claim's spec.volumeName and its pods. */
function volumePicture(object: FindingObject, volume: PersistentVolume, world: World): PointerPicture {
  const p = new Picture(world)
  p.volume(volume.metadata.name ?? '')
  const ref = volume.spec.claimRef
  p.claimRef(volume)
  const claim = ref != null ? world.claims.get(claimRefKey(ref)) : undefined
  if (claim !== undefined) {
    const named = claim.spec.volumeName ?? ''
    if (named !== '') p.volumeName(claim)
    else {
      // The claim names no volume yet (pre-bound, not bound): only the claimRef is drawn.
    }
    p.pods(
      claim.metadata.namespace ?? '',
      claim.metadata.name ?? '',
      p.claim(claim.metadata.namespace ?? '', claim.metadata.name ?? ''),
    )
  } else {
    // No claimRef, or a claim that is gone (the claimRef arrow says so): nothing more to follow.
  }
  return p.done(object)
}
