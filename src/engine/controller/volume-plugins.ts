// The volume-plugin seam: which plugin would recycle, delete or provision a volume. The engine only
// asks who would do it; the work itself is an action that an executor (or a test plugin) carries out.
//
// The default set is what kube-controller-manager v1.31 probes for the PV controller
// (cmd/kube-controller-manager/app/plugins.go ProbeControllerVolumePlugins): host-path (recycle, delete,
// and provision when --enable-hostpath-provisioner is given — for test clusters), nfs (recycle), and fc,
// iscsi and csi, which can do none of the three in-tree. CSI volumes are handed to external provisioners before a plugin is looked up.
import type {PersistentVolume} from '../api/model.js'

export interface VolumePlugin {
  name: string
  /** CanSupport(spec): does this plugin handle the volume's source? */
  canSupport(volume: PersistentVolume): boolean
  recycler: boolean
  deleter: boolean
  provisioner: boolean
  /** SupportsMountOption, for provisioning from a class with mountOptions. */
  supportsMountOption: boolean
  /**
   * The error NewProvisioner returns whatever the claim, when the plugin's configuration refuses to
   * provision (host-path without kube-controller-manager's --enable-hostpath-provisioner).
   */
  newProvisionerError?: string
  /**
   * The error Delete() returns for this volume whatever the storage holds (the host-path deleter refuses
   * paths outside /tmp/): the controller's delete operation fails at once, so a plan says so.
   */
  deleteRefusal?(volume: PersistentVolume): string | undefined
}

/** A lookup result: the plugin, or the Go error text VolumePluginMgr would return. */
export type PluginLookup = {plugin: VolumePlugin; error?: undefined} | {plugin?: undefined; error: string}

export class VolumePluginMgr {
  constructor(readonly plugins: readonly VolumePlugin[]) {}

  /** FindPluginBySpec: exactly one plugin must support the volume. */
  findPluginBySpec(volume: PersistentVolume): PluginLookup {
    const matches = this.plugins.filter((p) => p.canSupport(volume))
    if (matches.length === 0) return {error: 'no volume plugin matched'}
    if (matches.length > 1) {
      return {error: `multiple volume plugins matched: ${matches.map((p) => p.name).join(',')}`}
    }
    return {plugin: matches[0]}
  }

  /** FindPluginByName */
  findPluginByName(name: string): PluginLookup {
    const plugin = this.plugins.find((p) => p.name === name)
    if (plugin === undefined) return {error: `no volume plugin matched name: ${name}`}
    return {plugin}
  }

  findRecyclablePluginBySpec(volume: PersistentVolume): PluginLookup {
    const found = this.findPluginBySpec(volume)
    if (found.plugin === undefined) return found
    if (found.plugin.recycler) return found
    return {error: 'no recyclable volume plugin matched'}
  }

  findDeletablePluginBySpec(volume: PersistentVolume): PluginLookup {
    const found = this.findPluginBySpec(volume)
    if (found.plugin === undefined) return found
    if (found.plugin.deleter) return found
    return {error: 'no deletable volume plugin matched'}
  }

  findDeletablePluginByName(name: string): PluginLookup {
    const found = this.findPluginByName(name)
    if (found.plugin === undefined) return found
    if (found.plugin.deleter) return found
    return {error: 'no deletable volume plugin matched'}
  }

  findProvisionablePluginByName(name: string): PluginLookup {
    const found = this.findPluginByName(name)
    if (found.plugin === undefined) return found
    if (found.plugin.provisioner) return found
    return {error: 'no provisionable volume plugin matched'}
  }
}

function hasSource(field: string): (volume: PersistentVolume) => boolean {
  return (volume) => volume.spec[field] != null
}

const hostPathPlugin: VolumePlugin = {
  name: 'kubernetes.io/host-path',
  canSupport: hasSource('hostPath'),
  recycler: true,
  deleter: true,
  provisioner: true,
  supportsMountOption: false,
  // kube-controller-manager's --enable-hostpath-provisioner is off unless asked for (a test-cluster feature).
  newProvisionerError: 'provisioning in volume plugin "kubernetes.io/host-path" is disabled',
  deleteRefusal: hostPathDeleteRefusal,
}

/**
 * hostPathDeleter.Delete's check: Go's regexp.MatchString("/tmp/.+", path), which is not anchored (a path
 * with "/tmp/" and more anywhere in it passes). NewDeleter succeeds for any host path: this is Delete()'s error.
 */
export function hostPathDeleteRefusal(volume: PersistentVolume): string | undefined {
  const path = (volume.spec.hostPath as {path?: string} | undefined)?.path ?? ''
  return /\/tmp\/./.test(path) ? undefined : `host_path deleter only supports /tmp/.+ but received provided ${path}`
}

/** The plugins of kube-controller-manager v1.31's PV controller, by the volume source they support. */
export const controllerVolumePlugins: readonly VolumePlugin[] = [
  hostPathPlugin,
  {
    name: 'kubernetes.io/nfs',
    canSupport: hasSource('nfs'),
    recycler: true,
    deleter: false,
    provisioner: false,
    supportsMountOption: true,
  },
  {
    name: 'kubernetes.io/fc',
    canSupport: hasSource('fc'),
    recycler: false,
    deleter: false,
    provisioner: false,
    supportsMountOption: true,
  },
  {
    name: 'kubernetes.io/iscsi',
    canSupport: hasSource('iscsi'),
    recycler: false,
    deleter: false,
    provisioner: false,
    supportsMountOption: true,
  },
  {
    name: 'kubernetes.io/csi',
    canSupport: hasSource('csi'),
    recycler: false,
    deleter: false,
    provisioner: false,
    supportsMountOption: true,
  },
]

/**
 * pvctl's one extension of the controller's plugin set, off by default so that an audit says what
 * kube-controller-manager would do: a deleter for local volumes (through a cleanup pod on the volume's
 * node, as the local static provisioner cleans them). Without it, a local Delete volume whose claim is
 * gone ends Failed ("no volume plugin matched"), as it does in a cluster.
 */
export const localVolumeDeleterPlugin: VolumePlugin = {
  name: 'kubernetes.io/local-volume',
  canSupport: hasSource('local'),
  recycler: false,
  deleter: true,
  provisioner: false,
  supportsMountOption: true,
}

/** How the controller's plugins are configured: kube-controller-manager's flag, and pvctl's extension. */
export interface VolumePluginOptions {
  /** kube-controller-manager --enable-hostpath-provisioner (default false). */
  hostPathProvisioning?: boolean
  /** --local-volume-deleter: pvctl's deleter for local volumes joins the controller's plugins. */
  localVolumeDeleter?: boolean
}

export function defaultVolumePluginMgr(opts: VolumePluginOptions = {}): VolumePluginMgr {
  const plugins = opts.hostPathProvisioning
    ? controllerVolumePlugins.map((p) =>
        p === hostPathPlugin ? {...hostPathPlugin, newProvisionerError: undefined} : p,
      )
    : [...controllerVolumePlugins]
  if (opts.localVolumeDeleter) plugins.push(localVolumeDeleterPlugin)
  return new VolumePluginMgr(plugins)
}
