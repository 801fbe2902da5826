// fast-check generators of small, dense clusters for the differential tests: few names, sizes, modes,
// classes and labels, so that equal volumes, pre-bound pairs (with and without uid, and with a stale
// uid), claims naming volumes, selectors, delay binding, VolumeAttributesClasses, released and failed
// volumes of every policy, deletion timestamps and default classes meet often.
import fc from 'fast-check'

import {defaultFeatureGates, type FeatureGates} from '../../src/engine/api/feature-gates.js'
import type {
  ClusterState,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  StorageClass,
} from '../../src/engine/api/model.js'
import type {ObjectRef} from '../../src/engine/simulation/plan.js'
import type {ReconcileScope} from '../../src/engine/simulation/reconcile.js'
import type {VolumeOperations} from '../../src/engine/controller/volume-operations.js'

/** numRuns: PVCTL_PROPERTY_RUNS when set, else the default tuned to keep `npm test` (the fast lane) quick. */
export function propertyRuns(defaultRuns: number): number {
  const n = Number(process.env.PVCTL_PROPERTY_RUNS)
  return Number.isInteger(n) && n > 0 ? n : defaultRuns
}

export const NAMESPACES = ['default', 'team-a'] as const
export const CLAIM_NAMES = ['data', 'db', 'logs', 'cache', 'web'] as const
export const VOLUME_NAMES = [
  'pv-a',
  'pv-b',
  'pv-c',
  'pv-d',
  'pv-e',
  'pv-f',
  'pv-g',
  'pv-h',
  'pv-i',
  'pv-j',
  'pv-k',
  'pv-l',
] as const
export const CLASS_NAMES = ['gold', 'silver', 'wait', 'ext'] as const
// "1Gi" and "1073741824" are equal: ties between them go to the name that sorts first.
export const SIZES = ['0', '500Mi', '1Gi', '1073741824', '2Gi', '5Gi', '10Gi'] as const
export const MODES = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'] as const
const LABEL_KEYS = ['tier', 'zone', 'app'] as const
const LABEL_VALUES = ['gold', 'a', 'b'] as const
const PROVISIONERS = [
  'kubernetes.io/host-path',
  'kubernetes.io/no-provisioner',
  'example.com/csi',
  'kubernetes.io/gce-pd',
] as const

const maybe = <T>(arb: fc.Arbitrary<T>, freq = 0.5): fc.Arbitrary<T | undefined> =>
  fc.oneof(
    {weight: Math.round((1 - freq) * 10), arbitrary: fc.constant(undefined)},
    {weight: Math.round(freq * 10), arbitrary: arb},
  )

const labelsArb = fc.dictionary(fc.constantFrom(...LABEL_KEYS), fc.constantFrom(...LABEL_VALUES), {maxKeys: 3})
// Mostly the common mode sets, so that several volumes share a bucket; any subset now and then.
const modesArb = fc.oneof(
  {weight: 5, arbitrary: fc.constant<string[]>(['ReadWriteOnce'])},
  {weight: 2, arbitrary: fc.constant<string[]>(['ReadWriteOnce', 'ReadOnlyMany'])},
  {weight: 2, arbitrary: fc.subarray([...MODES], {minLength: 0, maxLength: 3})},
)

const uidOf = (namespace: string, name: string) => `uid-${namespace}-${name}`

function withoutUndefined<T extends object>(o: T): T {
  for (const key of Object.keys(o) as Array<keyof T>) if (o[key] === undefined) delete o[key]
  return o
}

const classArb = (name: string): fc.Arbitrary<StorageClass> =>
  fc
    .record({
      provisioner: fc.constantFrom(...PROVISIONERS),
      mode: fc.constantFrom<string | undefined>('Immediate', 'Immediate', 'WaitForFirstConsumer', undefined),
      isDefault: fc.boolean(),
      created: fc.constantFrom(undefined, '2024-01-01T00:00:00Z', '2025-01-01T00:00:00Z'),
      reclaimPolicy: fc.constantFrom('Delete', 'Retain'),
      mountOptions: maybe(fc.constant(['ro']), 0.2),
    })
    .map(
      ({provisioner, mode, isDefault, created, reclaimPolicy, mountOptions}) =>
        withoutUndefined({
          apiVersion: 'storage.k8s.io/v1',
          kind: 'StorageClass',
          metadata: withoutUndefined({
            name,
            creationTimestamp: created,
            annotations: isDefault ? {'storageclass.kubernetes.io/is-default-class': 'true'} : undefined,
          }),
          provisioner: name === 'wait' ? 'kubernetes.io/no-provisioner' : provisioner,
          volumeBindingMode: name === 'wait' ? 'WaitForFirstConsumer' : mode,
          reclaimPolicy,
          mountOptions,
        }) as StorageClass,
    )

const claimRefArb = fc.record({
  namespace: fc.constantFrom(...NAMESPACES),
  name: fc.constantFrom(...CLAIM_NAMES),
  // the claim's own uid, none (pre-bound by a user), or a stale one (the claim was re-created)
  uid: fc.constantFrom<'own' | 'none' | 'stale'>('own', 'own', 'none', 'stale'),
})

const volumeArb = (name: string): fc.Arbitrary<PersistentVolume> =>
  fc
    .record({
      size: maybe(fc.constantFrom(...SIZES), 0.9),
      modes: maybe(modesArb, 0.9),
      volumeMode: fc.constantFrom(undefined, 'Filesystem', 'Block'),
      className: fc.constantFrom(undefined, '', '', ...CLASS_NAMES, 'nope'),
      betaClass: maybe(fc.constantFrom('gold', ''), 0.1),
      labels: maybe(labelsArb, 0.6),
      phase: fc.constantFrom(
        undefined,
        'Pending',
        'Available',
        'Available',
        'Available',
        'Bound',
        'Released',
        'Failed',
      ),
      claimRef: maybe(claimRefArb, 0.45),
      policy: fc.constantFrom('Retain', 'Recycle', 'Delete', 'Delete', 'Bogus'),
      deleting: fc.constantFrom(false, false, false, false, false, true),
      boundByController: fc.boolean(),
      provisionedBy: maybe(
        fc.constantFrom('kubernetes.io/host-path', 'example.com/csi', 'kubernetes.io/gce-pd', ''),
        0.3,
      ),
      source: fc.constantFrom('hostPath', 'nfs', 'gcePersistentDisk', 'csi'),
      vac: maybe(fc.constantFrom('fast', 'slow'), 0.15),
      finalizers: maybe(
        fc.constantFrom<string[]>(
          ['kubernetes.io/pv-controller'],
          ['external-provisioner.volume.kubernetes.io/finalizer'],
        ),
        0.2,
      ),
    })
    .map((o) => {
      const annotations: Record<string, string> = {}
      if (o.boundByController) annotations['pv.kubernetes.io/bound-by-controller'] = 'yes'
      if (o.provisionedBy !== undefined) annotations['pv.kubernetes.io/provisioned-by'] = o.provisionedBy
      if (o.betaClass !== undefined) annotations['volume.beta.kubernetes.io/storage-class'] = o.betaClass
      const sources: Record<string, unknown> = {
        hostPath: {path: `/data/${name}`},
        nfs: {server: 'nfs.example', path: `/exports/${name}`},
        gcePersistentDisk: {pdName: name},
        csi: {driver: 'example.com/csi', volumeHandle: name},
      }
      const volume: PersistentVolume = {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: withoutUndefined({
          name,
          uid: `uid-${name}`,
          resourceVersion: '5',
          labels: o.labels,
          annotations: Object.keys(annotations).length > 0 ? annotations : undefined,
          finalizers: o.finalizers,
          deletionTimestamp: o.deleting ? '2026-01-01T00:00:00Z' : undefined,
        }),
        spec: withoutUndefined({
          capacity: o.size === undefined ? undefined : {storage: o.size},
          accessModes: o.modes,
          persistentVolumeReclaimPolicy: o.policy,
          storageClassName: o.className,
          volumeMode: o.volumeMode,
          volumeAttributesClassName: o.vac,
          claimRef:
            o.claimRef === undefined
              ? undefined
              : withoutUndefined({
                  kind: 'PersistentVolumeClaim',
                  apiVersion: 'v1',
                  namespace: o.claimRef.namespace,
                  name: o.claimRef.name,
                  uid:
                    o.claimRef.uid === 'own'
                      ? uidOf(o.claimRef.namespace, o.claimRef.name)
                      : o.claimRef.uid === 'stale'
                        ? 'uid-stale'
                        : undefined,
                }),
          [o.source]: sources[o.source],
        }),
        ...(o.phase !== undefined ? {status: {phase: o.phase}} : {}),
      }
      return volume
    })

const requirementArb = fc.oneof(
  fc.record({
    key: fc.constantFrom(...LABEL_KEYS),
    operator: fc.constant('In'),
    values: fc.subarray([...LABEL_VALUES], {minLength: 1}),
  }),
  fc.record({
    key: fc.constantFrom(...LABEL_KEYS),
    operator: fc.constant('NotIn'),
    values: fc.subarray([...LABEL_VALUES], {minLength: 1}),
  }),
  fc.record({key: fc.constantFrom(...LABEL_KEYS), operator: fc.constantFrom('Exists', 'DoesNotExist')}),
  // invalid: In without values (the controller's "error creating internal label selector")
  fc.record({key: fc.constantFrom(...LABEL_KEYS), operator: fc.constant('In'), values: fc.constant([] as string[])}),
)

const selectorArb = fc.oneof(
  {weight: 4, arbitrary: fc.record({matchLabels: labelsArb})},
  {weight: 3, arbitrary: fc.record({matchExpressions: fc.array(requirementArb, {minLength: 1, maxLength: 2})})},
  {weight: 1, arbitrary: fc.constant({})},
)

const claimArb = (namespace: string, name: string): fc.Arbitrary<PersistentVolumeClaim> =>
  fc
    .record({
      size: maybe(fc.constantFrom(...SIZES), 0.9),
      modes: maybe(modesArb, 0.9),
      volumeMode: fc.constantFrom(undefined, 'Filesystem', 'Block'),
      // undefined: no class at all (a default class applies); "": explicitly none
      className: fc.constantFrom<string | undefined>(undefined, undefined, '', ...CLASS_NAMES),
      betaClass: maybe(fc.constantFrom('silver', ''), 0.1),
      selector: maybe(selectorArb, 0.3),
      volumeName: maybe(fc.constantFrom(...VOLUME_NAMES, 'pv-missing'), 0.25),
      bindCompleted: fc.boolean(),
      boundByController: fc.boolean(),
      selectedNode: maybe(fc.constantFrom('node-1', 'node-gone'), 0.15),
      phase: fc.constantFrom(undefined, 'Pending', 'Pending', 'Bound', 'Lost'),
      vac: maybe(fc.constantFrom('fast', 'slow'), 0.1),
      labels: maybe(labelsArb, 0.2),
    })
    .map((o) => {
      const annotations: Record<string, string> = {}
      if (o.bindCompleted && (o.volumeName !== undefined || o.phase === 'Bound'))
        annotations['pv.kubernetes.io/bind-completed'] = 'yes'
      if (o.boundByController) annotations['pv.kubernetes.io/bound-by-controller'] = 'yes'
      if (o.selectedNode !== undefined) annotations['volume.kubernetes.io/selected-node'] = o.selectedNode
      if (o.betaClass !== undefined) annotations['volume.beta.kubernetes.io/storage-class'] = o.betaClass
      const claim: PersistentVolumeClaim = {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: withoutUndefined({
          name,
          namespace,
          uid: uidOf(namespace, name),
          resourceVersion: '7',
          labels: o.labels,
          annotations: Object.keys(annotations).length > 0 ? annotations : undefined,
        }),
        spec: withoutUndefined({
          accessModes: o.modes,
          resources: o.size === undefined ? undefined : {requests: {storage: o.size}},
          storageClassName: o.className,
          volumeMode: o.volumeMode,
          selector: o.selector,
          volumeName: o.volumeName,
          volumeAttributesClassName: o.vac,
        }),
        ...(o.phase !== undefined ? {status: {phase: o.phase}} : {}),
      }
      return claim
    })

const podArb = fc
  .record({
    namespace: fc.constantFrom(...NAMESPACES),
    name: fc.constantFrom('p1', 'p2', 'p3'),
    claim: fc.constantFrom(...CLAIM_NAMES),
    phase: fc.constantFrom('Pending', 'Running', 'Succeeded'),
    nodeName: maybe(fc.constant('node-1'), 0.5),
  })
  .map((o): Pod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {name: o.name, namespace: o.namespace},
    spec: {
      ...(o.nodeName !== undefined ? {nodeName: o.nodeName} : {}),
      volumes: [{name: 'data', persistentVolumeClaim: {claimName: o.claim}}],
    },
    status: {phase: o.phase},
  }))

/** A cluster of up to `maxVolumes` volumes and `maxClaims` claims (unique names), classes, pods, a node. */
export function clusterArb(maxVolumes = 10, maxClaims = 8): fc.Arbitrary<ClusterState> {
  const volumeNames = fc.uniqueArray(fc.constantFrom(...VOLUME_NAMES.slice(0, Math.max(1, maxVolumes))), {
    maxLength: maxVolumes,
  })
  const claimKeys = fc.uniqueArray(fc.tuple(fc.constantFrom(...NAMESPACES), fc.constantFrom(...CLAIM_NAMES)), {
    maxLength: maxClaims,
    selector: ([ns, name]) => `${ns}/${name}`,
  })
  const classNames = fc.subarray([...CLASS_NAMES])
  return fc.tuple(volumeNames, claimKeys, classNames).chain(([vNames, cKeys, cNames]) =>
    fc.record({
      volumes: fc.tuple(...vNames.map(volumeArb)),
      claims: fc.tuple(...cKeys.map(([ns, name]) => claimArb(ns, name))),
      classes: fc.tuple(...cNames.map(classArb)),
      pods: fc.uniqueArray(podArb, {maxLength: 3, selector: (p) => `${p.metadata.namespace}/${p.metadata.name}`}),
      nodes: fc.constant([{apiVersion: 'v1', kind: 'Node', metadata: {name: 'node-1'}}]),
    }),
  )
}

/** Gates of v1.31, and of the releases around a change of the controller's code (releases.ts): v1.30 (no VolumeAttributesClass checks), v1.36. */
export const gatesArb: fc.Arbitrary<FeatureGates> = fc
  .record({
    version: fc.constantFrom(30, 31, 36),
    HonorPVReclaimPolicy: fc.boolean(),
    VolumeAttributesClass: fc.boolean(),
    CSIMigrationPortworx: fc.constant(false),
  })
  .map((g) => ({...defaultFeatureGates, ...g}))

/** No plugin operations (they are planned as actions), or operations that run to the end. */
export type OperationsMode = 'none' | 'succeed' | 'fail'
const operationsModeArb = fc.constantFrom<OperationsMode>('none', 'none', 'succeed', 'fail')

/** How reconcile is asked: the whole cluster, a namespace or label scope, or named objects. */
export const runShapeArb: fc.Arbitrary<{
  scope?: ReconcileScope
  targets?: ObjectRef[]
  maxRounds?: number
  operations: OperationsMode
}> = fc.oneof(
  {weight: 6, arbitrary: fc.record({operations: operationsModeArb})},
  {
    weight: 1,
    arbitrary: fc.record({
      scope: fc.oneof(
        fc.record({namespace: fc.constantFrom(...NAMESPACES)}),
        fc.record({
          labelSelector: fc.record({
            matchLabels: fc.dictionary(fc.constantFrom(...LABEL_KEYS), fc.constantFrom(...LABEL_VALUES), {
              minKeys: 1,
              maxKeys: 1,
            }),
          }),
        }),
      ),
      operations: operationsModeArb,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      targets: fc.array(
        fc.oneof(
          fc.record({
            kind: fc.constant('PersistentVolumeClaim' as const),
            namespace: fc.constantFrom(...NAMESPACES),
            name: fc.constantFrom(...CLAIM_NAMES),
          }),
          fc.record({kind: fc.constant('PersistentVolume' as const), name: fc.constantFrom(...VOLUME_NAMES)}),
        ),
        {minLength: 1, maxLength: 2},
      ),
      maxRounds: fc.constantFrom(1, 2, 100),
      operations: operationsModeArb,
    }),
  },
)

/**
 * Plugin operations that run to the end, as a pure function of their input (so two runs of the engine
 * see the same outcomes). 'fail': a recycle of a volume whose name ends in "c" fails, a delete of one
 * ending in "d" is busy, provisioning of a claim named "cache" fails, and the controller retries them in
 * every sync (so such a run has no fixpoint); 'succeed': every call succeeds.
 */
export function deterministicOperations(mode: 'succeed' | 'fail'): VolumeOperations {
  const fails = mode === 'fail'
  return {
    recycle: (_plugin, volume) => (fails && (volume.metadata.name ?? '').endsWith('c') ? 'scrubber failed' : undefined),
    delete: (_plugin, volume) =>
      fails && (volume.metadata.name ?? '').endsWith('d') ? {deleteError: 'volume is busy', inUse: true} : {},
    provision: (_plugin, options) =>
      fails && options.claim.metadata.name === 'cache'
        ? {provisionError: 'out of space'}
        : {
            volume: {
              metadata: {name: options.pvName, labels: {tier: 'gold'}},
              spec: {
                capacity: {storage: options.claim.spec.resources?.requests?.storage ?? '1Gi'},
                accessModes: options.claim.spec.accessModes ?? undefined,
                persistentVolumeReclaimPolicy: options.storageClass.reclaimPolicy ?? 'Delete',
                hostPath: {path: `/provisioned/${options.pvName}`},
                ...(options.claim.spec.volumeMode != null ? {volumeMode: options.claim.spec.volumeMode} : {}),
              },
              status: {phase: 'Available'},
            },
          },
  }
}
