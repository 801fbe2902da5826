#!/usr/bin/env node
// `npm run build`: compiles src/ into a fresh directory, bundles @oclif/core beside it (vendorOclif), then
// brings dist/ up to date file by file, each file replaced by a rename. A test or a `pvctl` running while someone builds therefore always imports whole files
// (the old or the new one), never an emptied dist/ (what `rm -rf dist && tsc` did), and files of deleted
// sources still disappear.
import {spawnSync} from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')
const dist = path.join(root, 'dist')
const fresh = mkdtempSync(path.join(root, '.build-'))

function fail(message, status = 1) {
  if (message !== undefined) process.stderr.write(`build: ${message}\n`)
  rmSync(fresh, {recursive: true, force: true})
  process.exit(status)
}

function run(command, args, env = {}) {
  const result = spawnSync(command, args, {cwd: root, stdio: 'inherit', env: {...process.env, ...env}})
  if (result.status !== 0) fail(undefined, result.status ?? 1)
}

/**
 * @oclif/core as one ES module (dist/vendor/oclif-core.js), which every compiled module imports instead of
 * the package: Node resolves, reads and compiles the package's 158 CommonJS files at every start, and an
 * ES module importing CommonJS has its exports scanned besides: 180 ms to import it here, 120 ms the
 * bundle. One copy for the whole CLI (bin/run.js imports it too), so that oclif's classes are one set.
 * The banner gives the bundled CommonJS code the `require` and `__dirname` it expects. `typescript` stays
 * out: oclif loads it only to run TypeScript sources, which pvctl never asks.
 */
function vendorOclif(out) {
  const require = createRequire(import.meta.url)
  const bundle = path.join(out, 'vendor', 'oclif-core.js')
  // The package is CommonJS: an entry that names its exports, for the bundle to export them by name.
  const names = Object.keys(require('@oclif/core')).filter((name) => name !== 'default' && name !== '__esModule')
  const entry = path.join(out, 'oclif-core-entry.mjs')
  writeFileSync(entry, `import core from '@oclif/core'\nexport const {${names.join(', ')}} = core\n`)
  const banner = [
    "import {createRequire as vendorCreateRequire} from 'node:module'",
    "import {dirname as vendorDirname} from 'node:path'",
    "import {fileURLToPath as vendorFileURLToPath} from 'node:url'",
    'const require = vendorCreateRequire(import.meta.url)',
    'const __filename = vendorFileURLToPath(import.meta.url)',
    'const __dirname = vendorDirname(__filename)',
  ].join(';')
  try {
    require('esbuild').buildSync({
      entryPoints: [entry],
      outfile: bundle,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      external: ['typescript'],
      banner: {js: banner},
      logLevel: 'warning',
    })
  } catch (err) {
    fail(`bundling @oclif/core: ${err.message}`)
  }
  unlinkSync(entry)
  for (const rel of files(out)) {
    if (!rel.endsWith('.js') || rel.startsWith(`vendor${path.sep}`)) continue
    const file = path.join(out, rel)
    const text = readFileSync(file, 'utf8')
    if (!text.includes('@oclif/core')) continue
    let target = path.relative(path.dirname(file), bundle).split(path.sep).join('/')
    if (!target.startsWith('.')) target = `./${target}`
    const rewritten = text.replaceAll("from '@oclif/core';", `from '${target}';`)
    if (/(from|import)\s*\(?\s*['"]@oclif\/core/.test(rewritten))
      fail(`${rel} imports @oclif/core in a way the build does not rewrite`)
    writeFileSync(file, rewritten)
  }
}

/** Paths of the files under dir, relative to it. */
function files(dir) {
  if (!existsSync(dir)) return []
  return readdirSync(dir, {recursive: true}).filter((rel) => statSync(path.join(dir, rel)).isFile())
}

/** Removes the directories under dir (not dir itself) that hold no file. */
function pruneEmpty(dir) {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name)
    if (!statSync(full).isDirectory()) continue
    pruneEmpty(full)
    if (readdirSync(full).length === 0) rmdirSync(full)
  }
}

const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc')
run(process.execPath, [tsc, '-p', 'tsconfig.json', '--outDir', fresh])
vendorOclif(fresh)

const built = new Set(files(fresh))
for (const rel of built) {
  const from = path.join(fresh, rel)
  const to = path.join(dist, rel)
  if (existsSync(to) && readFileSync(to).equals(readFileSync(from))) continue
  mkdirSync(path.dirname(to), {recursive: true})
  const staged = `${to}.${process.pid}.tmp`
  copyFileSync(from, staged)
  renameSync(staged, to)
}
for (const rel of files(dist)) if (!built.has(rel)) unlinkSync(path.join(dist, rel))
pruneEmpty(dist)
rmSync(fresh, {recursive: true, force: true})

// oclif's dev CLI would otherwise check the registry for a newer oclif and print "update available":
// news about a build tool, not about the build.
run(process.execPath, [path.join(root, 'node_modules', 'oclif', 'bin', 'run.js'), 'manifest'], {
  OCLIF_SKIP_NEW_VERSION_CHECK: 'true',
})
