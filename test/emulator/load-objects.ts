// The objects of a YAML or JSON file for the emulator: several documents and `kind: List` wrappers (what
// `kubectl get -o yaml` prints). Used by main.ts and scripts/demo.ts.
import {readFileSync} from 'node:fs'

import {parseAllDocuments} from 'yaml'

import type {K8sObject} from './emulator.js'

export function loadObjects(file: string): K8sObject[] {
  const objects: K8sObject[] = []
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
    if (doc.errors.length) throw new Error(`${file}: ${doc.errors[0].message}`)
    const value = doc.toJS() as K8sObject | null
    if (!value) continue
    if (typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items))
      objects.push(...(value.items as K8sObject[]))
    else objects.push(value)
  }
  return objects
}
