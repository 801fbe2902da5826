#!/usr/bin/env node
// A Node.js binary of a given version and processor, from the npm registry's node-linux-<arch> packages
// (the registry is the one place this project's machines download from), unpacked once into
// .tmp/node/<package>-<version>/ (bin/node, LICENSE, package.json) and reused. `npm pack` fetches the
// package without installing it, so a binary for another processor (the release's arm64) comes as readily
// as the machine's own, and npm checks the tarball against the registry's integrity.
//   node scripts/node-runtime.js VERSION [x64|arm64]   prints the binary's path
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {untarGz} from './tar.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

function run(command, args, cwd) {
  const r = spawnSync(command, args, {cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']})
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${r.error?.message ?? r.stderr.trim()}`)
  return r.stdout
}

/** The path of the node binary of VERSION for ARCH (x64 or arm64), fetched when not cached yet. */
export function nodeRuntime(version, arch = process.arch) {
  const pkg = `node-linux-${arch}`
  const dir = path.join(root, '.tmp', 'node', `${pkg}-${version}`)
  const binary = path.join(dir, 'bin', 'node')
  if (existsSync(binary)) return binary
  const scratch = `${dir}.${process.pid}.tmp`
  rmSync(scratch, {recursive: true, force: true})
  mkdirSync(scratch, {recursive: true})
  try {
    const [packed] = JSON.parse(run('npm', ['pack', '--json', '--silent', `${pkg}@${version}`], scratch))
    const unpacked = path.join(scratch, 'package')
    for (const file of untarGz(readFileSync(path.join(scratch, packed.filename)))) {
      if (!['package/bin/node', 'package/LICENSE', 'package/package.json'].includes(file.name)) continue
      const to = path.join(scratch, file.name)
      mkdirSync(path.dirname(to), {recursive: true})
      writeFileSync(to, file.data, {mode: file.mode})
    }
    if (!existsSync(path.join(unpacked, 'bin', 'node'))) throw new Error(`${pkg}@${version} holds no bin/node`)
    rmSync(dir, {recursive: true, force: true})
    renameSync(unpacked, dir)
  } finally {
    rmSync(scratch, {recursive: true, force: true})
  }
  return binary
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [version, arch] = process.argv.slice(2)
  if (version === undefined) {
    process.stderr.write('usage: node scripts/node-runtime.js VERSION [x64|arm64]\n')
    process.exit(2)
  }
  process.stdout.write(`${nodeRuntime(version, arch)}\n`)
}
