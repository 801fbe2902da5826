// A skeleton OpenAPI v3: just enough for kubectl to learn that every served kind accepts the
// `fieldValidation` query parameter on PATCH (resource.queryParamVerifierV3). Knowing that, kubectl
// create/apply/replace leave validation to the server instead of downloading /openapi/v2 for
// client-side schema validation — which the emulator does not serve (404), so without this document
// those commands need --validate=false. No schemas are published: the emulator accepts
// fieldValidation=Strict but does not reject unknown fields (it has no schemas to know them by).
// PATCH operations list no request body, so kubectl computes apply patches from its built-in types.
import {createHash} from 'node:crypto'

import {GROUP_VERSIONS, RESOURCES} from './resources.js'
import type {JsonObject} from './types.js'

const gvPath = (group: string, version: string) => (group ? `apis/${group}/${version}` : `api/${version}`)

function document(group: string, version: string): JsonObject {
  const paths: JsonObject = {}
  for (const d of RESOURCES.filter((r) => r.group === group && r.version === version && r.verbs.includes('patch'))) {
    const prefix = `/${gvPath(group, version)}${d.namespaced ? '/namespaces/{namespace}' : ''}/${d.plural}/{name}`
    const patch = {
      operationId: `patch${d.kind}`,
      parameters: [
        {name: 'dryRun', in: 'query', schema: {type: 'string'}},
        {name: 'fieldManager', in: 'query', schema: {type: 'string'}},
        {name: 'fieldValidation', in: 'query', schema: {type: 'string'}},
      ],
      'x-kubernetes-action': 'patch',
      'x-kubernetes-group-version-kind': {group, version, kind: d.kind},
    }
    paths[prefix] = {patch}
  }
  return {openapi: '3.0.0', info: {title: 'Kubernetes', version: 'v1.32.0'}, paths}
}

const DOCS = new Map(GROUP_VERSIONS.map(({group, version}) => [gvPath(group, version), document(group, version)]))
const hashOf = (doc: JsonObject) =>
  createHash('sha512').update(JSON.stringify(doc)).digest('hex').slice(0, 32).toUpperCase()

/** GET /openapi/v3: the discovery root listing one document per group/version. */
export function openApiV3Root(): JsonObject {
  const paths: JsonObject = {}
  for (const [path, doc] of DOCS) paths[path] = {serverRelativeURL: `/openapi/v3/${path}?hash=${hashOf(doc)}`}
  return {paths}
}

/** GET /openapi/v3/<api/v1 | apis/g/v>. */
export const openApiV3Document = (path: string): JsonObject | undefined => DOCS.get(path)
