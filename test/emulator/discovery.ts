// Discovery documents: what kubectl reads before it touches a resource, to turn `pv` into
// /api/v1/persistentvolumes. Only the legacy (unaggregated) documents are served: kubectl 1.32 asks for
// the aggregated apidiscovery.k8s.io/v2 form first and falls back when the answer's Content-Type is
// plain application/json, as it is here.
import {apiVersionOf, GROUP_VERSIONS, RESOURCES, type ResourceDef} from './resources.js'
import type {JsonObject} from './types.js'

/** GET /version: a v1.32 server unless the emulator is told another version (EmulatorOptions.version). */
export const SERVER_VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-pvctl-emulator',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2024-12-11T00:00:00Z',
  goVersion: 'go1.23.3',
  compiler: 'gc',
  platform: 'linux/amd64',
}

/** The /version document of a server of this gitVersion (`v1.34.2`): major and minor as a real one gives them. */
export function serverVersionOf(gitVersion: string): typeof SERVER_VERSION {
  const m = /^v(\d+)\.(\d+)/.exec(gitVersion)
  return {...SERVER_VERSION, major: m?.[1] ?? '', minor: m?.[2] ?? '', gitVersion}
}

/** GET /api: metav1.APIVersions. */
export function apiVersions(serverAddress: string): JsonObject {
  return {kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{clientCIDR: '0.0.0.0/0', serverAddress}]}
}

const groupVersions = () => GROUP_VERSIONS.filter((gv) => gv.group !== '')

/** GET /apis/<group>: metav1.APIGroup. */
export function apiGroup(group: string): JsonObject | undefined {
  const versions = groupVersions()
    .filter((gv) => gv.group === group)
    .map((gv) => ({groupVersion: `${gv.group}/${gv.version}`, version: gv.version}))
  if (versions.length === 0) return undefined
  return {kind: 'APIGroup', apiVersion: 'v1', name: group, versions, preferredVersion: versions[0]}
}

/** GET /apis: metav1.APIGroupList. */
export function apiGroupList(): JsonObject {
  const groups = [...new Set(groupVersions().map((gv) => gv.group))].map((g) => {
    const {kind: _k, apiVersion: _a, ...group} = apiGroup(g)!
    return group
  })
  return {kind: 'APIGroupList', apiVersion: 'v1', groups}
}

function apiResources(d: ResourceDef): JsonObject[] {
  const main: JsonObject = {
    name: d.plural,
    singularName: d.singular,
    namespaced: d.namespaced,
    kind: d.kind,
    verbs: d.verbs,
  }
  if (d.shortNames.length) main.shortNames = d.shortNames
  if (d.categories.length) main.categories = d.categories
  // Subresources are listed as `plural/sub` with an empty singularName, as the apiserver does.
  const subs = d.subresources.map((s) => ({
    name: `${d.plural}/${s}`,
    singularName: '',
    namespaced: d.namespaced,
    kind: d.kind,
    verbs: ['get', 'patch', 'update'],
  }))
  return [main, ...subs]
}

/** GET /api/v1 or /apis/<group>/<version>: metav1.APIResourceList. */
export function apiResourceList(group: string, version: string): JsonObject | undefined {
  const defs = RESOURCES.filter((d) => d.group === group && d.version === version)
  if (defs.length === 0) return undefined
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: apiVersionOf(defs[0]),
    resources: defs.flatMap(apiResources),
  }
}
