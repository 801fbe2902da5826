#!/usr/bin/env node
// `npm run release [-- --base-url URL] [--out DIR]`: pvctl as one file per platform, for machines without
// Node.js.
// The build's dist/ is bundled with esbuild (scripts/release/sea-main.js is the entry) into one ES
// module, which Node.js's own --build-sea turns into a single executable application with the node
// binary of each target, taken from the npm registry (scripts/node-runtime.js). Into release/ (or DIR):
//   linux-amd64/pvctl, linux-arm64/pvctl           the executables
//   pvctl-vX.Y.Z-linux-{amd64,arm64}.tar.gz        each with LICENSE, THIRD-PARTY-LICENSES and examples/
//   SHA256SUMS                                      sha256sum's format: `sha256sum -c SHA256SUMS`
//   pvctl.yaml                                      the krew plugin manifest (`kubectl krew install --manifest`)
//   pvctl.rb                                        the Homebrew formula, for a tap
// --base-url is where the archives will be downloaded from (the manifests name it); deploy/Dockerfile
// builds the container image from release/linux-*/pvctl. The archives have fixed times and owners
// (scripts/tar.js) and name no path of the building machine: the same sources give the same arm64
// archive, byte for byte, and the same amd64 one but for V8's code cache, which V8 writes anew each time.
import {spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {chmodSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {parseArgs} from 'node:util'

import {nodeRuntime} from './node-runtime.js'
import {tarGz} from './tar.js'

/** The Node.js inside the executables: the newest LTS line, whose --build-sea writes them directly. */
export const RELEASE_NODE = '26.12.1'
export const TARGETS = [
  {name: 'linux-amd64', os: 'linux', arch: 'amd64', nodeArch: 'x64'},
  {name: 'linux-arm64', os: 'linux', arch: 'arm64', nodeArch: 'arm64'},
]

/** The project's placeholder home (as deploy/'s image name is); a published release names its own --base-url. */
export const HOMEPAGE = 'https://github.com/example/pvctl'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(import.meta.url)
const pjson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))

function fail(message) {
  process.stderr.write(`release: ${message}\n`)
  process.exit(1)
}

function run(command, args, cwd = root) {
  const r = spawnSync(command, args, {cwd, stdio: 'inherit'})
  if (r.status !== 0) fail(`${command} ${args.join(' ')} failed`)
}

/**
 * The esbuild plugin that makes dist/ one file: the vendored @oclif/core (dist/vendor/, built for a package
 * with node_modules beside it) becomes the package itself, bundled; oclif's module loader becomes
 * scripts/release/module-loader.cjs, which serves the bundled command table and hooks; and the yaml
 * library, which dist/ requires lazily from node_modules, is bundled in, still loaded when first used.
 */
function singleFile() {
  const loader = path.join(root, 'scripts', 'release', 'module-loader.cjs')
  const {BUNDLED_PATHS} = require(loader)
  // What oclif will load: the explicit command table (sea-main.js names it) and the package's hooks.
  for (const target of ['./dist/command-index.js', ...Object.values(pjson.oclif.hooks ?? {}).flat()]) {
    if (!BUNDLED_PATHS.includes(path.posix.normalize(target)))
      fail(`scripts/release/module-loader.cjs does not bundle ${target}`)
  }
  return {
    name: 'pvctl-single-file',
    setup(build) {
      build.onResolve({filter: /\/vendor\/oclif-core\.js$/}, () => ({path: require.resolve('@oclif/core')}))
      build.onLoad({filter: /[\\/]@oclif[\\/]core[\\/]lib[\\/]module-loader\.js$/}, () => ({
        contents: readFileSync(loader, 'utf8'),
        loader: 'js',
        resolveDir: path.dirname(loader),
      }))
      build.onLoad({filter: /[\\/]dist[\\/]yaml-library\.js$/}, (args) => {
        const text = readFileSync(args.path, 'utf8')
        const lazy = text.replace(/^const require = createRequire\(import\.meta\.url\);\n/m, '')
        if (lazy === text)
          fail(
            `${path.relative(root, args.path)} no longer makes its require with createRequire: see scripts/release.js`,
          )
        return {contents: lazy, loader: 'js'}
      })
    },
  }
}

/** dist/ and everything it imports as one ES module; returns esbuild's metafile (which packages went in). */
async function bundle(outfile) {
  const esbuild = require('esbuild')
  const result = await esbuild.build({
    entryPoints: [path.join(root, 'scripts', 'release', 'sea-main.js')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node26',
    // Class names are compared at run time (oclif's ExitError in src/cli/base-command.ts).
    keepNames: true,
    // oclif loads TypeScript only to run .ts sources, which the bundle never has.
    external: ['typescript'],
    // The CommonJS inside (oclif, the yaml library) requires Node's built-in modules.
    banner: {
      js: "import {createRequire as releaseCreateRequire} from 'node:module';const require = releaseCreateRequire(import.meta.url);",
    },
    plugins: [singleFile()],
    metafile: true,
    // A third of the size: the client library's generated models are mostly comments. The licenses go
    // into the archive's THIRD-PARTY-LICENSES instead.
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  })
  return result.metafile
}

/** The license of every package in the bundle, and of Node.js, for the archive's THIRD-PARTY-LICENSES. */
function thirdPartyLicenses(metafile, nodeDir) {
  // By folder: two versions of a package (one nested in another's node_modules) are two entries.
  const packages = new Map()
  for (const input of Object.keys(metafile.inputs)) {
    const m = /^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(input)
    if (m !== null) packages.set(path.resolve(root, m[1]), m[2])
  }
  const sorted = [...packages].map(([dir, name]) => [name, dir]).sort(([a], [b]) => a.localeCompare(b))
  const sections = [['node', nodeDir], ...sorted].map(([name, dir]) => {
    const {version, license} = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'))
    const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)/i.test(f))
    const text =
      file === undefined
        ? `${license ?? 'see the package'} (the package ships no license file)`
        : readFileSync(path.join(dir, file), 'utf8').trim()
    return `${name}@${version} (${license ?? 'unknown'})\n\n${text}\n`
  })
  return `pvctl's single-file executable contains the following software.\n\n${sections.join(`\n${'-'.repeat(78)}\n\n`)}`
}

const sha256 = (data) => createHash('sha256').update(data).digest('hex')

function krewManifest(version, archives) {
  const platforms = archives.map(({target, url, sum}) =>
    [
      `  - selector:`,
      `      matchLabels:`,
      `        os: ${target.os}`,
      `        arch: ${target.arch}`,
      `    uri: ${url}`,
      `    sha256: ${sum}`,
      `    files:`,
      `      - from: pvctl`,
      `        to: .`,
      `      - from: LICENSE`,
      `        to: .`,
      `    bin: pvctl`,
    ].join('\n'),
  )
  return `apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: pvctl
spec:
  version: v${version}
  homepage: ${HOMEPAGE}
  shortDescription: Run the PersistentVolume controller's decisions by hand
  description: |
    pvctl runs the Kubernetes PersistentVolume controller's reconciliation
    over a snapshot or a live cluster: it shows every binding, release,
    recycle, deletion and phase change the controller would make, explains
    why a claim is Pending, audits volumes and claims, and makes the writes
    when asked. kubectl pvctl sync --dry-run prints the plan.
  platforms:
${platforms.join('\n')}
`
}

function brewFormula(version, archives) {
  const on = (arch) => archives.find((a) => a.target.arch === arch)
  return `# Homebrew formula of pvctl ${version}, written by npm run release. Homebrew installs formulae from a tap:
# put it in the tap's Formula/ folder, then brew install OWNER/TAP/pvctl.
class Pvctl < Formula
  desc "Run the PersistentVolume controller's decisions by hand"
  homepage "${HOMEPAGE}"
  version "${version}"
  license "Apache-2.0"
  depends_on :linux

  on_linux do
    on_intel do
      url "${on('amd64').url}"
      sha256 "${on('amd64').sum}"
    end
    on_arm do
      url "${on('arm64').url}"
      sha256 "${on('arm64').sum}"
    end
  end

  def install
    bin.install "pvctl"
    bin.install_symlink "pvctl" => "kubectl-pvctl"
    bin.install_symlink "pvctl" => "kubectl_complete-pvctl"
    pkgshare.install "examples"
    generate_completions_from_executable(bin/"pvctl", "completion")
  end

  test do
    assert_match "v${version}", shell_output("#{bin}/pvctl version --client")
    assert_match "converged", shell_output("#{bin}/pvctl sync --dry-run -f #{pkgshare}/examples/cluster.yaml", 1)
  end
end
`
}

async function release(out, baseUrl) {
  const work = path.join(out, '.work')
  run(process.execPath, [path.join(root, 'scripts', 'build.js')])
  rmSync(out, {recursive: true, force: true})
  mkdirSync(work, {recursive: true})
  const main = path.join(work, 'pvctl.mjs')
  const metafile = await bundle(main)
  const builder = nodeRuntime(RELEASE_NODE, process.arch)
  const contents = [
    {name: 'LICENSE', data: readFileSync(path.join(root, 'LICENSE')), mode: 0o644},
    {
      name: 'THIRD-PARTY-LICENSES',
      data: Buffer.from(thirdPartyLicenses(metafile, path.dirname(path.dirname(builder)))),
      mode: 0o644,
    },
    ...readdirSync(path.join(root, 'examples'))
      .sort()
      .map((f) => ({name: `examples/${f}`, data: readFileSync(path.join(root, 'examples', f)), mode: 0o644})),
  ]
  const archives = []
  for (const target of TARGETS) {
    const executable = path.join(out, target.name, 'pvctl')
    mkdirSync(path.dirname(executable), {recursive: true})
    const config = path.join(work, `sea-${target.name}.json`)
    // V8's code cache of the bundle halves the start-up (no parse of 5 MB at every run); it is made by the
    // builder's V8 for its own processor, so another processor's executable goes without (and parses).
    const useCodeCache = target.nodeArch === process.arch
    const runtime = nodeRuntime(RELEASE_NODE, target.nodeArch)
    // The client library's node-fetch needs the punycode module (DEP0040) and calls url.parse() on every
    // request (DEP0169), both deprecated; Node.js warns of them only to code outside node_modules, which all
    // the bundle is: the npm install prints no such warning.
    const execArgv = ['--disable-warning=DEP0040', '--disable-warning=DEP0169']
    // The main script's path as given is its name inside (import.meta.url, stack traces): relative, so that
    // no path of the building machine is in the executable and any folder gives the same bytes.
    writeFileSync(
      config,
      JSON.stringify(
        {
          main: path.basename(main),
          mainFormat: 'module',
          executable: runtime,
          output: executable,
          disableExperimentalSEAWarning: true,
          useCodeCache,
          execArgv,
        },
        null,
        2,
      ),
    )
    run(builder, ['--build-sea', config], work)
    chmodSync(executable, 0o755)
    const file = `pvctl-v${pjson.version}-${target.name}.tar.gz`
    const archive = tarGz([{name: 'pvctl', data: readFileSync(executable), mode: 0o755}, ...contents])
    writeFileSync(path.join(out, file), archive)
    archives.push({target, file, url: `${baseUrl}/${file}`, sum: sha256(archive)})
  }
  writeFileSync(path.join(out, 'SHA256SUMS'), archives.map((a) => `${a.sum}  ${a.file}\n`).join(''))
  writeFileSync(path.join(out, 'pvctl.yaml'), krewManifest(pjson.version, archives))
  writeFileSync(path.join(out, 'pvctl.rb'), brewFormula(pjson.version, archives))
  rmSync(work, {recursive: true, force: true})
  for (const f of readdirSync(out).sort()) {
    const full = path.join(out, f)
    if (statSync(full).isFile()) process.stdout.write(`${path.relative(root, full)}\t${statSync(full).size} bytes\n`)
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const {values} = parseArgs({options: {'base-url': {type: 'string'}, out: {type: 'string'}}})
  const baseUrl = (values['base-url'] ?? `${HOMEPAGE}/releases/download/v${pjson.version}`).replace(/\/$/, '')
  await release(path.resolve(values.out ?? path.join(root, 'release')), baseUrl)
  if (values['base-url'] === undefined)
    process.stdout.write(
      `release: the manifests name ${baseUrl}; pass --base-url for where the archives will be published\n`,
    )
}
