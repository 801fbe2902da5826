// The agreement of an explanation with the engine: run the sync the verdict speaks about (one round of
// the claim alone, two when the next sync only assigns the default class) and check that what the
// controller did is what the verdict said, and the other way round: a claim the sync binds was said to
// be WillBind/Bound to that very volume. Returns the disagreements, empty when there is none.
import type {VolumePluginMgr} from '../../src/engine/controller/volume-plugins.js'
import type {ClaimExplanation} from '../../src/engine/explain/model.js'
import type {FeatureGates} from '../../src/engine/api/feature-gates.js'
import type {ClusterState} from '../../src/engine/api/model.js'
import {reconcile} from '../../src/engine/simulation/reconcile.js'

export function disagreements(
  state: ClusterState,
  e: ClaimExplanation,
  gates: FeatureGates,
  plugins?: VolumePluginMgr,
): string[] {
  const {namespace, name} = e.claim
  const rounds = e.storageClass.assignedByNextSync ? 2 : 1
  const r = reconcile(state, {
    targets: [{kind: 'PersistentVolumeClaim', namespace, name}],
    maxRounds: rounds,
    gates,
    plugins,
  })
  const after = r.claims.find((c) => c.metadata.namespace === namespace && c.metadata.name === name)
  if (after === undefined) return ['the claim disappeared']
  const volume = r.volumes.find((v) => v.metadata.name === after.spec.volumeName)
  const boundTo =
    after.status?.phase === 'Bound' &&
    volume !== undefined &&
    (volume.spec.claimRef?.uid ?? '') === (after.metadata.uid ?? '') &&
    volume.spec.claimRef?.name === name
      ? (after.spec.volumeName ?? null)
      : null
  const events = r.events
    .filter(
      (ev) =>
        ev.object.kind === 'PersistentVolumeClaim' && ev.object.namespace === namespace && ev.object.name === name,
    )
    .map((ev) => ev.reason)
  const failed = r.errors.some(
    (err) =>
      err.object.kind === 'PersistentVolumeClaim' && err.object.namespace === namespace && err.object.name === name,
  )
  const provisioned = r.actions.some((a) => a.action === 'provision' && a.object.name === name)

  const problems: string[] = []
  const expect = (ok: boolean, what: string) => {
    if (!ok)
      problems.push(
        `${e.verdict}: expected ${what}; the sync bound it to ${boundTo ?? 'nothing'}, events [${events.join(', ')}], actions [${r.actions.map((a) => a.action).join(', ')}]${failed ? ', and failed' : ''}`,
      )
  }

  // The other way round: whatever the sync binds was announced.
  if (boundTo !== null)
    expect(
      (e.verdict === 'WillBind' || e.verdict === 'Bound') && e.volume === boundTo,
      `no binding (the explanation says volume ${e.volume ?? 'none'})`,
    )

  switch (e.verdict) {
    case 'Bound':
    case 'WillBind':
      expect(boundTo === e.volume, `a binding to ${e.volume}`)
      break
    case 'NoMatchingVolume':
      expect(events.includes('FailedBinding'), 'a FailedBinding event')
      break
    case 'WaitForFirstConsumer':
    case 'WaitForPodScheduled':
    case 'ExternalProvisioning':
      expect(events.includes(e.verdict), `a ${e.verdict} event`)
      break
    case 'WillProvision':
      expect(provisioned || e.summary.includes('already provisioned'), 'a provision action')
      break
    case 'ProvisioningNotSupported':
    case 'StorageClassNotFound':
      expect(events.includes('ProvisioningFailed'), 'a ProvisioningFailed event')
      break
    case 'RequestedVolumeNotFound':
      expect(boundTo === null && after.status?.phase === 'Pending', 'the claim Pending and unbound')
      break
    case 'RequestedVolumeBoundElsewhere':
      expect(events.includes('FailedBinding'), 'a FailedBinding event')
      break
    case 'RequestedVolumeMismatch':
      expect(events.includes('VolumeMismatch'), 'a VolumeMismatch event')
      break
    case 'Lost':
    case 'Misbound':
      expect(after.status?.phase === 'Lost', 'the claim Lost')
      break
    case 'SyncError':
      expect(failed, 'a sync error')
      break
  }
  return problems
}

/**
 * The agreement of a List (`explain` with no claim named, Explainer.listItem) with the pass it speaks about:
 * one round of reconcile over every claim, in its order, as `sync --dry-run` runs it. A claim the round binds
 * was said to be WillBind/Bound to that very volume, and a WillBind item by the index ('match') is bound to
 * it by the round. Returns the disagreements, empty when there is none.
 */
export function listDisagreements(
  state: ClusterState,
  items: readonly ClaimExplanation[],
  gates: FeatureGates,
  plugins?: VolumePluginMgr,
): string[] {
  const r = reconcile(state, {maxRounds: 1, gates, plugins})
  const boundBy = new Map<string, string>()
  for (const a of r.actions) {
    const key = a.sync.slice('pvc/'.length)
    if (a.action === 'bind-volume' && a.sync.startsWith('pvc/') && !boundBy.has(key)) boundBy.set(key, a.object.name)
  }
  const problems: string[] = []
  const toldFree = new Map<string, string>()
  for (const e of items) {
    const key = `${e.claim.namespace}/${e.claim.name}`
    const got = boundBy.get(key)
    if (got !== undefined && !((e.verdict === 'WillBind' || e.verdict === 'Bound') && e.volume === got)) {
      problems.push(`${key}: the round binds ${got}, the List says ${e.verdict} ${e.volume ?? ''}`)
    }
    // A free volume (no claimRef) the item says it binds: the round writes its claimRef, and no other item
    // of the pass is told it gets it.
    const free =
      e.verdict === 'WillBind' &&
      !e.storageClass.assignedByNextSync &&
      e.candidates.find((c) => c.volume === e.volume)?.claimRef === null
    if (free) {
      if (got !== e.volume)
        problems.push(`${key}: the List says WillBind ${e.volume}, the round binds ${got ?? 'nothing'}`)
      const other = toldFree.get(e.volume!)
      if (other !== undefined) problems.push(`${key} and ${other} are both told they get ${e.volume}`)
      toldFree.set(e.volume!, key)
    }
  }
  return problems
}
