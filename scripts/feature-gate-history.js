#!/usr/bin/env node
// Writes test/engine/feature-gate-history.json: the spec of each feature gate pvctl models, as
// k8s.io/kubernetes's pkg/features declares it at each release tag (kube_features.go, and
// versioned_kube_features.go where a tag has it). The sources come from the Go module proxy
// (`go mod download`), so the file can be made again on any machine with Go:
//   node scripts/feature-gate-history.js
// test/engine/feature-gate-table.test.ts holds the engine's table (src/engine/api/feature-gates.ts) to it.
import {execFileSync} from 'node:child_process'
import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const TAGS = ['v1.29.6', 'v1.30.14', 'v1.31.0', 'v1.32.13', 'v1.33.13', 'v1.34.4', 'v1.35.4', 'v1.36.3', 'v1.37.2']
const GATES = [
  'HonorPVReclaimPolicy',
  'VolumeAttributesClass',
  'CSIMigrationPortworx',
  'CSIMigrationRBD',
  'CSIMigrationAzureFile',
  'RecoverVolumeExpansionFailure',
  'PersistentVolumeClaimUnusedSinceTime',
  'PersistentVolumeLastPhaseTransitionTime',
]

/** `Default: true, PreRelease: featuregate.GA, LockToDefault: true` → {default, preRelease, lockToDefault}. */
function specOf(text) {
  const def = /Default:\s*(true|false)/.exec(text)
  const pre = /PreRelease:\s*featuregate\.(\w+)/.exec(text)
  if (def === null || pre === null) throw new Error(`cannot read a feature spec from: ${text}`)
  return {default: def[1] === 'true', preRelease: pre[1], lockToDefault: /LockToDefault:\s*true/.test(text)}
}

/** The specs of one gate in one tag's sources: [{version, spec}], version '*' for an unversioned one. */
function specsIn(sources, gate) {
  const found = []
  for (const source of sources) {
    const flat = new RegExp(`^\\s*${gate}:\\s*\\{(Default:[^}]*)\\}`, 'm').exec(source)
    if (flat !== null) found.push({version: '*', spec: specOf(flat[1])})
    const versioned = new RegExp(`^\\s*${gate}:\\s*\\{\\n((?:\\s*\\{Version:.*\\n)+)\\s*\\},`, 'm').exec(source)
    if (versioned !== null) {
      for (const m of versioned[1].matchAll(/\{Version: version\.MustParse\("([\d.]+)"\),([^}]*)\}/g))
        found.push({version: m[1], spec: specOf(m[2])})
    }
  }
  return found
}

/** The spec in force at the tag's minor version (component-base's featureSpecAtEmulationVersion), or null: not declared. */
function specAt(found, minor) {
  let current = null
  for (const {version, spec} of found) {
    if (version === '*' || Number(version.split('.')[1]) <= minor) current = spec
  }
  return current
}

const history = {
  source:
    'k8s.io/kubernetes pkg/features/kube_features.go and versioned_kube_features.go, at each tag (scripts/feature-gate-history.js)',
  tags: {},
}
for (const tag of TAGS) {
  const info = JSON.parse(
    execFileSync('go', ['mod', 'download', '-json', `k8s.io/kubernetes@${tag}`], {
      encoding: 'utf8',
      env: {...process.env, GOFLAGS: '-mod=mod'},
    }),
  )
  const dir = path.join(info.Dir, 'pkg', 'features')
  const sources = readdirSync(dir)
    .filter((f) => f.endsWith('features.go'))
    .map((f) => readFileSync(path.join(dir, f), 'utf8'))
  const minor = Number(tag.split('.')[1])
  const gates = {}
  for (const gate of GATES) {
    const spec = specAt(specsIn(sources, gate), minor)
    if (spec !== null) gates[gate] = spec
  }
  history.tags[tag] = gates
}
const out = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'test', 'engine', 'feature-gate-history.json')
writeFileSync(out, `${JSON.stringify(history, null, 1)}\n`)
process.stdout.write(`wrote ${path.relative(process.cwd(), out)}\n`)
