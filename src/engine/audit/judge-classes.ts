// The findings about StorageClasses. PURE. Judged only when StorageClasses were read (a snapshot without
// any says nothing about them) and no objects are named.
import {IsDefaultStorageClassAnnotation, NotSupportedProvisioner} from '../api/constants.js'
import type {ClaimExplanationFacts, Verdict} from '../explain/model.js'
import {defaultClassesNewestFirst} from '../explain/lookup.js'
import type {ClusterState} from '../api/model.js'
import {finding, type Finding} from './findings.js'

/** The most claims a class finding names; the evidence counts them all. */
const NAMED_CLAIMS = 10

/** The verdicts of the claims the class findings count (noDefault, bindingModeUnset): no other claim is read here. */
export const CLASS_FINDING_VERDICTS: ReadonlySet<Verdict> = new Set<Verdict>(['NoMatchingVolume', 'SyncError'])

/** `claims`: explain's facts of the claims in scope, or only those of CLASS_FINDING_VERDICTS (the rest are not read). */
export function judgeClasses(after: ClusterState, claims: readonly ClaimExplanationFacts[]): Finding[] {
  if (after.classes.length === 0) return []
  return [...multipleDefaults(after), ...noDefault(after, claims), ...bindingModeUnset(after, claims)]
}

function multipleDefaults(after: ClusterState): Finding[] {
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
      others
        .map((o) => `kubectl annotate storageclass ${o} ${IsDefaultStorageClassAnnotation}=false --overwrite`)
        .join(' && '),
    ),
  ]
}

/**
 * Claims without a class (storageClassName unset) that no volume matches wait for the controller's
 * retroactive default-class assignment; with no default class it has nothing to give them. explain says
 * so per claim (NoMatchingVolume, selection Unset); this says it once, for the cluster.
 */
function noDefault(after: ClusterState, claims: readonly ClaimExplanationFacts[]): Finding[] {
  if (defaultClassesNewestFirst(after.classes).length > 0) return []
  const waiting = claims
    .filter((e) => e.verdict === 'NoMatchingVolume' && e.storageClass.selection === 'Unset')
    .map((e) => `${e.claim.namespace}/${e.claim.name}`)
  if (waiting.length === 0) return []
  // The class to make default, when the choice is plain: the only one that provisions.
  const provisioning = after.classes
    .filter((c) => (c.provisioner ?? '') !== NotSupportedProvisioner)
    .map((c) => c.metadata.name ?? '')
  const named = waiting.slice(0, NAMED_CLAIMS).join(', ') + (waiting.length > NAMED_CLAIMS ? ', …' : '')
  return [
    finding(
      'NoDefaultStorageClass',
      {kind: 'StorageClass', name: '<none>'},
      `${waiting.length} claim${waiting.length === 1 ? '' : 's'} without a class wait${waiting.length === 1 ? 's' : ''} for a default StorageClass and none is marked default (${named}): mark one default and the controller gives it to them.`,
      {
        waitingClaims: waiting.slice(0, NAMED_CLAIMS),
        waiting: waiting.length,
        classes: after.classes.map((c) => c.metadata.name ?? ''),
      },
      provisioning.length === 1
        ? `kubectl annotate storageclass ${provisioning[0]} ${IsDefaultStorageClassAnnotation}=true`
        : 'kubectl get storageclass',
    ),
  ]
}

/**
 * IsDelayBindingMode (pv_controller.go's caller of it, pv-controller.ts): a class without volumeBindingMode
 * is an error ("VolumeBindingMode not set for StorageClass"), and every claim of it fails to sync. Any other
 * value is taken as Immediate unless it is WaitForFirstConsumer: not rejected, so not judged here.
 */
function bindingModeUnset(after: ClusterState, claims: readonly ClaimExplanationFacts[]): Finding[] {
  const unset = after.classes.filter((c) => c.volumeBindingMode == null)
  if (unset.length === 0) return []
  const byClass = new Map<string, string[]>()
  for (const e of claims) {
    if (e.verdict === 'SyncError') {
      const list = byClass.get(e.storageClass.name) ?? []
      list.push(`${e.claim.namespace}/${e.claim.name}`)
      byClass.set(e.storageClass.name, list)
    } else {
      // The claim syncs: its class's binding mode is not in its way.
    }
  }
  return unset.map((c) => {
    const name = c.metadata.name ?? ''
    const failing = byClass.get(name) ?? []
    return finding(
      'StorageClassBindingModeUnset',
      {kind: 'StorageClass', name},
      `The class has no volumeBindingMode: the controller rejects it and ${failing.length === 0 ? 'any claim of it will fail' : `${failing.length} claim${failing.length === 1 ? '' : 's'} of it fail`} to sync; re-create it with volumeBindingMode Immediate or WaitForFirstConsumer (the field is immutable).`,
      {volumeBindingMode: null, provisioner: c.provisioner ?? null, failingClaims: failing.slice(0, NAMED_CLAIMS)},
      `kubectl get storageclass ${name} -o yaml | sed '/^provisioner:/a volumeBindingMode: Immediate' | kubectl replace --force -f -`,
    )
  })
}
