// The types of release.js, for the tests that use it.
export const HOMEPAGE: string
export const RELEASE_NODE: string
export interface Target {
  /** linux-amd64: the folder and archive suffix. */
  name: string
  os: string
  arch: string
  /** x64 or arm64: the node-linux-<nodeArch> package. */
  nodeArch: string
}
export const TARGETS: readonly Target[]
