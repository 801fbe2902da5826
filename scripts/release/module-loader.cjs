// @oclif/core's module loader, as the single-file release bundles it (scripts/release.js puts this file in
// place of node_modules/@oclif/core/lib/module-loader.js). oclif loads the explicit command table and the
// hooks by file path; inside a single executable application import() and require() reach the built-in
// modules only, so the modules oclif asks for are the ones bundled here, by their path in the package.
// A path not listed is an error naming it, never a silent miss.
const path = require('node:path')

/** The package's modules oclif loads (package.json's oclif.commands target and hooks), bundled. */
const BUNDLED = {
  'dist/command-index.js': () => require('../../dist/command-index.js'),
  'dist/hooks/command-not-found.js': () => require('../../dist/hooks/command-not-found.js'),
}

function bundled(config, modulePath) {
  const rel = path.relative(config.root, modulePath).split(path.sep).join('/')
  const load = BUNDLED[rel]
  if (load === undefined) throw new Error(`the single-file pvctl does not bundle ${modulePath}`)
  return {filePath: modulePath, isESM: true, module: load()}
}

exports.BUNDLED_PATHS = Object.keys(BUNDLED)
exports.load = async (config, modulePath) => bundled(config, modulePath).module
exports.loadWithData = async (config, modulePath) => bundled(config, modulePath)
exports.loadWithDataFromManifest = async (cached) => {
  throw new Error(`the single-file pvctl has no manifest to load ${cached.id} from`)
}
exports.isPathModule = () => true
