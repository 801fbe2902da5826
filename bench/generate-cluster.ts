// A generator of realistic clusters for the benchmark: `volumes` PersistentVolumes and as many claims,
// written as `kubectl get pv,pvc,storageclasses,pods,nodes -A -o json` prints them (a List, 4-space
// indented). Deterministic: the same size and seed give the same bytes.
//
// The mix, per 100 claims: 50 bound (their volumes Bound, a few of those bindings half-finished);
// 50 unbound — 25 that a free volume satisfies (some ask for a class that only has bigger volumes,
// some for several modes), 6 with a label selector, 3 naming a volume (spec.volumeName), 3 that a
// volume is pre-bound to (claimRef without uid), 6 of a WaitForFirstConsumer class (half of them with
// a pod), 5 whose class provisions (external CSI or host-path), 2 with no class and no match.
// Volumes besides the bound ones: Available (RWO mostly, some RWX/ROX/RWOP, some Block), Released
// with every reclaim policy (Retain, Recycle on NFS and host-path, Delete on host-path, CSI and an
// in-tree disk), Failed, Pending, a few being deleted.
//
//   npx tsx bench/generate-cluster.ts 100000 > big.json
import {closeSync, openSync, statSync, writeSync} from 'node:fs'

/** mulberry32: a small seeded PRNG, so generated clusters are reproducible. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type Obj = Record<string, unknown>

const SIZES = ['1Gi', '2Gi', '5Gi', '8Gi', '10Gi', '20Gi', '50Gi', '100Gi', '200Gi']
const NAMESPACE_COUNT = 200
const CREATED = '2026-01-15T10:00:00Z'

const classes: Obj[] = [
  sc('standard', 'kubernetes.io/no-provisioner', 'Immediate', 'Retain', true),
  sc('fast', 'kubernetes.io/no-provisioner', 'Immediate', 'Delete', false),
  sc('archive', 'kubernetes.io/no-provisioner', 'Immediate', 'Retain', false),
  sc('local', 'kubernetes.io/no-provisioner', 'WaitForFirstConsumer', 'Delete', false),
  sc('ebs', 'ebs.csi.aws.com', 'Immediate', 'Delete', false),
  sc('scratch', 'kubernetes.io/host-path', 'Immediate', 'Delete', false),
]
const STATIC_CLASSES = ['standard', 'standard', 'standard', 'fast', 'fast', 'archive']

function sc(name: string, provisioner: string, mode: string, reclaimPolicy: string, isDefault: boolean): Obj {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {
      name,
      uid: `sc-${name}`,
      resourceVersion: '10',
      creationTimestamp: CREATED,
      ...(isDefault ? {annotations: {'storageclass.kubernetes.io/is-default-class': 'true'}} : {}),
    },
    provisioner,
    reclaimPolicy,
    volumeBindingMode: mode,
  }
}

export interface GeneratedCluster {
  /** The List document. */
  list: Obj
  counts: {volumes: number; claims: number; pods: number}
}

export function generateCluster(volumes: number, seed = 1): GeneratedCluster {
  const rand = prng(seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]
  const chance = (p: number) => rand() < p
  let rv = 1000
  const nextRv = () => String(rv++)

  const pvs: Obj[] = []
  const pvcs: Obj[] = []
  const pods: Obj[] = []
  const pad = (i: number) => String(i).padStart(7, '0')
  const nsOf = (i: number) => `team-${String(i % NAMESPACE_COUNT).padStart(3, '0')}`
  const uidOf = (kind: string, i: number) => `${kind}-0000-4000-8000-${pad(i)}`

  const labelsFor = (): Record<string, string> => {
    const labels: Record<string, string> = {'topology.kubernetes.io/zone': pick(['zone-a', 'zone-b', 'zone-c'])}
    if (chance(0.4)) labels.tier = pick(['gold', 'silver', 'bronze'])
    if (chance(0.1)) labels.app = `app-${Math.floor(rand() * 500)}`
    return labels
  }
  const source = (name: string, kind: string): Obj => {
    switch (kind) {
      case 'nfs':
        return {nfs: {server: 'nfs.storage.internal', path: `/exports/${name}`}}
      case 'hostPath':
        return {hostPath: {path: `/mnt/data/${name}`, type: ''}}
      case 'gce':
        return {gcePersistentDisk: {pdName: name, fsType: 'ext4'}}
      default:
        return {csi: {driver: 'ebs.csi.aws.com', volumeHandle: `vol-${name}`, fsType: 'ext4'}}
    }
  }
  const pv = (
    name: string,
    o: {
      size: string
      modes: string[]
      klass: string
      phase: string
      policy: string
      src: string
      claimRef?: Obj
      annotations?: Record<string, string>
      labels?: Record<string, string>
      block?: boolean
      deleting?: boolean
      finalizers?: string[]
    },
  ): Obj => ({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name,
      uid: `pv-${name}`,
      resourceVersion: nextRv(),
      creationTimestamp: CREATED,
      labels: o.labels ?? labelsFor(),
      ...(o.annotations !== undefined ? {annotations: o.annotations} : {}),
      ...(o.deleting ? {deletionTimestamp: '2026-03-01T00:00:00Z', deletionGracePeriodSeconds: 0} : {}),
      finalizers: o.finalizers ?? ['kubernetes.io/pv-protection'],
    },
    spec: {
      accessModes: o.modes,
      capacity: {storage: o.size},
      ...source(name, o.src),
      persistentVolumeReclaimPolicy: o.policy,
      storageClassName: o.klass,
      volumeMode: o.block ? 'Block' : 'Filesystem',
      ...(o.claimRef !== undefined ? {claimRef: o.claimRef} : {}),
    },
    status: {phase: o.phase, lastPhaseTransitionTime: CREATED},
  })
  const pvc = (
    i: number,
    o: {
      size: string
      modes: string[]
      klass?: string
      phase: string
      volumeName?: string
      annotations?: Record<string, string>
      selector?: Obj
      block?: boolean
    },
  ): Obj => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: `data-${pad(i)}`,
      namespace: nsOf(i),
      uid: uidOf('pvc', i),
      resourceVersion: nextRv(),
      creationTimestamp: CREATED,
      labels: {app: `app-${i % 500}`},
      ...(o.annotations !== undefined ? {annotations: o.annotations} : {}),
      finalizers: ['kubernetes.io/pvc-protection'],
    },
    spec: {
      accessModes: o.modes,
      resources: {requests: {storage: o.size}},
      ...(o.klass !== undefined ? {storageClassName: o.klass} : {}),
      volumeMode: o.block ? 'Block' : 'Filesystem',
      ...(o.volumeName !== undefined ? {volumeName: o.volumeName} : {}),
      ...(o.selector !== undefined ? {selector: o.selector} : {}),
    },
    status:
      o.phase === 'Bound' ? {phase: 'Bound', accessModes: o.modes, capacity: {storage: o.size}} : {phase: o.phase},
  })
  const refTo = (i: number, withUid: boolean): Obj => ({
    kind: 'PersistentVolumeClaim',
    namespace: nsOf(i),
    name: `data-${pad(i)}`,
    apiVersion: 'v1',
    ...(withUid ? {uid: uidOf('pvc', i), resourceVersion: '900'} : {}),
  })
  const pod = (i: number, scheduled: boolean): Obj => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {name: `app-${pad(i)}-0`, namespace: nsOf(i), uid: uidOf('pod', i), resourceVersion: nextRv()},
    spec: {
      ...(scheduled ? {nodeName: `node-${i % 50}`} : {}),
      containers: [{name: 'app', image: 'registry.example/app:1.0'}],
      volumes: [{name: 'data', persistentVolumeClaim: {claimName: `data-${pad(i)}`}}],
    },
    status: {phase: scheduled ? 'Running' : 'Pending'},
  })
  const modesOf = (): string[] => {
    const r = rand()
    return r < 0.8
      ? ['ReadWriteOnce']
      : r < 0.9
        ? ['ReadWriteMany']
        : r < 0.95
          ? ['ReadOnlyMany', 'ReadWriteOnce']
          : ['ReadWriteOncePod']
  }

  let pvCount = 0
  const nextPvName = () => `pv-${pad(pvCount++)}`
  const claims = volumes
  for (let i = 0; i < claims; i++) {
    const size = pick(SIZES)
    const modes = modesOf()
    const block = chance(0.05)
    if (i % 2 === 0) {
      // A bound pair; one in 200 is half-finished (the volume points at the claim, the claim not yet).
      const name = nextPvName()
      const half = i % 400 === 0
      pvs.push(
        pv(name, {
          size,
          modes,
          klass: pick(STATIC_CLASSES),
          phase: 'Bound',
          policy: pick(['Retain', 'Delete']),
          src: pick(['csi', 'hostPath', 'gce']),
          claimRef: refTo(i, true),
          annotations: {'pv.kubernetes.io/bound-by-controller': 'yes'},
          block,
        }),
      )
      pvcs.push(
        pvc(i, {
          size,
          modes,
          klass: (pvs[pvs.length - 1].spec as Obj).storageClassName as string,
          phase: half ? 'Pending' : 'Bound',
          ...(half
            ? {}
            : {
                volumeName: name,
                annotations: {'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes'},
              }),
          block,
        }),
      )
      if (chance(0.3)) pods.push(pod(i, true))
      continue
    }
    const r = rand()
    if (r < 0.5) {
      // Satisfied by a free volume (added below, not necessarily the same size or mode set).
      pvcs.push(pvc(i, {size, modes, klass: pick(STATIC_CLASSES), phase: 'Pending', block}))
    } else if (r < 0.62) {
      // A label selector: a zone, a tier, or both.
      const selector: Obj = chance(0.5)
        ? {matchLabels: {'topology.kubernetes.io/zone': pick(['zone-a', 'zone-b', 'zone-c'])}}
        : chance(0.5)
          ? {matchLabels: {tier: pick(['gold', 'silver']), 'topology.kubernetes.io/zone': pick(['zone-a', 'zone-b'])}}
          : {
              matchExpressions: [
                {key: 'tier', operator: 'In', values: ['gold', 'silver']},
                {key: 'app', operator: 'DoesNotExist'},
              ],
            }
      pvcs.push(pvc(i, {size, modes, klass: pick(STATIC_CLASSES), phase: 'Pending', selector, block}))
    } else if (r < 0.68) {
      // Names its volume, which is free.
      const name = nextPvName()
      const klass = pick(STATIC_CLASSES)
      pvs.push(pv(name, {size, modes, klass, phase: 'Available', policy: 'Retain', src: 'csi', block}))
      pvcs.push(pvc(i, {size, modes, klass, phase: 'Pending', volumeName: name, block}))
    } else if (r < 0.74) {
      // A volume pre-bound to it by an administrator (claimRef without uid).
      const klass = pick(STATIC_CLASSES)
      pvs.push(
        pv(nextPvName(), {
          size,
          modes,
          klass,
          phase: 'Available',
          policy: 'Retain',
          src: 'nfs',
          claimRef: refTo(i, false),
          block,
        }),
      )
      pvcs.push(pvc(i, {size, modes, klass, phase: 'Pending', block}))
    } else if (r < 0.86) {
      // Binds on first consumer; half of them have a pod waiting to be scheduled.
      pvcs.push(pvc(i, {size, modes: ['ReadWriteOnce'], klass: 'local', phase: 'Pending'}))
      if (chance(0.5)) pods.push(pod(i, false))
    } else if (r < 0.96) {
      // Provisioned: by the external CSI provisioner, or the host-path plugin.
      pvcs.push(pvc(i, {size, modes, klass: chance(0.7) ? 'ebs' : 'scratch', phase: 'Pending', block}))
    } else {
      // No class at all (the default class is assigned) or explicitly none: no match.
      pvcs.push(pvc(i, {size: '500Gi', modes, ...(chance(0.5) ? {klass: ''} : {}), phase: 'Pending'}))
    }
  }
  // The rest of the volumes: free ones (some pre-bound to claims that do not exist yet), released ones
  // of every policy, failed, pending, some being deleted.
  let deleted = claims
  while (pvCount < volumes) {
    const name = nextPvName()
    const size = pick(SIZES)
    const r = rand()
    if (r < 0.7) {
      pvs.push(
        pv(name, {
          size,
          modes: modesOf(),
          klass: pick(STATIC_CLASSES),
          phase: 'Available',
          policy: pick(['Retain', 'Delete', 'Recycle']),
          src: pick(['csi', 'nfs', 'hostPath']),
          block: chance(0.05),
          deleting: chance(0.005),
        }),
      )
    } else if (r < 0.9) {
      // Released: its claim was deleted.
      const policy = pick(['Retain', 'Retain', 'Recycle', 'Delete', 'Delete'])
      const src =
        policy === 'Recycle'
          ? pick(['nfs', 'hostPath'])
          : policy === 'Delete'
            ? pick(['hostPath', 'csi', 'gce'])
            : pick(['csi', 'nfs'])
      const dynamic = policy === 'Delete' && src === 'csi'
      pvs.push(
        pv(name, {
          size,
          modes: modesOf(),
          klass: dynamic ? 'ebs' : pick(STATIC_CLASSES),
          phase: chance(0.5) ? 'Released' : 'Bound',
          policy,
          src,
          claimRef: refTo(deleted++, true),
          annotations: {
            'pv.kubernetes.io/bound-by-controller': 'yes',
            ...(dynamic ? {'pv.kubernetes.io/provisioned-by': 'ebs.csi.aws.com'} : {}),
          },
          ...(dynamic
            ? {finalizers: ['kubernetes.io/pv-protection', 'external-provisioner.volume.kubernetes.io/finalizer']}
            : {}),
          deleting: chance(0.01),
        }),
      )
    } else if (r < 0.95) {
      pvs.push(
        pv(name, {
          size,
          modes: modesOf(),
          klass: pick(STATIC_CLASSES),
          phase: 'Failed',
          policy: 'Delete',
          src: 'gce',
          claimRef: refTo(deleted++, true),
        }),
      )
    } else {
      pvs.push(
        pv(name, {size, modes: modesOf(), klass: pick(STATIC_CLASSES), phase: 'Pending', policy: 'Retain', src: 'csi'}),
      )
    }
  }
  const nodes = Array.from({length: 50}, (_, i) => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {name: `node-${i}`, uid: `node-${i}`, resourceVersion: '5'},
  }))
  return {
    // Each kind in the order `kubectl get sc,pv,pvc,pod,node -A -o json` lists it: etcd's key order,
    // by namespace then name. Claims and pods are generated round-robin over the namespaces; in that
    // order, not kubectl's, the plan walks its claims across the whole heap (measured ~15% slower).
    list: {
      apiVersion: 'v1',
      kind: 'List',
      metadata: {resourceVersion: ''},
      items: [classes, pvs, pvcs, pods, nodes].flatMap(inListOrder),
    },
    counts: {volumes: pvs.length, claims: pvcs.length, pods: pods.length},
  }
}

/** Objects of one kind sorted as an API server lists them: by namespace, then name, byte by byte. */
function inListOrder(objects: Obj[]): Obj[] {
  const keyOf = (o: Obj) => {
    const meta = o.metadata as {namespace?: string; name: string}
    return `${meta.namespace ?? ''}/${meta.name}`
  }
  return objects
    .map((o) => ({o, key: keyOf(o)}))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({o}) => o)
}

/** The List as `kubectl get -o json` prints it: 4-space indented, a final newline. */
export function clusterJson(cluster: GeneratedCluster): string {
  return JSON.stringify(cluster.list, null, 4) + '\n'
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const size = Number(process.argv[2] ?? 1000)
  process.stdout.write(clusterJson(generateCluster(size)))
}

/** The List written as `kubectl get -o json` prints it (4-space indent), item by item: no giant string. */
export function writeCluster(file: string, cluster: GeneratedCluster): number {
  const fd = openSync(file, 'w')
  try {
    const {items, ...head} = cluster.list as {items: unknown[]}
    const headText = JSON.stringify(head, null, 4)
    writeSync(fd, headText.slice(0, -2) + ',\n    "items": [\n')
    let batch: string[] = []
    items.forEach((item, i) => {
      batch.push(
        '        ' + JSON.stringify(item, null, 4).replace(/\n/g, '\n        ') + (i < items.length - 1 ? ',\n' : '\n'),
      )
      if (batch.length === 1000) {
        writeSync(fd, batch.join(''))
        batch = []
      }
    })
    writeSync(fd, batch.join('') + '    ]\n}\n')
  } finally {
    closeSync(fd)
  }
  return statSync(file).size
}
