// The `yaml` library, loaded when first needed: start-up time that a JSON snapshot planned into a JSON
// report never uses (docs/performance.md, "What the code is shaped around"). Through require, because its callers (the snapshot parser, the kubectl YAML
// printer, the kubeconfig reader) are synchronous; the library's Node entry is CommonJS anyway.
import {createRequire} from 'node:module'

type YamlLibrary = typeof import('yaml')
type YamlUtil = typeof import('yaml/util')

const require = createRequire(import.meta.url)
let library: YamlLibrary | undefined
let util: YamlUtil | undefined

export function yamlLibrary(): YamlLibrary {
  return (library ??= require('yaml') as YamlLibrary)
}

export function yamlUtil(): YamlUtil {
  return (util ??= require('yaml/util') as YamlUtil)
}
