#!/usr/bin/env node
// `npm run build`: compiles src/ into a fresh directory, then brings dist/ up to date file by file, each file
// replaced by a rename. A test or a `pvctl` running while someone builds therefore always imports whole files
// (the old or the new one), never an emptied dist/ (what `rm -rf dist && tsc` did), and files of deleted
// sources still disappear.
import {spawnSync} from 'node:child_process'
import {copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, rmdirSync, statSync, unlinkSync} from 'node:fs'
import path from 'node:path'

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')
const dist = path.join(root, 'dist')
const fresh = mkdtempSync(path.join(root, '.build-'))

function run(command, args) {
  const result = spawnSync(command, args, {cwd: root, stdio: 'inherit'})
  if (result.status !== 0) {
    rmSync(fresh, {recursive: true, force: true})
    process.exit(result.status ?? 1)
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

run(process.execPath, [path.join(root, 'node_modules', 'oclif', 'bin', 'run.js'), 'manifest'])
