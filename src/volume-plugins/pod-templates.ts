// The pods volume plugins run, as Kubernetes builds them.
import type {PersistentVolume, Pod} from '../engine/api/model.js'
import {parseQuantity, quantityValue} from '../engine/api/quantity.js'

/** The image of NewPersistentVolumeRecyclerPodTemplate (pkg/volume/plugins.go). */
export const RECYCLER_IMAGE = 'registry.k8s.io/build-image/debian-base:bookworm-v1.0.3'

/** The scrub command of the recycler template: empty the volume, then check that it is empty. */
export const SCRUB_COMMAND = 'test -e /scrub && find /scrub -mindepth 1 -delete && test -z "$(ls -A /scrub)" || exit 1'

/**
 * CalculateTimeoutForVolume: `increment` seconds per GiB, at least `minimum` (kube-controller-manager:
 * NFS 300 + 30/GiB, hostPath 60 + 30/GiB).
 */
export function timeoutForVolume(minimum: number, increment: number, volume: PersistentVolume): number {
  const size = quantityValue(parseQuantity(volume.spec.capacity?.storage ?? '0'))
  const gi = 1024n ** 3n
  const timeout = Number((size / gi) * BigInt(increment))
  return timeout < minimum ? minimum : timeout
}

/**
 * The recycler pod: "recycler-for-<pv>" in the default namespace, the volume's own source mounted at
 * /scrub. A template from --recycler-pod-template replaces the defaults but not the volume source.
 */
export function recyclerPod(
  volume: PersistentVolume,
  source: Record<string, unknown>,
  timeoutSeconds: number,
  template?: Pod,
): Pod {
  const base: Pod =
    template !== undefined
      ? structuredClone(template)
      : {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {},
          spec: {
            restartPolicy: 'Never',
            containers: [
              {
                name: 'pv-recycler',
                image: RECYCLER_IMAGE,
                command: ['/bin/sh'],
                args: ['-c', SCRUB_COMMAND],
                volumeMounts: [{name: 'vol', mountPath: '/scrub'}],
              },
            ],
          },
        }
  const spec = {...(base.spec ?? {})} as Record<string, unknown>
  const volumes = ((spec.volumes as Array<Record<string, unknown>> | undefined) ?? [{name: 'vol'}]).map((v, i) =>
    i === 0 ? {name: v.name ?? 'vol', ...source} : v,
  )
  return {
    ...base,
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...base.metadata,
      name: `recycler-for-${volume.metadata.name}`,
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a template read from a file may have no metadata
      namespace: base.metadata?.namespace ?? 'default',
    },
    spec: {...spec, volumes, activeDeadlineSeconds: timeoutSeconds} as unknown as Pod['spec'],
  }
}

/**
 * A pod that deletes a host-path directory on its node: the parent directory is mounted and the
 * volume's directory removed from it (a mounted directory cannot remove itself).
 */
export function hostPathCleanupPod(
  volume: PersistentVolume,
  path: string,
  timeoutSeconds: number,
  nodeName?: string,
): Pod {
  const parent = path.replace(/\/[^/]+\/?$/, '') || '/'
  const child = path.slice(parent.length).replace(/^\/|\/$/g, '')
  return deleterPod(
    volume,
    timeoutSeconds,
    nodeName !== undefined ? {nodeName} : {},
    {name: 'parent', path: parent, mountPath: '/parent'},
    `rm -rf -- "/parent/${child}" && test ! -e "/parent/${child}"`,
  )
}

/**
 * A pod that empties a local volume's directory on the volume's node: the volume's own node affinity
 * pins it there, and the scrub command of the recycler empties it.
 */
export function localCleanupPod(volume: PersistentVolume, path: string, timeoutSeconds: number): Pod {
  const required = (volume.spec.nodeAffinity as {required?: unknown} | undefined)?.required
  const placement =
    required !== undefined ? {affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: required}}} : {}
  return deleterPod(volume, timeoutSeconds, placement, {name: 'vol', path, mountPath: '/scrub'}, SCRUB_COMMAND)
}

/** The pod both deleters run: one host directory mounted, one shell command, bounded by the timeout. */
function deleterPod(
  volume: PersistentVolume,
  timeoutSeconds: number,
  placement: object,
  mount: {name: string; path: string; mountPath: string},
  script: string,
): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {name: `deleter-for-${volume.metadata.name}`, namespace: 'default'},
    spec: {
      restartPolicy: 'Never',
      activeDeadlineSeconds: timeoutSeconds,
      ...placement,
      volumes: [{name: mount.name, hostPath: {path: mount.path, type: 'Directory'}}],
      containers: [
        {
          name: 'pv-deleter',
          image: RECYCLER_IMAGE,
          command: ['/bin/sh'],
          args: ['-c', script],
          volumeMounts: [{name: mount.name, mountPath: mount.mountPath}],
        },
      ],
    },
  }
}
