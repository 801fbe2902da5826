// The entry of the single-file release (scripts/release.js bundles it, with everything it imports, into
// a Node.js single executable application). The executable has no package.json, no dist/ and no
// node_modules/ beside it: oclif is handed the package's description, and its root plugin discovers
// the commands through the explicit table (src/command-index.ts), loaded from the bundle
// (module-loader.cjs), never from the file system. Then bin/run.js runs, as in the npm install.
import path from 'node:path'

import {Plugin} from '../../dist/vendor/oclif-core.js'
import pjson from '../../package.json' with {type: 'json'}

// Installed as kubectl-pvctl (krew's link, or by hand) kubectl runs it as `kubectl pvctl`; as
// kubectl_complete-pvctl it answers kubectl's completion requests (bin/kubectl_complete-pvctl.js).
const invokedAs = path.basename(process.argv0)
if (invokedAs.startsWith('kubectl-') || invokedAs.startsWith('kubectl_complete-')) globalThis.pvctlBin = 'kubectl pvctl'
if (invokedAs.startsWith('kubectl_complete-')) process.argv.splice(2, 0, '__complete')

const root = path.dirname(process.execPath)
const oclif = {...pjson.oclif, bin: globalThis.pvctlBin ?? pjson.oclif.bin, commands: {strategy: 'explicit', target: './dist/command-index.js', identifier: 'COMMANDS'}}
const plugin = new Plugin({isRoot: true, root, pjson: {...pjson, oclif}, ignoreManifest: true})
await plugin.load()
globalThis.pvctlLoadOptions = {root, pjson: plugin.pjson, plugins: new Map([[plugin.name, plugin]])}
await import('../../bin/run.js')
